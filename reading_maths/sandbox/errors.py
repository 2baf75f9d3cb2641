"""What a call into the student's sandboxed process can end in, as the trusted side sees it.

Raised by :mod:`reading_maths.sandbox.session` proxies; graders and the kit turn them into feedback.
"""

from __future__ import annotations

import builtins


class StudentError(Exception):
    """The student's code raised; carries the exception's type name and message as plain text."""

    def __init__(self, type_name: str, message: str):
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.message = message


class CallTimeout(Exception):
    """The student's code did not return within the time limit (raised by sandbox proxies)."""


class ProcessDied(Exception):
    """The student's code ended the process running the notebook (raised by sandbox proxies)."""


class HiddenDeferred(BaseException):
    """A grader asked for a call on inputs the student may not see while the notebook still runs in its public
    run, whose output the student sees: the case is run again in the hidden run (see
    :mod:`reading_maths.sandbox.disclosure`).  A ``BaseException``, so that no grader's ``except Exception``
    takes it for the student's own error."""


def standard_name(type_name: str) -> str:
    """``type_name`` when it names one of Python's own exceptions, else ``"Exception"`` (a class the student names
    could spell out what their code read)."""
    standard = getattr(builtins, type_name, None)
    return type_name if isinstance(standard, type) and issubclass(standard, BaseException) else "Exception"
