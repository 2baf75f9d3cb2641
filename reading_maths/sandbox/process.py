"""Starting the student's process: bubblewrap namespaces, another uid, rlimits, cgroup caps.

With ``bwrap`` the child runs in new PID, network, IPC and UTS namespaces with no capabilities and no new
privileges, seeing only ``/usr``, the Python installation and the child's own folder (``sandbox/inside``)
read-only, and three small private tmpfs (``/tmp``, ``/dev/shm`` and its HOME) writable; nothing it writes
reaches the host's disk or a later child, and a syscall filter (:mod:`reading_maths.sandbox.syscall_filter`)
refuses keyrings, memfd, SysV IPC, namespaces, mounts and io_uring (and, in a user namespace, bubblewrap's
``--disable-userns`` where it has it). As root it also runs as an unprivileged host uid of its own (from a
range checked free, a block of them locked per grading process: :mod:`reading_maths.sandbox.uids`); as an
ordinary user the namespaces live in an unprivileged user namespace (``"userns"``) and the child is the
grading user on the host, hidden from everything but what is bound in. Where the machine delegates cgroups,
each sandbox gets memory (shared memory included) and process caps of its own; rlimits apply everywhere, and
bound its memory where no cgroup does (:mod:`reading_maths.sandbox.limits`). Without bwrap, :func:`choose`
refuses unless the teacher allows the unsafe plain subprocess. ``reading-maths doctor`` prints what this
machine gives.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from reading_maths.sandbox import cgroups, syscall_filter, uids
from reading_maths.sandbox.cgroups import Cgroup
from reading_maths.sandbox.limits import SCRATCH_BYTES, Limits
from reading_maths.sandbox.uids import BLOCK, RERUN_SLOTS, SLOTS  # noqa: F401 - the slots, named here too

SCRATCH_PREFIX = "reading-maths-scratch-"


def sandbox_uid(slot: int = 0) -> int:
    """The unprivileged uid this grading process runs its sandboxes in ``slot`` as (:data:`SLOTS` per process,
    so that a child started ahead or one still dying never shares the uid of the one running)."""
    return uids.block()[slot % BLOCK]


class SandboxUnavailable(RuntimeError):
    """The full sandbox cannot be had here and a degraded one was refused."""


INSIDE = Path(__file__).resolve().parent / "inside"
"""All of this package the child sees, bound as one folder: its entry point, the wire it speaks, the functions
that travel on it as data, the shell that runs its cells, and the fork server that starts it in a batch."""
FORK_SERVER_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_NET_ADMIN")
"""What the fork server keeps, within its own sandbox, to give each child namespaces, mounts, loopback and
(as root) a uid of its own; each child drops them all, and checks, before it runs anything."""
PROC_MASKED = ("/proc/keys", "/proc/key-users")
"""What of /proc is hidden (``/dev/null`` bound over it): the keys and key counts of this uid, which the kernel
lists to anyone of the same uid, as an ordinary user's sandbox is on the host (as Docker masks them)."""
MASKED = [a for path in PROC_MASKED for a in ("--ro-bind", "/dev/null", path)]
CHILD_DIR = "/opt/reading-maths-child"
"""Where :data:`INSIDE` appears inside the full sandbox."""


@cache
def bwrap_disables_userns() -> bool:
    """Whether this bubblewrap has ``--disable-userns`` (0.8 and later): no user namespace inside the sandbox."""
    try:
        done = subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--disable-userns" in done.stdout + done.stderr


def refuses_nested_userns() -> bool:
    """Whether a child in a user namespace is refused user namespaces of its own besides by its seccomp filter:
    bubblewrap's ``--disable-userns`` for a child it starts (where it has it), ``max_user_namespaces`` set to 0
    in its own user namespace for one the fork server starts.  Always; the census's control
    (``tests/test_census.py``) turns it off to show what it holds back."""
    return True


@cache
def site_paths() -> tuple[str, ...]:
    """The package folders the child's Python needs, found here once: this interpreter's site-packages and
    the folders their ``.pth`` files name.

    The child starts with ``-S`` and adds these itself: running ``site`` would also run the ``.pth`` files'
    ``import`` lines, such as an editable install's import hook (15 ms of every start, for a package the
    child never sees).
    """
    import site

    found: list[str] = []
    for folder in site.getsitepackages():
        found.append(folder)
        for pth in sorted(Path(folder).glob("*.pth")):
            for line in pth.read_text(errors="replace").splitlines():
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")) and Path(folder, line).is_dir():
                    found.append(str(Path(folder, line).resolve()))
    return tuple(dict.fromkeys(found))


