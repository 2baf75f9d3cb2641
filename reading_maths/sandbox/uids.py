"""The host uids sandboxes run as (root's ``bwrap`` mode): a range kept for them, checked free, one block per grader.

The range is ``READING_MATHS_UIDS=FIRST-LAST`` (default :data:`DEFAULT`: above systemd's container range
524288–1879048191, below its foreign range 0x7FFE0000 and 2³¹, far above the subordinate ids Debian grants
each new account, ``100000 + 65536·n``).  :func:`refusal` refuses it when a uid of it has a passwd or group
entry or lies in a grant of ``/etc/subuid`` or ``/etc/subgid`` (``READING_MATHS_SUBUID`` and
``READING_MATHS_SUBGID`` name other files).  Each grading process then takes a block of :data:`BLOCK` uids that
no running process has as any of its uids (:data:`BLOCK`), and holds a lock on it (a file under :data:`LOCKS`) while it
lives, so that two graders never share a uid and no uid of another account's process is ever handed out.
As an ordinary user the sandbox is that user on the host; the uids only name it inside its user namespace.
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
from dataclasses import dataclass
from pathlib import Path

DEFAULT = "1879048192-1879113727"
"""0x70000000 and the 65535 uids above it."""
SLOTS = 3
"""Sandbox uids per grading process for its notebooks: one child runs, the next waits ready, the last is dying."""
RERUN_SLOTS = 2 * SLOTS
"""The uids of the fresh children that run a notebook's code again while its own child waits, as many again
for each of the two workers of :mod:`reading_maths.sandbox.rerun`: slots ``SLOTS`` to ``SLOTS + RERUN_SLOTS - 1``."""
BLOCK = SLOTS + RERUN_SLOTS
"""The uids one grading process takes."""
LOCKS = Path("/run/reading-maths-uids")


class UidsUnavailable(RuntimeError):
    """No block of the range is free."""


@dataclass(frozen=True)
class UidRange:
    first: int
    last: int

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, int) and self.first <= uid <= self.last


def configured() -> UidRange:
    """The range ``READING_MATHS_UIDS`` names (``FIRST-LAST``), else :data:`DEFAULT`."""
    text = os.environ.get("READING_MATHS_UIDS") or DEFAULT
    try:
        first, last = (int(part) for part in text.split("-"))
    except ValueError:
        raise ValueError(f"READING_MATHS_UIDS={text!r} is not FIRST-LAST (two uids)") from None
    if not 0 < first <= last < 2**31 - 1 or last - first + 1 < BLOCK:
        raise ValueError(f"READING_MATHS_UIDS={text!r}: need {BLOCK} or more uids between 1 and 2^31-2")
    return UidRange(first, last)


def _grants(path: Path, uids: UidRange) -> list[str]:
    """The lines of a subordinate-id file (``owner:start:count``) that grant an id of ``uids``."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []
    found = []
    for line in lines:
        parts = line.strip().split(":")
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
            start, count = int(parts[1]), int(parts[2])
            if start <= uids.last and start + count - 1 >= uids.first:
                found.append(f"{path} grants {parts[0]} {start}-{start + count - 1}")
    return found


def problems(uids: UidRange) -> list[str]:
    """Why ``uids`` is not free (empty when it is): accounts, groups and subordinate-id grants inside it."""
    found = [f"user {u.pw_name} has uid {u.pw_uid}" for u in pwd.getpwall() if u.pw_uid in uids]
    found += [f"group {g.gr_name} has gid {g.gr_gid}" for g in grp.getgrall() if g.gr_gid in uids]
    for kind in ("subuid", "subgid"):
        found += _grants(Path(os.environ.get(f"READING_MATHS_{kind.upper()}") or f"/etc/{kind}"), uids)
    return found


def refusal() -> str | None:
    """None when the configured range is free and this process holds a block of it; else why not."""
    try:
        uids = configured()
        found = problems(uids)
        if found:
            return (f"sandbox uid range {uids} is not free ({'; '.join(found[:3])}); set READING_MATHS_UIDS=FIRST-LAST "
                    "to a free range")
        block()
    except (ValueError, UidsUnavailable, OSError) as exc:
        return str(exc)
    return None


def in_use(uids: UidRange) -> set[int]:
    """The uids of ``uids`` that some running process has (real, effective, saved or filesystem uid)."""
    found: set[int] = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/status") as fh:
                    line = next(line for line in fh if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            found |= {int(u) for u in line.split()[1:] if int(u) in uids}
    return found


def namespace_uid(slot: int) -> int:
    """The uid a child has inside its own user namespace (``userns`` mode), where it maps to the grading user."""
    return int(DEFAULT.split("-")[0]) + slot % BLOCK


_held: dict[int, tuple[tuple[int, ...], int]] = {}


def block() -> tuple[int, ...]:
    """This process's :data:`BLOCK` host uids for sandboxes, taken and locked on the first call (as root; an
    ordinary user has none: the uids inside its user namespaces)."""
    if os.geteuid() != 0:
        return tuple(namespace_uid(slot) for slot in range(BLOCK))
    pid = os.getpid()
    if pid not in _held:
        _held[pid] = _take(configured())
    return _held[pid][0]


def _lock_folder() -> Path:
    LOCKS.mkdir(mode=0o700, exist_ok=True)
    st = os.lstat(LOCKS)
    if st.st_uid != 0 or not os.path.isdir(LOCKS) or os.path.islink(LOCKS) or st.st_mode & 0o022:
        raise UidsUnavailable(f"{LOCKS} is not a folder only root can write")
    return LOCKS


def _take(uids: UidRange) -> tuple[tuple[int, ...], int]:
    """A block of ``uids`` no process runs as, locked for this process (a forked child takes its own)."""
    folder, busy = _lock_folder(), in_use(uids)
    blocks = (uids.last - uids.first + 1) // BLOCK
    for k in range(blocks):
        first = uids.first + (os.getpid() + k) % blocks * BLOCK
        block = tuple(range(first, first + BLOCK))
        if busy.intersection(block):
            continue
        fd = os.open(folder / str(first), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if not in_use(UidRange(block[0], block[-1])):
            return block, fd
        os.close(fd)
    raise UidsUnavailable(f"every block of {BLOCK} uids of the sandbox range {uids} is in use (running processes, "
                          "or other graders); set READING_MATHS_UIDS=FIRST-LAST to a larger free range")
