"""Per-sandbox memory and process caps with control groups, where this machine lets this user have them.

A sandbox's cgroup counts every page its processes touch, shared memory included (memfd, tmpfs,
SysV shm), and every task it forks; killing the cgroup's tasks leaves nothing of the sandbox
alive.  Two layouts are understood:

- cgroup v2 with the ``memory`` and ``pids`` controllers: one folder per sandbox, under
  ``/sys/fs/cgroup/reading-maths`` as root, or under the cgroup this process runs in when that is
  delegated to this user (``systemd-run --user --scope -p Delegate=yes``);
- cgroup v1 (``memory`` and ``pids`` hierarchies mounted separately, as in many containers): one
  folder per sandbox in each, under ``reading-maths`` as root or ``reading-maths-<uid>`` when an
  administrator delegated that folder to this user (``mkdir`` it and ``chown`` it to the user).

Folders are named ``<grader pid>-<n>``: those of a grader that no longer runs (a killed run)
are emptied and removed by the next run (:func:`sweep`).
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_serial = itertools.count()


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def _own_v2() -> Path | None:
    try:
        line = next(x for x in Path("/proc/self/cgroup").read_text().splitlines() if x.startswith("0::"))
    except (OSError, StopIteration):
        return None
    for mount in (ROOT, ROOT / "unified"):
        here = mount / line[3:].lstrip("/")
        if (mount / "cgroup.controllers").exists():
            return here
    return None


def _v2_controllers(path: Path) -> set[str]:
    try:
        return set((path / "cgroup.controllers").read_text().split())
    except OSError:
        return set()


def bases() -> tuple[dict[str, Path] | None, str]:
    """Where this process may make sandbox cgroups: ``{"memory": dir, "pids": dir}`` (the same dir on
    v2), or ``None``, with the reason either way."""
    try:
        return _bases()
    except OSError as exc:  # a read-only /sys/fs/cgroup (many containers), a controller that is busy
        return None, f"the cgroup folders cannot be set up here ({exc.strerror or exc})"


def _bases() -> tuple[dict[str, Path] | None, str]:
    name = "reading-maths" if os.geteuid() == 0 else f"reading-maths-{os.geteuid()}"
    v1 = {c: ROOT / c for c in ("memory", "pids")}
    if all((d / "cgroup.procs").exists() for d in v1.values()):
        found = {c: d / name for c, d in v1.items()}
        if os.geteuid() == 0:
            for d in found.values():
                d.mkdir(exist_ok=True)
        if all(_writable(d) for d in found.values()):
            return found, f"cgroup v1 memory and pids folders {name}/ are writable"
        return None, (f"cgroup v1 here, and {name}/ under {v1['memory']} and {v1['pids']} is not delegated to this "
                      "user (as root: mkdir it in both and chown it to the grading user)")
    if {"memory", "pids"} <= _v2_controllers(ROOT) and os.geteuid() == 0:
        base = ROOT / name
        base.mkdir(exist_ok=True)
        (ROOT / "cgroup.subtree_control").write_text("+memory +pids")
        (base / "cgroup.subtree_control").write_text("+memory +pids")
        return {"memory": base, "pids": base}, "cgroup v2 with memory and pids, as root"
    own = _own_v2()
    if own is not None and {"memory", "pids"} <= _v2_controllers(own) and _writable(own):
        return {"memory": own, "pids": own}, f"cgroup v2 subtree {own} is delegated to this user"
    return None, "no cgroup with memory and pids controllers is writable by this user"


@dataclass
class Cgroup:
    """The cgroup folders of one sandbox (one per controller on v1, one on v2)."""

    folders: list[Path]

    @classmethod
    def create(cls, base: dict[str, Path], memory_bytes: int, processes: int) -> Cgroup:
        label = f"{os.getpid()}-{next(_serial)}"
        folders = list(dict.fromkeys(d / label for d in base.values()))
        for folder in folders:
            folder.mkdir()
        memory, pids = base["memory"] / label, base["pids"] / label
        if (memory / "memory.max").exists():
            (memory / "memory.max").write_text(str(memory_bytes))
            if (memory / "memory.swap.max").exists():
                (memory / "memory.swap.max").write_text("0")
        else:
            (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
            if (memory / "memory.memsw.limit_in_bytes").exists():
                (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
        (pids / "pids.max").write_text(str(processes))
        return cls(folders)

    def move(self, pid: int) -> None:
        """Move process ``pid`` in (before it has started any other process; the move waits for the kernel)."""
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(pid))

    def entered(self, command: list[str]) -> list[str]:
        """``command`` run by a shell that first moves itself into this cgroup (and stops if it cannot), so that
        the caller does not wait while the kernel moves it: the move waits for an RCU grace period."""
        files = [str(folder / "cgroup.procs") for folder in self.folders]
        moves = " && ".join(f'echo $$ > "${i + 1}"' for i in range(len(files)))
        return ["/bin/sh", "-c", f'{moves} && shift {len(files)} && exec "$@"', "sh", *files, *command]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in self.folders:
            try:
                found |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                pass
        return found

    def destroy(self, grace: float = 10.0) -> None:
        """Kill every task in the cgroup and remove its folders."""
        deadline = time.monotonic() + grace
        while True:
            for pid in self.pids():
                self._kill_member(pid)
            for folder in self.folders:
                try:
                    folder.rmdir()
                except FileNotFoundError:
                    pass
                except OSError:
                    continue
            self.folders = [f for f in self.folders if f.exists()]
            if not self.folders or time.monotonic() > deadline:
                return
            time.sleep(0.02)


    def _kill_member(self, pid: int) -> None:
        """SIGKILL ``pid`` through a pidfd, once the pidfd is seen to name a member of this cgroup (not a later
        process given the pid of one that has left)."""
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            return
        try:
            with open(f"/proc/{pid}/cgroup") as fh:
                paths = [line.rstrip("\n").split(":", 2)[-1] for line in fh]
            if any(p.endswith(f"/{f.parent.name}/{f.name}") for p in paths for f in self.folders):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os.close(fd)


def process_exists(pid: int) -> bool:
    """Whether process ``pid`` is alive on this machine (whoever owns it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(base: dict[str, Path]) -> None:
    """Empty and remove the sandbox cgroups of graders that no longer run."""
    stale = []
    for folder in {d for d in base.values()}:
        for child in folder.iterdir():
            owner = child.name.split("-")[0]
            if child.is_dir() and owner.isdigit() and not process_exists(int(owner)):
                stale.append(child)
    if stale:
        Cgroup(stale).destroy(grace=2.0)
