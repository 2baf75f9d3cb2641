"""How strong a student's test is: the share of mutants of their own implementation it kills.

Mutation testing, as Examplar and mutation-testing tools judge tests.  Each *trial* runs the student's
whole program again from source, with one altered ``def`` in place of the implementation, in a fresh
child (:mod:`reading_maths.sandbox.rerun`): first the implementation on :func:`probes` (the example, its
variations and random inputs of the declared shapes), then the test.  The trials run in a random
order, and nothing of one reaches the next, so a test that counts its calls, keeps state or holds a
copy of the implementation gains nothing.  Decoys (:mod:`reading_maths.kit.decoys`: the same
computation written differently) must pass the test: one that fails there judges how the function
is written, not what it computes.  A mutant whose outcomes agree with the implementation's on every
probe (:func:`agree`) is *equivalent*: no test could tell it apart, so it does not count.  Every other
mutant is *killed* when the test fails on it (raises anything, or runs past its limit).
"""

from __future__ import annotations

import random
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reading_maths.kit.blind_spots import pinned, search
from reading_maths.kit.decoys import decoys
from reading_maths.kit.mutation import Mutant, mutants, parse_function
from reading_maths.kit.oracle_copies import in_place
from reading_maths.kit.probes import probes
from reading_maths.sandbox.errors import CallTimeout, ProcessDied
from reading_maths.sandbox.mutant_calls import definition
from reading_maths.sandbox.rerun import run_fresh

BUDGET = 90.0
"""Seconds for all the trials of one entry; a test slower than that is judged on the mutants tried."""
MUTANT_LIMIT = 2.0
SLOWDOWN = 5.0
"""A run on a mutant or a decoy may take ``SLOWDOWN`` times as long as the test on the implementation, at least
``MUTANT_LIMIT`` seconds (an altered loop may never end: being stopped there catches it; a decoy stopped there
shows a test too slow to judge, and a test slow only in trials gains nothing, decoys and mutants alike)."""
WATCHED = "its calls passed through a wrapper that watches them"
"""The decoy the search trial makes of the implementation (:mod:`reading_maths.kit.blind_spots`)."""
MIN_JUDGED = 3
"""Fewer judged (not equivalent) mutants than this cannot judge a test: there is too little computation."""
AGREE = 5e-3
"""Two outcomes agree when ``|a - b| <= AGREE * (1 + |b|)`` everywhere: the hand-worked tolerance."""


@dataclass
class Strength:
    """What the trials said about a test."""

    mutants: int = 0
    """mutants generated"""
    equivalent: int = 0
    """mutants with the implementation's outcomes on every probe: they do not count"""
    killed: int = 0
    survivors: list[str] = field(default_factory=list)
    """what the surviving mutants changed, in the order of the implementation's lines"""
    not_tried: int = 0
    """mutants left when the time for this entry ran out (counted as survivors)"""
    test_failed: bool = False
    """the test fails on the implementation itself: no mutant can be judged"""
    decoy_failed: str | None = None
    """the decoy the test failed on: it judges how the function is written"""
    decoy_timed_out: float | None = None
    """the limit a run on a decoy was stopped at: the test is too slow to be judged"""
    limit: float = MUTANT_LIMIT
    """seconds each run on a mutant was given"""
    blind: int = 0
    """counted mutants that give the example's output (the pinned one among them): only a check beyond the
    example kills them (:mod:`reading_maths.kit.blind_spots`)"""
    blind_killed: int = 0
    pinned: bool = False
    """the pool holds the pinned mutant (always counted, never equivalent)"""
    pinned_killed: bool = False
    """the test kills the implementation changed on every input but the example's"""
    twins: list[str] = field(default_factory=list)
    """the functions the test compares with that return what the implementation does (copies used as oracles):
    each mutant was put in their place too"""
    twins_unknown: bool = False
    """whether the test compares with a copy could not be told, or a copy could not be put aside (it was made
    while the test ran): the test is not judged"""

    @property
    def counted(self) -> int:
        return self.mutants - self.equivalent

    @property
    def changed(self) -> int:
        """The counted mutants made from the implementation's own computation (not the pinned one)."""
        return self.counted - self.pinned

    @property
    def share(self) -> float:
        """The share of the counted mutants the test killed (0 when too few count to judge the test)."""
        if self.decoy_failed or self.decoy_timed_out or self.test_failed or self.changed < MIN_JUDGED:
            return 0.0
        return self.killed / self.counted

    @property
    def blind_share(self) -> float:
        """The share of the blind mutants killed, none at all unless the pinned one is (what the test adds
        beyond the example)."""
        return self.blind_killed / self.blind if self.blind and self.pinned_killed else 0.0


