"""Children started one notebook ahead, and finished ones reaped without waiting: a grading process's
notebooks follow each other with no gap.

A :class:`Starter` starts the next notebook's child while the current one is graded: forked by the fork
server (:mod:`reading_maths.sandbox.fork_server_client`) where it runs, else started by bubblewrap; and it leaves a
finished child to die while the next one runs, checking it is gone before its sandbox uid is used
again.  Children rotate through :data:`~reading_maths.sandbox.process.SLOTS` uids, so the running child,
the one waiting and the one dying never share a uid.  Each child is still new for its notebook: it has
run no student code before it is handed one, and it is killed once that notebook is graded, so one
student's process never serves another.

A starter follows a *prelude* (:meth:`Starter.follow`): the notebook's leading read-only cells, which its fork
server runs once so that each child is forked after them (see
:class:`~reading_maths.sandbox.fork_server_client.ForkServer`).  It keeps a fork server for each of the last
:data:`PRELUDES` preludes it followed (most notebooks of a class share one; grading gives a notebook whose
read-only cells stand elsewhere none, :func:`~reading_maths.grading.engine.grade`).

A starter belongs to one grading process and is not thread-safe; :func:`starter` makes it once per
process (the pool workers of a batch) and stops its children when the process exits.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing.util
import os
import subprocess
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from reading_maths.sandbox.cgroups import Cgroup
from reading_maths.sandbox.fork_server_client import Forked, ForkServer, NoForkServer
from reading_maths.sandbox.process import SLOTS, Sandbox
from reading_maths.sandbox.stopping import Dying, stop

Started = tuple["subprocess.Popen | Forked", "Cgroup | None"]
Prelude = tuple[tuple[int, str], ...]
"""cells ``(index, code)`` of the course's that a fork server runs before it forks children"""
log = logging.getLogger(__name__)


class Starter:
    """Hands out fresh sandboxed children, each started before it is asked for (by a thread of its own, while the
    child handed out last runs)."""

    def __init__(self, sandbox: Sandbox, preload: tuple[str, ...] = (), slots: range = range(SLOTS),
                 prelude: Prelude = ()):
        if not sandbox.isolated:
            raise ValueError("children are started ahead only in the full sandbox (the plain one needs a scratch "
                             "folder per notebook)")
        self.sandbox, self.preload = sandbox, preload
        self.prelude = prelude
        """the cells ``(index, code)`` the children handed out from now on are forked after (:meth:`follow`)"""
        self._fork_servers: dict[Prelude, ForkServer] | None = {}
        """a fork server per prelude, the most recently used last (None: none starts here)"""
        self._slots = itertools.cycle(slots)
        self._ready: Future[tuple[int, Started, Prelude]] | None = None
        self._slot_of: dict[int, int] = {}
        self._dying: dict[int, Dying] = {}
        self._ahead = ThreadPoolExecutor(1, thread_name_prefix="child-ahead")
        """the only thread that asks the fork server for children (it lives as long as this starter: a child that
        bubblewrap starts dies with the thread that started it)"""

    def follow(self, prelude: Prelude) -> None:
        """Hand out children forked after ``prelude`` from now on (a child started ahead after other cells is
        stopped when it is taken)."""
        self.prelude = prelude

    def _spawn(self) -> Future[tuple[int, Started, Prelude]]:
        """The next child, started by the starter's own thread: its slot's last child gone, forked, in its cgroup."""
        slot = next(self._slots)
        return self._ahead.submit(self._start, slot, self._dying.pop(slot, None), self.prelude)

    def _fork_server(self, servers: dict[Prelude, ForkServer], prelude: Prelude) -> ForkServer:
        """The fork server of ``prelude`` among ``servers`` (started when it forks its first child), the oldest
        beyond :data:`PRELUDES` closed."""
        servers[prelude] = servers.pop(prelude, None) or ForkServer(self.sandbox, self.preload, prelude)
        for old in list(servers)[:-PRELUDES]:
            servers.pop(old).close()
        return servers[prelude]

    def _start(self, slot: int, dying: Dying | None, prelude: Prelude) -> tuple[int, Started, Prelude]:
        if dying is not None:  # its last child was stopped two notebooks ago: normally long gone
            dying.wait()
        if self._fork_servers is not None:
            try:
                forked, group = self._fork_server(self._fork_servers, prelude).fork(slot)
                forked.wait_moved()  # in its cgroup before the notebook's code arrives
                return slot, (forked, group), prelude
            except NoForkServer as exc:  # no fork server here: bubblewrap starts each child, as it does elsewhere
                log.warning("children are started one by one (%s)", exc)
                self._close_fork_servers()
                self._fork_servers = None
        return slot, self.sandbox.spawn(None, slot, self.preload), prelude

    def _close_fork_servers(self) -> None:
        for server in (self._fork_servers or {}).values():
            server.close()

    def prepare(self) -> None:
        """Start the fork server and the first notebook's child now, before any notebook is asked for (a worker
        process warming up while its batch's notebooks are still being found): the first :meth:`take` finds one."""
        if self._ready is None:
            self._ready = self._spawn()

    def take(self) -> Started:
        """A child that has run nothing yet but the prelude followed (when its fork server ran it), started ahead
        when it is still alive and for that prelude, else now; the next one is being started when this returns."""
        ahead, self._ready = self._ready, None
        ready = ahead.result() if ahead is not None else None
        if ready is not None and (ready[1][0].poll() is not None or ready[2] != self.prelude):
            self._leave(ready[0], stop(*ready[1]))  # it died waiting, or was started for other cells: another
            ready = None
        if ready is None:
            ready = self._spawn().result()
        self._ready = self._spawn()
        self._slot_of[id(ready[1][0])] = ready[0]
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
        ahead, self._ready = self._ready, None
        try:
            ready = ahead.result() if ahead is not None else None
        except Exception:  # noqa: BLE001 - it could not be started: nothing of it to stop
            ready = None
        if ready is not None:
            self._leave(ready[0], stop(*ready[1]))
        for dying in self._dying.values():
            dying.wait(grace)
        self._dying.clear()
        self._close_fork_servers()
        self._ahead.shutdown(wait=False)


_made: dict[tuple[int, Sandbox, tuple[str, ...], range], Starter] = {}
PRELUDES = 2
"""Fork servers a starter keeps for different preludes (the notebooks of a class mostly share one)."""
_making = threading.Lock()


def _fresh_lock() -> None:
    global _making
    _making = threading.Lock()  # a forked child's (the thread that held it is not there)


os.register_at_fork(after_in_child=_fresh_lock)


def starter(sandbox: Sandbox, preload: tuple[str, ...], slots: range = range(SLOTS),
            prelude: Prelude | None = None) -> Starter:
    """This process's starter for ``sandbox`` and ``slots`` (a forked process makes its own), following ``prelude``
    from now on when one is given (:meth:`Starter.follow`; () for none); its children are stopped when the process
    exits (a pool worker's exit included)."""
    key = (os.getpid(), sandbox, preload, slots)
    with _making:  # the trial workers ask for theirs at once
        if key not in _made:
            _made[key] = Starter(sandbox, preload, slots)
            multiprocessing.util.Finalize(_made[key], _made[key].close, exitpriority=10)
        made = _made[key]
    if prelude is not None:
        made.follow(prelude)
    return made
