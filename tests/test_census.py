"""Nothing writable is shared, and no kernel object outlives its child (issue 19, deliverables 1 and 2).

A census, as root and as the ordinary user the suite creates (``tests/hostile/ordinary.py``), on every way
a child is started (forked by the worker's fork server; forked by one that ran a read-only cell of the course
first, the warm snapshot mutation testing's fresh trials are forked from; or started by bubblewrap): one student's child
tries to create a file in every directory it can see and an object in every kernel namespace it can
reach (``tests/hostile/census.py``); only its own three tmpfs take a file, no keyring, SysV object,
message queue or memfd can be made; a later child of another student in the same worker finds none of
it; and the host finds nothing left.  A child cannot reach the grader's session keyring either.

And no way of holding memory escapes the bound ``reading-maths doctor`` states (issue 32): as an ordinary user
with no cgroup (and as root), on both start paths, a child tries every way (``HOARD`` in
``tests/hostile/census.py``): processes, threads, its three tmpfs, a user and mount namespace of its own with
a tmpfs of its size (the hub's attack), a tmpfs made with the new mount API and never attached, every other
namespace, io_uring, pipes and socket buffers grown or filled.  What the sandbox holds is measured from outside
(the anonymous memory of every process under the grader, the machine's ``Shmem``, which counts every tmpfs
page wherever it is mounted, or not, plus what the child's pipes and sockets may queue) and stays within the
bound; every namespace and mount call fails; and the host is left as it was.  The same run without the new
filter (a control) holds more than the bound.
"""

from __future__ import annotations

import ctypes
import os
import platform
import time
from pathlib import Path

import pytest
from hostile.census import HOARD, HOARD_TMPFS, KEY, LEAVE, LOOK, TOKEN
from hostile.ordinary import MODES, call_in_mode

from reading_maths.sandbox import process
from reading_maths.sandbox.child_starter import Starter
from reading_maths.sandbox.process import choose
from reading_maths.sandbox.session import Cell, StudentSession
from test_sandbox import needs_isolation

pytestmark = pytest.mark.sandbox

PATHS = ["forked", "spawned"]
CENSUS_PATHS = ["forked", "warm", "spawned"]
"""``warm``: forked by a fork server that ran a read-only cell of the course first, the snapshot mutation testing's
fresh trials are forked from (:mod:`reading_maths.sandbox.rerun`)."""
PRELUDE = Cell(0, "the course's read-only cell", "import os\nimport numpy as np\nMADE = os.urandom(8).hex()\n",
               trusted=True)
PRIVATE = ("/tmp", "/dev/shm", "/work/scratch")
"""The child's own tmpfs (HOME is /work/scratch/home): the only places it may write."""
KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
SECRET_KEY = "rm-hostile-grader-secret"


def _starter(sandbox, path: str) -> Starter | None:
    """The children of ``path``: forked by a fork server (after the course's cell: ``warm``), or by bubblewrap."""
    if path == "spawned":
        return None
    return Starter(sandbox, prelude=((PRELUDE.index, PRELUDE.code),) if path == "warm" else ())


def _child(code: str, sandbox, starter, warm: bool = False) -> tuple[dict, str]:
    """What ``code`` found, and the kind of its child; ``warm``: after the course's cell, whose drawn value is
    kept in ``drawn``."""
    cells = [PRELUDE, Cell(1, "cell 2", code)] if warm else [Cell(0, "cell 1", code)]
    with StudentSession(cells, ["probe", "MADE"], sandbox, starter=starter, cell_timeout=120, call_timeout=120) as s:
        assert s.start_error is None and not s.cell_errors, (s.start_error, s.cell_errors)
        drawn.append(s.env().get("MADE"))
        return s.env()["probe"], type(s._child.process).__name__


drawn: list[str | None] = []


def host_leftovers() -> dict[str, list]:
    """What the host holds of the census: files, SysV objects, keys, message queues, abstract sockets."""
    files = [str(p) for top in (Path("/tmp"), Path.home()) for p in top.glob(f"{TOKEN}*")]
    files += [os.path.join(folder, name) for folder, _, names in os.walk("/dev/shm") for name in names
              if name.startswith(TOKEN)]
    sysv = [line for kind in ("shm", "sem", "msg") for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
            if line.split()[:1] == [str(KEY)]]
    keys = [line for line in Path("/proc/keys").read_text().splitlines() if TOKEN in line]
    libc = ctypes.CDLL(None, use_errno=True)
    mqueue = ["mq"] if libc.mq_open(b"/" + TOKEN.encode(), os.O_RDONLY, 0, None) >= 0 else []
    abstract = [line for line in Path("/proc/net/unix").read_text().splitlines() if TOKEN in line]
    return {"files": files, "sysv": sysv, "keys": keys, "mqueue": mqueue, "abstract": abstract}


def census(path: str) -> dict:
    """One student's child leaves what it can, a later child of the same worker looks for it, the host too."""
    sandbox = choose()
    starter = _starter(sandbox, path)
    try:
        left, first = _child(LEAVE, sandbox, starter, path == "warm")
        seen, second = _child(LOOK, sandbox, starter, path == "warm")
    finally:
        if starter is not None:
            starter.close()
    return {"left": left, "seen": seen, "kinds": [first, second], "host": host_leftovers(), "drawn": drawn[-2:]}


