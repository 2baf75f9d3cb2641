"""The check behind each ``[held]`` line of ``reading-maths doctor``: it fails when the guarantee stops holding.

:data:`CHECKS` maps the start of a doctor line's name to a function that proves it on this machine, as the user
running it, through the sandbox :func:`~reading_maths.sandbox.process.choose` gives that user.
``tests/test_doctor_held.py`` runs ``doctor`` as root and as an ordinary user, and every check of a line it calls
held (``python -m hostile.held NAME...`` runs them and prints what failed, as JSON).  A new doctor line that is
held needs a check here (docs/security.md lists them).
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import socket
import sys
import uuid
from collections.abc import Callable

from reading_maths.sandbox import process, uids
from reading_maths.sandbox.child_starter import Starter
from reading_maths.sandbox.fork_server_client import Forked
from reading_maths.sandbox.process import CHILD_DIR, Limits, choose, sandbox_uid
from reading_maths.sandbox.session import Cell, StudentSession


def _session(*sources: str, budget: float = 60.0, limits: Limits | None = None, **kw) -> StudentSession:
    sandbox = choose()
    if limits is not None:
        sandbox = dataclasses.replace(sandbox, limits=limits)
    cells = [Cell(i, f"cell {i + 1}", s) for i, s in enumerate(sources)]
    return StudentSession(cells, ["probe"], sandbox, cell_timeout=20, call_timeout=20, budget=budget, **kw)


def _probe(*sources: str):
    with _session(*sources) as session:
        return session.env().get("probe")


NAMESPACES = "import os\nprobe = {n: os.readlink(f'/proc/self/ns/{n}') for n in ('pid', 'net', 'ipc', 'uts', 'mnt', 'user')}"


def namespaces() -> None:
    seen = _probe(NAMESPACES + "\nprobe['pids'] = max(int(p) for p in os.listdir('/proc') if p.isdigit())")
    for name in ("pid", "net", "ipc", "uts", "mnt"):
        assert seen[name] != os.readlink(f"/proc/self/ns/{name}"), f"the child shares the {name} namespace"
    assert seen["pids"] < 10, "the child sees processes outside its PID namespace"


def user_namespace() -> None:
    assert _probe(NAMESPACES)["user"] != os.readlink("/proc/self/ns/user")


def another_uid() -> None:
    status = _probe("probe = open('/proc/self/status').read()")
    uid = next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1:]
    assert uid == [str(sandbox_uid())] * 4 and int(uid[0]) != os.getuid(), uid


def reserved_uids() -> None:
    assert uids.problems(uids.configured()) == []
    block = uids.block()
    assert all(uid in uids.configured() for uid in block) and not uids.in_use(uids.UidRange(block[0], block[-1]))
    with open(uids.LOCKS / str(block[0])) as other:  # another grader's open: the block is locked against it
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            raise AssertionError("the uid block is not locked")
        except BlockingIOError:
            pass


def read_only_view() -> None:
    """What it sees of the host is /usr, the Python installation and the child's files, none of it writable.
    (That nothing else it can write is shared, ``/`` and ``/dev`` included, is issue 19's census.)"""
    course = os.path.dirname(os.path.dirname(os.path.abspath(uids.__file__)))
    seen = _probe(f"""
import os
def writable(path):
    try:
        open(path if os.path.isfile(path) else os.path.join(path, 'rm-hostile-held'), 'a').close()
        return True
    except OSError:
        return False
probe = {{'visible': [os.path.exists(p) for p in ('/etc/passwd', '/home', {course + "/graders"!r},
                                                  {course + "/source"!r}, {os.path.expanduser("~/.bash_history")!r})],
         'written': [f for f in ('/usr', '/usr/lib', {sys.prefix!r}, {CHILD_DIR + "/child.py"!r}) if writable(f)]}}""")
    assert seen == {"visible": [False] * 5, "written": []}, seen


def no_network() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        seen = _probe(f"""
import socket
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=2); probe = 'connected'
except OSError as exc:
    probe = type(exc).__name__""")
        try:
            listener.accept()
            raise AssertionError("a connection reached the host")
        except BlockingIOError:
            pass
    assert seen != "connected", seen


def kernel_objects() -> None:
    """SysV IPC, POSIX message queues and memfd are refused (the syscall filter)."""
    made = _probe("import ctypes, os\nlibc = ctypes.CDLL(None)\n"
                  "probe = [libc.shmget(0, 1 << 20, 0o1666), libc.semget(0, 1, 0o1666), libc.msgget(0, 0o1666), "
                  "libc.mq_open(b'/rm-hostile-held', 0o102, 0o600, None)]\n"
                  "try:\n    os.memfd_create('rm-hostile-held'); probe.append(0)\nexcept OSError:\n    probe.append(-1)")
    assert made == [-1] * 5, made


def nothing_shared() -> None:
    """The census of tests/test_census.py, on both start paths."""
    import test_census

    for path in test_census.PATHS:
        test_census.check_census(test_census.census(path), path)


def keyrings() -> None:
    import test_census

    for path in test_census.PATHS:
        test_census.check_keyring(test_census.grader_keyring(path))


def no_namespaces() -> None:
    """The hoard of tests/test_census.py, on both start paths: every namespace flag of unshare and clone, every mount
    call, setns, io_uring (and more) refused, and what it holds, measured from outside, within the bound."""
    import test_census

    for path in test_census.PATHS:
        test_census.check_hoard(test_census.hoard(path), path)
        if choose().mode == "userns" and (path == "forked" or process.bwrap_disables_userns()):  # a second layer
            assert test_census.nested_userns(path) != "made", f"a user namespace under a {path} child's"


def memory_bound() -> None:
    """Without a cgroup, several GiB tried through processes, memfd, SysV and tmpfs stay under the bound."""
    import test_memory_bound

    for path in ("forked", "spawned"):
        found = test_memory_bound.held(path)
        assert sum(found["held"].values()) <= found["bound"], found


def _cgroup_limit(*names: str) -> int:
    """The value of the first of ``names`` in the cgroup of a running child (which must be in it)."""
    with _session("probe = 1") as session:
        group = session._child.group
        assert group is not None and session._child.process.pid in group.pids(), "the child is in no cgroup"
        for folder in group.folders:
            for name in names:
                if (folder / name).exists():
                    return int((folder / name).read_text())
    raise AssertionError(f"no {names} in the child's cgroup")




def cgroup_memory() -> None:
    from hostile.memory import HOLD

    assert _cgroup_limit("memory.max", "memory.limit_in_bytes") == Limits().memory_bytes
    with _session(HOLD, limits=Limits(memory_bytes=400 << 20)) as session:  # processes of 400 MiB address space
        held = session.env().get("probe")
    assert held is None or sum(held.values()) <= 400 << 20, held


def cgroup_processes() -> None:
    assert _cgroup_limit("pids.max") == Limits().processes


def every_process_killed() -> None:
    marker = f"rm-hostile-held-{uuid.uuid4().hex}"
    _probe(f"""
import os, subprocess
if os.fork() == 0:
    os.setsid()
    subprocess.Popen(['/usr/bin/sleep', '600', {marker!r}], start_new_session=True)
    os._exit(0)
os.wait()
probe = 1""")
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if marker.encode() in fh.read():
                    left.append(pid)
        except OSError:
            pass
    assert left == [], f"processes outlived their sandbox: {left}"


def fork_server() -> None:
    starter = Starter(choose())
    try:
        process, group = starter.take()
        assert isinstance(process, Forked)
        starter.retire(process, group)
    finally:
        starter.close()


def budget() -> None:
    with _session("import time\ntime.sleep(30)\nprobe = 1", budget=2) as session:
        stop = session.interruption()
    assert stop is not None and stop[0] == "timeout" and "time budget" in stop[1], stop


def rlimits() -> None:
    limits = choose().limits
    seen = _probe("import resource\nprobe = [resource.getrlimit(getattr(resource, 'RLIMIT_' + n))[0] "
                  "for n in ('CPU', 'AS', 'FSIZE', 'NOFILE', 'NPROC')]")
    assert seen == [limits.cpu_seconds, limits.address_space or limits.memory_bytes, limits.file_bytes,
                    limits.open_files,
                    limits.processes], seen


CHECKS: dict[str, Callable[[], None]] = {
    "namespaces (": namespaces,
    "unprivileged user namespaces": user_namespace,
    "another host uid": another_uid,
    "sandbox uids reserved": reserved_uids,
    "read-only view": read_only_view,
    "no network": no_network,
    "nothing writable is shared": nothing_shared,
    "keyrings": keyrings,
    "SysV IPC, POSIX message queues and memfd refused": kernel_objects,
    "no namespaces, mounts or io_uring": no_namespaces,
    "memory bounded per sandbox": memory_bound,
    "cgroup memory cap": cgroup_memory,
    "cgroup process cap": cgroup_processes,
    "every process of a sandbox killed": every_process_killed,
    "a batch's children forked": fork_server,
    "a notebook's whole grading bounded": budget,
    "rlimits": rlimits,
}


def check_for(line: str) -> str | None:
    """The :data:`CHECKS` key of a doctor line's name (None when none is written)."""
    return next((key for key in CHECKS if line.startswith(key)), None)


if __name__ == "__main__":
    failed = {}
    for key in sys.argv[1:]:
        try:
            CHECKS[key]()
        except Exception as exc:  # noqa: BLE001 - every check's failure is reported
            failed[key] = f"{type(exc).__name__}: {exc}"[:500]
    print(json.dumps(failed))
