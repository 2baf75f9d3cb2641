"""The "Build this" graders as classifiers, case by case: how the corpora's right entries, wrong entries and
cheats fare on each of an entry's 11 cases, and what one entry costs to grade.

    .venv/bin/python benchmarks/build_cases.py

Right entries (``RIGHT`` of tests/corpora/build/entry_*.py and tests/corpora/fresh/build/) must pass every case;
a wrong entry fails the cases its mistake touches; a cheat (an entry of a corpus's ``SCORES``) is a wrong test
whose strength points must not be bought. Each cell is "failed / graded" for that kind of entry.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from classroom.corpus import read_corpus  # noqa: E402
from reading_maths.course import Assignment  # noqa: E402
from reading_maths.kit.build import CASES  # noqa: E402


def main() -> None:
    build = Assignment("build", ROOT)
    failed: dict[str, Counter] = {kind: Counter() for kind in ("right", "wrong", "cheat")}
    graded: Counter = Counter()
    seconds: list[float] = []
    for path in sorted((ROOT / "tests" / "corpora" / "build").glob("entry_*.py")):
        corpus = read_corpus(path)
        cheats = set(corpus.get("SCORES", {}))
        kinds = [("right", env) for env in corpus.get("RIGHT", {}).values()]
        kinds += [("cheat" if name in cheats else "wrong", env) for name, (env, _) in corpus.get("WRONG", {}).items()]
        for kind, env in kinds:
            started = time.perf_counter()
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = build.grader(path.stem).run(env)
            seconds.append(time.perf_counter() - started)
            graded[kind] += 1
            failed[kind].update(c.name for c in result.cases if not c.passed)
    print(f"| case | right ({graded['right']}) | wrong ({graded['wrong']}) | cheats ({graded['cheat']}) |")
    print("|---|---|---|---|")
    for case in CASES:
        print(f"| {case} | " + " | ".join(f"{failed[k][case]} failed" for k in ("right", "wrong", "cheat")) + " |")
    print(f"\n{len(seconds)} entries graded in process: median {np.median(seconds):.2f} s, "
          f"max {max(seconds):.2f} s an entry")


if __name__ == "__main__":
    main()
