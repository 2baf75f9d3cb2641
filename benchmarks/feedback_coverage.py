"""Share of wrong corpus answers whose feedback names what is wrong, per question and per assignment.

    .venv/bin/python benchmarks/feedback_coverage.py [--list]

A wrong answer counts as *targeted* when some failed case names a catalogued mistake, a broken
property of the text, or a concrete fault (not a function, not numbers, wrong shape, an
exception, an input changed in place, an item's own teaching note, which part of a formula
differs); it is *generic* when every failed case only says "has the wrong values" (or "is not the
claimed formula").  ``--list`` prints the generic ones.
"""

from __future__ import annotations

import re
import runpy
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reading_maths.course import Assignment  # noqa: E402

GENERIC = ("has the wrong values.", "is not the claimed formula for m_k.",
           "is not m_1 (apply the recursion once to m_0 = 0).", "with the hypothesis put in for m_k.")
"""Endings of feedback that says only that something is wrong (once a public case's "Input: …" is cut off)."""


def targeted(result) -> bool:
    """Whether the feedback names what is wrong, beyond "the result has the wrong values"."""
    if result.mistakes or result.status == "missing":
        return True
    failed = [c.message for c in result.cases if not c.passed and c.message]
    return any(not re.sub(r" Input: .*", "", m, flags=re.S).rstrip().endswith(GENERIC) for m in failed)


def coverage(root: Path = ROOT) -> dict[tuple[str, str], tuple[int, int, list[str]]]:
    """``(assignment, question) -> (targeted, wrong, names of generic entries)`` over every corpus."""
    table = {}
    for path in sorted((root / "tests" / "corpora").glob("*/*.py")):
        grader = Assignment(path.parent.name, root).grader(path.stem)
        hit, generic = 0, []
        wrong = runpy.run_path(str(path)).get("WRONG", {})
        for name, (env, _) in wrong.items():
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = grader.run(env)
            if targeted(result):
                hit += 1
            else:
                generic.append(name)
        table[path.parent.name, path.stem] = (hit, len(wrong), generic)
    return table


def main() -> None:
    table = coverage()
    per_assignment: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (assignment, question), (hit, total, generic) in table.items():
        per_assignment[assignment][0] += hit
        per_assignment[assignment][1] += total
        print(f"{assignment}/{question:<26} {hit:>3} / {total:<3} targeted")
        if "--list" in sys.argv:
            for name in generic:
                print(f"    generic: {name}")
    print()
    for assignment, (hit, total) in per_assignment.items():
        print(f"{assignment:<10} {hit:>3} / {total:<3} = {100 * hit / max(total, 1):5.1f}% targeted")
    hit, total = (sum(v[i] for v in per_assignment.values()) for i in (0, 1))
    print(f"{'all':<10} {hit:>3} / {total:<3} = {100 * hit / max(total, 1):5.1f}% targeted")


if __name__ == "__main__":
    main()