def agree(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    """Two outcomes of a call are the same to the hand-worked tolerance (errors by their type)."""
    if a[0] != b[0]:
        return False
    if a[0] != "value":
        return a[1] == b[1]
    try:
        x, y = np.asarray(a[1], dtype=np.float64), np.asarray(b[1], dtype=np.float64)
    except Exception:  # noqa: BLE001 - not numbers: the same when they print the same
        return repr(a[1]) == repr(b[1])
    if x.shape != y.shape:
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(x - y) <= AGREE * (1 + np.abs(y))
    return bool(np.all(close | (np.isnan(x) & np.isnan(y)) | (x == y)))


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "value", call()
    except (CallTimeout, ProcessDied):
        raise
    except Exception as exc:  # noqa: BLE001 - the student's code raised: an outcome like any other
        return "error", getattr(exc, "type_name", type(exc).__name__)


def judge(implementation: Any, test: Any, entry: dict[str, Any], rng: np.random.Generator,
          budget: float = BUDGET) -> Strength:
    """Run ``test`` against the decoys and the mutants of ``implementation``, each in a fresh trial.

    ``implementation`` and ``test`` are the student's functions (sandbox proxies or real ones),
    ``entry`` the entry as :func:`~reading_maths.kit.entries.read_entry` gives it.  Raises
    ``LookupError`` or ``ValueError`` when the implementation's source cannot be read.
    """
    source = definition(implementation)
    parse_function(source)
    result = Strength()
    started = time.monotonic()
    if _outcome(test)[0] != "value":
        result.test_failed = True
        return result
    result.limit = max(MUTANT_LIMIT, SLOWDOWN * (time.monotonic() - started))
    inputs = probes(entry, rng)
    originals = [_outcome(lambda kw=kw: implementation(**kw)) for kw in inputs]
    looked = search(implementation, test, source, inputs, originals, agree)
    if looked.watched_failed:
        result.decoy_failed = WATCHED
        return result
    result.twins, result.twins_unknown = looked.twins.names, looked.unjudged or looked.twins.unswappable
    if result.twins_unknown:
        return result
    found = mutants(source)
    known = {m.source for m in found}
    pin = pinned(source, entry["inputs"])
    found += [m for m in looked.blind if m.source not in known] + [pin]
    found = [in_place(m, source, looked.twins) for m in found]
    pin = found[-1]
    result.mutants, result.pinned = len(found), True
    same = [in_place(d, source, looked.twins) for d in [*decoys(source), pinned(source, entry["inputs"], False)]]
    trials = [(True, d) for d in same] + [(False, m) for m in found]
    random.Random(int(rng.integers(2**32))).shuffle(trials)
    calls = [(implementation, kw) for kw in inputs] + [(test, {})]
    runs = [(t.source, result.limit) for _, t in trials]
    deadline = time.monotonic() + budget
    survivors: list[Mutant] = []
    outcomes = run_fresh(implementation, calls, runs)
    try:
        for number, ((decoy, trial), (*outputs, tested)) in enumerate(zip(trials, outcomes, strict=False)):
            if decoy and tested[0] == "timeout":
                result.decoy_timed_out = result.limit
                return result
            if decoy and tested[0] != "value":
                result.decoy_failed = trial.description
                return result
            if not decoy and trial is not pin and all(agree(o, r) for o, r in zip(outputs, originals, strict=True)):
                result.equivalent += 1
            elif not decoy:
                blind = trial is pin or (bool(outputs) and agree(outputs[0], originals[0]))
                killed = tested[0] != "value"
                result.blind += blind
                result.killed += killed
                result.blind_killed += blind and killed
                result.pinned_killed |= trial is pin and killed
                if not killed:
                    survivors.append(trial)
            if time.monotonic() > deadline:
                left = [m for d, m in trials[number + 1:] if not d]
                result.not_tried, survivors = len(left), survivors + left
                break
    finally:
        outcomes.close()
    result.survivors = sorted((m.description for m in survivors), key=_line)
    return result


def _line(description: str) -> int:
    """The line a mutant's change is on (``line 3: ...``); the pinned mutant, which changes none, last."""
    head = description.split(":", 1)[0]
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 10**6


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def judged(implementation: Any, test: Any, entry: dict[str, Any], seed: int) -> Strength:
    """:func:`judge`, once per implementation, test, entry and seed (the threshold cases share one run)."""
    key = (id(test), repr(entry), seed)
    try:
        runs = _CACHE.setdefault(implementation, {})
    except TypeError:  # an object that cannot be weakly referenced: judge it every time
        return judge(implementation, test, entry, np.random.default_rng(seed))
    if key not in runs or runs[key][0]() is not test:
        runs[key] = (weakref.ref(test), judge(implementation, test, entry, np.random.default_rng(seed)))
    return runs[key][1]
