"""Evaluating a "Build this" entry's equation on its example, to compare it with the implementation.

The equation ``result = formula`` is read by :mod:`reading_maths.kit.equation_reader` and evaluated with
NumPy by the rules of :mod:`reading_maths.kit.equation_eval`, each symbol standing for the input its table
row names and each dimension name (``N``, ``d_k``) for its size on the example.  A subscript indexes an
input when it holds an index in scope (``x_i``, ``z_{n,k}``, ``s_{y_i}``, ``W_{ij}``): one bound by a sum,
product, maximum or ``\\arg\\max``, whose range comes from its bounds or from the axis it indexes, or a free
one on the left side (``L_i = ...``), whose range comes from the result's shape.  The value is laid out as
the result's declared shape says.  Whatever could be read two ways is "could not be read", with the reason,
never a disagreement.

Reading and evaluating the student's text run under :func:`reading_maths.sandbox.limited_eval.run_limited`
(``x^{10^{10^{10}}}`` costs a CPU limit, never a hung grader).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np

from reading_maths.kit import equation_eval as ev
from reading_maths.kit import latex
from reading_maths.kit.entries import RETURN
from reading_maths.kit.equation_eval import Table, Val, name
from reading_maths.kit.equation_reader import Node, Unread, read
from reading_maths.sandbox.limited_eval import run_limited

SECONDS = 5.0
"""CPU seconds allowed for reading and evaluating one equation."""
CONSTANTS = {"e": np.e, "pi": np.pi}
"""Letters that are constants when the table does not make them symbols."""
NEUTRAL = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "argmax": -np.inf, "min": np.inf, "argmin": np.inf}
OPS = {"add": np.add, "sub": np.subtract, "div": np.divide, "pow": np.power}


def _table(entry: dict[str, Any]) -> tuple[Table, tuple[str, tuple[str, ...]]]:
    """The example's inputs by canonical name, the sizes of the dimensions, and the result's name and shape."""
    arrays, sizes, result = {}, {}, None
    for key, (_, shape, code) in entry["symbols"].items():
        found = latex.symbols(str(key)) or latex.symbols(f"{key}()")
        dims = tuple(str(d) for d in shape)
        if len(found) != 1:
            continue
        if code == RETURN:
            result = (name(found[0]), dims)
        elif code in entry["inputs"]:
            arr = np.asarray(entry["inputs"][code], dtype=float)
            if arr.ndim != len(dims):
                raise Unread(f"the example's {code} does not have the shape of its table row")
            for dim, size in zip(dims, arr.shape, strict=True):
                if sizes.setdefault(dim, size) != size or (dim.isdigit() and int(dim) != size):
                    raise Unread(f"the dimension {dim} has two sizes in the example")
            arrays[name(found[0])] = (arr, dims)
    if result is None:
        raise Unread("the table has no result")
    return Table(arrays, {name(d): s for d, s in sizes.items()}), result


def _free(left: Node, t: Table, result: tuple[str, tuple[str, ...]]) -> dict[str, int]:
    """The free indices of the left side (``L_i``), each with the axis of the result it runs along."""
    _, base, label, items = left
    rname, rdims = result
    letters = [i[1] for i in items if i[0] == "sym" and not i[2] and len(i[1]) == 1 and i[1].islower()]
    if label and len(letters) == len(items) <= len(rdims) and name(base) == rname.split("_")[0] and not any(
            v in t.arrays or v in t.sizes for v in letters) and len(set(letters)) == len(letters):
        free = {v: len(rdims) - len(letters) + k for k, v in enumerate(letters)}
        for v, axis in free.items():
            if name(rdims[axis]) not in t.sizes:
                raise Unread(f"the range of {v} is not known from the inputs")
            t.free[v] = name(rdims[axis])
        return free
    if name(base, label) != rname:
        raise Unread("its left side is not the result's symbol")
    return {}


def _size(dim: str, t: Table) -> int:
    return t.sizes[dim] if dim in t.sizes else int(dim)


def _bare(item: Node) -> str | None:
    return item[1] if item[0] == "sym" and not item[2] and len(item[1]) == 1 else None


def _known(var: str | None, t: Table) -> str | None:
    return t.scope.get(var) or t.free.get(var) if var else None


def _fits(dim: str | None, axis: str, t: Table) -> bool:
    """Whether an index running along ``dim`` (a name, or a size from numeric bounds) fits the axis."""
    return dim == name(axis) or bool(dim and dim.isdigit() and t.sizes.get(name(axis)) == int(dim))


def _assign(dims: tuple[str, ...], items: list[Node], t: Table) -> list[int] | None:
    """Which axis each subscript indexes: the last ones, or the ones of its index's dimension."""
    k, r = len(items), len(dims)
    if k > r:
        return None
    trailing = list(range(r - k, r))
    if all(_known(_bare(i), t) is None or _fits(_known(_bare(i), t), dims[a], t)
           for i, a in zip(items, trailing, strict=True)):
        return trailing
    by_name = []
    for item in items:
        dim = _known(_bare(item), t)
        axes = [a for a in range(r) if _fits(dim, dims[a], t)]
        if dim is None or len(axes) != 1:
            return None
        by_name.append(axes[0])
    return by_name if len(set(by_name)) == k else None