def _python_paths() -> list[Path]:
    """What the child's interpreter needs to see: the venv and its base install (not this package)."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent}
    return sorted(p for p in paths if not str(p).startswith("/usr"))


def bound_paths() -> list[Path]:
    """Where the sandbox's read-only binds appear (besides /usr): the Python installation, the child's files."""
    return [*_python_paths(), Path(CHILD_DIR)]


@dataclass(frozen=True)
class Sandbox:
    """How to start a child: ``mode`` is ``"bwrap"`` (root: namespaces and another host uid),
    ``"userns"`` (an ordinary user: the same namespaces inside an unprivileged user namespace) or
    ``"plain"`` (no isolation: only with ``--unsafe-no-sandbox``).  ``cgroups`` holds where
    per-sandbox memory and process caps are made, when this machine allows them."""

    mode: str
    limits: Limits = Limits()
    cgroups: tuple[tuple[str, Path], ...] = ()

    @property
    def isolated(self) -> bool:
        return self.mode in ("bwrap", "userns")

    def uid(self, slot: int = 0) -> int:
        """The uid ``slot``'s children run as: a host uid as root (:func:`sandbox_uid`), else one that only names
        the grading user inside the child's user namespace."""
        return sandbox_uid(slot) if self.mode == "bwrap" else uids.namespace_uid(slot)

    def new_scratch(self) -> Path | None:
        """A private, empty host folder for the degraded mode's HOME (the sandbox uses a tmpfs: none)."""
        if self.isolated:
            return None
        scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
        (scratch / "home").mkdir()
        return scratch

    def command(self, argv: list[str], slot: int = 0, fork_server: bool = False, seccomp: int | None = None
                ) -> list[str]:
        """``argv`` in this sandbox as ``slot``'s uid; for the ``fork_server``
        (:mod:`reading_maths.sandbox.inside.fork_server`), the same view, but run as bubblewrap's own uid with
        the capabilities it needs to make a sandbox for each child it forks (:data:`FORK_SERVER_CAPABILITIES`),
        which every child drops before it runs anything.  ``seccomp``: a descriptor holding the syscall filter
        (:func:`reading_maths.sandbox.syscall_filter.descriptor`), for bubblewrap to load before it starts ``argv``.

        Writable are only three private tmpfs of :data:`SCRATCH_BYTES` each (``/tmp``, HOME under
        ``/work/scratch``, ``/dev/shm``); ``/`` and ``/dev`` are remounted read-only once made, and every bind is.
        """
        if not self.isolated:
            return argv
        cmd = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
               "--unshare-cgroup-try", "--die-with-parent", "--new-session",
               "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev",
               "--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", "/dev/shm",
               "--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", "/tmp"]  # writable, as /tmp is
        if not fork_server:  # its children mask their own /proc (a masked /proc cannot be mounted again in a userns)
            cmd[cmd.index("/proc") + 1:cmd.index("/proc") + 1] = MASKED
        uid = str(self.uid(slot))
        capabilities = [a for cap in FORK_SERVER_CAPABILITIES for a in ("--cap-add", cap)] if fork_server else []
        if self.mode == "userns":
            # No user namespace inside (bubblewrap's own, besides the child's seccomp filter), except for the fork
            # server, which makes one for each child: the child's filter refuses the student any more.
            disabled = ["--disable-userns"] if not fork_server and refuses_nested_userns() and bwrap_disables_userns() \
                else []
            cmd[1:1] = ["--unshare-user", *disabled, "--uid", uid, "--gid", uid, "--cap-drop", "ALL", *capabilities]
        else:
            cmd[1:1] = capabilities
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
        cmd += ["--ro-bind", str(INSIDE), CHILD_DIR]
        cmd += ["--perms", "0777", "--size", str(SCRATCH_BYTES), "--tmpfs", "/work/scratch",
                "--perms", "0777", "--dir", "/work/scratch/home", "--chdir", "/work/scratch/home",
                "--remount-ro", "/dev", "--remount-ro", "/", "--clearenv"]
        if seccomp is not None:
            cmd += ["--seccomp", str(seccomp)]
        for name, value in self.environment(None).items():  # bwrap starts the child with these and nothing else
            cmd += ["--setenv", name, value]
        if self.mode == "bwrap" and not fork_server:
            cmd += ["/usr/bin/setpriv", "--reuid", uid, "--regid", uid, "--clear-groups",
                    "--no-new-privs", "--bounding-set", "-all", "--inh-caps", "-all", "--"]
        return cmd + argv

    def child_script(self) -> str:
        """The child's entry point as the child sees it."""
        return f"{CHILD_DIR}/child.py" if self.isolated else str(INSIDE / "child.py")

    def environment(self, scratch: Path | None) -> dict[str, str]:
        """The child's whole environment (``python -I`` reads no ``PYTHON*`` variable, so none is here).

        One BLAS thread: a student's matrix products are small, and OpenBLAS's own threads would
        double the CPU time of importing NumPy.  ``NBGRADER_EXECUTION=autograde``, as nbgrader's own
        kernel has it while autograding (the notebooks' public check cells then do not run their checks).
        """
        home = "/work/scratch/home" if scratch is None else str(scratch / "home")
        return {"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
                "MPLCONFIGDIR": home, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                "NBGRADER_EXECUTION": "autograde"}

    def spawn(self, scratch: Path | None, slot: int = 0, preload: tuple[str, ...] = ()
              ) -> tuple[subprocess.Popen, Cgroup | None]:
        """Start ``python -I -S -B child.py SETUP`` in the sandbox as ``slot``'s uid, protocol on stdin/stdout,
        in a cgroup of its own when the machine gives one.

        ``SETUP`` (JSON) holds the package folders (:func:`site_paths`), the modules to import before any
        student code (``preload``: the ones the assignment's notebook imports) and, in a user namespace,
        the process limit, which the child sets itself once inside (it then counts only that namespace's
        processes; set before, it would count all of this user's processes).
        """
        setup = {"path": list(site_paths()), "preload": list(preload),
                 "processes": self.limits.processes if self.mode == "userns" else 0}
        argv = [sys.executable, "-I", "-S", "-B", self.child_script(), json.dumps(setup)]
        group = Cgroup.create(dict(self.cgroups), self.limits.memory_bytes, self.limits.processes) \
            if self.cgroups else None
        try:
            with syscall_filter.descriptor() if self.isolated else nullcontext() as seccomp:
                command = self.limits.prlimit(processes=self.mode != "userns") + self.command(argv, slot,
                                                                                               seccomp=seccomp)
                process = subprocess.Popen(
                    group.entered(command) if group is not None else command, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.environment(scratch),
                    cwd=scratch / "home" if scratch else "/", start_new_session=True, close_fds=True,
                    pass_fds=() if seccomp is None else (seccomp,),
                )
        except BaseException:
            if group is not None:
                group.destroy()
            raise
        return process, group


