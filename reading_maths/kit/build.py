"""The automatic cases of one "Build this" entry, in the course's words.

Each entry ``k`` is three names of the notebook: the dict ``entry_k`` (see
:mod:`reading_maths.kit.entries`), the function ``implementation_k`` and the test ``test_k``.  Its
grader file unpacks ``entry_cases(k, SEED, worked)`` into the cases named in :data:`CASES`; a failing case
raises :class:`~reading_maths.kit.mistakes.Failed` with an id of :data:`MISTAKES`.  The cases:

- the symbol table covers every symbol of the equation (read with :mod:`reading_maths.kit.latex`);
- the shapes agree: running the implementation on the example gives each dimension one size;
- the implementation reproduces the hand-worked example, and the example is tiny;
- the equation, where it can be read as a formula (:mod:`reading_maths.kit.equation_value`), gives the
  implementation's output and the hand-worked one on the example;
- the test passes on the implementation, and it is strong: it kills mutants of the implementation
  (:mod:`reading_maths.kit.strength`), one case per threshold of the share killed
  (:mod:`reading_maths.kit.strength_case`);
- the equation is new: not another entry's, not the worked entry's, not one the course works itself.

A part of the entry off the format fails only the cases that read it (:data:`PARTS`), each saying what to change.
"""

from __future__ import annotations

import inspect
import unicodedata
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import latex
from reading_maths.kit.entries import read_parts, same_output, shape_problems, tiny_problems
from reading_maths.kit.equation_value import equation_value
from reading_maths.kit.mistakes import Mistake, failure
from reading_maths.kit.mutation import parse_function
from reading_maths.kit.novelty import COURSE_EQUATIONS, course_function, known_piece
from reading_maths.kit.reference import hidden_rng
from reading_maths.kit.strength_case import THRESHOLDS, strong
from reading_maths.sandbox.disclosure import public_inputs
from reading_maths.sandbox.errors import CallTimeout, ProcessDied, StudentError
from reading_maths.sandbox.mutant_calls import definition

ENTRIES = (1, 2, 3)
MISTAKES = (
    Mistake("entry-not-defined", "The entry's dict is not defined: its cell has not run."),
    Mistake("entry-format", "The entry's dict does not have the format the check cell under it asks for."),
    Mistake("not-a-function", "The implementation or the test is not a function."),
    Mistake("implementation-did-not-finish", "The implementation did not finish on its own example."),
    Mistake("implementation-ended-process", "The implementation ended the notebook's process."),
    Mistake("implementation-raised", "The implementation raised an exception on its own example."),
    Mistake("names-not-arguments", "The symbol table names an argument the implementation does not have."),
    Mistake("equation-not-latex", "The equation cannot be read as LaTeX."),
    Mistake("symbols-missing", "The symbol table has no row for some symbol of the equation."),
    Mistake("shapes-disagree", "The shapes of the symbol table and the implementation's output do not line up."),
    Mistake("example-not-reproduced", "The implementation does not reproduce the hand-worked output."),
    Mistake("equation-unread-example-wrong", "The equation could not be read as a formula, and the implementation "
            "does not reproduce the hand-worked output."),
    Mistake("equation-disagrees", "The equation, evaluated on the example, disagrees with the implementation or "
            "the hand-worked output."),
    Mistake("example-not-tiny", "The example is too big to work by hand."),
    Mistake("test-did-not-finish", "The test did not finish within the time limit of one call."),
    Mistake("test-ended-process", "The test ended the notebook's process."),
    Mistake("test-fails", "The test fails on the student's own implementation."),
    Mistake("source-unreadable", "The implementation's source cannot be read, so no mutants could be made."),
    Mistake("process-stopped", "The test or the implementation stopped the notebook's process during the trials."),
    Mistake("test-too-slow", "The test is too slow to be run on the mutants."),
    Mistake("test-judges-how-written", "The test fails on an equivalent rewrite of the implementation: it judges "
            "how the function is written, not what it computes."),
    Mistake("too-little-to-mutate", "The implementation has too little computation of its own to mutate."),
    Mistake("weak-test", "The test misses mutants of the implementation (changed operators, constants, axes)."),
    Mistake("test-checks-only-the-example", "The test checks nothing beyond the hand-worked example."),
    Mistake("test-compares-with-a-copy", "The test compares the implementation with a copy of it, which shares "
            "every mistake: that comparison catches nothing."),
    Mistake("equation-not-new", "The equation is another entry's, the worked entry's or the course's own."),
    Mistake("equation-computes-course-function", "The implementation computes one of the course's own equations."),
)
"""Every way an entry's case fails, by the id the report counts it under (the feedback says more)."""


