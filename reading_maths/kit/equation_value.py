"""Evaluating a "Build this" entry's equation on its example, to compare it with the implementation.

The equation ``result = formula`` is read by :mod:`reading_maths.kit.equation_reader` and evaluated with
NumPy by the rules of :mod:`reading_maths.kit.equation_eval`, each symbol standing for the input its table
row names and each dimension name (``N``, ``d_k``) for its size on the example.  A subscript indexes an
input when it holds an index in scope (``x_i``, ``z_{n,k}``, ``s_{y_i}``, ``W_{ij}``): one bound by a sum,
product, maximum or ``\\arg\\max``, whose range comes from its bounds or from the axis it indexes, or a free
one on the left side (``L_i = ...``), whose range comes from the result's shape.  Definitions after the
formula (``\\mu = ...``, ``\\sigma^2 = ...``, ``h(r) = ...``) are evaluated as arrays of their rows' shapes, or
called as functions.  The value is laid out as the result's declared shape says (:mod:`equation_symbols`).
Whatever could be read two ways is "could not be read", with the reason, never a disagreement.

Reading and evaluating the student's text run under :func:`reading_maths.sandbox.limited_eval.run_limited`
(``x^{10^{10^{10}}}`` costs a CPU limit, never a hung grader).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np

from reading_maths.kit import equation_eval as ev
from reading_maths.kit import equation_symbols as sy
from reading_maths.kit.equation_eval import Table, Val
from reading_maths.kit.equation_reader import read
from reading_maths.kit.equation_tokens import Node, Unread, name
from reading_maths.sandbox.limited_eval import run_limited

SECONDS = 5.0
"""CPU seconds allowed for reading and evaluating one equation."""
CONSTANTS = {"e": np.e, "pi": np.pi}
"""Letters that are constants when the table does not make them symbols."""
NEUTRAL = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "argmax": -np.inf, "min": np.inf, "argmin": np.inf}
OPS = {"add": np.add, "sub": np.subtract, "div": np.divide, "pow": np.power}


def _symbol(node: Node, t: Table) -> Val:
    _, base, label, items = node
    whole = name(base, label)
    if any(sy.bare(i) in t.closed and not sy.known(sy.bare(i), t) for i in items):
        raise Unread(f"{whole} stands after the sum over its index has ended (put the sum's terms in parentheses)")
    if not label and whole in t.locals:
        return t.locals[whole]
    if not label and sy.known(base, t) and len(base) == 1:
        if whole in t.arrays:
            raise Unread(f"{base} is both an index and a symbol")
        return ev.positions(sy.size(sy.known(base, t), t), base)  # type: ignore[arg-type]
    indexed = sy.indexed(base, t) if label and items and all(sy.index_like(i, t) for i in items) else None
    if indexed:
        arr, dims = indexed
        axes = sy.assign(dims, items, t)
        if axes is not None:
            picks = {a: _eval(i, t) for a, i in zip(axes, items, strict=True)}
            used = {sy.bare(i) for i in items}
            for axis in set(range(len(dims))) - set(axes):
                free = [v for v, d in {**t.free, **t.scope}.items() if d == name(dims[axis]) and v not in used]
                if len(free) == 1:  # s_j in a sum over i of the rows of s: the i-th row's j-th
                    picks[axis] = ev.positions(sy.size(name(dims[axis]), t), free[0])
            return ev.gather(arr, dims, picks)
        if whole not in t.arrays and whole not in t.sizes:
            raise Unread(f"the subscripts of {name(base)} do not name its axes ({', '.join(dims)}) in order")
    if whole in t.arrays:
        arr, dims = t.arrays[whole]
        return Val(arr, tuple("#" + name(d) for d in dims))
    if whole in t.sizes:
        return Val(np.asarray(float(t.sizes[whole])))
    if whole in CONSTANTS:
        return Val(np.asarray(CONSTANTS[whole]))
    raise Unread(f"it uses {whole}, which is not one of the example's inputs")


def _range(node: Node, t: Table) -> str:
    """The dimension a sum's one index runs along: its upper bound (from 1, or from 0 to one less), or the
    axes it indexes."""
    _, _, vars_, lower, upper, cond, body = node
    if lower is None and upper is None:
        return sy.infer(vars_[0], (body, cond), t)
    if lower == ("num", 1.0) and upper is not None:
        top, extra = upper, 0
    elif lower == ("num", 0.0) and upper is not None and upper[0] == "sub" and upper[2] == ("num", 1.0):
        top, extra = upper[1], 0
    elif lower == ("num", 0.0) and upper is not None and upper[0] == "num":
        top, extra = upper, 1
    else:
        raise Unread("the bounds of a sum are not 1 to a dimension (or 0 to one less)")
    if top[0] == "num" and top[1] == int(top[1]) and top[1] + extra > 0:
        size = int(top[1]) + extra
        t.sizes.setdefault(str(size), size)
        return str(size)
    if top[0] != "sym" or name(top[1], top[2]) not in t.sizes:
        raise Unread("the upper bound of a sum is not a dimension of the inputs")
    return name(top[1], top[2])


def _reduction(node: Node, t: Table) -> Val:
    how, vars_, cond, body = (node[1], node[2], node[5], node[6]) if node[0] == "sum" else node[1:]
    for var in vars_:
        if var in t.scope or var in t.free or var in t.arrays:
            raise Unread(f"the index {var} is bound twice, or is a symbol")
        t.scope[var] = _range(node, t) if node[0] == "sum" and len(vars_) == 1 else sy.infer(var, (body, cond), t)
    try:
        value = _eval(body, t)
        if cond is not None:
            mask = _eval(cond, t)
            value = ev.combine([value, mask], lambda v, m: np.where(m > 0, v, NEUTRAL[how]))
        for var in vars_:
            value = ev.reduce(value, var, how)
        return value
    finally:
        for var in vars_:
            t.scope.pop(var, None)
            t.closed.add(var)


def _cases(rows: list[tuple[Node, Node | None]], t: Table) -> Val:
    if any(cond is None for _, cond in rows[:-1]):
        raise Unread("a case other than the last says `otherwise`")
    vals = [_eval(v, t) for v, _ in rows] + [_eval(c, t) for _, c in rows if c is not None]
    m = len(rows)

    def pick(*arrays: np.ndarray) -> np.ndarray:
        values, conds = arrays[:m], list(arrays[m:])
        chosen = np.full(np.broadcast_shapes(*(a.shape for a in arrays)), np.nan)
        taken = np.zeros(chosen.shape, dtype=bool)
        for k, value in enumerate(values):
            holds = conds[k] > 0 if k < len(conds) else ~taken
            if np.any(holds & taken & (value != chosen)):
                raise Unread("two of its cases hold at once with different values")
            chosen, taken = np.where(holds & ~taken, value, chosen), taken | holds
        if not taken.all():
            raise Unread("none of its cases holds for some element")
        return chosen

    return ev.combine(vals, pick)


def _relation(parts: list[Any], t: Table) -> Val:
    """A chain of comparisons; an index is compared with indices and labels, never with a written number."""
    vals = [_eval(p, t) for p in parts[::2]]
    if any(v.index for v in vals) and any(not sy.syms(p) for p in parts[::2]):
        raise Unread("it compares an index with a number (counted from 0 or from 1?)")
    found = [ev.combine([a, b], ev.COMPARE[op], compare=True)
             for a, op, b in zip(vals[:-1], parts[1::2], vals[1:], strict=True)]
    return functools.reduce(lambda a, b: ev.combine([a, b], np.logical_and), found)


def _product(a: Val, b: Val, kind: str) -> Val:
    """``ab``: element by element, but for a matrix (or a transposed vector) and a matrix or vector that share
    the dimension a matrix product would sum over; a vector before a matrix it cannot multiply (``\\gamma x``
    with a per-feature gain) scales its columns."""
    if kind == "had" or not a.dims or not b.dims:
        return ev.combine([a, b], np.multiply)
    if len(a.dims) == len(b.dims) == 1 and ev.ROW not in a.dims + b.dims:
        if kind == "dot":
            raise Unread("it multiplies two vectors with \\cdot or \\times (element by element, or a dot product?)")
        return ev.combine([a, b], np.multiply)
    if kind == "jux" and len(a.dims) == 1 and a.dims[0] not in (b.dims[0], ev.ROW) and a.dims[0] == b.dims[-1]:
        return ev.combine([a, b], np.multiply)
    return ev.matmul(a, b)


def _call(node: Node, t: Table) -> Val:
    """A function of the definitions on its arguments; indices of the arguments stay bound in its formula."""
    params, body = t.funcs[node[1]]
    args = [_eval(a, t) for a in node[2]]
    if len(args) != len(params):
        raise Unread(f"{node[1]} is called with other arguments than it is defined with")
    saved = t.scope, t.free, t.locals
    bound = {label for a in args for label in a.labels if not label.startswith("#")}
    t.scope, t.free = {v: d for v, d in {**saved[1], **saved[0]}.items() if v in bound}, {}
    t.locals = {**saved[2], **dict(zip(params, args, strict=True))}
    try:
        return _eval(body, t)
    finally:
        t.scope, t.free, t.locals = saved


def _define(defs: list[tuple[Node, Node]], t: Table) -> None:
    """Evaluate the definitions after the formula (``\\mu = ...``, ``\\sigma^2 = ...``, ``r_n = ...``) as arrays of
    their table rows' shapes, in the order they need each other; record the functions (``h(r) = ...``)."""
    pending = []
    for left, right in defs:
        if left[0] == "fun":
            t.funcs[left[1]] = (left[2], right)
            continue
        root = left[0] == "pow" and left[2] == ("num", 2.0)
        head = left[1] if root else left
        if head[0] != "sym":
            raise Unread("a definition's left side is not a symbol (or its square)")
        row = next((n for n in (name(head[1], head[2]), name(head[1])) if n in t.shapes), None)
        if row is None:
            raise Unread(f"{name(head[1], head[2])} is defined but has no row in the table")
        if row not in t.arrays:
            pending.append((row, head, right, root))
    while pending:
        names = {row for row, *_ in pending}
        ready = [d for d in pending if not {name(s[1], s[2]) for s in sy.syms(d[2])} & (names - {d[0]})
                 and not {name(s[1]) for s in sy.syms(d[2])} & (names - {d[0]})]
        if not ready:
            raise Unread("its definitions need each other in a circle")
        row, head, right, root = ready[0]
        t.scope, t.free, t.closed = {}, {}, set()
        free = sy.free_indices(head, t, (row, t.shapes[row]))
        value = _eval(right, t)
        value = ev.combine([value], np.sqrt) if root else value
        t.arrays[row] = (sy.place(value, t.shapes[row], free, t), t.shapes[row])
        pending.remove(ready[0])
    t.scope, t.free, t.closed = {}, {}, set()


