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


NUMPY_EXCEPTIONS = frozenset({"AxisError", "LinAlgError", "UFuncTypeError", "DTypePromotionError", "TooHardError",
                              "_ArrayMemoryError"})
"""NumPy's own exception names as Python shows them (``type(exc).__name__``): fixed strings, none made from a value."""

EXCEPTION_NAMES = frozenset(name for name, value in vars(builtins).items()
                            if isinstance(value, type) and issubclass(value, BaseException)) | NUMPY_EXCEPTIONS
"""The exception type names feedback may repeat about a call on hidden inputs: Python's built-in exceptions and
:data:`NUMPY_EXCEPTIONS`, a closed list (a name the student's code makes could spell out what it read)."""

OWN_CLASS = "an exception of your own class"
"""What feedback calls an exception whose type is not in :data:`EXCEPTION_NAMES`."""


def standard_name(type_name: str) -> str:
    """``type_name`` when it is in :data:`EXCEPTION_NAMES`, else :data:`OWN_CLASS` (a class the student names
    could spell out what their code read)."""
    return type_name if type_name in EXCEPTION_NAMES else OWN_CLASS


def exception_kind(exc: BaseException | type[BaseException]) -> str:
    """:func:`standard_name` of an exception raised in this process: its type's name when the type is Python's
    own or NumPy's (not merely named like one), else :data:`OWN_CLASS`."""
    cls = exc if isinstance(exc, type) else type(exc)
    name = cls.__name__
    if getattr(builtins, name, None) is cls or (name in NUMPY_EXCEPTIONS and cls.__module__.startswith("numpy")):
        return name
    return OWN_CLASS