def _signature(names: list[str]) -> inspect.Signature:
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in names])


class _Entry:
    """One entry's names, read from what a case receives, with the feedback for each failure."""

    def __init__(self, number: int, env: dict[str, Any]):
        self.name = f"entry_{number}"
        self.impl, self.test = env.get(f"implementation_{number}"), env.get(f"test_{number}")
        raw = env.get(self.name)
        if raw is None:
            raise failure("entry-not-defined",
                f"`{self.name}` is not defined: run the cell of entry {number}.")
        self.entry, self.problems = read_parts(raw, self.name)

    def need(self, parts: tuple[str, ...]) -> None:
        """Fail with the format's message when a part of the entry the case reads does not follow it."""
        bad = list(dict.fromkeys(str(self.problems[p]) for p in parts if p in self.problems))
        if bad:
            raise failure("entry-format",
                f"{'; '.join(bad)} (run the check cell under the entry: it says what the format needs).")

    def function(self, value: Any, what: str) -> Any:
        if not callable(value):
            raise failure("not-a-function",
                f"{self.name}: `{what}` should be a function, but it is "
                f"{'not defined' if value is None else type(value).__name__}.")
        return value

    def output(self) -> Any:
        """The implementation's result on the example (feedback when it raises)."""
        impl = self.function(self.impl, self.name.replace("entry", "implementation"))
        try:
            with public_inputs():  # the student's own example: its words may be shown
                return impl(**self.entry["inputs"])
        except CallTimeout:
            raise failure("implementation-did-not-finish",
                f"{self.name}: your implementation did not finish on your example.") from None
        except ProcessDied:
            raise failure("implementation-ended-process",
                f"{self.name}: your implementation ended the Python process running your "
                "notebook.") from None
        except Exception as exc:  # noqa: BLE001 - the student's code raised: report it as feedback
            unknown = _not_arguments(impl, self.entry["inputs"])
            if unknown:
                raise failure("names-not-arguments",
                    f"{self.name}: the symbol table names {', '.join(f'`{n}`' for n in unknown)} as an argument "
                    f"of the implementation, but `{self.name.replace('entry', 'implementation')}` takes "
                    f"({', '.join(_parameters(impl))}): make the third place of each row "
                    "the name of its argument, as the def writes it.") from None
            raise failure("implementation-raised",
                f"{self.name}: your implementation raised {_error(exc)} on your example's "
                "inputs; it crashes before any check can run.") from None


def _parameters(impl: Any) -> list[str]:
    """The names of the implementation's arguments as Python reads them (NFKC), from its ``def``; none when its
    source cannot be read or it takes ``**kwargs``."""
    try:
        args = parse_function(definition(impl)).args
    except (LookupError, ValueError, StudentError, CallTimeout, ProcessDied):
        return []
    return [] if args.kwarg else [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]


def _not_arguments(impl: Any, inputs: dict[str, Any]) -> list[str]:
    """The example's inputs that the implementation's ``def`` has no argument for (after Unicode normalisation)."""
    names = _parameters(impl)
    return [k for k in inputs if names and unicodedata.normalize("NFKC", k) not in names]


def _error(exc: Exception) -> str:
    if isinstance(exc, StudentError):
        return f"{exc.type_name}: {exc.message}" if exc.message else exc.type_name
    return f"{type(exc).__name__}: {exc}"


def _numbers(value: Any) -> str:
    try:
        return str(np.round(np.asarray(value, dtype=float), 4).tolist())
    except Exception:  # noqa: BLE001 - not numbers: say what it is instead
        return f"a {type(value).__name__}"


# -- the cases ----------------------------------------------------------------------------------------------

