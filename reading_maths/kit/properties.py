"""Properties the text states, used to explain a wrong answer no catalogued mistake explains.

Each grader keeps, next to its mistake catalogue, a list of :class:`Property`: a fact of the
course ("each row of a softmax sums to 1", "permuting the keys and values together changes
nothing") and a probe that checks it on the student's function.  When a check fails and no
catalogued mistake is the best explanation, :func:`first_broken` runs the probes in order and
the first property that breaks is the feedback, in the course's words.  Probes run on hidden
inputs of their own and their messages never show inputs or expected values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Call = Callable[..., list[np.ndarray]]
"""Calls the student's function on copies of its arguments; returns its outputs as plain float64 arrays."""


@dataclass(frozen=True)
class Property:
    """A fact the text states about the right answer, and how to check it on a student's function."""

    name: str
    """short id, e.g. ``"rows-sum-to-one"``"""
    message: str
    """what the text says and that the answer breaks it, e.g. "Each row of a softmax sums to 1; yours do not." """
    holds: Callable[[Call], bool]
    """given a :data:`Call` of the student's function, whether the property holds"""


class CannotTell(Exception):
    """A probe could not judge (the student's function raised, or returned something unusable)."""


def close(a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-9) -> bool:
    """Whether two results agree within ``atol + rtol * |b|`` (same shape; NaN only matches NaN)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.all((np.abs(a - b) <= atol + rtol * np.abs(b)) | (np.isnan(a) & np.isnan(b))))


def first_broken(properties: Sequence[Property], call: Call) -> Property | None:
    """The first property the student's function breaks, or None if none can be shown broken.

    A probe on which the student's code raises, or returns values of the wrong shape, says
    nothing about its property and is skipped.
    """
    for prop in properties:
        try:
            with np.errstate(all="ignore"):
                holds = prop.holds(call)
        except Exception:  # noqa: BLE001 - the student's code failed on the probe: cannot tell
            continue
        if not holds:
            return prop
    return None


def one(call: Call, *args: Any, **kwargs: Any) -> np.ndarray:
    """The single output of ``call(*args, **kwargs)``, or :class:`CannotTell` if it is not finite numbers."""
    out = call(*args, **kwargs)[0]
    if not np.all(np.isfinite(out)):
        raise CannotTell
    return out