GRADER_KEYRING = f"""
import ctypes, os
def lines(path):
    try:
        with open(path) as fh:
            return fh.readlines()
    except OSError:  # masked
        return []
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {KEYCTL}
buffer = ctypes.create_string_buffer(4096)
probe = {{
    "read": libc.syscall(keyctl, 11, -3, buffer, 4096),  # KEYCTL_READ of the session keyring
    "search": libc.syscall(keyctl, 10, -3, b"user", {SECRET_KEY!r}.encode(), 0),  # KEYCTL_SEARCH
    "add": libc.syscall(add_key, b"user", b"rm-hostile-planted", b"x", 1, -3),
    "listed": [line for line in lines("/proc/keys") if {SECRET_KEY!r} in line],
    "seccomp": [line.split()[1] for line in open("/proc/self/status") if line.startswith("Seccomp:")],
}}
"""


def grader_keyring(path: str) -> dict:
    """This process joins a session keyring holding a secret key, then a child (started ``path``) tries it."""
    libc = ctypes.CDLL(None, use_errno=True)
    add_key, keyctl = KEYCTL
    assert libc.syscall(keyctl, 1, b"rm-hostile-grader-session") >= 0  # KEYCTL_JOIN_SESSION_KEYRING
    secret = libc.syscall(add_key, b"user", SECRET_KEY.encode(), b"answers", 7, -3)
    assert secret >= 0, os.strerror(ctypes.get_errno())
    sandbox = choose()
    starter = _starter(sandbox, path)
    try:
        seen, kind = _child(GRADER_KEYRING, sandbox, starter, path == "warm")
    finally:
        if starter is not None:
            starter.close()
    buffer = (ctypes.c_int32 * 64)()
    held = libc.syscall(keyctl, 11, -3, buffer, ctypes.sizeof(buffer))  # the keys now in the session keyring
    return {"child": seen, "kind": kind, "session_keys": list(buffer[:held // 4]), "secret": secret}


def in_mode(mode: str, function: str, path: str):
    """``function(path)`` of this module, in a process of its own, as root or as the ordinary user."""
    return call_in_mode(mode, "test_census", function, path, timeout=600)


def check_census(found: dict, path: str) -> None:
    assert found["kinds"] == (["Popen"] * 2 if path == "spawned" else ["Forked"] * 2)
    if path == "warm":  # the course's cell ran once, in the fork server both children were forked from
        assert found["drawn"][0] is not None and found["drawn"][0] == found["drawn"][1], found["drawn"]
    dirs = found["left"]["dirs"]
    assert {"/tmp", "/dev/shm", "/work/scratch/home"} <= set(dirs), "the census writes where it may"
    assert [d for d in dirs if not d.startswith(PRIVATE)] == [], "only the child's own tmpfs are writable"
    made = found["left"]["made"]
    allowed = {"posix shm", "abstract socket"}  # a file in its own /dev/shm; a socket in its own network namespace
    assert {kind for kind, done in made.items() if done} <= allowed, made
    assert found["seen"] == {"files": [], "keys": [], "sysv": [], "mqueue": False, "abstract": False}
    assert found["host"] == {"files": [], "sysv": [], "keys": [], "mqueue": [], "abstract": []}


def check_keyring(found: dict) -> None:
    child = found["child"]
    assert child["seccomp"] == ["2"], "the child runs under the syscall filter"
    assert child["read"] < 0 and child["search"] < 0 and child["add"] < 0, child
    assert child["listed"] == [], "the grader's key is not even listed to the child"
    assert found["session_keys"] == [found["secret"]], "the grader's session keyring holds its own key only"


@needs_isolation
@pytest.mark.parametrize("path", CENSUS_PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_child_writes_only_its_own_tmpfs_and_leaves_nothing(mode, path):
    check_census(in_mode(mode, "census", path), path)


@needs_isolation
@pytest.mark.parametrize("path", CENSUS_PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_child_cannot_reach_the_graders_session_keyring(mode, path):
    check_keyring(in_mode(mode, "grader_keyring", path))


def _meminfo() -> dict[str, int]:
    fields = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    return {name: int(fields[name].split()[0]) << 10 for name in ("Shmem", "MemAvailable")}


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(pid))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _anonymous(pids: list[int]) -> int:
    """The anonymous memory (``RssAnon``) of ``pids``, threads included, in bytes."""
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += sum(int(line.split()[1]) << 10 for line in status.splitlines() if line.startswith("RssAnon:"))
    return total


def _without_the_new_filter() -> None:
    """The control: children under the fork server's filter (namespaces and mounts allowed), and user namespaces
    not otherwise refused (no --disable-userns, max_user_namespaces left as it is)."""
    from reading_maths.sandbox import process, syscall_filter

    loose = syscall_filter.program(strict=False)
    syscall_filter.program = lambda strict=True: loose
    process.refuses_nested_userns = lambda: False


def hoard(argument: str) -> dict:
    """:data:`HOARD` in a child started ``path`` in this user's sandbox with no cgroup and a 1 GiB cap, measured
    from outside while it holds, and the host after (``argument``: ``path``, and ``control`` to run without the
    new filter)."""
    from test_memory_bound import uncounted_sandbox

    path, *control = argument.split()
    if control:
        _without_the_new_filter()
    sandbox = uncounted_sandbox()
    mounts = Path("/proc/self/mountinfo").read_text()
    before = _meminfo()
    starter = Starter(sandbox) if path == "forked" else None
    try:
        with StudentSession([Cell(0, "the hoard", HOARD)], ["probe"], sandbox, starter=starter, cell_timeout=300,
                            call_timeout=60) as s:
            assert s.start_error is None and not s.cell_errors, (s.start_error, s.cell_errors)
            inside, kind = s.env()["probe"], type(s._child.process).__name__
            during, anonymous = _meminfo(), _anonymous(_descendants(os.getpid()))
    finally:
        if starter is not None:
            starter.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (_descendants(os.getpid())
                                           or _meminfo()["Shmem"] > before["Shmem"] + (64 << 20)):
        time.sleep(0.5)
    after = _meminfo()
    shmem = max(0, during["Shmem"] - before["Shmem"])
    return {"inside": inside, "kind": kind, "bound": sandbox.limits.bound(), "anonymous": anonymous, "shmem": shmem,
            "held": anonymous + shmem + inside["pipes"] + inside["socket buffers"],
            "available drop": before["MemAvailable"] - during["MemAvailable"],
            "left": {"processes": _descendants(os.getpid()), "shmem": after["Shmem"] - before["Shmem"],
                     "mounts": Path("/proc/self/mountinfo").read_text() == mounts}}


def check_hoard(found: dict, path: str) -> None:
    inside = found["inside"]
    assert found["kind"] == ("Forked" if path == "forked" else "Popen")
    assert inside["namespaces"] and set(inside["namespaces"].values()) == {"EPERM"}, inside["namespaces"]
    assert inside["own tmpfs"] == {"unshare": "EPERM", "mount": "EPERM", "fsopen": "EPERM", "anonymous": 32 << 20}, \
        inside["own tmpfs"]
    calls = inside["other calls"]
    assert calls.pop("clone3") == "ENOSYS" and set(calls.values()) == {"EPERM"}, inside["other calls"]
    assert inside["pipe resized"] == inside["socket resized"] == inside["inet socket"] == "EPERM", inside
    assert inside["threads"] == 2 and inside["subprocess"] == 0, "threads, fork and subprocess work (clone3: ENOSYS)"
    assert inside["files"] >= 128 << 20 and found["held"] >= 256 << 20, "the hoard held what it could"
    assert found["held"] <= found["bound"], found
    assert found["left"] == {"processes": [], "shmem": found["left"]["shmem"], "mounts": True}, found["left"]
    assert found["left"]["shmem"] <= 64 << 20, found["left"]


@needs_isolation
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_no_way_of_holding_memory_escapes_the_stated_bound(mode, path):
    check_hoard(in_mode(mode, "hoard", path), path)
    control = in_mode(mode, "hoard", f"{path} control")  # the same child, without the new filter
    assert control["inside"]["own tmpfs"]["nested tmpfs"] == HOARD_TMPFS, control["inside"]["own tmpfs"]
    assert control["held"] > control["bound"], control


NESTED_USERNS = """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
if os.fork() == 0:
    os.write(w, b"made" if libc.unshare(0x10000000) == 0 else errno.errorcode[ctypes.get_errno()].encode())
    os._exit(0)
os.close(w)
probe = os.read(r, 16).decode()
os.wait()
"""


def nested_userns(path: str) -> str:
    """Whether a child started ``path`` under the fork server's filter alone (namespaces allowed) can still make a
    user namespace: what the other layer (``--disable-userns``, ``max_user_namespaces``) refuses alone."""
    from reading_maths.sandbox import syscall_filter

    program, loose = syscall_filter.program, syscall_filter.program(strict=False)
    syscall_filter.program = lambda strict=True: loose
    try:
        sandbox = choose()
        starter = Starter(sandbox) if path == "forked" else None
        try:
            return _child(NESTED_USERNS, sandbox, starter)[0]
        finally:
            if starter is not None:
                starter.close()
    finally:
        syscall_filter.program = program


@needs_isolation
@pytest.mark.parametrize("path", PATHS)
def test_in_a_user_namespace_a_second_layer_refuses_user_namespaces(path):
    """As an ordinary user, without the filter's refusal, bubblewrap's --disable-userns (a child it starts) or
    max_user_namespaces = 0 in the child's own user namespace (one the fork server starts) still refuse one."""
    if not process.bwrap_disables_userns() and path == "spawned":
        pytest.skip("this bubblewrap has no --disable-userns")
    assert in_mode("user", "nested_userns", path) in ("EPERM", "ENOSPC", "EUSERS")
