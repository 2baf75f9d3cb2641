"""Evaluating a "Build this" entry's equation on its example, to compare it with the implementation.

The equation ``result = formula`` is read with SymPy's LaTeX parser (its ``lark`` backend: it raises on
what it does not know and marks an ambiguous reading, where the ``antlr`` one silently reads a prefix of
``-\\frac{1}{N}\\sum ...`` as ``-1/N``).  The formula is then evaluated element by element on the example's
inputs (NumPy broadcasting), each symbol standing for the input its table row names.  It is *read* only
when nothing is left to guess: one ``=``, the result's symbol alone on its left, every symbol of the
formula an input, only element-wise functions, no sums, no matrix products or powers of a matrix, and a
result of the implementation's shape.  Anything else is "could not be read", never a disagreement.

Parsing and evaluating the student's text run under :func:`reading_maths.sandbox.limited_eval.run_limited`
(``x^{10^{10^{10}}}`` costs a CPU limit, never a hung grader).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import sympy

from reading_maths.kit import latex
from reading_maths.kit.entries import RETURN
from reading_maths.sandbox.limited_eval import run_limited

SECONDS = 5.0
"""CPU seconds allowed for reading and evaluating one equation."""
FUNCTIONS = (sympy.exp, sympy.log, sympy.sin, sympy.cos, sympy.tan, sympy.tanh, sympy.sinh, sympy.cosh,
             sympy.Abs, sympy.Max, sympy.Min, sympy.floor, sympy.ceiling)
"""The functions a formula may apply: element-wise, with one meaning each."""
_SPACING = re.compile(r"\\(left|right|[,;:! ]|quad|qquad|displaystyle)(?![A-Za-z])")


def _name(symbol: str) -> str:
    """A symbol as both parsers spell it: ``\\beta_{1}`` and SymPy's ``beta_{1}`` are ``beta_1``."""
    return re.sub(r"[\\{}\s]", "", symbol)


def _inputs(entry: dict[str, Any]) -> tuple[dict[str, str], str | None]:
    """The formula's names of the example's inputs (``{name: argument}``), and the result's name."""
    names, result = {}, None
    for key, (_, _, code) in entry["symbols"].items():
        found = latex.symbols(str(key)) or latex.symbols(f"{key}()")
        if len(found) != 1:
            continue
        if code == RETURN:
            result = _name(found[0])
        elif code in entry["inputs"]:
            names[_name(found[0])] = code
    return names, result


def _matrix(arr: np.ndarray) -> bool:
    return sum(size > 1 for size in arr.shape) >= 2


def _problem(expr: Any, arrays: dict[sympy.Symbol, np.ndarray]) -> str | None:
    """Why ``expr`` cannot be evaluated element by element without guessing, or None."""
    if not isinstance(expr, sympy.Expr):
        return "it can be read in more than one way"
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Function) and not isinstance(node, FUNCTIONS):
            return f"it applies {type(node).__name__}, which is not read element by element"
        if not isinstance(node, (sympy.Function, sympy.Add, sympy.Mul, sympy.Pow, sympy.Symbol, sympy.Number,
                                 sympy.NumberSymbol)):
            return f"it holds a {type(node).__name__}"
        matrices = [a for a in arrays if _matrix(arrays[a])]
        if isinstance(node, sympy.Pow) and node.base.free_symbols & set(matrices):
            return "it raises a matrix to a power (element-wise or a matrix power?)"
        if isinstance(node, sympy.Mul):
            factors = [f for f in node.args if f.free_symbols & set(arrays)]
            if len(factors) >= 2 and any(f.free_symbols & set(matrices) for f in factors):
                return "it multiplies a matrix by an array (element-wise or a matrix product?)"
    return None


def _evaluate(equation: str, entry: dict[str, Any]) -> tuple[str, str]:
    """``("value", JSON of the values)`` or ``("unread", why)``; run in a limited child."""
    from sympy.parsing.latex import parse_latex

    names, result = _inputs(entry)
    sides = equation.split("=")
    if len(sides) != 2 or result is None:
        return "unread", "it is not one equation `result = formula`"
    left = [_name(s) for s in latex.symbols(sides[0])]
    if left[:1] != [result] or any(n not in names for n in left[1:]):
        return "unread", "its left side is not the result's symbol (of the inputs)"
    text = _SPACING.sub(" ", sides[1]).replace("\\odot", "\\cdot")
    try:
        expr = parse_latex(text, backend="lark")
    except Exception as exc:  # noqa: BLE001 - the parser's errors, whatever their kind
        return "unread", f"the LaTeX parser does not know part of it ({type(exc).__name__})"
    free = {s: _name(str(s)) for s in getattr(expr, "free_symbols", ())}
    if "e" in free.values() and "e" not in names:
        expr = expr.subs({s: sympy.E for s, n in free.items() if n == "e"})
        free = {s: n for s, n in free.items() if n != "e"}
    unknown = sorted(n for n in free.values() if n not in names)
    if unknown:
        return "unread", f"it uses {', '.join(unknown)}, which is not one of the example's inputs"
    arrays = {s: np.asarray(entry["inputs"][names[n]], dtype=float) for s, n in free.items()}
    problem = _problem(expr, arrays)
    if problem:
        return "unread", problem
    symbols = list(arrays)
    try:
        grid = np.broadcast_arrays(*arrays.values()) if symbols else []
    except ValueError:
        return "unread", "its inputs' shapes do not combine element by element"
    shape = grid[0].shape if symbols else ()
    values = []
    for index in np.ndindex(shape):
        number = complex(expr.evalf(20, subs={s: sympy.Float(float(g[index]), 20) for s, g in zip(symbols, grid,
                                                                                                  strict=True)}))
        if abs(number.imag) > 1e-12 * max(1.0, abs(number.real)):
            return "unread", "it is not a real number on the example"
        values.append(number.real)
    return "value", json.dumps({"shape": list(shape), "values": values})


def equation_value(entry: dict[str, Any]) -> tuple[np.ndarray | None, str]:
    """The equation's value on the example (an array), or None and why it could not be read."""
    found = run_limited(_evaluate, (entry["equation"], entry), SECONDS)
    if found is None:
        return None, "it took too long to evaluate"
    status, message = found
    if status != "value":
        return None, message if status == "unread" else f"evaluating it raised {message}"
    data = json.loads(message)
    return np.array(data["values"], dtype=float).reshape(data["shape"]), ""
