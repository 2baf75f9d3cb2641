"""What isolation this machine gives student code, guarantee by guarantee (``reading-maths doctor``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from reading_maths.sandbox.fork_server_client import probe
from reading_maths.sandbox.process import Limits, Sandbox, inspect


@dataclass(frozen=True)
class Guarantee:
    """One property of the sandbox: whether this machine gives it, and why (not)."""

    name: str
    held: bool
    why: str


def guarantees() -> tuple[str, list[Guarantee]]:
    """The sandbox mode :func:`~reading_maths.sandbox.process.choose` would pick, and each guarantee."""
    mode, why, bases, cgroup_why = inspect()
    root = os.geteuid() == 0
    boxed = mode != "plain"
    limits = Limits()
    forking = probe(Sandbox(mode, limits, bases)) if boxed else why
    return mode, [
        Guarantee("namespaces (PID, network, IPC, UTS, mount)", boxed, why),
        *([] if root else [Guarantee("unprivileged user namespaces (how an ordinary user gets the namespaces)",
                                     mode == "userns", why)]),
        Guarantee("another host uid for student code", mode == "bwrap",
                  "setpriv to an unprivileged uid of its own" if mode == "bwrap" else
                  "needs root: the child is this user on the host, hidden by the namespaces" if boxed else why),
        Guarantee("read-only view: only /usr, the Python installation and the child's own files", boxed,
                  "bind mounts in a new mount namespace; a private tmpfs scratch" if boxed else why),
        Guarantee("no network", boxed, "a network namespace with only its own loopback" if boxed else why),
        Guarantee("SysV shared memory bounded to the sandbox", boxed,
                  "an IPC namespace, gone with the sandbox" if boxed else why),
        Guarantee("cgroup memory cap (memfd, tmpfs and shared memory counted)", bool(bases),
                  f"{cgroup_why}; {limits.memory_bytes >> 20} MiB per sandbox" if bases else cgroup_why),
        Guarantee("cgroup process cap", bool(bases),
                  f"{cgroup_why}; {limits.processes} tasks per sandbox" if bases else cgroup_why),
        Guarantee("every process of a sandbox killed before the next notebook", boxed,
                  ("a PID namespace" + (" and a cgroup" if bases else "")
                   + (", and the sandbox uid emptied" if mode == "bwrap" else "")) if boxed else
                  "a process group only: a process that leaves it survives"),
        Guarantee("a batch's children forked by a sandboxed fork server (Python and NumPy started once per worker)",
                  forking is None, "each child makes its own namespaces, /tmp, HOME and /proc, drops every privilege "
                  "and checks it has" if forking is None else f"{forking}: bubblewrap starts each child instead"),
        Guarantee("rlimits (CPU, address space, file size, open files, processes)", True,
                  f"{limits.cpu_seconds} s CPU, {limits.memory_bytes >> 30} GiB address space, "
                  f"{limits.file_bytes >> 20} MiB files, {limits.processes} processes"
                  + ("" if root or mode != "userns" else " (counted inside the user namespace)")),
    ]
