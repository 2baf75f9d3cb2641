"""How strong a student's test is: the share of mutants of their own implementation it kills.

Mutation testing, as Examplar and mutation-testing tools judge tests: each mutant (see
:mod:`reading_maths.kit.mutation`) is run where the student's code runs, first on the example's inputs
and on variations of them, then under the student's test.  A mutant whose outputs are the same as
the implementation's everywhere (to the hand-worked tolerance) is *equivalent*: no test could tell
it apart, so it does not count.  Every other mutant is *killed* when the test fails (raises
anything, or runs too long) with the mutant in place of the implementation.  Before any mutant,
the test must pass on decoys, the implementation defined again unchanged; a test that fails there
judges the function's identity, not what it computes.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reading_maths.kit.entries import same_output
from reading_maths.kit.mutation import Mutant, decoys, mutants, parse_function
from reading_maths.sandbox.errors import CallTimeout, ProcessDied
from reading_maths.sandbox.mutant_calls import definition, run_patched

BUDGET = 90.0
"""Seconds for all the mutants of one entry; a test slower than that is judged on the ones tried."""
VARIATIONS = 3
MIN_MUTANTS = 3
"""Fewer mutants than this cannot judge a test: the implementation hands its work to other code."""


@dataclass
class Strength:
    """What the mutants said about a test."""

    mutants: int = 0
    """mutants generated"""
    equivalent: int = 0
    """mutants with the implementation's outputs on every input tried: they do not count"""
    killed: int = 0
    survivors: list[str] = field(default_factory=list)
    """what the surviving mutants changed, in the order of the implementation's lines"""
    not_tried: int = 0
    """mutants left when the time for this entry ran out (counted as survivors)"""
    test_failed: bool = False
    """the test fails on the implementation itself: no mutant can be judged"""
    decoy_failed: str | None = None

    @property
    def counted(self) -> int:
        return self.mutants - self.equivalent

    @property
    def share(self) -> float:
        """The share of the counted mutants the test killed (1 when every mutant is equivalent)."""
        if self.decoy_failed or self.test_failed:
            return 0.0
        return self.killed / self.counted if self.counted else 1.0


def variations(inputs: dict[str, Any], rng: np.random.Generator, count: int = VARIATIONS) -> list[dict[str, Any]]:
    """The example's inputs, then ``count`` variations: floats scaled (signs, zeros and infinities kept) or shifted.

    Integers and booleans (labels, masks, sizes) stay as they are, so the variations keep the
    example's shapes and kinds.
    """
    found = [inputs]
    for number in range(count):
        varied = {}
        for name, value in inputs.items():
            arr = np.asarray(value)
            if arr.dtype.kind != "f":
                varied[name] = value
                continue
            if number % 2 == 0:
                new = arr * rng.uniform(0.3, 2.0, size=arr.shape)
            else:
                with np.errstate(invalid="ignore"):
                    new = np.where(np.isfinite(arr), arr + rng.normal(0.0, 0.5, size=arr.shape), arr)
            varied[name] = float(new) if arr.ndim == 0 else new
        found.append(varied)
    return found


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "value", call()
    except (CallTimeout, ProcessDied):
        raise
    except Exception as exc:  # noqa: BLE001 - the student's code raised: an outcome like any other
        return "error", type(exc).__name__


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if a[0] != b[0]:
        return False
    return a[0] == "error" or same_output(a[1], b[1]) or repr(a[1]) == repr(b[1])


def _fails(call: Callable[[], Any]) -> bool:
    return _outcome(call)[0] == "error"


def _equivalent(implementation: Any, source: str, name: str, inputs: list[dict], originals: list[tuple]) -> bool:
    """The mutant in ``source`` gives the implementation's outcome on every input (stops at the first that differs)."""
    for kw, original in zip(inputs, originals, strict=True):
        if not _same(_outcome(lambda kw=kw: run_patched(implementation, implementation, source, name, **kw)), original):
            return False
    return True


def judge(implementation: Any, test: Any, inputs: list[dict[str, Any]], budget: float = BUDGET) -> Strength:
    """Run ``test`` against the decoys and the mutants of ``implementation``.

    ``implementation`` and ``test`` are the student's functions (sandbox proxies or real ones);
    ``inputs`` the keyword arguments to compare the mutants' outputs on (see :func:`variations`).
    Raises ``LookupError`` or ``ValueError`` when the implementation's source cannot be read.
    """
    source = definition(implementation)
    name = parse_function(source).name
    result = Strength()
    if _fails(test):
        result.test_failed = True
        return result
    for decoy in decoys(source):
        if _fails(lambda d=decoy: run_patched(test, implementation, d.source, name)):
            result.decoy_failed = decoy.description
            return result
    originals = [_outcome(lambda kw=kw: implementation(**kw)) for kw in inputs]
    found = mutants(source)
    result.mutants = len(found)
    deadline = time.monotonic() + budget
    survivors: list[Mutant] = []
    for number, mutant in enumerate(found):
        if time.monotonic() > deadline:
            result.not_tried = len(found) - number
            survivors += found[number:]
            break
        if _equivalent(implementation, mutant.source, name, inputs, originals):
            result.equivalent += 1
        elif _fails(lambda s=mutant.source: run_patched(test, implementation, s, name)):
            result.killed += 1
        else:
            survivors.append(mutant)
    result.survivors = sorted((m.description for m in survivors), key=lambda d: int(d.split(":")[0][5:]))
    return result


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def judged(implementation: Any, test: Any, inputs: list[dict[str, Any]]) -> Strength:
    """:func:`judge`, once per implementation, test and inputs (the threshold cases share one run)."""
    key = (id(test), repr(inputs))
    try:
        runs = _CACHE.setdefault(implementation, {})
    except TypeError:  # an object that cannot be weakly referenced: judge it every time
        return judge(implementation, test, inputs)
    if key not in runs or runs[key][0]() is not test:
        runs[key] = (weakref.ref(test), judge(implementation, test, inputs))
    return runs[key][1]
