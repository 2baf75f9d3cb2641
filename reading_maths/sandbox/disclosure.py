"""What a student may read of a notebook's grading: nothing that a process produced after a hidden input entered it.

A notebook is graded in two runs of its cells (:meth:`~reading_maths.sandbox.session.StudentSession.begin_hidden`):

- the **public run** executes the cells and calls the student's functions only on public inputs (the text's
  own numbers, the student's own examples), each call made inside :func:`public_inputs`; its cell errors,
  exception texts and outputs may be shown to the student;
- the **hidden run** starts a new process (after the public run's process is gone), executes the cells again and
  makes every other call.  Nothing it produces is shown as it is: a case's feedback there is the grader's own
  words (a catalogued mistake, a kind of failure, a shape described in words), never a value, a shape, an
  exception's text or an error of a cell.

A call asked for in the public run outside :func:`public_inputs` raises
:class:`~reading_maths.sandbox.errors.HiddenDeferred`: the grader's case is run again in the hidden run.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

_PUBLIC = contextvars.ContextVar("reading_maths_public_inputs", default=False)


@contextmanager
def public_inputs(public: bool = True) -> Iterator[None]:
    """Calls made inside are on inputs the student may see (``public=False``: a no-op, for one code path)."""
    token = _PUBLIC.set(bool(public) or _PUBLIC.get())
    try:
        yield
    finally:
        _PUBLIC.reset(token)


def public_now() -> bool:
    """Whether the call being made is on public inputs."""
    return _PUBLIC.get()
