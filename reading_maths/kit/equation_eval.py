"""Evaluating a tree of :mod:`equation_reader` on a "Build this" example, with NumPy.

A value is an array whose axes are labelled: an index (``i``, bound by a sum or free on the left side) or a
dimension of the symbol table (``#d``, the axes of a symbol used whole).  Element-wise operations match
index axes by name and dimension axes from the right, as NumPy broadcasts, and refuse dimensions that do
not line up; a product of a matrix and a matrix or vector (``QK^T``, ``Wx``, ``x^\\top y``) contracts the
dimension they share.  An index counts from 0, as the example's labels do, so an index may be compared
or used as a subscript but never computed with.  Whatever could be read two ways raises
:class:`~reading_maths.kit.equation_tokens.Unread`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reading_maths.kit.equation_tokens import Unread

ROW = "#T"
"""The label of the length-one axis a transposed vector gains: a row."""
FUNCTIONS = {"exp": np.exp, "log": np.log, "ln": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan,
             "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
             "relu": lambda a: np.maximum(a, 0.0), "erf": np.vectorize(math.erf, otypes=[float])}
REDUCERS: dict[str, Callable[..., Any]] = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min,
                                           "argmax": np.argmax, "argmin": np.argmin}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "gt": np.greater, "le": np.less_equal,
           "ge": np.greater_equal}


@dataclass(frozen=True)
class Val:
    """An array and the label of each of its axes; ``index`` when its numbers are positions (from 0)."""

    arr: np.ndarray
    labels: tuple[str, ...] = ()
    index: bool = False

    @property
    def dims(self) -> list[str]:
        return [label for label in self.labels if label.startswith("#")]


@dataclass
class Table:
    """The example as the evaluator sees it: ``arrays`` by canonical name with their dimensions."""

    arrays: dict[str, tuple[np.ndarray, tuple[str, ...]]]
    sizes: dict[str, int]
    shapes: dict[str, tuple[str, ...]]
    scope: dict[str, str] = field(default_factory=dict)
    free: dict[str, str] = field(default_factory=dict)
    funcs: dict[str, tuple[list[str], Any]] = field(default_factory=dict)
    locals: dict[str, Val] = field(default_factory=dict)
    closed: set[str] = field(default_factory=set)


def combine(vals: list[Val], fn: Any, compare: bool = False) -> Val:
    """``fn`` of the arrays of ``vals``, lined up by their labels."""
    if not compare and any(v.index for v in vals):
        raise Unread("it computes with an index (counted from 0 or from 1?)")
    indices = list(dict.fromkeys(label for v in vals for label in v.labels if not label.startswith("#")))
    width = max(len(v.dims) for v in vals)
    dims: list[str] = ["#1"] * width
    if any(ROW in v.dims for v in vals) and sum(bool(v.dims) for v in vals) > 1:
        raise Unread("it uses a transposed vector element by element")
    for v in vals:
        for at, dim in enumerate(v.dims, start=width - len(v.dims)):
            if dims[at] not in ("#1", dim) and dim != "#1":
                raise Unread(f"its dimensions {dims[at][1:]} and {dim[1:]} do not line up element by element")
            dims[at] = dim if dim != "#1" else dims[at]
    if any(dims.count(d) > max(v.dims.count(d) for v in vals) for d in dims if d != "#1"):
        raise Unread("a dimension lines up with two others (is one of them kept as a column?)")
    arrays = []
    for v in vals:
        at_index = [v.labels.index(label) for label in indices if label in v.labels]
        own = [k for k, label in enumerate(v.labels) if label.startswith("#")]
        arr = np.transpose(v.arr, at_index + own)
        shape = [v.arr.shape[v.labels.index(label)] if label in v.labels else 1 for label in indices]
        arrays.append(arr.reshape(shape + [1] * (width - len(own)) + [v.arr.shape[k] for k in own]))
    with np.errstate(all="ignore"):
        return Val(np.asarray(fn(*arrays), dtype=float), tuple(indices + dims))


def matmul(a: Val, b: Val) -> Val:
    """The matrix product of ``a`` and ``b``, over the dimension they share (their index axes broadcast)."""
    if a.index or b.index:
        raise Unread("it computes with an index (counted from 0 or from 1?)")
    da, db = a.dims, b.dims
    if da[-1] != db[0] or da[-1] in ("#1", ROW):
        raise Unread(f"a product of {da[-1][1:]} by {db[0][1:]} (a matrix product or element by element?)")
    indices = list(dict.fromkeys(label for label in (*a.labels, *b.labels) if not label.startswith("#")))
    letters = {label: chr(ord("a") + k) for k, label in enumerate(indices)}
    fresh = iter("ABCDEFGHIJKLMNOPQRSTUVWXY")
    spec_a = [letters[label] for label in a.labels if not label.startswith("#")] + [next(fresh) for _ in da[:-1]]
    spec_b = [letters[label] for label in b.labels if not label.startswith("#")] + ["Z"]
    spec_b += [next(fresh) for _ in db[1:]]
    out = [letters[label] for label in indices] + spec_a[len(spec_a) - len(da) + 1:]
    out += spec_b[len(spec_b) - len(db) + 1:]
    arr = np.einsum(f"{''.join(spec_a)}Z,{''.join(spec_b)}->{''.join(out)}", np.transpose(a.arr, _index_first(a)),
                    np.transpose(b.arr, _index_first(b)))
    labels = indices + da[:-1] + db[1:]
    keep = [k for k, label in enumerate(labels) if label != ROW]
    return Val(arr.reshape([arr.shape[k] for k in keep]), tuple(labels[k] for k in keep))


def _index_first(v: Val) -> list[int]:
    return [k for k, label in enumerate(v.labels) if not label.startswith("#")] + \
        [k for k, label in enumerate(v.labels) if label.startswith("#")]


def transpose(v: Val) -> Val:
    """``v^T``: a matrix's two dimensions swapped; a vector made a row, a row made a vector again."""
    dims, order = v.dims, _index_first(v)
    arr, n = np.transpose(v.arr, order), len(v.labels) - len(v.dims)
    labels = [v.labels[k] for k in order][:n]
    if dims[:1] == [ROW] and len(dims) == 2:
        return Val(arr[..., 0, :], tuple(labels + dims[1:]))
    if len(dims) == 2:
        return Val(np.swapaxes(arr, -1, -2), tuple(labels + dims[::-1]))
    if len(dims) == 1:
        return Val(arr[..., None, :], tuple(labels + [ROW] + dims))
    raise Unread("it transposes a number or an array of more than two dimensions")


