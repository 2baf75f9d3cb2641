"""Naming a catalogued mistake only when it is the best explanation of a wrong answer.

A mistake whose output matches the student's on one input may be a coincidence: for large t,
``m ← (1 − β₁) m + β₁ g`` and "returns g itself" are both within tolerance of g.  So a mistake
is named only when the student matches it on every input it is tried on (the failed case's
input and the grader's extra ``probes``) where it differs from the right answer, and at least
one of those inputs tells it apart from every other catalogued mistake.  Otherwise nothing is
named and the grader falls back to the text's properties (:mod:`reading_maths.kit.properties`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Outputs = list[np.ndarray]
MATCH_RTOL, MATCH_ATOL = 1e-5, 1e-8
"""At most this far from a mistake's output is a match (tighter when the question's tolerance is)."""


def _outputs(run: Callable[[], Outputs]) -> Outputs | None:
    try:
        return run()
    except Exception:  # noqa: BLE001 - a mistake (or student) that crashes here tells nothing
        return None


def _same(a: Outputs | None, b: Outputs | None, same_values: Callable, tol: tuple[float, float]) -> bool:
    return a is not None and b is not None and len(a) == len(b) and all(
        same_values(x, y, *tol) for x, y in zip(a, b, strict=True))


def _as_shaped(student: Outputs | None, like: Outputs | None) -> Outputs | None:
    """The student's plain numbers read as the arrays ``like`` has of them: ``m = 0`` returned when a loop
    does not run is the mistake's array of zeros."""
    if student is None or like is None or len(student) != len(like):
        return student
    return [np.broadcast_to(s, e.shape) if s.ndim == 0 < e.ndim else s for s, e in zip(student, like, strict=True)]


def best_mistake(
    mistakes: Sequence[Any],
    inputs: Sequence[tuple[tuple, dict]],
    outputs_of: Callable[[Callable, tuple, dict], Outputs],
    student: Callable[[tuple, dict], Outputs],
    first_output: Outputs,
    same_values: Callable,
    tolerance: tuple[float, float],
) -> Any | None:
    """The one catalogued mistake that explains the student's outputs, or None.

    Parameters
    ----------
    mistakes
        the catalogue (objects with ``impl``), in order.
    inputs
        ``(args, kwargs)`` to try: the failed case's input first, then the grader's probes.
    outputs_of
        ``outputs_of(f, args, kwargs)`` runs ``f`` on copies of the input; ``outputs_of(None, ...)``
        runs the reference.
    student
        runs the student's function on an input (it may raise).
    first_output
        the student's outputs on ``inputs[0]``, already computed.
    same_values
        the element-wise comparison of two plain arrays with ``rtol, atol``.
    tolerance
        the question's ``(rtol, atol)``: a mistake differs from the right answer beyond it, and
        matches the student within it (or within ``MATCH_RTOL, MATCH_ATOL`` if that is tighter).
    """
    differ = tolerance
    match = (min(MATCH_RTOL, tolerance[0]), min(MATCH_ATOL, tolerance[1]))
    table = []  # per input: (reference, [mistake outputs])
    for args, kwargs in inputs:
        expected = _outputs(lambda a=args, k=kwargs: outputs_of(None, a, k))
        table.append((expected, [_outputs(lambda m=m, a=args, k=kwargs: outputs_of(m.impl, a, k)) for m in mistakes]))
    cache: dict[int, Outputs | None] = {0: first_output}

    def student_on(i: int) -> Outputs | None:
        if i not in cache:
            args, kwargs = inputs[i]
            cache[i] = _outputs(lambda: student(args, kwargs))
        return cache[i]

    found = []
    for j, _ in enumerate(mistakes):
        first_expected, first_outs = table[0]
        if first_outs[j] is None or _same(first_outs[j], first_expected, same_values, differ) \
                or not _same(first_outs[j], first_output, same_values, match):
            continue  # it does not explain the failure on the case's own input
        explains, distinct = True, False
        for i, (expected, outs) in enumerate(table):
            if outs[j] is None or _same(outs[j], expected, same_values, differ):
                continue  # right (or undefined) on this input: no evidence either way
            if i and expected is not None and [o.shape for o in outs[j]] != [e.shape for e in expected]:
                continue  # a probe where the mistake changes the shape: a shape, not values, would tell
            if not _same(outs[j], _as_shaped(student_on(i), outs[j]), same_values, match):
                explains = False
                break
            distinct = distinct or not any(_same(outs[j], o, same_values, match) for k, o in enumerate(outs) if k != j)
        if explains and distinct:
            found.append(mistakes[j])
    return found[0] if len(found) == 1 else None
