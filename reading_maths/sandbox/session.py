"""The trusted side of one student's notebook: start it in the sandbox, call into it, survive it.

A :class:`StudentSession` runs the notebook's cells in a sandboxed child, one question's cells at a
time (:meth:`StudentSession.advance`, from :class:`~reading_maths.sandbox.notebook_run.NotebookRun`), and
hands graders a namespace of the student's names: plain values, and
:class:`~reading_maths.sandbox.proxy.Proxy` objects for functions, whose calls travel to the child (through
:mod:`reading_maths.sandbox.channel`) as plain data.  A call that hangs or crashes interrupts only the
question being graded.  The whole notebook has a wall-clock ``budget``: once it is spent nothing more of
the notebook runs, and every question not yet graded is a ``timeout`` saying so (:data:`BUDGET_MESSAGE`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from reading_maths.sandbox.channel import ChildGone
from reading_maths.sandbox.disclosure import public_now
from reading_maths.sandbox.errors import CallTimeout, HiddenDeferred, ProcessDied, StudentError, standard_name
from reading_maths.sandbox.inside import wire
from reading_maths.sandbox.mutant_calls import function_source
from reading_maths.sandbox.notebook_run import Cell, NotebookRun
from reading_maths.sandbox.proxy import Proxy

BEFORE_ALL = -(1 << 30)
"""A notebook position before every cell (restored read-only cells included)"""
BUDGET_MESSAGE = ("not graded: this notebook's time budget ({budget:g} s for all of its cells and calls) ran out "
                  "before this question was finished; the checks not run score 0.")


@dataclass
class StudentSession(NotebookRun):
    """Runs a notebook's cells in the sandbox and serves its names to graders."""

    _interruption: tuple[str, str] | None = None
    ran_out: bool = False
    """the budget ran out before every question was graded"""
    shown_errors: dict[int, str] | None = None
    """the public run's cell errors, once the hidden run has begun (None before)"""
    public_run: bool = False
    """in the public run (:mod:`reading_maths.sandbox.disclosure`): only calls on public inputs are made"""

    @property
    def hidden(self) -> bool:
        """In the hidden run: nothing the child says is repeated in the student's words."""
        return self.shown_errors is not None

    def begin_hidden(self) -> None:
        """End the public run (its process is stopped) and start the hidden run: the cells run again, in a new
        process, as :meth:`advance` asks; the cell errors shown stay those of the public run."""
        self.shown_errors = dict(self.cell_errors)
        self._stop_child()
        if self._scratch is not None:  # a new scratch folder: nothing of the public run's files is read again
            from reading_maths.sandbox.process import remove_scratch

            remove_scratch(self._scratch)
            self._scratch = None
        self.public_run, self.upto, self._interruption, self._described = False, BEFORE_ALL, None, {}
        self.start_error = None

    # -- what graders see ------------------------------------------------------------------------
    def env(self) -> dict[str, Any]:
        """The student's names: proxies for functions, decoded plain values for the rest."""
        env: dict[str, Any] = {}
        for name in self.names:
            info = self._described.get(name)
            if not isinstance(info, dict):
                continue
            if info.get("kind") == "callable":
                env[name] = Proxy(self, name)
            elif info.get("kind") == "value":
                try:
                    env[name] = wire.decode(info.get("value"))
                except Exception:  # noqa: BLE001 - whatever the child sent: never an error the grader raises
                    env[name] = wire.Unencodable("malformed")
        return env

    def begin_question(self) -> None:
        self._interruption = None

    def interruption(self) -> tuple[str, str] | None:
        """``(status, message)`` once the current question's calls can no longer be answered."""
        if self._interruption is None and self.start_error:
            return ("error", "not graded: the notebook could not be run again for the hidden tests" if self.hidden
                    else f"not graded: {self.start_error}")
        if self._out_of_time():
            self.ran_out = True
            self._stop_child()  # nothing more of this notebook runs
            return ("timeout", BUDGET_MESSAGE.format(budget=self.budget))
        return self._interruption

    def call(self, name: str, args: tuple, kwargs: dict) -> tuple[Any, dict[int, Any]]:
        """Call the student's ``name`` in the sandbox; trusted callbacks are served meanwhile.

        Returns the result and the arguments the call changed, by position, as it left them.
        """
        if self.public_run and not public_now():
            raise HiddenDeferred(name)
        callbacks: list[Callable] = []
        request = {"op": "call", "name": name, "args": wire.encode(list(args), callbacks),
                   "kwargs": wire.encode(dict(kwargs), callbacks)}
        message = self._exchange(request, name, callbacks, "return")
        try:
            changed = message.get("changed")
            if not (isinstance(changed, list) and all(isinstance(c, list) and len(c) == 2 and isinstance(c[0], int)
                                                      and 0 <= c[0] < len(args) for c in changed)):
                raise wire.WireError("bad changed arguments")
            return wire.decode(message.get("value")), {i: wire.decode(after) for i, after in changed}
        except wire.WireError as exc:
            self._fail(name, ChildGone(f"it broke the grading protocol ({exc})"))

    def definition(self, name: str) -> str:
        """The source of the ``def`` of the student's function ``name``, from our own copy of the cells.

        The child says only where the function was defined (a cell and a line); the text is read
        from the cells this session sent, so what comes back is code the notebook really holds.
        Raises ``LookupError`` when there is no such ``def`` there.
        """
        cell, line, function = self.locate(name)
        return function_source(cell.code, line, function)

    def locate(self, name: str) -> tuple[Cell, int, str]:
        """The cell (this session's own copy), the line and the name of the ``def`` of the student's ``name``."""
        try:
            message = self._exchange({"op": "locate", "name": name}, name, [], "located")
        except StudentError as exc:
            raise LookupError(exc.message) from None
        cell = next((c for c in self.cells if c.index == message.get("cell")), None)
        line, function = message.get("line"), message.get("function")
        if cell is None or not isinstance(line, int) or not isinstance(function, str):
            raise LookupError(f"the source of {name} is not in the notebook")
        return cell, line, function

    def _exchange(self, request: dict, name: str, callbacks: list[Callable], ends: str) -> dict:
        """Send one request and serve callbacks until the reply ``ends`` (``return``, ``located``) comes."""
        if self._out_of_time():
            raise CallTimeout()
        if self._interruption is not None:
            raise CallTimeout() if self._interruption[0] == "timeout" else ProcessDied()
        if self._child is None:
            self.start()
            if self._child is None:
                self._interruption = ("error", "the notebook could not be run")
                raise ProcessDied()
        deadline = min(time.monotonic() + self.call_timeout, self._budget_end)  # absolute: nothing extends it
        try:
            self._child.send(request, deadline)
            while True:
                message = self._child.receive(deadline)
                event = message.get("event")
                if event == "callback":
                    self._serve_callback(callbacks, message, deadline)
                elif event == ends:
                    return message
                elif event == "raise":
                    kind, text = str(message.get("type", "Exception"))[:80], str(message.get("message", ""))[:500]
                    if self.hidden:  # the hidden run's exceptions: a standard type's name, no text
                        kind, text = standard_name(kind), ""
                    raise StudentError(kind, text)
                else:
                    raise ChildGone("it broke the grading protocol (unexpected message)")
        except StudentError:
            raise
        except BaseException as exc:
            if not isinstance(exc, Exception):
                self._stop_child()
                raise
            self._fail(name, exc if isinstance(exc, ChildGone) else ChildGone(f"grading failed: {type(exc).__name__}"))

    def _fail(self, name: str, gone: ChildGone) -> NoReturn:
        """The child can no longer answer for this question: stop it and say why."""
        self._stop_child()
        if gone.timed_out:
            self._interruption = ("timeout", f"`{name}` did not finish within {self.call_timeout:g} s; "
                                             "the rest of this question was not run.")
            raise CallTimeout() from None
        why = "" if self.hidden else f" ({gone})"  # the hidden run's reasons may carry what the student chose
        self._interruption = ("error", f"`{name}` ended the notebook's Python process{why}; "
                                       "the rest of this question was not run.")
        raise ProcessDied() from None

    def _serve_callback(self, callbacks: list[Callable], message: dict, deadline: float) -> None:
        number = message.get("id")
        try:
            function = callbacks[number] if isinstance(number, int) and 0 <= number < len(callbacks) else None
            if function is None:
                raise ValueError("no such function")
            args = wire.decode(message.get("args"))
            value = function(*args)
            reply = {"op": "callback_return", "value": wire.encode(value)}
        except Exception as exc:  # noqa: BLE001 - the student passed something the grader's function rejects
            reply = {"op": "callback_raise", "message": f"{type(exc).__name__}: {exc}"[:200]}
        self._child.send(reply, deadline)
