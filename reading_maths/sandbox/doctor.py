"""What isolation this machine gives student code, guarantee by guarantee (``reading-maths doctor``)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from reading_maths.sandbox import syscall_filter, uids
from reading_maths.sandbox.fork_server_client import probe
from reading_maths.sandbox.limits import SCRATCH_BYTES, TMPFS_BYTES, Limits
from reading_maths.sandbox.process import Sandbox, bwrap_disables_userns, inspect, sandbox_uid


@dataclass(frozen=True)
class Guarantee:
    """One property of the sandbox: whether this machine gives it, and why (not)."""

    name: str
    held: bool
    why: str


def memory_bound(limits: Limits, cgrouped: bool) -> str:
    """How a sandbox's memory is bounded, in MiB."""
    if cgrouped:
        return (f"{limits.memory_bytes >> 20} MiB: the sandbox's cgroup counts every page, tmpfs and shared memory "
                f"(where no cgroup can be had: {memory_bound(limits.uncounted(), False)})")
    return (f"{limits.bound() >> 20} MiB without a cgroup: {limits.processes} processes x "
            f"{limits.address_space >> 20} MiB address space + {TMPFS_BYTES >> 20} MiB of private tmpfs; "
            "memfd, SysV IPC, message queues, namespaces, mounts and io_uring refused")


def guarantees(jobs: int = 0, limits: Limits | None = None) -> tuple[str, list[Guarantee]]:
    """The sandbox mode :func:`~reading_maths.sandbox.process.choose` would pick for ``jobs`` sandboxes at once
    (``limits``: for sandboxes of these limits, a driver's), and each guarantee (``docs/security.md`` names the test
    behind each)."""
    mode, why, bases, cgroup_why = inspect()
    root = os.geteuid() == 0
    boxed = mode != "plain"
    limits = limits or Limits.for_jobs(jobs)
    limits = limits if bases else limits.uncounted()
    filtered = boxed and syscall_filter.program() is not None
    forking = probe(Sandbox(mode, limits, bases)) if boxed else why
    return mode, [
        Guarantee("namespaces (PID, network, IPC, UTS, mount)", boxed, why),
        *([] if root else [Guarantee("unprivileged user namespaces (how an ordinary user gets the namespaces)",
                                     mode == "userns", why)]),
        Guarantee("another host uid for student code", mode == "bwrap",
                  "setpriv to an unprivileged uid of its own" if mode == "bwrap" else
                  why if root else "needs root: the child is this user on the host, hidden by the namespaces" if boxed
                  else why),
        Guarantee("sandbox uids reserved: no account, group, subuid or subgid grant, no other process", mode == "bwrap",
                  _uids(mode, why)),
        Guarantee("read-only view: only /usr, the Python installation and the child's own files", boxed,
                  "bind mounts in a new mount namespace; a private tmpfs scratch" if boxed else why),
        Guarantee("no network", boxed, "a network namespace with only its own loopback" if boxed else why),
        Guarantee("nothing writable is shared: only the child's own /tmp, HOME and /dev/shm take a file", boxed,
                  f"three private tmpfs of {SCRATCH_BYTES >> 20} MiB each, gone with the child; /, /dev, the child "
                  "runtime and every bind read-only, with or without the fork server" if boxed else why),
        Guarantee("keyrings: no key of the grader's or of an earlier child reachable", filtered,
                  f"{syscall_filter.described()}; a new empty session keyring for each child; /proc/keys masked"
                  if boxed else why),
        Guarantee("SysV IPC, POSIX message queues and memfd refused (no memory outside the sandbox's bound)",
                  filtered, syscall_filter.described() if boxed else why),
        Guarantee("no namespaces, mounts or io_uring for student code (no memory or kernel state outside the bound)",
                  filtered, _namespaces(mode) if boxed else why),
        Guarantee("memory bounded per sandbox", boxed, memory_bound(limits, bool(bases)) if boxed else why),
        Guarantee("cgroup memory cap (memfd, tmpfs and shared memory counted)", bool(bases),
                  f"{cgroup_why}; {limits.memory_bytes >> 20} MiB per sandbox" if bases else cgroup_why),
        Guarantee("cgroup process cap", bool(bases),
                  f"{cgroup_why}; {limits.processes} tasks per sandbox" if bases else cgroup_why),
        Guarantee("every process of a sandbox killed before the next notebook", boxed,
                  "its PID namespace's init, through a pidfd" + (", and its cgroup" if bases else "")
                  + "; nothing else is ever signalled (no process is killed for running as a sandbox uid)" if boxed else
                  "a process group only: a process that leaves it survives"),
        Guarantee("a batch's children forked by a sandboxed fork server (Python and NumPy started once per worker)",
                  forking is None, "each child makes its own namespaces, /tmp, HOME and /proc, drops every privilege "
                  "and checks it has" if forking is None else f"{forking}: bubblewrap starts each child instead"),
        Guarantee("a notebook's whole grading bounded in time", True,
                  "by its budget (--budget, GradeInSandbox.budget; by default a multiple of the reference solution's "
                  "own grading time, under 'budgets' below); the questions not graded by "
                  "then get 0, status timeout"),
        Guarantee("rlimits (CPU, address space, file size, open files, processes)", True,
                  f"{limits.cpu_seconds} s CPU, {(limits.address_space or limits.memory_bytes) >> 20} MiB address "
                  "space, "
                  f"{limits.file_bytes >> 20} MiB files, {limits.processes} processes"
                  + ("" if root or mode != "userns" else " (counted inside the user namespace)")),
    ]


def remedy(mode: str) -> str | None:
    """How to give this machine a sandbox where it has none (``mode`` plain), else None."""
    if mode != "plain":
        return None
    if not shutil.which("bwrap"):
        return "install bubblewrap (Debian: apt-get install bubblewrap, or `make system-packages` in the course)"
    if not (os.path.exists("/usr/bin/prlimit") and os.path.exists("/usr/bin/setpriv")):
        return "install util-linux (prlimit, setpriv)"
    return ("let it make user namespaces: run it as root, or allow unprivileged ones (sysctl "
            "kernel.unprivileged_userns_clone=1; on Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0); "
            "in a container, a seccomp and AppArmor profile that allows them")


def _namespaces(mode: str) -> str:
    """How the child is kept from namespaces, mounts and io_uring."""
    said = syscall_filter.described_namespaces()
    if mode == "userns":
        said += ("; and no user namespace under the child's: max_user_namespaces 0 (a child the fork server starts), "
                 + ("bubblewrap's --disable-userns (one it starts)" if bwrap_disables_userns() else
                    "the filter alone for one bubblewrap starts (this bubblewrap has no --disable-userns)"))
    return said


def _uids(mode: str, why: str) -> str:
    """Which host uids sandboxes run as, or why none are reserved."""
    if mode == "bwrap":
        block = f"{sandbox_uid(0)}-{sandbox_uid(uids.BLOCK - 1)}"
        return (f"range {uids.configured()} (READING_MATHS_UIDS), checked free at start; this process holds "
                f"{block}, locked under {uids.LOCKS}")
    if os.geteuid() == 0:
        return why
    return "needs root: as an ordinary user the sandbox is this user on the host, and uses no host uid range"
