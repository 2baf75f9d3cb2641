"""The strength cases of a "Build this" entry: one per threshold of the share of mutants its test kills.

The share is measured by :mod:`reading_maths.kit.strength`; this module turns it into a verdict and, for a
weak test, feedback in the course's words: what its source shows (:func:`test_habits`), the changes it
missed, and what a strong test does.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from reading_maths.kit.mistakes import failure
from reading_maths.kit.reference import hidden_rng
from reading_maths.kit.strength import BUDGET, MIN_JUDGED, judged
from reading_maths.sandbox.errors import CallTimeout, ProcessDied, StudentError
from reading_maths.sandbox.mutant_calls import definition

if TYPE_CHECKING:
    from reading_maths.kit.build import _Entry

THRESHOLDS = (0.5, 0.7, 0.85, 1.0)
"""A strength case passes when the test kills at least this share of the mutants that count."""
BEYOND = 0.85
"""From this threshold on, the test must also kill that share of the blind mutants (the example's output
unchanged), the pinned one always: what it adds beyond the hand-worked example."""
ADVICE = ("A strong test checks the values of the hand-worked example, not only that the function runs or the "
          "shape of what it returns, and pushes to the extremes: a batch of several rows, a large or a zero input, "
          "parameters that are not all ones and zeros.")


ASSERTS_NOTHING = "Your test asserts nothing: it passes whatever the implementation computes."
ASSERTS_A_CONSTANT = ("Your test only asserts a constant (`assert True`): it passes whatever the implementation "
                      "computes.")
ONLY_SHAPES = "Your test only checks the shape of the result: a wrong formula of the right shape passes it."
ONLY_THE_EXAMPLE = ("Your test checks nothing your hand-worked example does not (that earns its own point): an "
                    "implementation right on your example and wrong elsewhere passes it. Check a second case worked "
                    "by hand, or a property the equation implies, on other inputs.")
COPY = ("A function that computes what the implementation computes shares its mistakes: each mutant was put in its "
        "place too, so comparing with it catches nothing. Compare with values worked by hand, or with properties the "
        "equation implies.")
UNJUDGED = ("A test that behaves differently while it is judged (it failed, or ran past its limit, while its calls "
            "were watched), or builds a copy of the implementation while it runs, cannot be judged: it earns no "
            "strength points. Check values worked by hand.")
HABITS = (ASSERTS_NOTHING, ASSERTS_A_CONSTANT, ONLY_SHAPES, ONLY_THE_EXAMPLE, COPY, UNJUDGED)
"""What :func:`test_habits` can say (fixed sentences: the hidden run may repeat them)."""


def test_habits(source: str) -> str | None:
    """What a weak test's source shows: no assert at all, asserts of constants only, or shapes only."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    asserts = [n for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    checks = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and "assert" in ast.unparse(n.func).lower()]
    if not asserts and not checks:
        return ASSERTS_NOTHING
    if not checks and all(isinstance(a.test, ast.Constant) for a in asserts):
        return ASSERTS_A_CONSTANT
    texts = [ast.unparse(n) for n in asserts + checks]
    if all("shape" in t or "len(" in t or "ndim" in t for t in texts):
        return ONLY_SHAPES
    return None


def strong(e: _Entry, threshold: float, seed: tuple[int, ...]) -> None:
    e.output()  # it runs on the example (its arguments named as the table names them), or there is nothing to mutate
    impl = e.function(e.impl, e.name.replace("entry", "implementation"))
    test = e.function(e.test, e.name.replace("entry", "test"))
    try:
        found = judged(impl, test, e.entry, int(hidden_rng(seed, e.name).integers(2**32)))
    except (LookupError, ValueError, StudentError) as exc:
        raise failure("source-unreadable",
            f"{e.name}: the source of your implementation cannot be read ({exc}); write it as "
            "one def in a cell.") from None
    except (CallTimeout, ProcessDied):
        raise failure("process-stopped",
            f"{e.name}: your test or your implementation stopped the notebook's process, so your "
            "test could not be judged.") from None
    if found.test_failed:
        raise failure("test-fails",
            f"{e.name}: your test fails on your own implementation, so it cannot judge altered "
            "copies of it: make it pass first.")
    if found.twins_unknown:
        unknown = failure("test-compares-with-a-copy",
            f"{e.name}: your test could not be judged. {UNJUDGED}")
        unknown.explanation = UNJUDGED
        raise unknown
    if found.decoy_timed_out:
        raise failure("test-too-slow",
            f"{e.name}: your test was stopped after {found.decoy_timed_out:g} s, the time limit of one run of it "
            "on a mutant or a decoy, on a copy of your implementation that computes the same thing, so it could "
            "not be judged: make it faster (smaller inputs, fewer repetitions).")
    if found.decoy_failed:
        raise failure("test-judges-how-written",
            f"{e.name}: your test fails on a copy of your implementation that computes exactly the "
            f"same thing, written differently ({found.decoy_failed}), so it judges how the function "
            "is written (its source, its bytecode, its identity), not what it computes: it earns no "
            "strength points. Test the outputs.")
    if found.changed < MIN_JUDGED:
        raise failure("too-little-to-mutate",
            f"{e.name}: too little to mutate: write the computation out. Only {found.changed} of "
            f"the {found.mutants - found.pinned} mutants of your implementation compute something different, so "
            "your test cannot be judged; write the equation's computation in the function itself, "
            "not in another function it calls, and without code that does nothing.")
    if found.share >= threshold and (threshold < BEYOND or found.blind_share >= threshold):
        return
    if found.share >= threshold:
        blind = failure("test-checks-only-the-example",
            f"{e.name}: your test caught {found.blind_killed} of the {found.blind} changes to your implementation "
            f"that leave your example's output as it is but are wrong on other inputs. {ONLY_THE_EXAMPLE}")
        blind.explanation = ONLY_THE_EXAMPLE
        raise blind
    steps = ", ".join(f"{t:.0%}" for t in THRESHOLDS[:-1]) + f" and {THRESHOLDS[-1]:.0%}"
    lines = [f"{e.name}: your test caught {found.killed} of the {found.counted} mutants of your implementation "
             f"({found.share:.0%}); it earns a point at each of {steps}."]
    habit = COPY if found.twins else test_habits(_source(test))
    if found.twins:
        lines.append(f"Your test compares with `{found.twins[0]}`, which returns what your implementation returns.")
    if habit:
        lines.append(habit)
    if found.survivors:
        lines.append("Changes it missed: " + "; ".join(found.survivors[:4]) + ".")
    if found.not_tried:
        lines.append(f"{found.not_tried} mutants were not tried: the trials of one entry may take {BUDGET:g} s in "
                     "all, and your test is too slow to try them all.")
    lines.append(ADVICE)
    failed = failure("test-compares-with-a-copy" if found.twins else "weak-test", " ".join(lines))
    failed.explanation = habit  # what its source shows: a fixed sentence, said in the hidden run too
    raise failed


def _source(test: Any) -> str:
    try:
        return definition(test)
    except (LookupError, StudentError, CallTimeout, ProcessDied):
        return ""
