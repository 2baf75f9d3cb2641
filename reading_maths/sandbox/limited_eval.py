"""Running one pure function in a forked child under CPU, memory and wall-clock limits.

The formula checks (:mod:`reading_maths.kit.symbolic`) parse and evaluate a student's formula with
SymPy, which a hostile string such as ``9**9**9**9`` can keep busy for ever or fill memory with.  Their
work runs here instead: a fork of the grading process with a CPU limit, an address-space limit of
its current size plus 1 GiB, answering with one JSON line.  The limit that counts is CPU time, which a
loaded machine does not stretch (a right formula is never cut off because other work shares the cores);
the wall-clock deadline is only a backstop, :data:`WALL_FACTOR` times longer.  The text has already passed
a whitelist of tokens, so no student code runs; this bounds only the cost.
"""

from __future__ import annotations

import json
import math
import os
import select
import signal
import time
from collections.abc import Callable

WALL_FACTOR = 20
"""How many times the CPU allowance the child may take in wall-clock time before it is killed anyway."""


def _limits(seconds: float) -> None:
    import resource

    cpu = max(1, math.ceil(seconds))  # SIGXCPU at the soft limit ends the child
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        limit = pages * os.sysconf("SC_PAGE_SIZE") + (1 << 30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError):
        pass


def run_limited(func: Callable[..., tuple[str, str]], args: tuple, seconds: float) -> tuple[str, str] | None:
    """Run ``func(*args)`` in a forked child under a limit of ``seconds`` of CPU (and memory, and a wall-clock
    backstop of :data:`WALL_FACTOR` times that).

    Returns its ``(status, message)``, ``("error", type name)`` if it raised, or None on timeout.
    Where ``fork`` is not available it runs in this process, without the limits.
    """
    if not hasattr(os, "fork"):
        try:
            return func(*args)
        except Exception as exc:  # noqa: BLE001
            return "error", type(exc).__name__
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, write one JSON line, leave without cleanup
        status = 1
        try:
            os.close(read_end)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            _limits(seconds)
            try:
                result = list(func(*args))
            except BaseException as exc:  # noqa: BLE001 - MemoryError, RecursionError, ...
                result = ["error", type(exc).__name__]
            os.write(write_end, json.dumps(result).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    raw = read_fork_reply(read_end, pid, time.monotonic() + seconds * WALL_FACTOR)
    try:
        status, message = json.loads(raw.decode())
        return str(status), str(message)
    except (ValueError, TypeError):
        return None


def read_fork_reply(read: int, pid: int, deadline: float, max_bytes: int = 1 << 24) -> bytes:
    """What the forked child ``pid`` writes on the pipe ``read`` until it closes it, ``deadline`` passes or
    ``max_bytes`` arrive; the pipe is closed and the child killed and reaped after, whatever happened."""
    chunks, size = [], 0
    try:
        while (left := deadline - time.monotonic()) > 0 and select.select([read], [], [], left)[0]:
            chunk = os.read(read, 1 << 16)
            size += len(chunk)
            if not chunk or size > max_bytes:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    return b"".join(chunks)
