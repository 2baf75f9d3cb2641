"""Stopping a sandboxed child: SIGKILL to its PID namespace, process group and cgroup, and telling when the
kernel has torn all of it down (:class:`Dying`), without waiting where the caller need not.

Only processes proven to be the child's are signalled, never "whatever runs as the sandbox uid": the
init of its PID namespace through a pidfd opened while it was still bubblewrap's (unreaped) child or, for
a forked child, the one :mod:`reading_maths.sandbox.fork_server_client` opened; bubblewrap's own process group while
bubblewrap is not reaped (so its pid cannot name another process yet); and the members of its cgroup
(:meth:`reading_maths.sandbox.cgroups.Cgroup.destroy`).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass

from reading_maths.sandbox.cgroups import Cgroup


def _children(pid: int) -> list[int]:
    """The direct children of ``pid`` (from /proc; empty where /proc cannot tell)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                found += [int(c) for c in fh.read().split()]
    except (OSError, ValueError):
        pass
    return found


def parent(pid: int) -> int | None:
    """The parent of ``pid`` as /proc tells it (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
        return int(stat[stat.rindex(")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _own_children(pid: int) -> list[int]:
    """Pidfds of the children of ``pid``, a process of ours not yet reaped: each is checked, once its pidfd is
    open, to still be ``pid``'s child, so that it names that process and not a later one given its pid."""
    found = []
    for child in _children(pid):
        try:
            fd = os.pidfd_open(child)
        except OSError:
            continue
        if parent(child) == pid:
            found.append(fd)
        else:
            os.close(fd)
    return found


def exited(pidfd: int) -> bool:
    """The process of ``pidfd`` has exited (a PID namespace's init exits only once every process of its
    namespace is dead)."""
    return bool(select.select([pidfd], [], [], 0)[0])


@dataclass
class Dying:
    """A child that was sent SIGKILL and whose processes may not all be gone yet."""

    process: subprocess.Popen
    group: Cgroup | None
    inits: list[int]
    """pidfds of the PID namespace's init processes: once they have exited, so has everything inside"""

    def gone(self) -> bool:
        """Everything of the child has exited and its cgroup is removed (checks once, never waits)."""
        for fd in [fd for fd in self.inits if exited(fd)]:
            self.inits.remove(fd)
            os.close(fd)
        if self.group is not None and self.group.folders:
            self.group.destroy(grace=0)
        if self.inits or (self.group is not None and self.group.folders):
            return False
        self.process.poll()
        for stream in (self.process.stdin, self.process.stdout):
            if stream:
                stream.close()
        return True

    def wait(self, grace: float = 10.0) -> None:
        """Wait (up to ``grace`` seconds) until :meth:`gone`."""
        deadline = time.monotonic() + grace
        while not self.gone() and time.monotonic() < deadline:
            time.sleep(0.005)
        for fd in self.inits:  # given up on: not watched any more
            os.close(fd)
        self.inits = []


def stop(process: subprocess.Popen, group: Cgroup | None = None) -> Dying:
    """SIGKILL the child's PID namespace, process group and cgroup, and reap bubblewrap; returns at once,
    while the kernel tears the rest down (:class:`Dying` tells when it has).  A child the fork server made
    (:class:`reading_maths.sandbox.fork_server_client.Forked`) holds a pidfd of its namespace's init itself."""
    forked = hasattr(process, "init_pidfd")
    if forked:
        inits = [os.dup(process.init_pidfd())] if process.init_pidfd() is not None else []
    else:
        inits = _own_children(process.pid) if process.returncode is None else []
    for fd in inits:
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)  # the namespace's init: the kernel kills everything in it
        except OSError:
            pass
    if not forked and process.returncode is None:  # not reaped: its pid still names its own group
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        process.kill()
    except ProcessLookupError:
        pass
    process.wait()
    if group is not None:
        group.destroy(grace=0)
    return Dying(process, group, inits)


def kill(process: subprocess.Popen, group: Cgroup | None = None, grace: float = 10.0) -> None:
    """Kill the child's cgroup, process group and PID namespace, reap it, and wait (up to ``grace``
    seconds) until every process of the namespace is dead.

    Killing bubblewrap alone leaves the namespace dying in the background: a fork bomb's hundreds
    of processes keep counting against the sandbox uid's process limit for a while, so the next
    child (this notebook's restart, or another student's notebook) could not start.
    """
    stop(process, group).wait(grace)
