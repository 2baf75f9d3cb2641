"""The CPU of a batch's sandboxed processes, which no ``getrusage`` of the command sees.

A sandboxed child is killed through its PID namespace and reaped inside its sandbox (the fork server's or
bubblewrap's), and the fork server's own sandbox dies the same way: none of it is ever reaped by a process of the
command, so the command's ``RUSAGE_CHILDREN`` holds none of their CPU. :func:`counting` reads it from ``/proc``
instead, just before each child is stopped (its processes' CPU time, and that of the processes they reaped) and
just before each fork server is closed (its processes' own time: the children it reaped are counted already), in
this process and every process forked from it after the call (the pool's workers), into one shared total.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

from reading_maths.sandbox import stopping

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(pids: list[int], reaped: bool = True) -> float:
    """CPU seconds of these processes and of every process under them, while they live; ``reaped``: with those of
    the processes they have reaped.

    A process's own time is the sum of its threads' run time in nanoseconds (``/proc/PID/task/*/schedstat``): the
    user and system times of ``/proc/PID/stat`` are whole clock ticks (10 ms), and a sandboxed child of a few
    milliseconds would count as none. What it reaped is known only in ticks (``cutime``, ``cstime``)."""
    total, seen, pids = 0.0, set(), list(pids)
    while pids:
        pid = pids.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += _run_time(pid, fields) + (sum(int(f) for f in fields[13:15]) / TICK if reaped else 0.0)
        pids += stopping._children(pid)
    return total


def _run_time(pid: int, fields: list[str]) -> float:
    """A process's own CPU seconds: its threads' nanoseconds, or its ``stat`` ticks (``utime``, ``stime``) where the
    kernel keeps no ``schedstat``."""
    try:
        return sum(int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
                   for task in os.listdir(f"/proc/{pid}/task")) / 1e9
    except (OSError, ValueError):
        return sum(int(f) for f in fields[11:13]) / TICK


def counting() -> Synchronized:
    """Count, from now on, the CPU of every sandboxed child stopped and every fork server closed, in this process
    and the processes it forks; returns the shared total (seconds)."""
    from reading_maths.sandbox import child_starter, fork_server_client, notebook_run

    total = multiprocessing.get_context("fork").Value("d", 0.0)

    def add(seconds: float) -> None:
        with total.get_lock():
            total.value += seconds

    def counted(stop):
        @functools.wraps(stop)
        def stopping(child, *args, **kwargs):
            add(tree_cpu([child.pid]))
            return stop(child, *args, **kwargs)

        return stopping

    child_starter.stop = counted(child_starter.stop)  # a child the starter hands out (the pool's way)
    notebook_run.kill = counted(notebook_run.kill)  # a child bubblewrap started for one notebook
    close = fork_server_client.ForkServer.close

    @functools.wraps(close)
    def closing(self) -> None:
        if self._process is not None and self._process.poll() is None:
            add(tree_cpu([self._process.pid], reaped=False))
        close(self)

    fork_server_client.ForkServer.close = closing
    return total
