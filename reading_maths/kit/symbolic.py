"""Reading a student's formula safely, and deciding whether it equals the reference.

Students write formulas as strings in Python/SymPy syntax over a small, fixed vocabulary:

=========  ===================================================================
``beta1``  β₁ (declared positive; the numeric checks draw it from (0, 1))
``k``      the induction variable (a positive integer)
``t``      the step number (a positive integer)
``i, j``   summation indices (integers)
``g(i)``   the gradient g_i: ``g`` is a function of the index, ``g(k + 1)`` is g_{k+1}
``Sum``    ``Sum(term, (i, first, last))``: Σ_{i=first}^{last} term (SymPy's ``Sum``)
=========  ===================================================================

plus numbers, ``+ - * / **`` (``^`` also means a power), parentheses and commas.

Safety: the text is tokenized first and rejected unless every token is a whitelisted name, a plain
number or one of those operators, so attribute access, dunders, strings, brackets, lambdas and
keywords never reach SymPy's parser.  Parsing, simplifying and evaluating then run in a forked child
process with a CPU and memory limit and a wall-clock timeout (:mod:`reading_maths.sandbox.limited_eval`),
so a hostile string such as
``9**9**9**9`` costs a few seconds and a clear message, never a hung or crashed grader.

Equivalence: first numeric, both sides evaluated at six random points of the domain (small concrete
``k`` and ``t``, ``beta1`` in (0, 1), random values of every ``g_i``) to 20 digits: one point where
they differ settles it, and agreeing everywhere is what SymPy alone cannot always confirm (a ``Sum``
that ``doit`` turns into a ``Piecewise``, ``equals`` returning ``None``).  Only when the numbers
cannot settle it (an expression that cannot be evaluated at concrete values, or a time-out) is
``simplify(student - reference) == 0`` tried, with the assumptions above.  Verdicts are remembered.
A student's formula is evaluated at the six points once, in the child, and those values are set against the
reference's and every catalogued mistake's, which the grading process computes itself (they are the
instructor's formulas) and remembers.
"""

from __future__ import annotations

import functools
import io
import json
import math
import random
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import sympy
from sympy.core.function import AppliedUndef
from sympy.parsing.sympy_parser import auto_number, convert_xor, parse_expr

from reading_maths.kit.characters import LOOKALIKES, describe, explain, plain_formula, unusual
from reading_maths.sandbox.limited_eval import run_limited

MAX_LENGTH = 400
MAX_DIGITS = 12
TIMEOUT = 3.0
"""wall-clock seconds allowed for the numeric check"""
SYMBOLIC_TIMEOUT = 1.0
"""wall-clock seconds allowed for the symbolic check before falling back to numbers"""

OPERATORS = frozenset({"+", "-", "*", "/", "**", "^", "(", ")", ","})
SYMBOLS: dict[str, sympy.Symbol] = {
    "beta1": sympy.Symbol("beta1", positive=True),
    "k": sympy.Symbol("k", integer=True, positive=True),
    "t": sympy.Symbol("t", integer=True, positive=True),
    "i": sympy.Symbol("i", integer=True),
    "j": sympy.Symbol("j", integer=True),
}
g = sympy.Function("g")
NAMES: dict[str, Any] = {**SYMBOLS, "g": g, "Sum": sympy.Sum}
"""The whitelist: the only names a formula may use."""

Status = Literal["equal", "different", "malformed", "timeout"]


class ExpressionError(ValueError):
    """The text is not a formula in the allowed vocabulary; the message says why, for a student."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of comparing a student's formula with the reference."""

    status: Status
    message: str = ""
    """for a student: why the formula was not accepted (empty when equal)"""

    @property
    def ok(self) -> bool:
        return self.status == "equal"


# -- reading -----------------------------------------------------------------------------------

