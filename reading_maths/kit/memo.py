"""Trusted outputs remembered per input: a reference or a catalogued mistake runs once per input per process.

Every student of a class is graded on the same inputs (the text's numbers and seeded hidden ones), so
the reference's output on a case, and each mistake's output on the inputs a diagnosis tries, are the
same for every notebook a grading process sees; so is the kind of exception a mistake raises on an input, which a
diagnosis of a student's exception asks of every mistake.  :class:`Memo` keeps them, keyed by an exact
:func:`fingerprint` of the input; the arrays it hands out are read-only, so no caller can change
what the next one gets.  Only trusted, pure functions are remembered, never a student's.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from reading_maths.sandbox.inside.functions_as_data import Portable

MAX_ENTRIES = 4096
"""Per memo; beyond it new inputs are computed but not kept (a class is graded on a few dozen)."""


def fingerprint(value: Any) -> Hashable | None:
    """An exact, hashable key for an input: equal keys mean the same types, shapes, dtypes and bits.

    ``None`` when the input holds something without one (an arbitrary callable or object): such
    inputs are not remembered.
    """
    if type(value) is float:  # the commonest first (np.float64, a float too, is told apart below)
        return ("float", value.hex())
    if isinstance(value, (list, tuple)):
        items = tuple(map(fingerprint, value))
        return None if None in items else (type(value).__name__, items)
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return None
        return ("ndarray", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, np.generic):  # before float: np.float64 is one, and divides by zero differently
        return ("numpy", value.dtype.str, value.tobytes())
    if isinstance(value, float):
        return ("float", value.hex())  # -0.0 and 0.0 are different inputs
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, dict):
        pairs = tuple((fingerprint(k), fingerprint(v)) for k, v in value.items())
        return None if any(k is None or v is None for k, v in pairs) else ("dict", pairs)
    if isinstance(value, Portable):
        inner = fingerprint(value.parameters())
        return None if inner is None else (type(value).__name__, inner)
    return None


class Memo:
    """Outputs of trusted functions, by function and input."""

    def __init__(self) -> None:
        self._kept: dict[tuple, list[np.ndarray]] = {}
        self._raised: dict[tuple, str | None] = {}

    def outputs(self, function: Callable[..., Any], key: Hashable | None,
                compute: Callable[[], list[np.ndarray]]) -> list[np.ndarray]:
        """``compute()`` (the outputs of ``function`` on the input whose :func:`fingerprint` is ``key``),
        remembered for that input; never remembered when ``key`` is None."""
        if key is None:
            return compute()
        key = (function, key)
        found = self._kept.get(key)
        if found is None:
            found = compute()
            for array in found:
                array.flags.writeable = False
            if len(self._kept) < MAX_ENTRIES:
                self._kept[key] = found
        return found

    def raised(self, function: Callable[..., Any], key: Hashable | None,
               compute: Callable[[], str | None]) -> str | None:
        """``compute()`` (the kind of exception ``function`` raises on the input whose :func:`fingerprint` is ``key``,
        or None when it raises none), remembered for that input; never remembered when ``key`` is None."""
        if key is None:
            return compute()
        key = (function, key)
        if key in self._raised:
            return self._raised[key]
        found = compute()
        if len(self._raised) < MAX_ENTRIES:
            self._raised[key] = found
        return found
