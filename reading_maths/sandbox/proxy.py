"""A student's function as graders hold it: calling the proxy calls the function in the sandbox."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from reading_maths.sandbox.mutant_calls import Remote

if TYPE_CHECKING:
    from reading_maths.sandbox.session import StudentSession


class Proxy(Remote):
    """Stands for a student's function on the trusted side; calling it calls into the sandbox."""

    def __init__(self, session: StudentSession, name: str):
        self._session = session
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        value, changed = self._session.call(self.__name__, args, kwargs)
        _write_back(args, changed)
        return value

    def definition(self) -> str:
        return self._session.definition(self.__name__)

    def trials(self, calls: list[tuple[Remote, dict]]) -> Any:
        from reading_maths.sandbox.errors import HiddenDeferred
        from reading_maths.sandbox.rerun import SessionTrials

        if self._session.public_run:  # trials run decoys and hidden inputs: never in the public run
            raise HiddenDeferred(self.__name__)
        if not all(isinstance(f, Proxy) and f._session is self._session for f, _ in calls):
            raise TypeError("a trial calls functions of the same notebook")
        return SessionTrials(self._session, self.__name__, [(f.__name__, kw) for f, kw in calls])

    def __repr__(self) -> str:
        return f"<student function {self.__name__}>"


def _write_back(args: tuple, changed: dict[int, Any]) -> None:
    """Make in-place changes the student's code made to array arguments visible here too (``changed``: the
    arguments the child says the call changed, by position, as it left them)."""
    for index, theirs in changed.items():
        mine = args[index]
        if not isinstance(mine, np.ndarray) or not mine.flags.writeable:
            continue
        if isinstance(theirs, np.ndarray) and theirs.shape == mine.shape:
            if not np.array_equal(theirs, mine, equal_nan=True):
                mine[...] = theirs.astype(mine.dtype, copy=False)
        elif mine.dtype.kind == "f":
            mine[...] = np.nan  # its shape or kind changed: certainly not left as it was
