"""Starting the student's process: bubblewrap namespaces, another uid, rlimits, a private scratch.

As root on Linux with ``bwrap`` installed, the child runs in new PID, network, IPC and UTS
namespaces, as an unprivileged uid of its own with no new privileges and no capabilities, seeing
only ``/usr`` and the Python installation read-only, and a small private tmpfs (its HOME and working
directory) writable; nothing it writes reaches the host's disk.  Each grading process gives its
sandboxes a uid of their own (not root, not in /etc/passwd), so one student's fork bomb exhausts
only its own process limit.  Elsewhere it degrades, loudly, to a plain subprocess with the same
rlimits; ``require=True`` refuses instead.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path

UID_BASE, UID_SPAN = 200_000, 50_000
SCRATCH_BYTES = 64 << 20


def sandbox_uid() -> int:
    """The unprivileged uid this grading process runs its sandboxes as (one per worker process)."""
    return UID_BASE + os.getpid() % UID_SPAN


class SandboxUnavailable(RuntimeError):
    """The full sandbox cannot be had here and a degraded one was refused."""


@dataclass(frozen=True)
class Limits:
    """Resource limits for one student process (rlimits; wall-clock limits live in the session)."""

    cpu_seconds: int = 300
    memory_bytes: int = 3 << 30
    file_bytes: int = 32 << 20
    open_files: int = 256
    processes: int = 64

    def apply(self) -> None:
        """Set the limits on the calling process (used between fork and exec)."""
        for which, value in (
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_FSIZE, self.file_bytes),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(which, (value, value))


HERE = Path(__file__).resolve().parent
CHILD_FILES = ("child.py", "wire.py")
"""All of this package the child sees: its entry point and the wire it speaks (nothing of the kit)."""
CHILD_DIR = "/opt/reading-maths-child"
"""Where the child files appear inside the full sandbox."""


def _python_paths() -> list[Path]:
    """What the child's interpreter needs to see: the venv and its base install (not this package)."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent}
    return sorted(p for p in paths if not str(p).startswith("/usr"))


@dataclass(frozen=True)
class Sandbox:
    """How to start a child: ``mode`` is ``"bwrap"`` (full) or ``"plain"`` (degraded)."""

    mode: str
    limits: Limits = Limits()

    @property
    def isolated(self) -> bool:
        return self.mode == "bwrap"

    def new_scratch(self) -> Path:
        """A private, empty host folder: the child's HOME when degraded (the sandbox uses a tmpfs)."""
        scratch = Path(tempfile.mkdtemp(prefix="reading-maths-"))
        (scratch / "home").mkdir()
        return scratch

    def command(self, scratch: Path, argv: list[str]) -> list[str]:
        if not self.isolated:
            return argv
        cmd = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
               "--unshare-cgroup-try", "--die-with-parent", "--new-session",
               "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev",
               "--size", str(SCRATCH_BYTES), "--tmpfs", "/tmp"]
        for name in ("lib", "lib64", "bin", "sbin"):
            if os.path.islink(f"/{name}"):
                cmd += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
        binds = _python_paths() + [Path(CHILD_DIR), Path("/work/scratch")]
        made: set[Path] = set()
        for target in binds:
            for parent in reversed(target.parents):
                if parent != Path("/") and parent not in made and parent not in binds:
                    cmd += ["--perms", "0755", "--dir", str(parent)]
                    made.add(parent)
        for path in binds[:-2]:
            cmd += ["--ro-bind", str(path), str(path)]
        cmd += ["--dir", CHILD_DIR]
        for name in CHILD_FILES:
            cmd += ["--ro-bind", str(HERE / name), f"{CHILD_DIR}/{name}"]
        uid = str(sandbox_uid())
        cmd += ["--perms", "0777", "--size", str(SCRATCH_BYTES), "--tmpfs", "/work/scratch",
                "--perms", "0777", "--dir", "/work/scratch/home", "--chdir", "/work/scratch/home", "--clearenv",
                "/usr/bin/setpriv", "--reuid", uid, "--regid", uid, "--clear-groups",
                "--no-new-privs", "--bounding-set", "-all", "--inh-caps", "-all", "--"]
        return cmd + argv

    def child_script(self) -> str:
        """The child's entry point as the child sees it."""
        return f"{CHILD_DIR}/child.py" if self.isolated else str(HERE / "child.py")

    def environment(self, scratch: Path) -> dict[str, str]:
        home = "/work/scratch/home" if self.isolated else str(scratch / "home")
        return {"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
                "MPLCONFIGDIR": home, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}

    def spawn(self, scratch: Path) -> subprocess.Popen:
        """Start ``python -I child.py`` in the sandbox, protocol on stdin/stdout."""
        argv = [sys.executable, "-I", self.child_script()]
        return subprocess.Popen(
            self.command(scratch, argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=self.environment(scratch),
            cwd=scratch / "home", start_new_session=True, preexec_fn=self.limits.apply, close_fds=True,
        )


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


def kill(process: subprocess.Popen, grace: float = 10.0) -> None:
    """Kill the child's whole process group and its PID namespace, reap it, and wait (up to
    ``grace`` seconds) until every process of the namespace is dead.

    Killing bubblewrap alone leaves the namespace dying in the background: a fork bomb's hundreds
    of processes keep counting against the sandbox uid's process limit for a while, so the next
    child (this notebook's restart, or another student's notebook) could not start.
    """
    inits = _children(process.pid) if process.poll() is None else []
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
    deadline = time.monotonic() + grace
    while inits and time.monotonic() < deadline:
        inits = [pid for pid in inits if not _gone(pid)]
        if inits:
            time.sleep(0.02)
    for stream in (process.stdin, process.stdout):
        if stream:
            stream.close()


def remove_scratch(scratch: Path) -> None:
    shutil.rmtree(scratch, ignore_errors=True)


@cache
def _bwrap_works() -> bool:
    if os.geteuid() != 0 or not shutil.which("bwrap") or not os.path.exists("/usr/bin/setpriv"):
        return False
    probe = Sandbox("bwrap")
    scratch = probe.new_scratch()
    argv = [sys.executable, "-I", "-c", f"import os; assert os.getuid() == {sandbox_uid()}"]
    # A failed probe is retried for a while: one transient failure (seen on a machine loaded with
    # concurrent sandboxes) must not silently degrade the sandbox of a whole grading run.
    deadline = time.monotonic() + 20
    try:
        while True:
            try:
                done = subprocess.run(probe.command(scratch, argv), env=probe.environment(scratch),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30,
                                      check=False)
                if done.returncode == 0:
                    return True
            except (OSError, subprocess.TimeoutExpired):
                pass
            if time.monotonic() > deadline:
                return False
            time.sleep(1.0)
    finally:
        remove_scratch(scratch)


def choose(require: bool = False, limits: Limits | None = None) -> Sandbox:
    """The best sandbox this machine allows; warn (or refuse, with ``require``) when degraded."""
    if _bwrap_works():
        return Sandbox("bwrap", limits or Limits())
    reason = ("not running as root" if os.geteuid() != 0 else
              "bubblewrap (bwrap) is not installed or cannot create namespaces here")
    if require:
        raise SandboxUnavailable(f"the sandbox is unavailable: {reason}")
    warnings.warn(
        f"SANDBOX DEGRADED: {reason}. Student code will run as a plain subprocess with resource "
        "limits only: it can read files this user can read. Use --require-sandbox to refuse.",
        stacklevel=2,
    )
    return Sandbox("plain", limits or Limits())
