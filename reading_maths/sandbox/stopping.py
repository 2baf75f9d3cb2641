"""Stopping a sandboxed child: SIGKILL to its PID namespace, process group and cgroup, and telling when the
kernel has torn all of it down (:class:`Dying`), without waiting where the caller need not."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from reading_maths.sandbox.cgroups import Cgroup


def kill_uid(uid: int) -> None:
    """Kill every process of ``uid`` (a sandbox uid: nothing else runs as it)."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                os.kill(int(entry.name), 9)
        except OSError:
            pass


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


def _gone(pid: int) -> bool:
    """``pid`` has exited (it is gone, or a zombie: a PID namespace's init turns zombie only once
    every process of its namespace is dead)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
        return stat[stat.rindex(")") + 2:].startswith(("Z", "X"))
    except (OSError, ValueError):
        return True


@dataclass
class Dying:
    """A child that was sent SIGKILL and whose processes may not all be gone yet."""

    process: subprocess.Popen
    group: Cgroup | None
    inits: list[int]
    """the PID namespace's init processes: once they are gone (or zombies), so is everything inside"""

    def gone(self) -> bool:
        """Everything of the child has exited and its cgroup is removed (checks once, never waits)."""
        self.inits = [pid for pid in self.inits if not _gone(pid)]
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


def stop(process: subprocess.Popen, group: Cgroup | None = None) -> Dying:
    """SIGKILL the child's PID namespace, process group and cgroup, and reap bubblewrap; returns at once,
    while the kernel tears the rest down (:class:`Dying` tells when it has).  A child the fork server made
    (:class:`reading_maths.sandbox.fork_server_client.Forked`) names its namespace's init itself."""
    init = getattr(process, "init", None)
    inits = [init] if init is not None else _children(process.pid) if process.poll() is None else []
    for target in inits:
        try:
            os.kill(target, 9)  # the namespace's init: the kernel kills everything in it
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(process.pid, 9)
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
