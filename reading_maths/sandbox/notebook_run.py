"""One notebook's cells run in a sandboxed child: started, advanced a question at a time, restarted past a cell
that hangs or ends the process, within the notebook's wall-clock budget.

:class:`NotebookRun` is the lifecycle half of :class:`~reading_maths.sandbox.session.StudentSession` (which adds
what graders see and the calls into the child).  A cell that loops past its time limit or kills the process is
skipped on a restart, so it costs only the questions that need what it defines.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any, Self

from reading_maths.cells import to_python
from reading_maths.sandbox.channel import ChildGone, ChildPipes
from reading_maths.sandbox.child_starter import Prelude, Starter
from reading_maths.sandbox.process import Sandbox, remove_scratch
from reading_maths.sandbox.stopping import kill

MAX_RESTARTS = 8
DEFAULT_BUDGET = 300.0
"""Seconds a notebook's whole grading may take (its cells and every call of every question together)."""
MAX_PRELUDE = 64_000
"""Characters of a fork server's prelude (as JSON: it goes to the fork server on its command line, whose arguments
the kernel takes up to 128 KiB each)."""


@dataclass
class Cell:
    """A code cell to run: its position in the notebook, a label for messages, and its code."""

    index: int
    label: str
    source: str
    code: str = ""
    """the Python the child runs: IPython's reading of ``source`` (:func:`reading_maths.cells.to_python`)"""
    trusted: bool = False
    """the course's own code: a read-only cell, its code restored from the source notebook whatever the student's
    copy holds (:func:`reading_maths.grading.engine.sanitize`); never a student's"""

    def __post_init__(self) -> None:
        self.code = self.code or to_python(self.source)


def course_prelude(cells: list[Cell], upto: int | None = None) -> Prelude:
    """The leading read-only cells of ``cells`` (the course's code, never a student's) before notebook position
    ``upto``, as many as :data:`MAX_PRELUDE` holds: what a fork server may run once for all the children it forks
    (:meth:`~reading_maths.sandbox.child_starter.Starter.follow`)."""
    lead = list(itertools.takewhile(lambda c: c.trusted and (upto is None or c.index < upto), cells))
    sizes = itertools.accumulate(len(json.dumps(c.code)) for c in lead)
    return tuple((c.index, c.code) for c, size in zip(lead, sizes, strict=True) if size <= MAX_PRELUDE)