def check_syntax(text: object, names: Iterable[str] = NAMES) -> str:
    """Return ``text`` stripped if it only uses whitelisted tokens, else raise :class:`ExpressionError`."""
    if not isinstance(text, str):
        raise ExpressionError(f"it should be a string holding a formula, not a {type(text).__name__}")
    text = plain_formula(text).strip()
    if not text:
        raise ExpressionError("it is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"it is longer than {MAX_LENGTH} characters")
    allowed = set(names)
    odd = unusual(text)
    if odd:
        names_hint = f"; the names allowed are {', '.join(sorted(allowed))}" if odd.isalpha() else ""
        if LOOKALIKES.get(odd) in ("'", '"'):
            raise ExpressionError(f"it contains {describe(odd)}: a formula has no quotes, delete it")
        raise ExpressionError(f"it contains {explain(odd)}{names_hint}")
    depth = 0
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        raise ExpressionError("it is not a complete formula (check the parentheses)") from None
    for tok in tokens:
        kind, value = tok.type, tok.string
        if kind in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER) or value.isspace():
            continue  # (Python 3.11 reads the space before a character it refuses as an error token of its own)
        if kind == tokenize.NAME:
            if value not in allowed:
                shown = ", ".join(sorted(allowed))
                raise ExpressionError(f"it uses the name {value!r}; only these names are allowed: {shown}")
        elif kind == tokenize.NUMBER:
            if not all(c.isdigit() or c == "." for c in value) or value.count(".") > 1:
                raise ExpressionError(f"{value!r} is not a plain decimal number")
            if sum(c.isdigit() for c in value) > MAX_DIGITS:
                raise ExpressionError(f"the number {value[:15]}… has too many digits")
        elif kind == tokenize.OP and value in OPERATORS:
            depth += {"(": 1, ")": -1}.get(value, 0)
            if depth < 0 or depth > 30:
                raise ExpressionError("its parentheses do not match")
        else:
            shown = value if len(value) <= 10 else value[:10] + "…"
            raise ExpressionError(
                f"it contains {shown!r}; only names, numbers, + - * / ** ^, parentheses and commas are allowed"
            )
    if depth != 0:
        raise ExpressionError("its parentheses do not match")
    return text