def _indexed(base: str, t: Table) -> str | None:
    found = [n for n in t.arrays if n.split("_")[0] == name(base)]
    return found[0] if len(found) == 1 else None


def _syms(node: Any) -> list[Node]:
    if not isinstance(node, (tuple, list)):
        return []
    found = [node] if isinstance(node, tuple) and node[:1] == ("sym",) else []
    return found + [s for part in node for s in _syms(part)]


def _index_like(item: Node, t: Table) -> bool:
    syms = _syms(item)
    return bool(syms) and all(_known(s[1], t) and not s[2] or name(s[1], s[2]) in t.arrays
                              or _indexed(s[1], t) for s in syms)


def _infer(var: str, node: Any, t: Table) -> str:
    """The dimension ``var`` runs along, from the axes it indexes in ``node``."""
    dims = set()
    for _, base, _, items in _syms(node):
        if var in [_bare(i) for i in items] and _indexed(base, t):
            _, shape = t.arrays[_indexed(base, t)]  # type: ignore[index]
            axes = _assign(shape, items, t)
            if axes is not None:
                dims.add(name(shape[axes[[_bare(i) for i in items].index(var)]]))
    if len(dims) != 1:
        raise Unread(f"the range of the index {var} is not clear")
    return dims.pop()


def _symbol(node: Node, t: Table) -> Val:
    _, base, label, items = node
    whole = name(base, label)
    if not label and _known(base, t) and len(base) == 1:
        if whole in t.arrays:
            raise Unread(f"{base} is both an index and a symbol")
        return ev.positions(_size(_known(base, t), t), base)  # type: ignore[arg-type]
    indexed = _indexed(base, t) if label and items and all(_index_like(i, t) for i in items) else None
    if indexed:
        arr, dims = t.arrays[indexed]
        axes = _assign(dims, items, t)
        if axes is not None:
            picks = {a: _eval(i, t) for a, i in zip(axes, items, strict=True)}
            used = {_bare(i) for i in items}
            for axis in set(range(len(dims))) - set(axes):
                free = [v for v, d in t.free.items() if d == name(dims[axis]) and v not in used]
                if len(free) == 1:
                    picks[axis] = ev.positions(_size(t.free[free[0]], t), free[0])
            return ev.gather(arr, dims, picks)
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
        return _infer(vars_[0], (body, cond), t)
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
        t.scope[var] = _range(node, t) if node[0] == "sum" and len(vars_) == 1 else _infer(var, (body, cond), t)
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
    vals = [_eval(p, t) for p in parts[::2]]
    found = [ev.combine([a, b], ev.COMPARE[op], compare=True)
             for a, op, b in zip(vals[:-1], parts[1::2], vals[1:], strict=True)]
    return functools.reduce(lambda a, b: ev.combine([a, b], np.logical_and), found)


def _product(a: Val, b: Val, kind: str) -> Val:
    """``ab``: element by element, but for a matrix (or a transposed vector) and a matrix or vector."""
    if kind == "had" or not a.dims or not b.dims:
        return ev.combine([a, b], np.multiply)
    if len(a.dims) == len(b.dims) == 1 and ev.ROW not in a.dims + b.dims:
        if kind == "dot":
            raise Unread("it multiplies two vectors with \\cdot or \\times (element by element, or a dot product?)")
        return ev.combine([a, b], np.multiply)
    return ev.matmul(a, b)


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
        if kind == "pow" and len(a.dims) >= 2:
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
    raise Unread(f"it holds a {kind}, which is not read")


def _place(value: Val, dims: tuple[str, ...], free: dict[str, int], t: Table) -> np.ndarray:
    """The value laid out as the result's shape: its free indices and dimensions where the shape puts them."""
    if value.index:
        raise Unread("its value is an index (counted from 0 or from 1?)")
    at_axis = {axis: v for v, axis in free.items()}
    order: list[int | None] = []
    for pos, dim in enumerate(dims):
        label = at_axis.get(pos, "#" + name(dim))
        left = [k for k, lab in enumerate(value.labels) if lab == label and k not in order]
        if not left and dim != "1":
            raise Unread(f"its value does not run along the result's dimension {dim}")
        order.append(left[0] if left else None)
    extra = [k for k in range(len(value.labels)) if k not in order]
    if any(value.arr.shape[k] != 1 for k in extra):
        raise Unread("its value has a dimension the result's shape does not have")
    arr = np.transpose(value.arr, [k for k in order if k is not None] + extra).reshape(
        [value.arr.shape[k] if k is not None else 1 for k in order])
    return arr


def _evaluate(equation: str, entry: dict[str, Any]) -> tuple[str, str]:
    """``("value", JSON of the values)`` or ``("unread", why)``; run in a limited child."""
    try:
        t, result = _table(entry)
        left, right = read(equation)
        free = _free(left, t, result)
        arr = _place(_eval(right, t), result[1], free, t)
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
