"""Mutants of a student's function, made on the trusted side with the standard ``ast`` module.

A mutant is the student's own ``def`` with one small, realistic change: an operator swapped, a
term or a factor dropped, a constant changed, an axis or a transpose changed, ``sum`` for ``mean``,
``exp`` for ``log``, a comparison turned round.  A test that notices the change *kills* the mutant;
a strong test kills most of them (decoys, the same computation written differently, are in
:mod:`reading_maths.kit.decoys`).

Only source text is produced here; mutants run where all student code runs (the sandbox).
"""

from __future__ import annotations

import ast
import collections
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

MAX_MUTANTS = 40

_BINOP_SWAPS: dict[type, tuple[type, str]] = {
    ast.Add: (ast.Sub, "-"), ast.Sub: (ast.Add, "+"), ast.Mult: (ast.Div, "/"), ast.Div: (ast.Mult, "*"),
    ast.Pow: (ast.Mult, "*"), ast.MatMult: (ast.Mult, "*"), ast.FloorDiv: (ast.Div, "/"),
}
_COMPARE_SWAPS: dict[type, type] = {
    ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
}
FUNCTION_SWAPS = {
    "sum": "mean", "mean": "sum", "exp": "log", "log": "exp", "max": "min", "min": "max", "amax": "amin",
    "amin": "amax", "argmax": "argmin", "argmin": "argmax", "maximum": "minimum", "minimum": "maximum",
    "log1p": "expm1", "expm1": "log1p", "tanh": "sinh", "sin": "cos", "cos": "sin", "var": "std", "std": "var",
    "cumsum": "cumprod", "prod": "sum", "nansum": "nanmean", "nanmean": "nansum", "logaddexp": "maximum",
}
"""Function names a mutant swaps, as ``np.sum(x)`` or ``x.sum()`` (``sum`` ↔ ``mean``, ``exp`` ↔ ``log``…)."""
DROPPED_CALLS = {"sqrt", "transpose", "exp", "log", "tanh", "abs", "square", "negative", "swapaxes", "log1p"}
"""Calls a mutant removes, keeping their first argument (``np.sqrt(v)`` → ``v``)."""


@dataclass(frozen=True)
class Mutant:
    """One altered copy of a function: what changed (for feedback) and the whole new ``def``."""

    description: str
    source: str


def parse_function(source: str) -> ast.FunctionDef:
    """The one function definition ``source`` holds; ``ValueError`` otherwise."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueError("its source cannot be parsed") from None
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(tree.body) != 1 or len(defs) != 1:
        raise ValueError("its source is not one function definition")
    return defs[0]


def _shown(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _dotted(func: ast.expr) -> str | None:
    """The last name of a call's function: ``np.sum`` → ``sum``, ``x.mean`` → ``mean``, ``exp`` → ``exp``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _changes(node: ast.AST) -> Iterator[tuple[str, Callable[[ast.AST], ast.AST]]]:
    """The mutations of one node: (what is changed, a function building the replacement node)."""
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
        new_op, symbol = _BINOP_SWAPS[type(node.op)]
        yield f"operator changed to `{symbol}`", lambda n: ast.BinOp(n.left, new_op(), n.right)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            yield "a term dropped", lambda n: n.left
            yield "a term dropped", lambda n: n.right
        else:
            yield "a factor dropped", lambda n: n.left
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield "a minus sign dropped", lambda n: n.operand
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE_SWAPS:
        swapped = _COMPARE_SWAPS[type(node.ops[0])]
        yield "a comparison turned round", lambda n: ast.Compare(n.left, [swapped()], n.comparators)
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float):
        value = node.value
        new = (value + 1) if isinstance(value, int) else (value * 2 if value else 1.0)
        yield "a constant changed", lambda n: ast.Constant(new)
    elif isinstance(node, ast.keyword) and node.arg == "axis" and isinstance(node.value, (ast.Constant, ast.UnaryOp)):
        yield "the axis changed", lambda n: ast.keyword("axis", ast.Constant(0 if _shown(n.value) != "0" else -1))
    elif isinstance(node, ast.keyword) and node.arg == "keepdims":
        yield "keepdims changed", lambda n: ast.keyword("keepdims", ast.Constant(_shown(n.value) != "True"))
    elif isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        yield "a transpose dropped", lambda n: n.value
    elif isinstance(node, ast.Call):
        name = _dotted(node.func)
        if name in FUNCTION_SWAPS and isinstance(node.func, ast.Attribute):
            other = FUNCTION_SWAPS[name]
            yield f"`{name}` changed to `{other}`", lambda n: ast.Call(ast.Attribute(n.func.value, other, ast.Load()),
                                                                         n.args, n.keywords)
        if name in DROPPED_CALLS and node.args:
            yield f"`{name}` dropped", lambda n: n.args[0]
        elif name in DROPPED_CALLS and isinstance(node.func, ast.Attribute) and not node.args:
            yield f"`{name}` dropped", lambda n: n.func.value


