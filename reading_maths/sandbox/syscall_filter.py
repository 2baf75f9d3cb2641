"""The seccomp filter every sandbox runs under: kernel objects that outlive a process, or hold memory no
rlimit counts, are refused (``EPERM``) before any student code runs.

- keyrings (``add_key``, ``request_key``, ``keyctl``): keys are per uid and per session, not per
  namespace, so one notebook could leave data for a later one of the same uid, or read the grader's
  session keyring.  The one ``keyctl`` left is joining a new, empty, anonymous session keyring
  (``KEYCTL_JOIN_SESSION_KEYRING`` with no name), which the child does first (``child.run``), so that
  it possesses nothing of the grader's;
- ``memfd_create`` and ``memfd_secret``: anonymous files in memory, counted by no rlimit;
- SysV IPC (``shmget``, ``semget``, ``msgget``) and POSIX message queues (``mq_open``): private to the
  sandbox's IPC namespace, but sized by the namespace's own limits (gigabytes), not by the sandbox's.

The filter is built with libseccomp (through ``pyseccomp``, its Python bindings over ctypes) on the trusted
side, exported as BPF and handed to bubblewrap (``--seccomp FD``), which loads it just before it starts the
child or the fork server; the fork server's children inherit it.  Other architectures' system calls
(a 32-bit ``int 0x80``, say) kill the process (libseccomp's default for a foreign architecture).
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

DENIED = ("add_key", "request_key", "memfd_create", "memfd_secret", "shmget", "semget", "msgget", "mq_open")
KEYCTL_JOIN_SESSION_KEYRING = 1


@cache
def program() -> bytes | None:
    """The filter as BPF, or None when libseccomp cannot be had here (the sandbox then runs without it)."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError):  # the package, or libseccomp.so.2, missing
        return None
    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED:
        rules.add_rule(deny, name)
    rules.add_rule(deny, "keyctl", seccomp.Arg(0, seccomp.NE, KEYCTL_JOIN_SESSION_KEYRING))
    rules.add_rule(deny, "keyctl", seccomp.Arg(0, seccomp.EQ, KEYCTL_JOIN_SESSION_KEYRING),
                   seccomp.Arg(1, seccomp.NE, 0))
    with tempfile.TemporaryFile() as fh:
        rules.export_bpf(fh)
        fh.seek(0)
        return fh.read()


@contextmanager
def descriptor() -> Iterator[int | None]:
    """A fresh readable descriptor holding :func:`program` while the block runs (bubblewrap reads it to its
    end, so each start needs its own), or None without a filter."""
    bpf = program()
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
