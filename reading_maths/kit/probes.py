"""The inputs mutants are compared on: the example, variations of it, and random inputs of the declared shapes.

A mutant is *equivalent* only when it agrees with the implementation on all of them, so one that
agrees on the example by accident (a gain of ones, a batch of one row) still counts.  Every input
keeps its kind: integers stay integers drawn from the example's own values (labels stay labels,
class indices stay in range, sizes stay as they are), booleans stay booleans, a float array of 0s
and 1s stays 0s and 1s, probabilities that sum to 1 still do, positive numbers stay positive.  A
random input grows every named dimension by 0 to 2 (never shrinks it, so that an index stays valid).
"""

from __future__ import annotations

from typing import Any

import numpy as np

VARIATIONS = 3
RANDOM = 3


def probes(entry: dict[str, Any], rng: np.random.Generator) -> list[dict[str, Any]]:
    """The example's inputs, ``VARIATIONS`` variations of them, and ``RANDOM`` inputs of the declared shapes."""
    inputs = entry["inputs"]
    found = [inputs] + [_varied(inputs, rng, n) for n in range(VARIATIONS)]
    sizes = _sizes(entry)
    if sizes is not None:
        found += [_random(entry, sizes, rng) for _ in range(RANDOM)]
    return found


def _kept(arr: np.ndarray) -> bool:
    """An input a variation leaves as it is: not floats, or floats that are labels (0s and 1s)."""
    return arr.dtype.kind != "f" or (arr.size > 1 and bool(np.isin(arr, (0.0, 1.0)).all()))


def _varied(inputs: dict[str, Any], rng: np.random.Generator, number: int) -> dict[str, Any]:
    """Floats scaled (signs, zeros and infinities kept), or for even ``number`` shifted where the sign allows."""
    varied = {}
    for name, value in inputs.items():
        arr = np.asarray(value)
        if _kept(arr):
            varied[name] = value
            continue
        with np.errstate(invalid="ignore", over="ignore"):
            if number % 2 == 0 or (arr >= 0).all():
                new = arr * rng.uniform(0.3, 2.0, size=arr.shape)
            else:
                new = np.where(np.isfinite(arr), arr + rng.normal(0.0, 0.5, size=arr.shape), arr)
        varied[name] = float(new) if arr.ndim == 0 else new
    return varied


def _arguments(entry: dict[str, Any]) -> dict[str, tuple]:
    return {code: shape for _, shape, code in entry["symbols"].values() if code in entry["inputs"]}


def _sizes(entry: dict[str, Any]) -> dict[str, int] | None:
    """Each named dimension's size in the example; None when the example does not follow the declared shapes."""
    sizes: dict[str, int] = {}
    for name, shape in _arguments(entry).items():
        actual = np.shape(entry["inputs"][name])
        if len(actual) != len(shape):
            return None
        for dim, size in zip(shape, actual, strict=True):
            if (isinstance(dim, int) and dim != size) or sizes.setdefault(dim, size) != size:
                return None
    return {dim: size for dim, size in sizes.items() if isinstance(dim, str)}


def _random(entry: dict[str, Any], sizes: dict[str, int], rng: np.random.Generator) -> dict[str, Any]:
    grown = {dim: size + int(rng.integers(0, 3)) for dim, size in sizes.items()}
    shapes = _arguments(entry)
    made = {}
    for name, value in entry["inputs"].items():
        arr = np.asarray(value)
        shape = tuple(grown[d] if isinstance(d, str) else int(d) for d in shapes[name])
        made[name] = _like(arr, shape, rng)
    return made


def _like(arr: np.ndarray, shape: tuple[int, ...], rng: np.random.Generator) -> Any:
    """Random values of ``shape`` of the kind of the example's ``arr``."""
    if arr.ndim == 0 and arr.dtype.kind != "f":
        return arr.item()  # a size, a count, a flag: as it is
    if arr.dtype.kind == "b":
        return rng.random(shape) < 0.7
    if arr.dtype.kind in "iu" or _kept(arr):
        values = np.unique(arr) if arr.size else np.array([0])
        return rng.choice(values, size=shape).astype(arr.dtype)
    finite = arr[np.isfinite(arr)]
    if arr.ndim == 0:
        return float(arr) * float(rng.uniform(0.5, 2.0)) if finite.size else float(arr)
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (-1.0, 1.0)
    if low >= 0 and arr.ndim >= 1 and np.allclose(arr.sum(axis=-1), 1.0):  # rows of probabilities
        return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1]) if shape[-1] else np.zeros(shape)
    if high - low < 1e-12:
        high = low + max(abs(low), 1.0)
    new = rng.uniform(low, high, size=shape)
    return np.abs(new) if low >= 0 else new