@dataclass
class NotebookRun:
    """Runs a notebook's cells in the sandbox, restarting past the cells that fail it."""

    cells: list[Cell]
    names: list[str]
    sandbox: Sandbox
    cell_timeout: float = 30.0
    call_timeout: float = 10.0
    upto: int | None = None
    """run only the cells before this notebook position (None: all); :meth:`advance` moves it on"""
    budget: float = DEFAULT_BUDGET
    """seconds this notebook's whole grading may take, from when the session is made"""
    starter: Starter | None = None
    """where children come from when they are started ahead (:mod:`reading_maths.sandbox.child_starter`); else each
    is started when needed, and waited for when it is killed"""
    preload: tuple[str, ...] = ()
    """the modules the notebook imports, imported by fresh children before its code arrives"""
    cell_errors: dict[int, str] = field(default_factory=dict)
    _skip: set[int] = field(default_factory=set)
    _child: ChildPipes | None = None
    _scratch: Any = None
    _described: dict[str, dict] = field(default_factory=dict)
    _restarts: int = 0
    _spoke: bool = False
    _blamed: bool = False
    _end: float = 0.0
    start_error: str | None = None

    def __post_init__(self) -> None:
        self._budget_end = time.monotonic() + self.budget

    def _out_of_time(self) -> bool:
        return time.monotonic() >= self._budget_end

    def remaining(self) -> float:
        """Seconds left of this notebook's budget (what a fresh child running its code again may still use)."""
        return max(0.0, self._budget_end - time.monotonic())

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        """Run the notebook; cells that hang or kill the process are skipped on a restart.

        A child that dies before saying anything ran no student code: it could not start, most
        likely because another sandbox (a fork bomb) holds the sandbox uid's process limit for a
        while.  Such starts are retried with a growing pause for up to ``cell_timeout + 10`` s and
        are not counted as restarts.
        """
        retries = min(time.monotonic() + self.cell_timeout + 10.0, self._budget_end)
        self._end = min(time.monotonic() + (len(self.due()) + MAX_RESTARTS + 1) * self.cell_timeout,
                        self._budget_end)
        pause = 0.05
        while not self._out_of_time():
            self._spoke = self._blamed = False
            try:
                self._start_once()
                return
            except ChildGone as gone:
                self._stop_child()
                if self._out_of_time():
                    return
                if not self._spoke and time.monotonic() < retries:
                    time.sleep(pause)
                    pause = min(2 * pause, 1.0)
                    continue
                if self._restarts >= MAX_RESTARTS or not self._spoke or not self._blamed:
                    self._described = {}
                    self.start_error = ("the notebook's Python process could not be started" if not self._spoke
                                        else f"the notebook's Python process was restarted {MAX_RESTARTS} times; "
                                             "grading stopped" if self._blamed else str(gone))
                    return
                self._restarts += 1

    def due(self, after: int | None = None) -> list[Cell]:
        """The cells to run, not skipped: before :attr:`upto`, and at or after ``after`` if given."""
        return [c for c in self.cells if c.index not in self._skip
                and (self.upto is None or c.index < self.upto) and (after is None or c.index >= after)]

    def advance(self, upto: int | None) -> None:
        """Run the cells up to notebook position ``upto`` (None: all), as the notebook would before a
        question's grade cell; the names graders see are then those of that point of the notebook.

        A cell that hangs or ends the process is skipped on a restart, as when starting."""
        if self.upto is None or (upto is not None and upto <= self.upto):
            return
        before, self.upto = self.upto, upto
        todo = self.due(after=before)
        if not todo or self.start_error or self._out_of_time():
            return
        if self._child is None:
            self.start()
            return
        self._end = min(time.monotonic() + (len(todo) + 1) * self.cell_timeout, self._budget_end)
        self._spoke, self._blamed = True, False
        deadline = min(time.monotonic() + self.cell_timeout, self._end)
        try:
            self._child.send({"op": "run", "cells": [{"id": c.index, "source": c.code} for c in todo]}, deadline)
            self._run(todo, deadline)
        except ChildGone:
            self._stop_child()
            self.start()

    def _start_once(self) -> None:
        """Start a child and run the cells due.  Each cell has an absolute deadline set when it
        starts; cells can only start in order, so no message extends the start beyond
        ``(cells + 1) * cell_timeout``; a message out of order breaks the protocol."""
        if self.starter is not None:
            self._child = ChildPipes(*self.starter.take())
        else:
            self._scratch = self._scratch or self.sandbox.new_scratch()
            self._child = ChildPipes(*self.sandbox.spawn(self._scratch))
        todo = self.due()
        ran = getattr(self._child.process, "prelude", ())  # forked after the fork server ran these cells
        if ran and [(c.index, c.code) for c in todo[:len(ran)]] != list(ran):
            raise RuntimeError("a child forked after cells this notebook does not start with")
        todo = todo[len(ran):]
        deadline = min(time.monotonic() + self.cell_timeout, self._end)
        self._child.send({"cells": [{"id": c.index, "source": c.code} for c in todo], "names": self.names},
                         deadline)
        self._run(todo, deadline)

    def _run(self, todo: list[Cell], deadline: float) -> None:
        """Follow the child through ``todo`` until it says it is ready, blaming a cell that fails it."""
        running: Cell | None = None
        upcoming = iter(todo)
        try:
            while True:
                message = self._child.receive(deadline)
                self._spoke = True
                event, number = message.get("event"), message.get("id")
                if event == "cell" and running is None:
                    running = next((c for c in upcoming if c.index == number), None) \
                        if isinstance(number, int) else None
                    if running is None:
                        raise ChildGone("the notebook's process broke the grading protocol (cell out of order)")
                    deadline = min(time.monotonic() + self.cell_timeout, self._end)
                elif event == "cell_done" and running is not None and number == running.index:
                    if message.get("error"):
                        self.cell_errors[running.index] = f"{running.label} raised {str(message['error'])[:300]}"
                    running = None
                elif event == "ready" and running is None:
                    self._described = message.get("names") if isinstance(message.get("names"), dict) else {}
                    return
                else:
                    raise ChildGone("the notebook's process broke the grading protocol (unexpected message)")
        except ChildGone as gone:
            if running is not None:
                self._blamed = True
                self._skip.add(running.index)
                why = ("was still running when the notebook's time budget ran out" if self._out_of_time() else
                       f"ran longer than {self.cell_timeout:g} s and was stopped" if gone.timed_out
                       else "ended the notebook's Python process")
                self.cell_errors[running.index] = f"{running.label} {why}; it was skipped"
            raise

    def _stop_child(self) -> None:
        if self._child is not None:
            if self.starter is not None:
                self.starter.retire(self._child.process, self._child.group)
            else:
                kill(self._child.process, self._child.group)
            self._child = None

    def close(self) -> None:
        self._stop_child()
        if self._scratch is not None:
            remove_scratch(self._scratch)
            self._scratch = None

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
