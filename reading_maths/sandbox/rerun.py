"""A student's code run again from source, with one ``def`` replaced, in a fresh child: mutation testing's trials.

A trial is the student's whole program (the notebook's cells up to the question, or the files that
define their functions) executed again with the source of one function replaced, in a process that
has run nothing before, and then a few calls of its functions.  Nothing of one trial reaches the
next: a test that counts its calls, keeps files or globals, or holds a copy of the implementation
(in a default argument, say) starts from scratch each time, and its copy is a copy of the
replacement.  :func:`run_fresh` takes the student's functions wherever they live:

- sandbox proxies: the trial is a new :class:`~reading_maths.sandbox.session.StudentSession` on the
  notebook's own cells (the one holding the ``def`` edited), forked by a fork server of its own on the
  sandbox uids kept for trials (:data:`~reading_maths.sandbox.process.RERUN_SLOTS`).  The notebook's leading
  read-only cells (the course's code, :attr:`~reading_maths.sandbox.notebook_run.Cell.trusted`) are that fork
  server's *prelude*: run once, in it, before it forks any trial, so that each trial runs only the cells from the
  student's first on (the warm snapshot holds nothing of the student's, and each trial is still a new process
  with namespaces and files of its own).  The :data:`WORKERS` threads that run trials, and so start their fork
  servers, live as long as the grading process: a sandbox dies with the thread that started it;
- real functions (pytest, stock nbgrader's kernel): this process forks, the child runs the files
  that define the functions again (from ``linecache``, where IPython keeps its cells) in a fresh
  working folder and sends its outcomes back as plain data (:mod:`reading_maths.sandbox.wire`).

An outcome is ``("value", result)``, ``("error", type name)``, ``("timeout", seconds)`` or
``("died", None)``.
"""

from __future__ import annotations

import functools
import itertools
import json
import linecache
import os
import queue
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Generator
from types import CodeType
from typing import Any

from reading_maths.sandbox.child_starter import starter
from reading_maths.sandbox.errors import CallTimeout, ProcessDied, StudentError
from reading_maths.sandbox.fork_server_client import LifelongThreads
from reading_maths.sandbox.inside import wire
from reading_maths.sandbox.limited_eval import read_fork_reply
from reading_maths.sandbox.mutant_calls import Remote, function_lines, replace_function
from reading_maths.sandbox.notebook_run import course_prelude
from reading_maths.sandbox.process import SLOTS
from reading_maths.sandbox.session import Cell, StudentSession

Outcome = tuple[str, Any]
WORKERS = 2
"""Trials run at once (each worker has its own fork server and uids; each starts its next child while one runs)."""
MAX_REPLY = 64 << 20
_workers: queue.SimpleQueue[int] = queue.SimpleQueue()
for _number in range(WORKERS):
    _workers.put(_number)


def run_fresh(implementation: Any, calls: list[tuple[Any, dict]], runs: list[tuple[str, float]]
              ) -> Generator[list[Outcome], None, None]:
    """Each run ``(replacement, limit)`` in a fresh trial: the program of ``implementation`` again, with
    ``replacement`` for its ``def``, then each call ``(function, kwargs)`` of ``calls`` (functions of the same
    program) with at most ``limit`` seconds each.  Yields each run's outcomes in order; the runs not yet
    started when the caller stops are not made.

    Raises ``LookupError`` when the source of the program cannot be found.
    """
    trial = implementation.trials(calls) if isinstance(implementation, Remote) else _Forked(implementation, calls)
    futures = [_pool().submit(trial.run, replacement, limit) for replacement, limit in runs]
    try:
        for future in futures:
            yield future.result()
    finally:
        for future in futures:
            future.cancel()
        for future in futures:  # the runs under way end before the caller goes on (as a pool's shutdown waited)
            if not future.cancelled():
                future.exception()


_pool = LifelongThreads(WORKERS, "trials")
"""This process's trial threads, kept for its whole life."""


class SessionTrials:
    """Trials of the sandboxed notebook of ``session``: its cells run again in a fresh child with one ``def``
    replaced, then ``calls`` of its functions by the student's names."""

    def __init__(self, session: StudentSession, name: str, calls: list[tuple[str, dict]]):
        self.session, self.calls = session, calls
        self.cell, self.line, self.function = session.locate(name)
        self.cells = session.due()
        self.prelude = course_prelude(list(itertools.takewhile(lambda c: c.index != self.cell.index, self.cells)))
        """the notebook's leading read-only cells (the course's code) before the edited one: run once by the fork
        server the trials are forked from, never again in a trial"""

    def run(self, replacement: str, limit: float) -> list[Outcome]:
        session = self.session
        edited = replace_function(self.cell.code, self.line, self.function, replacement)
        cells = [Cell(c.index, c.label, c.source, edited) if c.index == self.cell.index else c for c in self.cells]
        worker = _workers.get()
        try:
            slots = range(SLOTS + worker * SLOTS, SLOTS + (worker + 1) * SLOTS)
            ahead = starter(session.sandbox, session.preload, slots, self.prelude) if session.sandbox.isolated \
                else None
            fresh = StudentSession(cells, list(dict.fromkeys(n for n, _ in self.calls)), session.sandbox,
                                   session.cell_timeout, min(limit, session.call_timeout), starter=ahead,
                                   preload=session.preload, budget=session.remaining())
            with fresh:
                env = fresh.env()
                return [_outcome(env.get(called), kwargs, fresh.call_timeout) for called, kwargs in self.calls]
        finally:
            _workers.put(worker)