def reduce(v: Val, label: str, how: str) -> Val:
    """``v`` summed (multiplied, maximised...) over the axis ``label``."""
    if label not in v.labels:
        raise Unread(f"the {how} over {label} does not use {label}")
    axis = v.labels.index(label)
    if how not in ("sum", "prod") and not np.isfinite(v.arr).any(axis=axis).all():
        raise Unread(f"the {how} is over no value")
    with np.errstate(all="ignore"):
        arr = REDUCERS[how](v.arr, axis=axis)
    return Val(np.asarray(arr, dtype=float), v.labels[:axis] + v.labels[axis + 1:], how.startswith("arg"))


def norm(v: Val, order: int | None) -> Val:
    dims = v.dims
    if not dims:
        return combine([v], np.abs)
    if len(dims) > 1:
        raise Unread("it takes the norm of a matrix (of which kind?)")
    axis = v.labels.index(dims[0])
    arr = np.sum(np.abs(v.arr), axis=axis) if order == 1 else np.sqrt(np.sum(v.arr ** 2, axis=axis))
    return Val(arr, v.labels[:axis] + v.labels[axis + 1:])


def softmax(v: Val) -> Val:
    if not v.dims or ROW in v.dims:
        raise Unread("it takes the softmax of a number (over which axis?)")
    axis = max(k for k, label in enumerate(v.labels) if label.startswith("#"))
    with np.errstate(all="ignore"):
        e = np.exp(v.arr - np.max(v.arr, axis=axis, keepdims=True))
        return Val(e / np.sum(e, axis=axis, keepdims=True), v.labels)


def positions(size: int, label: str) -> Val:
    return Val(np.arange(size, dtype=float), (label,), index=True)


def gather(arr: np.ndarray, dims: tuple[str, ...], picks: dict[int, Val]) -> Val:
    """``arr`` with the axes in ``picks`` indexed by those values (whole numbers from 0), the others kept."""
    if any(val.dims or val.arr.size == 0 for val in picks.values()):
        raise Unread("a subscript is not a whole number")
    sizes = {label: val.arr.shape[k] for val in picks.values() for k, label in enumerate(val.labels)}
    labels = tuple(sizes)
    zero = Val(np.zeros([sizes[label] for label in labels]), labels)
    chosen = []
    for axis, val in sorted(picks.items()):
        idx = combine([zero, val], np.add, compare=True).arr
        if not (np.all(idx == np.round(idx)) and idx.min() >= 0 and idx.max() < arr.shape[axis]):
            raise Unread("a subscript is not a whole number within its axis (labels count from 0)")
        chosen.append((axis, idx.astype(int)))
    rest = [k for k in range(arr.ndim) if k not in picks]
    moved = np.transpose(arr, [k for k, _ in chosen] + rest)
    out = moved[tuple(idx for _, idx in chosen)] if chosen else moved
    return Val(np.asarray(out, dtype=float), labels + tuple("#" + str(dims[k]) for k in rest))
