"""The seccomp filters sandboxes run under: kernel objects that outlive a process, hold memory no rlimit counts,
or make namespaces and mounts, are refused (``EPERM``) before any student code runs.

- keyrings (``add_key``, ``request_key``, ``keyctl``): keys are per uid and per session, not per
  namespace, so one notebook could leave data for a later one of the same uid, or read the grader's
  session keyring.  The one ``keyctl`` left is joining a new, empty, anonymous session keyring
  (``KEYCTL_JOIN_SESSION_KEYRING`` with no name), which the child does first (``child.run``), so that
  it possesses nothing of the grader's;
- ``memfd_create`` and ``memfd_secret``: anonymous files in memory, counted by no rlimit;
- SysV IPC (``shmget``, ``semget``, ``msgget``) and POSIX message queues (``mq_open``): private to the
  sandbox's IPC namespace, but sized by the namespace's own limits (gigabytes), not by the sandbox's;
- namespaces and mounts (issue 32): ``unshare``, ``clone`` with any ``CLONE_NEW*`` flag, ``setns``, and every
  mount call (``mount``, ``umount2``, ``pivot_root`` and the new mount API): a nested user namespace would
  let the child mount a tmpfs of any size, outside its bound.  ``clone3`` is answered ``ENOSYS`` (a filter
  cannot read its flags, which it takes in memory), so glibc falls back to ``clone``, whose flags it can;
- ``io_uring_*``, ``userfaultfd``, ``bpf``, ``perf_event_open``, ``vmsplice`` (pipes pinning pages unmapped
  since), modules and ``kexec``: kernel state, or memory, outside the bound;
- sockets other than ``AF_UNIX`` (there is no network: a loopback TCP connection's buffers grow to megabytes
  each), and growing a socket's or a pipe's buffer (``SO_SNDBUF``, ``SO_RCVBUF``, ``F_SETPIPE_SZ``): kernel
  buffers stay at their default sizes.

Two filters stack.  The fork server (:mod:`reading_maths.sandbox.inside.fork_server`) makes each child's
namespaces and tmpfs itself, after bubblewrap loaded its filter: that one (``strict=False``) leaves it
``unshare``, ``mount`` and an ``AF_INET`` socket (to bring loopback up); each child's student process loads the
strict one (``strict=True``, handed to the fork server as BPF) before any student code runs.  A child started
by bubblewrap alone runs under the strict one from the start.

The filters are built with libseccomp (through ``pyseccomp``, its Python bindings over ctypes) on the trusted
side and exported as BPF; bubblewrap loads one (``--seccomp FD``) just before it starts the child or the fork
server.  Other architectures' system calls (a 32-bit ``int 0x80``, say) kill the process (libseccomp's
default for a foreign architecture).
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

DENIED = ("add_key", "request_key", "memfd_create", "memfd_secret", "shmget", "semget", "msgget", "mq_open")
MOUNTS = ("umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
          "mount_setattr")
"""The mount calls the fork server never needs (it mounts with ``mount`` only)."""
KERNEL_STATE = ("setns", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "bpf",
                "perf_event_open", "vmsplice", "init_module", "finit_module", "delete_module", "kexec_load",
                "kexec_file_load")
FORK_SERVER_ONLY = ("unshare", "mount")
"""What only the fork server may call (never a child): it makes each child's namespaces and tmpfs."""
CLONE_NEW = {"CLONE_NEWNS": 0x20000, "CLONE_NEWCGROUP": 0x2000000, "CLONE_NEWUTS": 0x4000000,
             "CLONE_NEWIPC": 0x8000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
             "CLONE_NEWNET": 0x40000000, "CLONE_NEWTIME": 0x80}
"""Every namespace flag of ``unshare`` (``clone``'s low byte is its exit signal: CLONE_NEWTIME is unshare's only)."""
BUFFER_OPTIONS = (socket.SO_SNDBUF, socket.SO_RCVBUF, 32, 33)  # SO_SNDBUFFORCE, SO_RCVBUFFORCE
F_SETPIPE_SZ = 1031
KEYCTL_JOIN_SESSION_KEYRING = 1


def refused(strict: bool = True) -> tuple[str, ...]:
    """The system calls refused outright (``clone3`` aside, answered ``ENOSYS``)."""
    return (*DENIED, *MOUNTS, *KERNEL_STATE, *(FORK_SERVER_ONLY if strict else ()))


@cache
def program(strict: bool = True) -> bytes | None:
    """The filter as BPF (``strict``: a child's; else the fork server's), or None when libseccomp cannot be had
    here (the sandbox then runs without it)."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError):  # the package, or libseccomp.so.2, missing
        return None
    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in refused(strict):
        rules.add_rule(deny, name)
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in CLONE_NEW.values():
        if flag != CLONE_NEW["CLONE_NEWTIME"]:
            rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))  # flags: arg 0 (not s390)
    rules.add_rule(deny, "keyctl", seccomp.Arg(0, seccomp.NE, KEYCTL_JOIN_SESSION_KEYRING))
    rules.add_rule(deny, "keyctl", seccomp.Arg(0, seccomp.EQ, KEYCTL_JOIN_SESSION_KEYRING),
                   seccomp.Arg(1, seccomp.NE, 0))
    if strict:
        rules.add_rule(deny, "socket", seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
        for option in BUFFER_OPTIONS:
            rules.add_rule(deny, "setsockopt", seccomp.Arg(1, seccomp.EQ, socket.SOL_SOCKET),
                           seccomp.Arg(2, seccomp.EQ, option))
        rules.add_rule(deny, "fcntl", seccomp.Arg(1, seccomp.EQ, F_SETPIPE_SZ))
    with tempfile.TemporaryFile() as fh:
        rules.export_bpf(fh)
        fh.seek(0)
        return fh.read()


@contextmanager
def descriptor(strict: bool = True) -> Iterator[int | None]:
    """A fresh readable descriptor holding :func:`program` while the block runs (bubblewrap reads it to its
    end, so each start needs its own), or None without a filter."""
    bpf = program(strict)
    if bpf is None:
        yield None
        return
    fd = os.memfd_create("reading-maths-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, bpf)
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd
    finally:
        os.close(fd)


def described() -> str:
    """What ``reading-maths doctor`` says of the filter."""
    if program() is None:
        return "libseccomp (pyseccomp, libseccomp2) cannot be loaded here: no filter"
    return ("a seccomp filter built with libseccomp (pyseccomp) and loaded by bubblewrap: "
            + ", ".join(("keyctl", *DENIED)) + " refused")


def described_namespaces() -> str:
    """What ``reading-maths doctor`` says of the namespace, mount and io_uring part of the filter."""
    if program() is None:
        return "libseccomp (pyseccomp, libseccomp2) cannot be loaded here: no filter"
    return ("the child's seccomp filter refuses unshare, clone with any CLONE_NEW* flag (clone3: ENOSYS), setns, "
            "mount, " + ", ".join(MOUNTS) + ", io_uring, userfaultfd, bpf, perf_event_open, vmsplice, modules, "
            "kexec, non-unix sockets and larger socket or pipe buffers")