def _outcome(function: Any, kwargs: dict, limit: float) -> Outcome:
    if not callable(function):
        return "error", "NameError"
    try:
        return "value", function(**kwargs)
    except StudentError as exc:
        return "error", exc.type_name
    except CallTimeout:
        return "timeout", limit
    except ProcessDied:
        return "died", None


class _Stopped(BaseException):
    """A call of a forked trial ran past its limit."""


@functools.lru_cache(maxsize=256)
def _compiled(text: str, filename: str, offset: int) -> CodeType:
    """``text`` compiled as lines ``offset + 1`` on of ``filename`` (the parts of a file that do not change)."""
    return compile("\n" * offset + text, filename, "exec")


def _program(implementation: Any, replacement: str, functions: list[Any]) -> list[CodeType]:
    """The code of the files that define ``functions``, in order, the ``def`` of ``implementation`` replaced.

    The file holding that ``def`` is compiled in three parts (before it, it, after it) where the ``def``
    stands at the top level, so that only the replacement is compiled for each trial.
    """
    code = getattr(implementation, "__code__", None)
    if code is None:
        raise LookupError("the implementation is not a function defined with def")
    files = list(dict.fromkeys(getattr(getattr(f, "__code__", None), "co_filename", "") for f in [implementation,
                                                                                                   *functions]))
    program = []
    for filename in files:
        text = "".join(linecache.getlines(filename))
        if not text:
            raise LookupError(f"the source of {filename or 'a function'} cannot be found")
        if filename != code.co_filename:
            program.append(_compiled(text, filename, 0))
            continue
        first, last = function_lines(text, code.co_firstlineno, implementation.__name__)
        lines = text.splitlines(keepends=True)
        if lines[first - 1][:1].isspace():  # a def inside a block: the file is compiled whole
            program.append(compile(replace_function(text, code.co_firstlineno, implementation.__name__, replacement),
                                   filename, "exec"))
            continue
        program += [_compiled("".join(lines[:first - 1]), filename, 0),
                    compile("\n" * (first - 1) + replacement, filename, "exec"),
                    _compiled("".join(lines[last:]), filename, last)]
    return program


class _Forked:
    """Trials of functions that live in this process: each in a forked child, which runs their files again."""

    def __init__(self, implementation: Any, calls: list[tuple[Any, dict]]):
        self.implementation, self.calls = implementation, calls
        _program(implementation, "", [f for f, _ in calls])  # LookupError now, when the source cannot be found

    def run(self, replacement: str, limit: float) -> list[Outcome]:
        program = _program(self.implementation, replacement, [f for f, _ in self.calls])
        calls = [(getattr(f, "__name__", ""), kw) for f, kw in self.calls]
        folder = tempfile.mkdtemp(prefix="reading-maths-trial-")  # the child's working folder, removed after it
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the forked child: it never returns
            os.close(read)
            _trial(self.implementation.__globals__, program, calls, limit, write, folder)
        os.close(write)
        try:
            return _collect(read, pid, time.monotonic() + limit * (len(calls) + 1) + 10.0, len(calls), limit)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _collect(read: int, pid: int, deadline: float, expected: int, limit: float) -> list[Outcome]:
    """The outcomes a forked trial sends by ``deadline`` (a timeout for each one missing); the child is gone after."""
    raw = read_fork_reply(read, pid, deadline, MAX_REPLY)
    try:
        sent = json.loads(raw)
        found = [(kind, wire.decode(value) if kind == "value" else value) for kind, value in sent]
    except (ValueError, TypeError, wire.WireError):
        found = []
    return found[:expected] + [("timeout", limit)] * (expected - len(found))


def _trial(namespace: dict, program: list[CodeType], calls: list[tuple[str, dict]], limit: float,
           out: int, folder: str) -> None:  # pragma: no cover - runs in the forked child
    """The forked child: in the working ``folder``, run the program, make the calls, write the outcomes as JSON to
    ``out``, exit."""
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the process ends below
        os.chdir(folder)

        def stop(signum, frame):
            raise _Stopped()

        signal.signal(signal.SIGALRM, stop)
        outcomes: list = []
        try:
            for code in program:
                exec(code, namespace)  # noqa: S102 - the student's own code, again
        except BaseException:  # noqa: BLE001 - the program no longer runs: every call fails
            outcomes = [["error", "the program"] for _ in calls]
        for name, kwargs in calls[len(outcomes):]:
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                outcomes.append(["value", wire.encode(namespace[name](**kwargs))])
            except _Stopped:
                outcomes.append(["timeout", limit])
            except BaseException as exc:  # noqa: BLE001 - whatever the student's code raised
                outcomes.append(["error", type(exc).__name__])
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        data = memoryview(json.dumps(outcomes).encode())
        while data:
            data = data[os.write(out, data):]
    finally:
        os._exit(0)