def remove_scratch(scratch: Path | None) -> None:
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)


def sweep_scratch() -> None:
    """Remove the scratch folders of graders that no longer run (a killed run's leftovers)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"):
        owner = folder.name[len(SCRATCH_PREFIX):].split("-")[0]
        try:
            mine = folder.stat().st_uid == os.geteuid()
        except OSError:
            continue
        if mine and owner.isdigit() and not Path(f"/proc/{owner}").exists():
            remove_scratch(folder)


def _probe(mode: str) -> str | None:
    """Start a tiny child in ``mode``; ``None`` when it ran as the sandbox uid, else why not."""
    if not shutil.which("bwrap"):
        return "bubblewrap (bwrap) is not installed"
    if not os.path.exists("/usr/bin/prlimit"):
        return "prlimit (util-linux) is not installed"
    if mode == "bwrap" and not os.path.exists("/usr/bin/setpriv"):
        return "setpriv is not installed"
    probe = Sandbox(mode)
    argv = [sys.executable, "-I", "-c", f"import os; assert os.getuid() == {probe.uid()}"]
    # A failed probe is retried for a while: one transient failure (seen on a machine loaded with
    # concurrent sandboxes) must not silently degrade the sandbox of a whole grading run.
    deadline, why = time.monotonic() + 20, "bwrap could not create its namespaces here"
    while True:
        try:
            with syscall_filter.descriptor() as seccomp:
                done = subprocess.run(probe.command(argv, seccomp=seccomp), env=probe.environment(None),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30, check=False,
                                      cwd="/", pass_fds=() if seccomp is None else (seccomp,))
            if done.returncode == 0:
                return None
            why = f"bwrap failed: {done.stderr.decode(errors='replace').strip()[:200] or done.returncode}"
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"bwrap failed: {exc}"
        if time.monotonic() > deadline:
            return why
        time.sleep(1.0)


@cache
def inspect() -> tuple[str, str, tuple, str]:
    """What this machine gives: ``(mode, why, cgroup bases, why)``."""
    mode = "bwrap" if os.geteuid() == 0 else "userns"
    failed = (uids.refusal() or _probe(mode)) if mode == "bwrap" else _probe(mode)
    fallback = failed if mode == "bwrap" else None
    if fallback:  # root without setpriv or free uids, say: a user namespace may still do
        mode, failed = "userns", _probe("userns") and failed
    found, cg_why = cgroups.bases()
    if found:
        cgroups.sweep(found)
    why = failed or ("root: bwrap namespaces, and setpriv to an unprivileged host uid" if mode == "bwrap" else
                     f"root, but no host uid of its own ({fallback}): bwrap in a user namespace instead" if fallback
                     else "an ordinary user: bwrap in an unprivileged user namespace")
    return ("plain" if failed else mode), why, tuple(sorted(found.items())) if found else (), cg_why


def choose(allow_unsafe: bool = False, limits: Limits | None = None) -> Sandbox:
    """The best sandbox this machine allows; without one, refuse unless ``allow_unsafe``."""
    sweep_scratch()
    mode, why, bases, _ = inspect()
    if mode == "plain" and not allow_unsafe:
        raise SandboxUnavailable(f"no sandbox on this machine ({why}); run `reading-maths doctor`, or pass "
                                 "--unsafe-no-sandbox to run student code as a plain subprocess of this user")
    if mode == "userns" and os.geteuid() == 0:
        warnings.warn(f"sandbox degraded: {why}", stacklevel=2)
    if mode == "plain":
        warnings.warn(f"SANDBOX DISABLED ({why}): student code runs as a plain subprocess with rlimits only, "
                      "and can read what this user can read.", stacklevel=2)
    limits = limits or Limits()
    return Sandbox(mode, limits if bases else limits.uncounted(), bases)
