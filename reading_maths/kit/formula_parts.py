"""Which part of a wrong formula differs from the text's: the sum's bounds, a factor, a power.

When a student's formula (see :mod:`reading_maths.kit.symbolic`) is not the claimed one and no
catalogued wrong formula matches, :func:`which_part_differs` compares their structure with SymPy:
the bounds of the ``Sum``, the base and exponent of the power inside it, and the ratio of the two
formulas at concrete values (a constant ratio is a coefficient, ``1/(1 - β₁)`` a missing factor,
``β₁^n`` a power off by ``n``).  It runs in the same time- and memory-limited child as
:func:`~reading_maths.kit.symbolic.compare`, and only ever describes the text's own formula.
"""

from __future__ import annotations

import random

import sympy

from reading_maths.kit.symbolic import TIMEOUT, _both, _evaluate
from reading_maths.sandbox.limited_eval import run_limited

BETA = "β₁"


def _sums(expr: sympy.Expr) -> list[sympy.Sum]:
    return sorted(expr.atoms(sympy.Sum), key=sympy.default_sort_key)


def _power(term: sympy.Expr, index: sympy.Symbol) -> sympy.Pow | None:
    """The one power in the summand whose exponent depends on the summation index."""
    powers = [p for p in term.atoms(sympy.Pow) if index in p.exp.free_symbols]
    return powers[0] if len(powers) == 1 else None


def _structure(s: sympy.Expr, r: sympy.Expr) -> str | None:
    ss, rs = _sums(s), _sums(r)
    if len(rs) == 1 and len(ss) != 1:
        return "The formula should hold one sum over i of the gradients, Σ_i."
    if len(rs) != 1:
        return None
    (s_sum,), (r_sum,) = ss, rs
    (si, s_lo, s_hi), (ri, r_lo, r_hi) = s_sum.limits[0], r_sum.limits[0]
    if (s_lo.subs(si, ri), s_hi.subs(si, ri)) != (r_lo, r_hi):
        return f"The sum's bounds differ: it runs over i = {r_lo}, …, {r_hi}, one term per gradient g_i."
    s_pow, r_pow = _power(s_sum.function.subs(si, ri), ri), _power(r_sum.function, ri)
    if r_pow is not None and s_pow is not None:
        if s_pow.base != r_pow.base:
            return f"The power's base differs: each gradient is weighted by a power of {BETA}."
        if sympy.simplify(s_pow.exp - r_pow.exp) != 0:
            return (f"The power's exponent differs: the gradient g_i is weighted by {BETA}^({r_pow.exp}), "
                    "so the newest gradient gets the power 0.")
    return None


def _ratio(s: sympy.Expr, r: sympy.Expr, variables: tuple[str, ...], seed: int) -> str | None:
    rng = random.Random(seed)
    ratios = []
    for trial in range(4):
        beta = rng.uniform(0.2, 0.8)
        point: dict[str, float | int] = {"beta1": beta}
        point.update({n: 2 + trial for n in ("k", "t") if n in variables})
        expected = _evaluate(r, point, seed + trial)
        if abs(expected) < 1e-9:
            return None
        ratios.append((beta, point, _evaluate(s, point, seed + trial) / expected))
    if all(abs(q - ratios[0][2]) < 1e-9 for _, _, q in ratios):
        c = ratios[0][2]
        coefficient = f"The coefficient in front differs from the text's: yours is {c:.4g} times it."
        return None if abs(c) < 1e-12 else coefficient
    if all(abs(q * (1 - b) - 1) < 1e-9 for b, _, q in ratios):
        return f"The factor (1 - {BETA}) is missing: every gradient enters multiplied by (1 - {BETA})."
    if all(abs(q - (1 - b)) < 1e-9 for b, _, q in ratios):
        return f"There is one factor (1 - {BETA}) too many: every gradient enters multiplied by (1 - {BETA}) once."
    for n in (-2, -1, 1, 2):
        if all(abs(q - b**n) < 1e-9 for b, _, q in ratios):
            return f"The power of {BETA} is off by {n}: the newest gradient gets {BETA}^0 = 1."
    return None


def _explain(student: str, reference: str, variables: tuple[str, ...], seed: int) -> tuple[str, str]:
    s, r = _both(student, reference, variables)
    if r is None:
        return "none", ""
    message = _ratio(s, r, variables, seed) or _structure(s, r)
    return ("found", message) if message else ("none", "")


def which_part_differs(student: str, reference: str, *, variables: tuple[str, ...], seed: int = 0) -> str | None:
    """A sentence naming the part of ``student`` that differs from ``reference``, or None if none is found."""
    outcome = run_limited(_explain, (str(student), reference, tuple(variables), seed), TIMEOUT)
    return outcome[1] if outcome and outcome[0] == "found" else None
