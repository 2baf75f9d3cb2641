"""What one sandbox may use: rlimits per process, private tmpfs sizes, and the memory bound they add up to.

Where this machine gives a cgroup (:mod:`reading_maths.sandbox.cgroups`), a sandbox's memory is capped as a
whole at ``memory_bytes``: every page its processes touch, its tmpfs and shared memory included. Where none
can be had (an ordinary user whose administrator delegated none), the same bound is made of pieces the kernel
enforces without one: at most :data:`UNCOUNTED_PROCESSES` processes (fewer for a small cap, each keeping
:data:`ADDRESS_SPACE_MIN`), sharing ``memory_bytes - TMPFS_BYTES`` of address space, and three size-capped
private tmpfs (``/tmp``, ``HOME``, ``/dev/shm``); what would escape those (``memfd_create``, SysV IPC, POSIX
message queues, a nested namespace's tmpfs of any size, io_uring, grown socket and pipe buffers) is refused by
the syscall filter (:mod:`reading_maths.sandbox.syscall_filter`).

The default cap is sized from this machine: half its memory shared by the sandboxes that run at once
(``--jobs``), between 1 GiB and 3 GiB each.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

SCRATCH_BYTES = 64 << 20
"""The size of each of a sandbox's private tmpfs: /tmp, HOME (/work/scratch) and /dev/shm."""
TMPFS_BYTES = 3 * SCRATCH_BYTES
UNCOUNTED_PROCESSES = 8
"""At most this many processes (threads included) in a sandbox where no cgroup counts its memory."""
ADDRESS_SPACE_MIN = 256 << 20
"""What each of those processes gets at least (Python with NumPy and Matplotlib maps about 130 MiB)."""
MEMORY_MIN, MEMORY_MAX = 1 << 30, 3 << 30


def machine_memory() -> int:
    """This machine's memory in bytes (``MemTotal``)."""
    try:
        with open("/proc/meminfo") as fh:
            return next(int(line.split()[1]) << 10 for line in fh if line.startswith("MemTotal:"))
    except (OSError, StopIteration, ValueError):
        return MEMORY_MAX * 2


def default_memory(jobs: int = 0) -> int:
    """The per-sandbox memory cap for ``jobs`` sandboxes at once (0: one per core)."""
    jobs = jobs or os.cpu_count() or 1
    return max(MEMORY_MIN, min(MEMORY_MAX, machine_memory() // 2 // jobs >> 20 << 20))


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandbox (wall-clock limits live in the session).

    ``memory_bytes`` is the sandbox's memory cap; ``address_space`` each process's (0: the whole cap,
    as under a cgroup).
    """

    cpu_seconds: int = 300
    memory_bytes: int = MEMORY_MAX
    file_bytes: int = 32 << 20
    open_files: int = 256
    processes: int = 64
    address_space: int = 0

    @classmethod
    def for_jobs(cls, jobs: int = 0) -> Limits:
        return cls(memory_bytes=default_memory(jobs))

    def uncounted(self) -> Limits:
        """These limits where no cgroup counts the sandbox: fewer processes, the cap split between them."""
        usable = max(self.memory_bytes - TMPFS_BYTES, 2 * ADDRESS_SPACE_MIN)
        processes = max(2, min(self.processes, UNCOUNTED_PROCESSES, usable // ADDRESS_SPACE_MIN))
        return dataclasses.replace(self, processes=processes, address_space=usable // processes)

    def bound(self) -> int:
        """The most memory the sandbox can hold, in bytes, as these limits enforce it."""
        if not self.address_space:
            return self.memory_bytes
        return self.processes * self.address_space + TMPFS_BYTES

    def prlimit(self, processes: bool = True) -> list[str]:
        """The command prefix that starts a program under these limits (util-linux's ``prlimit``), so the
        child is started without running Python code between fork and exec."""
        prefix = ["/usr/bin/prlimit", f"--cpu={self.cpu_seconds}", f"--as={self.address_space or self.memory_bytes}",
                  f"--fsize={self.file_bytes}", f"--nofile={self.open_files}", "--core=0"]
        if processes:
            prefix.append(f"--nproc={self.processes}")
        return [*prefix, "--"]