def _sites(fn: ast.FunctionDef) -> list[tuple[int, int, str]]:
    """Every (node number, change number, description) of the function's body and defaults."""
    sites = []
    settings = {id(n) for k in ast.walk(fn) if isinstance(k, ast.keyword) and k.arg in ("axis", "keepdims")
                for n in ast.walk(k.value)}  # changed as a whole, by the keyword's own mutation
    for number, node in enumerate(ast.walk(fn)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) or id(node) in settings:
            continue  # the docstring, or part of an axis
        for change, (what, _) in enumerate(_changes(node)):
            line = getattr(node, "lineno", getattr(getattr(node, "value", None), "lineno", fn.lineno))
            sites.append((number, change, f"line {line - fn.lineno + 1}: {what} in `{_shown(node)}`"))
    return sites


def _mutate(fn: ast.FunctionDef, *made: tuple[int, int]) -> str:
    """The source of ``fn`` with each change ``(node number, change number)`` of ``made`` made (nodes numbered
    in ``ast.walk`` order of ``fn``, breadth first: the deepest changed first, so that an outer change keeps an
    inner one, or drops it with the part it drops).  ``fn`` itself is changed: pass a tree of its own."""
    nodes: list[ast.AST] = []  # in the order of ast.walk
    holders: dict[int, dict[tuple[ast.AST, str], None]] = {}  # where each node is held: (parent, field)
    todo = collections.deque([fn])
    while todo:
        parent = todo.popleft()
        nodes.append(parent)
        for field, value in ast.iter_fields(parent):
            for held in value if isinstance(value, list) else (value,):
                if isinstance(held, ast.AST):
                    todo.append(held)
                    holders.setdefault(id(held), {})[(parent, field)] = None
    for number, change in sorted(made, reverse=True):
        target = nodes[number]
        replacement = [make for _, make in _changes(target)][change](target)
        for parent, field in holders.get(id(target), {}):
            value = getattr(parent, field)
            if value is target:
                setattr(parent, field, replacement)
            elif isinstance(value, list) and any(v is target for v in value):
                setattr(parent, field, [replacement if v is target else v for v in value])
    return ast.unparse(ast.fix_missing_locations(fn)) + "\n"


@functools.lru_cache(maxsize=8192)
def _mutated(source: str, made: tuple[tuple[int, int], ...]) -> str | None:
    """The text of the function of ``source`` with the changes ``made`` (:func:`_mutate`, on a tree parsed again
    from ``source``: the same tree as a copy, in a fraction of the time), or None when they cannot be made; once per
    process (the search's single changes and the pool's mutants are mostly the same)."""
    try:
        return _mutate(parse_function(source), *made)
    except (ValueError, TypeError, RecursionError):
        return None


@functools.lru_cache(maxsize=256)
def _sites_of(source: str) -> tuple[tuple[int, int, str], ...]:
    return tuple(_sites(parse_function(source)))


def mutants(source: str, limit: int = MAX_MUTANTS) -> list[Mutant]:
    """Up to ``limit`` mutants of the one function in ``source``, spread evenly over its body.

    The choice is deterministic: the same source always gives the same mutants.  Mutants whose
    text equals the original's (a change that changes nothing) are left out.
    """
    fn = parse_function(source)
    sites = list(_sites_of(source))
    if len(sites) > limit:
        sites = [sites[round(i * (len(sites) - 1) / (limit - 1))] for i in range(limit)]
    return _made(source, fn, [((number, change),) for number, change, _ in sites],
                 {(n, c): d for n, c, d in sites})


def pairs(source: str, limit: int) -> list[Mutant]:
    """Up to ``limit`` mutants of two changes each (two constants, or a constant and an operator, say), taken
    from every site of the function, the nearest sites first: the changes that can cancel on one input."""
    fn = parse_function(source)
    sites = list(_sites_of(source))
    chosen = sorted(((a, b) for i, a in enumerate(sites) for b in sites[i + 1:] if a[0] != b[0]),
                    key=lambda ab: abs(ab[0][0] - ab[1][0]))[:limit]
    described = {(n, c): d for n, c, d in sites}
    return _made(source, fn, [((a[0], a[1]), (b[0], b[1])) for a, b in chosen], described)


def _made(source: str, fn: ast.FunctionDef, changes: list[tuple[tuple[int, int], ...]],
          described: dict) -> list[Mutant]:
    """The mutants of ``fn`` (the function of ``source``) with each group of ``changes`` made, each once, none
    equal to ``fn``'s own text."""
    original = ast.unparse(fn) + "\n"
    found: dict[str, Mutant] = {}
    for made in changes:
        text = _mutated(source, made)
        if text is not None and text != original and text not in found:
            found[text] = Mutant("; ".join(described[m] for m in made), text)
    return list(found.values())