def symbols_covered(e: _Entry) -> None:
    try:
        dimensions = [d for _, shape, _ in e.entry["symbols"].values() for d in shape if isinstance(d, str)]
        missing = latex.uncovered(e.entry["equation"], list(e.entry["symbols"]), dimensions)
    except latex.LatexError as exc:
        raise failure("equation-not-latex",
            f"{e.name}: the equation cannot be read as LaTeX: {exc}.") from None
    if missing:
        shown = ", ".join(f"`{s}`" for s in missing)
        raise failure("symbols-missing",
            f"{e.name}: the symbol table has no row for {shown}. For every symbol of the equation, write down "
            "its meaning and its shape, the ones computed inside the equation too (a size such as the N of "
            "\\sum_{i=1}^{N} may instead be a named dimension of a shape); indices such as the i of x_i and "
            "operators such as \\log or \\sum are not symbols.")


def shapes_agree(e: _Entry) -> None:
    problems = shape_problems(e.entry, e.output())
    if problems:
        raise failure("shapes-disagree",
            f"{e.name}: the shapes do not line up on your example: {'; '.join(problems)}. A shape that does not "
            "line up is proof something is misread: fix the symbol table or the implementation.")


def example_reproduced(e: _Entry) -> None:
    output = e.output()
    if not same_output(output, e.entry["output"]):
        raise failure("example-not-reproduced",
            f"{e.name}: on your example your implementation gives {_numbers(output)}, but the output you worked "
            f"by hand is {_numbers(e.entry['output'])}. If they agree you have read the equation correctly; if "
            "they do not, one of the two is wrong, and finding out which is the fastest learning available.")


AGREES = ("your equation, where it could be read as a formula, gives your code's output on your example; where it "
          "could not, your code reproduces your hand-worked output")
RTOL = 1e-3
"""How far the implementation may be from the equation's value (relative; constants rounded in the code)."""


def equation_agrees(e: _Entry) -> None:
    """The equation read as a formula gives the implementation's and the hand-worked output; where it cannot be
    read, the implementation reproduces the hand-worked output (the check this one replaces half of)."""
    output, hand = e.output(), e.entry["output"]
    value, why = equation_value(e.entry)
    try:
        code = np.asarray(output, dtype=float)
    except (TypeError, ValueError):
        code = None
    if value is not None and (code is None or code.shape != value.shape):
        value, why = None, "read element by element its result's shape is not your implementation's"
    if value is None:
        if not same_output(output, hand):
            raise failure("equation-unread-example-wrong",
                f"{e.name}: your equation could not be read as a formula ({why}), so it was not "
                "checked against your code; and your implementation does not reproduce your "
                "hand-worked output (see the case `example_reproduced`).")
        return
    with np.errstate(invalid="ignore"):  # (a value is only kept beside code of its shape)
        agrees = bool(np.allclose(cast(np.ndarray, code), value, rtol=RTOL, atol=1e-6, equal_nan=True))
    if not agrees or not same_output(value, hand):
        raise failure("equation-disagrees",
            f"{e.name}: your equation, read as a formula and evaluated on your example's inputs, gives "
            f"{_numbers(value)}; your implementation gives {_numbers(output)} and your hand-worked output is "
            f"{_numbers(hand)}. The {'code' if not agrees else 'hand-worked output'} does not compute what the "
            "equation says: check each step of it against the equation (an example and a test worked from the "
            "code share its mistake).")


def example_tiny(e: _Entry) -> None:
    problems = tiny_problems(e.entry)
    if problems:
        raise failure("example-not-tiny",
            f"{e.name}: the example is not one to work by hand: {'; '.join(problems)}. Plug in the smallest "
            "example that still has structure, with values you can compute in your head.")


def test_passes(e: _Entry) -> None:
    test = e.function(e.test, e.name.replace("entry", "test"))
    try:
        with public_inputs():  # the student's own test on their own implementation
            test()
    except CallTimeout:
        raise failure("test-did-not-finish",
            f"{e.name}: your test did not finish within the time limit of one call (stated in the "
            "notebook), so it was stopped.") from None
    except ProcessDied:
        raise failure("test-ended-process",
            f"{e.name}: your test ended the notebook's process.") from None
    except Exception as exc:  # noqa: BLE001 - the test failed: that is the feedback
        raise failure("test-fails",
            f"{e.name}: your test fails on your own implementation ({_error(exc)}). A test "
            "must pass on a right implementation before it can catch wrong ones.") from None


