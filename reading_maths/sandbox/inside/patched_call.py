"""Calling a student's function with another definition of one of their functions in effect.

Mutation testing runs a student's test against altered copies of their own implementation.  A
:class:`Patch` carries the source of one altered ``def`` (written on the trusted side) and the
name of the function it stands in for; :func:`call_patched` defines it over the student's names,
rebinds every name bound to the replaced function, makes one call, and undoes the rebinding.

The same function serves both places student code runs: the sandboxed child (the ``patch`` field
of a ``call`` request, see :mod:`reading_maths.sandbox.inside.child`), and the in-process drivers (pytest
and stock nbgrader's kernel), where the student's functions are real objects (graders reach both
through :mod:`reading_maths.sandbox.mutant_calls`).  The child sees this file beside ``child.py`` and
``wire.py``, so it needs nothing but the standard library.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

SOFT_LIMIT = 2.0
"""Seconds of CPU one patched call may use before it is stopped (an altered loop may never end)."""


class TrialTimeout(Exception):
    """A patched call used more than its soft limit of CPU time."""


@dataclass(frozen=True)
class Patch:
    """A ``def`` to use instead of the student's function ``replaces`` during one call.

    Attributes
    ----------
    source:
        Python source defining one function (an altered copy of the student's own ``def``).
    function:
        the name that ``source`` defines.
    replaces:
        the student's name for the function it stands in for (``"implementation_1"``).
    """

    source: str
    function: str
    replaces: str

    def to_wire(self) -> dict:
        return {"source": self.source, "function": self.function, "replaces": self.replaces}

    @classmethod
    def from_wire(cls, data: Any) -> Patch:
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("source", "function",
                                                                                         "replaces")):
            raise ValueError("malformed patch")
        return cls(data["source"], data["function"], data["replaces"])


@contextmanager
def _cpu_limit(seconds: float):
    """Raise :class:`TrialTimeout` in the calling thread after ``seconds`` of CPU time (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise TrialTimeout(f"stopped after {seconds:g} s of CPU time")

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        if previous is not None:
            signal.signal(signal.SIGPROF, previous)


def _copy_of(value: Any, original: Any) -> bool:
    """``value`` is the same ``def`` run again (in another cell): it stands for the same function."""
    a, b = getattr(value, "__code__", None), getattr(original, "__code__", None)
    if a is None or b is None or getattr(value, "__name__", None) != getattr(original, "__name__", None):
        return False
    return (a.co_code, a.co_consts, a.co_names) == (b.co_code, b.co_consts, b.co_names)


def call_patched(namespace: MutableMapping[str, Any], patch: Patch, original: Any, function: Callable,
                 args: tuple | list = (), kwargs: dict | None = None, limit: float = SOFT_LIMIT) -> Any:
    """Call ``function(*args, **kwargs)`` while ``patch`` stands in for ``original`` in ``namespace``.

    Parameters
    ----------
    namespace:
        the student's global names (the notebook's namespace, or a module's ``__dict__``).
    patch:
        the replacement ``def``; it is compiled with a copy of ``namespace`` as its globals.
    original:
        the student's function it replaces: every name of ``namespace`` bound to it (or to the same
        ``def`` run again) is rebound.
    function:
        what to call; when it is ``original`` itself, the replacement is called.
    limit:
        CPU seconds before the call is stopped with :class:`TrialTimeout`.

    Returns
    -------
    whatever the call returns; the namespace is restored however the call ends.
    """
    scope = dict(namespace)
    exec(compile(patch.source, "<mutant>", "exec"), scope)  # noqa: S102 - student code, in its own process
    replacement = scope[patch.function]
    aliases = [name for name, value in list(namespace.items()) if value is original or _copy_of(value, original)]
    for name in aliases:
        namespace[name] = replacement
    try:
        with _cpu_limit(limit):
            target = replacement if function is original else function
            return target(*args, **(kwargs or {}))
    finally:
        for name in aliases:
            namespace[name] = original
