"""The symbols of a "Build this" equation: the example's inputs and dimensions, which axis a subscript indexes,
the free indices of a left side, and the layout of a value in its declared shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from reading_maths.kit import latex
from reading_maths.kit.entries import RETURN
from reading_maths.kit.equation_eval import Table, Val
from reading_maths.kit.equation_tokens import Node, Unread, name


def table(entry: dict[str, Any]) -> tuple[Table, tuple[str, tuple[str, ...]]]:
    """The example's inputs by canonical name, the sizes of the dimensions, and the result's name and shape."""
    arrays: dict[str, tuple[np.ndarray, tuple[str, ...]]] = {}
    sizes: dict[str, int] = {}
    shapes: dict[str, tuple[str, ...]] = {}
    result = None
    for key, (_, shape, code) in entry["symbols"].items():
        found = latex.symbols(str(key)) or latex.symbols(f"{key}()")
        dims = tuple(str(d) for d in shape)
        if len(found) != 1:
            continue
        shapes[name(found[0])] = dims
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
        raise Unread("the result's row names more than one symbol, or none")
    return Table(arrays, {name(d): s for d, s in sizes.items()}, shapes), result


def free_indices(left: Node, t: Table, result: tuple[str, tuple[str, ...]]) -> dict[str, int]:
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


def size(dim: str, t: Table) -> int:
    return t.sizes[dim] if dim in t.sizes else int(dim)


def bare(item: Node) -> str | None:
    return item[1] if item[0] == "sym" and not item[2] and len(item[1]) == 1 else None


def known(var: str | None, t: Table) -> str | None:
    return t.scope.get(var) or t.free.get(var) if var else None


def fits(dim: str | None, axis: str, t: Table) -> bool:
    """Whether an index running along ``dim`` (a name, or a size from numeric bounds) fits the axis."""
    return dim == name(axis) or bool(dim and dim.isdigit() and t.sizes.get(name(axis)) == int(dim))


def assign(dims: tuple[str, ...], items: list[Node], t: Table) -> list[int] | None:
    """Which axis each subscript indexes: the last ones, or, when fewer than the axes, the ones of their indices'
    dimensions, in the order they are written."""
    k, r = len(items), len(dims)
    if k > r:
        return None
    trailing = list(range(r - k, r))
    if all(known(bare(i), t) is None or fits(known(bare(i), t), dims[a], t)
           for i, a in zip(items, trailing, strict=True)):
        return trailing
    if k == r:
        return None
    by_name = []
    for item in items:
        dim = known(bare(item), t)
        axes = [a for a in range(r) if fits(dim, dims[a], t)]
        if dim is None or len(axes) != 1:
            return None
        by_name.append(axes[0])
    return by_name if by_name == sorted(set(by_name)) else None


def indexed(base: str, t: Table) -> tuple[np.ndarray, tuple[str, ...]] | None:
    """The array a subscripted ``base`` indexes: a function's parameter, or the one input of that letter."""
    local = t.locals.get(name(base))
    if local is not None:
        return (local.arr, tuple(d[1:] for d in local.labels)) if local.labels == tuple(local.dims) else None
    found = [n for n in t.arrays if n.split("_")[0] == name(base)]
    return t.arrays[found[0]] if len(found) == 1 else None


def syms(node: Any) -> list[Node]:
    if not isinstance(node, (tuple, list)):
        return []
    found = [node] if isinstance(node, tuple) and node[:1] == ("sym",) else []
    return found + [s for part in node for s in syms(part)]


def index_like(item: Node, t: Table) -> bool:
    """Whether a subscript indexes (it holds an index in scope or an input) rather than labels (``\\mu_B``)."""
    found = syms(item)
    return bool(found) and all(known(s[1], t) and not s[2] or name(s[1], s[2]) in t.arrays
                               or indexed(s[1], t) for s in found)


def infer(var: str, node: Any, t: Table) -> str:
    """The dimension ``var`` runs along, from the axes it indexes in ``node``."""
    dims = set()
    for _, base, _, items in syms(node):
        if var in [bare(i) for i in items] and indexed(base, t):
            _, shape = indexed(base, t)  # type: ignore[misc]
            axes = assign(shape, items, t)
            if axes is not None:
                dims.add(name(shape[axes[[bare(i) for i in items].index(var)]]))
    if len(dims) != 1:
        raise Unread(f"the range of the index {var} is not clear")
    return dims.pop()


def place(value: Val, dims: tuple[str, ...], free: dict[str, int], t: Table) -> np.ndarray:
    """The value laid out as the result's shape: its free indices and dimensions where the shape puts them."""
    if value.index:
        raise Unread("its value is an index (counted from 0 or from 1?)")
    at_axis = {axis: v for v, axis in free.items()}
    order: list[int | None] = []
    for pos, dim in enumerate(dims):
        label = at_axis.get(pos, "#" + name(dim))
        label = label if label in value.labels else "#" + name(dim)  # y_t = y p + ...: t a label, not an index
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
