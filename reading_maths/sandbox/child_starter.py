"""Children started one notebook ahead, and finished ones reaped without waiting: a grading process's
notebooks follow each other with no gap.

A :class:`Starter` starts the next notebook's child while the current one is graded: forked by the fork
server (:mod:`reading_maths.sandbox.fork_server_client`) where it runs, else started by bubblewrap; and it leaves a
finished child to die while the next one runs, checking it is gone before its sandbox uid is used
again.  Children rotate through :data:`~reading_maths.sandbox.process.SLOTS` uids, so the running child,
the one waiting and the one dying never share a uid.  Each child is still new for its notebook: it has
run no student code before it is handed one, and it is killed once that notebook is graded, so one
student's process never serves another.

A starter belongs to one grading process and is not thread-safe; :func:`starter` makes it once per
process (the pool workers of a batch) and stops its children when the process exits.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing.util
import os
import subprocess

from reading_maths.sandbox.cgroups import Cgroup
from reading_maths.sandbox.fork_server_client import Forked, ForkServer, NoForkServer
from reading_maths.sandbox.process import SLOTS, Sandbox
from reading_maths.sandbox.stopping import Dying, stop

Started = tuple["subprocess.Popen | Forked", "Cgroup | None"]
log = logging.getLogger(__name__)


class Starter:
    """Hands out fresh sandboxed children, each started before it is asked for."""

    def __init__(self, sandbox: Sandbox, preload: tuple[str, ...] = (), slots: range = range(SLOTS)):
        if not sandbox.isolated:
            raise ValueError("children are started ahead only in the full sandbox (the plain one needs a scratch "
                             "folder per notebook)")
        self.sandbox, self.preload = sandbox, preload
        self._fork_server: ForkServer | None = ForkServer(sandbox, preload)
        self._slots = itertools.cycle(slots)
        self._ready: tuple[int, Started] | None = None
        self._slot_of: dict[int, int] = {}
        self._dying: dict[int, Dying] = {}

    def _spawn(self) -> tuple[int, Started]:
        slot = next(self._slots)
        if slot in self._dying:  # its last child was stopped two notebooks ago: normally long gone
            self._dying.pop(slot).wait()
        if self._fork_server is not None:
            try:
                return slot, self._fork_server.fork(slot)
            except NoForkServer as exc:  # no fork server here: bubblewrap starts each child, as it does elsewhere
                log.warning("children are started one by one (%s)", exc)
                self._fork_server.close()
                self._fork_server = None
        return slot, self.sandbox.spawn(None, slot, self.preload)

    def prepare(self) -> None:
        """Start the fork server and the first notebook's child now, before any notebook is asked for (a worker
        process warming up while its batch's notebooks are still being found): the first :meth:`take` finds one."""
        if self._ready is None:
            self._ready = self._spawn()

    def take(self) -> Started:
        """A child that has run nothing yet (started ahead when it is still alive, else now); the next one is
        started before this returns."""
        ready, self._ready = self._ready, None
        if ready is not None and ready[1][0].poll() is not None:  # it died waiting: start another
            self._leave(ready[0], stop(*ready[1]))
            ready = None
        if ready is None:
            ready = self._spawn()
        self._ready = self._spawn()
        self._slot_of[id(ready[1][0])] = ready[0]
        if isinstance(ready[1][0], Forked):
            ready[1][0].wait_moved()  # in its cgroup before the notebook's code arrives
        return ready[1]

    def retire(self, process: subprocess.Popen | Forked, group: Cgroup | None) -> None:
        """Kill a child handed out by :meth:`take`; its teardown is checked when its uid is next needed."""
        self._leave(self._slot_of.pop(id(process)), stop(process, group))

    def _leave(self, slot: int, dying: Dying) -> None:
        """Remember a stopped child of ``slot`` until it is gone (at most one per slot is left waiting)."""
        if slot in self._dying:
            self._dying.pop(slot).wait()
        if not dying.gone():
            self._dying[slot] = dying

    def close(self, grace: float = 10.0) -> None:
        """Stop the child waiting ahead and wait for every child to be gone."""
        if self._ready is not None:
            self._leave(self._ready[0], stop(*self._ready[1]))
            self._ready = None
        for dying in self._dying.values():
            dying.wait(grace)
        self._dying.clear()
        if self._fork_server is not None:
            self._fork_server.close()


_made: dict[tuple[int, Sandbox, tuple[str, ...], range], Starter] = {}


def starter(sandbox: Sandbox, preload: tuple[str, ...], slots: range = range(SLOTS)) -> Starter:
    """This process's starter for ``sandbox`` and ``slots`` (a forked process makes its own); its children are
    stopped when the process exits (a pool worker's exit included)."""
    key = (os.getpid(), sandbox, preload, slots)
    if key not in _made:
        _made[key] = made = Starter(sandbox, preload, slots)
        multiprocessing.util.Finalize(made, made.close, exitpriority=10)
    return _made[key]