def _eval(node: Node, t: Table) -> Val:
    kind = node[0]
    if kind == "num":
        return Val(np.asarray(node[1]))
    if kind == "sym":
        return _symbol(node, t)
    if kind in ("sum", "red"):
        return _reduction(node, t)
    if kind in OPS:
        a, b = _eval(node[1], t), _eval(node[2], t)
        if kind == "pow" and len([d for d in a.dims if d not in ("#1", ev.ROW)]) >= 2:
            raise Unread("it raises a matrix to a power (element by element or a matrix power?)")
        return ev.combine([a, b], OPS[kind])
    if kind == "neg":
        return ev.combine([_eval(node[1], t)], np.negative)
    if kind == "mul":
        return _product(_eval(node[1], t), _eval(node[2], t), node[3])
    if kind == "T":
        if node[2] == "T" and "T" in t.arrays:
            raise Unread("its ^T is a transpose or a power of T")
        return ev.transpose(_eval(node[1], t))
    if kind == "fn":
        arg = _eval(node[2], t)
        if node[1] == "softmax":
            return ev.softmax(arg)
        if node[3] is not None:
            return ev.combine([arg, _eval(node[3], t)], lambda a, b: np.log(a) / np.log(b))
        return ev.combine([arg], ev.FUNCTIONS[node[1]])
    if kind == "abs":
        return ev.combine([_eval(node[1], t)], np.abs)
    if kind == "norm":
        return ev.norm(_eval(node[2], t), node[1])
    if kind == "ew":
        fn = np.maximum if node[1] == "max" else np.minimum
        return ev.combine([_eval(v, t) for v in node[2]], lambda *a: functools.reduce(fn, a))
    if kind == "ind":
        return _eval(node[1], t)
    if kind == "rel":
        return _relation(node[1], t)
    if kind == "and":
        return ev.combine([_eval(node[1], t), _eval(node[2], t)], np.logical_and)
    if kind == "cases":
        return _cases(node[1], t)
    if kind == "call":
        return _call(node, t)
    raise Unread(f"it holds a {kind}, which is not read")


def _evaluate(equation: str, entry: dict[str, Any]) -> tuple[str, str]:
    """``("value", JSON of the values)`` or ``("unread", why)``; run in a limited child."""
    try:
        t, result = sy.table(entry)
        left, right, defs = read(equation)
        _define(defs, t)
        free = sy.free_indices(left, t, result)
        arr = sy.place(_eval(right, t), result[1], free, t)
    except Unread as exc:
        return "unread", str(exc)
    if not np.isfinite(arr).all():
        return "unread", "it is not a finite real number on the example"
    return "value", json.dumps({"shape": list(arr.shape), "values": arr.ravel().tolist()})


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
