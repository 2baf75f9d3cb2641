"""Share of wrong corpus answers whose feedback names what is wrong, per question and per assignment.

    .venv/bin/python benchmarks/feedback_coverage.py [--list]

A wrong answer counts as *targeted* when some failed case names a catalogued mistake, a broken
property of the text, or a concrete fault (not a function, not numbers, wrong shape, an
exception, an input changed in place, an item's own teaching note, which part of a formula
differs); it is *generic* when every failed case only says "has the wrong values" (or "is not the
claimed formula").  ``--list`` prints the generic ones, and the ones that only state a symptom.

A finer split of the same answers: one *names the mistake* when some failed case names a catalogued
mistake of the grader's own or a specific fault (a broken property of the text, an input changed in
place, not a function, a result that is not numbers, a formula's differing part, an item's note);
otherwise it *states a symptom*: every failed case says only that the values are wrong, contain inf
or nan, have the wrong shape, or that the code raised an exception.
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
from reading_maths.kit import FAILURES  # noqa: E402

GENERIC = ("has the wrong values.", "is not the claimed formula for m_k.",
           "is not m_1 (apply the recursion once to m_0 = 0).", "with the hypothesis put in for m_k.")
"""Endings of feedback that says only that something is wrong (once a public case's "Input: …" is cut off)."""


def targeted(result) -> bool:
    """Whether the feedback names what is wrong, beyond "the result has the wrong values"."""
    if result.mistakes or result.status == "missing":
        return True
    failed = [c.message for c in result.cases if not c.passed and c.message]
    return any(not re.sub(r" Input: .*", "", m, flags=re.S).rstrip().endswith(GENERIC) for m in failed)


SYMPTOMS = ("wrong-values", "not-finite", "wrong-shape", "raised")
"""The kinds of failure that state only a symptom, unless the case's feedback adds what caused it."""


def names_the_mistake(result, own: frozenset[str]) -> bool:
    """Whether some failed case names a catalogued mistake of the grader's own (``own``) or a specific fault."""
    if result.status == "missing" or set(result.mistakes) & own:
        return True
    for case in (c for c in result.cases if not c.passed and c.message):
        if case.mistake in own or (case.mistake is not None and case.mistake not in SYMPTOMS):
            return True
        said = re.sub(r" Input: .*", "", case.message, flags=re.S).rstrip()
        if case.mistake in (None, "wrong-values") and not said.endswith(GENERIC):
            return True  # a property's or a formula's words beside the symptom
    return False


Row = tuple[int, int, int, list[str], list[str]]
"""``(targeted, names the mistake, wrong, generic entries, entries that state only a symptom)``"""


def coverage(root: Path = ROOT) -> dict[tuple[str, str], Row]:
    """``(assignment, question) -> Row`` over every corpus."""
    table = {}
    for path in sorted((root / "tests" / "corpora").glob("*/*.py")):
        grader = Assignment(path.parent.name, root).grader(path.stem)
        own = frozenset(m.name for m in grader.mistakes) - {m.name for m in FAILURES}
        hit, named, generic, symptom = 0, 0, [], []
        wrong = runpy.run_path(str(path)).get("WRONG", {})
        for name, (env, _) in wrong.items():
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = grader.run(env)
            if targeted(result):
                hit += 1
            else:
                generic.append(name)
            if names_the_mistake(result, own):
                named += 1
            else:
                symptom.append(name)
        table[path.parent.name, path.stem] = (hit, named, len(wrong), generic, symptom)
    return table


def _line(what: str, hit: int, named: int, total: int) -> str:
    return (f"{what:<36} {hit:>3} / {total:<3} targeted   {named:>3} name the mistake   "
            f"{total - named:>3} state a symptom")


def main() -> None:
    table = coverage()
    per_assignment: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for (assignment, question), (hit, named, total, generic, symptom) in table.items():
        for i, n in enumerate((hit, named, total)):
            per_assignment[assignment][i] += n
        print(_line(f"{assignment}/{question}", hit, named, total))
        if "--list" in sys.argv:
            for name in generic:
                print(f"    generic: {name}")
            for name in symptom:
                print(f"    symptom only: {name}")
    print()
    for assignment, (hit, named, total) in per_assignment.items():
        print(_line(assignment, hit, named, total) + f"   ({100 * named / max(total, 1):5.1f}% named)")
    hit, named, total = (sum(v[i] for v in per_assignment.values()) for i in range(3))
    print(_line("all", hit, named, total) + f"   ({100 * named / max(total, 1):5.1f}% named)")


if __name__ == "__main__":
    main()