def equation_new(e: _Entry, others: dict[str, Any], worked: dict[str, str], seed: tuple[int, ...]) -> None:
    course = dict(worked) | COURSE_EQUATIONS
    known = dict(course)
    for name, entry in others.items():
        if isinstance(entry, dict) and isinstance(entry.get("equation"), str):
            known[name] = entry["equation"]
    equation = e.entry["equation"]
    try:
        same = [what for what, other in known.items() if latex.same_equation(equation, other)]
        same += [what for what, other in course.items() if known_piece(equation, other)]
    except latex.LatexError as exc:
        raise failure("equation-not-latex",
            f"{e.name}: the equation cannot be read as LaTeX: {exc}.") from None
    if same:
        raise failure("equation-not-new",
            f"{e.name}: the equation is the same as {same[0]}'s, or a piece of it, up to the names "
            "of its symbols. Pick three different equations from papers you care about, none of "
            "them the worked entry or one the course works.")
    if callable(e.impl):
        computed = course_function(e.impl, e.entry, hidden_rng(seed, e.name + "/new"))
        if computed:
            raise failure("equation-computes-course-function",
                f"{e.name}: your implementation computes the course's {computed} (on your example "
                "and on random inputs of the shapes you declared), so the equation is not new. "
                "Pick an equation the course does not work.")


def entry_cases(number: int, seed: tuple[int, ...], worked: dict[str, str]) -> tuple[Any, ...]:
    """The 11 Otter cases of entry ``number``, in the order of :data:`CASES` (one point each, the strength
    thresholds hidden); ``worked`` names the worked entry's equation."""
    names = [f"entry_{number}", f"implementation_{number}", f"test_{number}"]
    others = [f"entry_{k}" for k in ENTRIES if k != number]
    checks: list[tuple[str, bool, list[str], Callable[..., None]]] = [
        ("symbol_table_covers_the_equation", False, names[:1], symbols_covered),
        ("shapes_line_up", False, names[:2], shapes_agree),
        ("example_reproduced", False, names[:2], example_reproduced),
        ("equation_agrees_with_implementation", False, names[:2], equation_agrees),
        ("example_is_tiny", False, names[:1], example_tiny),
        ("test_passes", False, names, test_passes),
        ("equation_is_new", False, names[:2] + others,
         lambda e, **env: equation_new(e, {n: env.get(n) for n in others}, worked, seed)),
    ]
    checks += [(f"test_kills_{round(100 * t)}_percent_of_mutants", True, names,
                lambda e, t=t, **env: strong(e, t, seed)) for t in THRESHOLDS]
    assert [c[0] for c in checks] == list(CASES)
    cases = []
    for case_name, hidden, params, body in checks:
        def case(_body=body, _parts=PARTS[case_name], **env: Any) -> None:
            entry = _Entry(number, env)
            entry.need(_parts)
            _body(entry, **{k: v for k, v in env.items() if k in others})

        case.__signature__ = _signature(params)  # type: ignore[attr-defined]
        message = AGREES if body is equation_agrees else None
        cases.append(test_case(name=case_name, points=1, hidden=hidden, success_message=message)(case))
    return tuple(cases)


CASES = ("symbol_table_covers_the_equation", "shapes_line_up", "example_reproduced",
         "equation_agrees_with_implementation", "example_is_tiny", "test_passes", "equation_is_new",
         *(f"test_kills_{round(100 * t)}_percent_of_mutants" for t in THRESHOLDS))
"""The names of an entry's cases, as its grader file unpacks them."""

PARTS: dict[str, tuple[str, ...]] = {
    "symbol_table_covers_the_equation": ("equation", "symbols", "shapes"),
    "shapes_line_up": ("shapes", "codes", "inputs"),
    "example_reproduced": ("inputs", "output"),
    "equation_agrees_with_implementation": ("equation", "codes", "inputs", "output"),
    "example_is_tiny": ("inputs", "output"),
    "test_passes": (),
    "equation_is_new": ("paper", "equation", "arguments", "inputs"),
}
PARTS |= dict.fromkeys(CASES[len(PARTS):], ("arguments", "inputs"))
"""The parts of the entry (:data:`~reading_maths.kit.entries.PARTS`) each case reads: a part off the format fails
those cases only.  The strength cases vary the example's inputs and grow the shapes the table declares for them,
and the novelty case probes the implementation the same way; the table's dimensions declare symbols."""