def parse(text: object, names: Iterable[str] = NAMES) -> sympy.Expr:
    """Parse a whitelisted formula into SymPy (no time limit: use :func:`compare` for student input)."""
    text = check_syntax(text, names)
    local = {name: NAMES[name] for name in names}
    global_dict = {"__builtins__": {}, "Integer": sympy.Integer, "Float": sympy.Float,
                   "Rational": sympy.Rational}
    try:
        expr = parse_expr(text, local_dict=local, global_dict=global_dict,
                          transformations=(auto_number, convert_xor), evaluate=True)
    except RecursionError:
        raise ExpressionError("it is nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - SymPy raises many kinds for malformed formulas
        raise ExpressionError(_explain(text, exc)) from None
    if isinstance(expr, tuple) or not isinstance(expr, sympy.Expr):
        raise ExpressionError("it is not a single formula (is there a stray comma, or `g` without `(i)`?)")
    return expr


def _explain(text: str, exc: Exception) -> str:
    if "Sum" in text and isinstance(exc, (ValueError, TypeError)):
        return "it could not be read: write a sum as Sum(term, (i, first, last))"
    if isinstance(exc, SyntaxError):
        return "it is not a valid formula (a missing operator, such as * between factors?)"
    return f"it could not be read as a formula ({type(exc).__name__})"


# -- the checks, run in a child process -----------------------------------------------------------

def _free_problem(expr: sympy.Expr, variables: Iterable[str]) -> str | None:
    extra = sorted(str(s) for s in expr.free_symbols if str(s) not in set(variables))
    if extra:
        allowed = ", ".join(sorted(variables)) or "numbers"
        return (f"it contains {', '.join(extra)}, which should not appear here (free variables allowed: "
                f"{allowed}; a summation index may appear only inside its Sum)")
    for call in expr.atoms(AppliedUndef):
        if len(call.args) != 1:
            return "g takes one index: write g(i) for g_i"
    return None


def _both(student: str, reference: str, variables: tuple[str, ...]):
    """Parse the student's and the reference's expressions, or say why the student's can't be compared."""
    try:
        s = parse(student)
    except ExpressionError as exc:
        return ("malformed", str(exc)), None
    problem = _free_problem(s, variables)
    if problem:
        return ("different", problem), None
    return s, parse(reference)


def _symbolic(student: str, reference: str, variables: tuple[str, ...]) -> tuple[str, str]:
    s, r = _both(student, reference, variables)
    if r is None:
        return s
    difference = sympy.simplify((s - r).doit())
    return ("equal", "") if difference == 0 else ("unknown", "")


def _g_value(seed: int, index: sympy.Expr) -> float:
    if not (index.is_integer and index.is_number) or abs(int(index)) > 1000:
        raise ValueError("g at a non-integer or huge index")
    return random.Random(f"{seed}/{int(index)}").uniform(-2.0, 2.0)


def _evaluate(expr: sympy.Expr, point: dict[str, float | int], seed: int) -> float:
    values = {SYMBOLS[name]: (sympy.Integer(v) if isinstance(v, int) else sympy.Float(v, 30))
              for name, v in point.items()}
    done = expr.subs(values).doit()
    done = done.replace(lambda e: isinstance(e, AppliedUndef), lambda e: sympy.Float(_g_value(seed, e.args[0]), 30))
    number = complex(sympy.N(done, 20))
    if abs(number.imag) > 1e-12 * max(1.0, abs(number.real)):
        raise ValueError("not real")
    return number.real


POINTS = 6
"""Points of the domain at which a student's formula and the reference are compared."""


def _points(variables: tuple[str, ...], seed: int) -> list[tuple[dict[str, float | int], int]]:
    """The six points of the numeric check (``beta1`` in (0, 1), small ``k`` and ``t``) and each one's seed for
    the values of ``g``: the same for every formula compared on ``variables`` with ``seed``."""
    rng = random.Random(seed)
    points: list[tuple[dict[str, float | int], int]] = []
    for trial in range(POINTS):
        point: dict[str, float | int] = {"beta1": rng.uniform(0.05, 0.95)}
        for name in ("k", "t"):
            if name in variables:
                point[name] = [1, 2, 3, 4, 6, 9][trial]
        points.append((point, seed + trial))
    return points


def _values_at_points(student: str, variables: tuple[str, ...], seed: int) -> tuple[str, str]:
    """Run in a child: the student's formula at :func:`_points`, as ``("values", JSON list)``, the list stopping
    at the first point where it cannot be evaluated (``("unevaluable", JSON list)``), or why it cannot be
    compared at all."""
    try:
        expr = parse(student)
    except ExpressionError as exc:
        return "malformed", str(exc)
    problem = _free_problem(expr, variables)
    if problem:
        return "different", problem
    found: list[float] = []
    for point, g_seed in _points(variables, seed):
        try:
            found.append(_evaluate(expr, point, g_seed))
        except Exception:  # noqa: BLE001 - an expression that cannot be evaluated is not equal
            return "unevaluable", json.dumps(found)
    return "values", json.dumps(found)


_STUDENT_VALUES: dict[tuple, tuple[str, str] | None] = {}
"""A student formula's values at the points, by (text, variables, seed): computed once per grading process, then
set against the reference and every catalogued mistake alike."""


def _student_values(text: str, variables: tuple[str, ...], seed: int, timeout: float) -> tuple[str, str] | None:
    """:func:`_values_at_points` under limits (None: it took too long; not remembered)."""
    key = (text, variables, seed)
    if key not in _STUDENT_VALUES:
        found = run_limited(_values_at_points, (text, variables, seed), timeout)
        if found is None:
            return None
        if len(_STUDENT_VALUES) >= _VERDICTS_KEPT:
            _STUDENT_VALUES.clear()
        _STUDENT_VALUES[key] = found
    return _STUDENT_VALUES[key]


@functools.lru_cache(maxsize=256)
def _trusted_values(reference: str, variables: tuple[str, ...], seed: int) -> tuple[float, ...]:
    """The reference's (or a catalogued mistake's) values at the points, computed in this process: the
    instructor's formula, not the student's. The tuple stops at the first point where it cannot be evaluated."""
    expr, found = parse(reference), []
    for point, g_seed in _points(variables, seed):
        try:
            found.append(_evaluate(expr, point, g_seed))
        except Exception:  # noqa: BLE001 - then the symbolic check decides
            break
    return tuple(found)


def _numeric(student: str, reference: str, variables: tuple[str, ...], seed: int,
             timeout: float = TIMEOUT) -> tuple[str, str] | None:
    """Both formulas point by point: ``different`` at the first point where they differ (or where the student's
    cannot be evaluated), ``equal`` if they agree at all six; ``error`` where the reference cannot be evaluated,
    None when the student's took too long."""
    found = _student_values(student, variables, seed, timeout)
    if found is None or found[0] not in ("values", "unevaluable"):
        return found
    expected, actual = _trusted_values(reference, variables, seed), json.loads(found[1])
    for point in range(POINTS):
        if point >= len(expected):
            return "error", "the reference cannot be evaluated there"
        if point >= len(actual):
            return "different", "it could not be evaluated for concrete values of the variables"
        wanted, got = expected[point], actual[point]
        if not math.isfinite(got) or abs(got - wanted) > 1e-9 * max(1.0, abs(wanted)):
            return "different", ""
    return "equal", ""


_VERDICTS: dict[tuple, Verdict] = {}
"""Verdicts already reached in this process: a comparison is a pure function of its strings, and the
same answers recur (the catalogue is tried on every wrong answer; students give the same formulas)."""
_VERDICTS_KEPT = 4096


def compare(student: object, reference: str, *, variables: Iterable[str], seed: int = 0,
            timeout: float = TIMEOUT) -> Verdict:
    """Is the student's formula equal to the reference on the whole domain?

    ``variables`` are the free symbols the formula may use (e.g. ``("beta1", "k")``).  Never
    raises: malformed input, a formula that takes too long and a wrong formula each get a
    :class:`Verdict` with a message for the student.  Verdicts other than a time-out are remembered.
    """
    try:
        text = check_syntax(student)
    except ExpressionError as exc:
        return Verdict("malformed", str(exc))
    variables = tuple(variables)
    key = (text, reference, variables, seed)
    if key not in _VERDICTS:
        verdict = _compare(text, reference, variables, seed, timeout)
        if verdict.status == "timeout":
            return verdict
        if len(_VERDICTS) >= _VERDICTS_KEPT:
            _VERDICTS.clear()
        _VERDICTS[key] = verdict
    return _VERDICTS[key]


def _compare(text: str, reference: str, variables: tuple[str, ...], seed: int, timeout: float) -> Verdict:
    """Numbers first: a point where the two differ settles it at once.  Only when the numbers cannot
    settle it (they could not be evaluated, or took too long) is the difference simplified symbolically."""
    numeric = _numeric(text, reference, variables, seed, timeout)
    if numeric is not None and numeric[0] in ("equal", "malformed") or (
            numeric is not None and numeric[0] == "different" and not numeric[1].startswith("it could not")):
        return Verdict(numeric[0], numeric[1])  # type: ignore[arg-type]
    symbolic = run_limited(_symbolic, (text, reference, variables), min(SYMBOLIC_TIMEOUT, timeout))
    if symbolic is not None and symbolic[0] in ("equal", "malformed", "different"):
        return Verdict(symbolic[0], symbolic[1])  # type: ignore[arg-type]
    if numeric is None:
        return Verdict("timeout", "it took too long to evaluate (are some numbers or powers enormous?)")
    status, message = numeric
    if status == "error":
        return Verdict("malformed", f"it could not be evaluated ({message})")
    return Verdict(status, message)  # type: ignore[arg-type]
