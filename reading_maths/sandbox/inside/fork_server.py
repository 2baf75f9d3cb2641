"""The fork server: a sandboxed Python that never runs student code and forks a fresh child for each notebook.

Starting a child is mostly Python and NumPy starting (about 60 ms of CPU each time).  A fork server does
that once: it runs in its own bubblewrap sandbox, as the child would (the same read-only view, no
network), imports the child's runtime, NumPy and the notebook's modules, and, when the trusted side gives it a
*prelude*, runs the notebook's leading read-only cells (the course's own code, restored from the source notebook,
never a student's) in the namespace every child then starts from: the warm snapshot that mutation testing's fresh
trials (:mod:`reading_maths.sandbox.rerun`) fork from, so that no trial runs them again.  Then, for each request
of the trusted side (:mod:`reading_maths.sandbox.fork_server_client`), forks a child that makes a sandbox of its own
before it may run anything:

1. new mount, PID, network, IPC and UTS namespaces (and, where the fork server is itself in a user
   namespace, a user namespace of its own, so that its process count is its own);
2. as the init of its PID namespace: fresh tmpfs on ``/tmp``, ``/dev/shm`` and ``/work/scratch`` (its HOME), a
   ``/proc`` of its own namespace, loopback up; it then forks the student's process and reaps;
3. the student's process (in the init's new session): the slot's uid (as root: an unprivileged uid of its
   own), no capabilities (bounding, ambient, effective, permitted, inheritable), no new privileges,
   the strict seccomp filter stacked on the fork server's (no namespace, mount or io_uring: the fork server's
   own filter must leave it ``unshare`` and ``mount``), its process cap; it checks all of that in
   ``/proc/self/status`` and exits if anything is left; then it says hello on the socket the trusted side gave
   it (the kernel tells the trusted side its real pid) and runs the notebook (:func:`child.run`) on its two pipes.

Nothing of one notebook's child reaches the fork server or the next child: each has its own namespaces,
files and copy of the prelude's namespace, and the fork server (which keeps the capabilities needed to make them,
within its own sandbox) is not in any child's PID namespace.  Like ``child.py``, this file needs only the
standard library.
"""

from __future__ import annotations

import array
import ctypes
import fcntl
import json
import os
import resource
import socket
import struct
import sys

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE = 1 << 14, 1 << 18
PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 4, 22, 24, 38, 47
SECCOMP_MODE_FILTER = 2
PR_CAP_AMBIENT_CLEAR_ALL = 4
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
CAP_VERSION_3 = 0x20080522
NO_CAPABILITIES = "0000000000000000"

libc = ctypes.CDLL(None, use_errno=True)


def _ok(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    _ok(libc.mount(_bytes(source), _bytes(target), _bytes(kind), flags, _bytes(data)), f"mount {target}")


def _drop_bounding_set() -> None:
    """No capability can ever come back (needs CAP_SETPCAP, so before anything else is dropped)."""
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1


def _drop_capabilities() -> None:
    """The ambient, effective, permitted and inheritable sets emptied."""
    _ok(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    _ok(libc.capset(ctypes.byref(Header(CAP_VERSION_3, 0)), (Data * 2)()), "capset")


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH14s", b"lo", 0, b""))[:18])[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def _own_user_namespace() -> None:
    """A user namespace of its own, mapping its uid and gid to themselves (so its processes count apart)."""
    uid, gid = os.getuid(), os.getgid()
    _ok(libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")  # its /proc/self must be its own to write the maps
    _ok(libc.unshare(CLONE_NEWUSER), "unshare user")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as fh:
            fh.write(text)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _strict_filter(start: dict) -> None:
    """The child's own seccomp filter (:mod:`reading_maths.sandbox.syscall_filter`, ``strict``), stacked on the
    fork server's: no namespace, mount, io_uring... for it or anything it starts (needs no new privileges).
    Exits when the trusted side sent one and it cannot be loaded."""
    bpf = bytes.fromhex(start.get("seccomp", ""))
    if not bpf:
        return
    code = ctypes.create_string_buffer(bpf, len(bpf))
    program = _Program(len(bpf) // 8, ctypes.cast(code, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        os._exit(73)


def _checked(uid: int, filters: int) -> None:
    """Exit unless this process is ``uid`` everywhere, with no capability, no new privileges and at least
    ``filters`` seccomp filters (the fork server's and its own)."""
    with open("/proc/self/status") as fh:
        status = dict(line.split(":", 1) for line in fh.read().splitlines() if ":" in line)
    capabilities = [status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")]
    if status["Uid"].split() != [str(uid)] * 4 or capabilities != [NO_CAPABILITIES] * 5 \
            or status["NoNewPrivs"].strip() != "1" or int(status.get("Seccomp_filters", filters)) < filters:
        os._exit(71)


def _student(request: dict, fds: list[int], start: dict) -> None:
    """The student's process: unprivileged, then the notebook on its pipes (never returns)."""
    to_child, from_child, hello = fds
    uid = int(request.get("uid", os.getuid()))
    _drop_bounding_set()
    if uid != os.getuid():  # as root: the slot's own unprivileged uid
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    _drop_capabilities()
    _ok(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no new privileges")
    _strict_filter(start)
    _ok(libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")  # as after bubblewrap's exec: its /proc/self is its own
    cap = int(start.get("processes", 0))
    if cap:
        resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))
    _checked(uid, 2 if start.get("seccomp") else 0)
    os.dup2(to_child, 0)
    os.dup2(from_child, 1)
    os.write(hello, b"hello")  # the trusted side reads the kernel's word for this process's pid with it
    os.closerange(3, 1 << 16)
    os.chdir(os.environ.get("HOME", "/"))
    import child

    child.run(child.GraderPipes(), _warm)
    os._exit(0)


def _fresh_tmpfs(target: str, mode: int, size: int, bound: list[str]) -> None:
    """A new, empty tmpfs on ``target``, with the read-only binds of the view that lie under it (a Python
    installed in /tmp, say) bound again at their places."""
    held = [(path, os.open(path, os.O_PATH)) for path in bound if path.startswith(target.rstrip("/") + "/")]
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode:o}")
    for path, fd in held:
        os.makedirs(path, 0o755, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        if not os.statvfs(path).f_flag & os.ST_RDONLY:
            _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        if not os.statvfs(path).f_flag & os.ST_RDONLY:
            os._exit(72)
        os.close(fd)


def _init(request: dict, fds: list[int], start: dict) -> None:
    """Pid 1 of the child's own PID namespace: its files and /proc, then the student's process, reaped."""
    size, bound = int(start.get("scratch_bytes", 64 << 20)), [str(p) for p in start.get("bound", [])]
    os.umask(0o022)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _fresh_tmpfs("/tmp", 0o1777, size, bound)
    _fresh_tmpfs("/dev/shm", 0o1777, size, bound)
    _fresh_tmpfs("/work/scratch", 0o777, size, bound)
    os.mkdir("/work/scratch/home", 0o777)
    os.chmod("/work/scratch/home", 0o777)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if start.get("own_user_namespace") and start.get("no_nested_user_namespace"):  # as bubblewrap's --disable-userns
        with open("/proc/sys/user/max_user_namespaces", "w") as fh:
            fh.write("0")
    for path in start.get("proc_masked", []):  # the uid's keys, listed to anyone of it (as bubblewrap masks them)
        _mount("/dev/null", path, None, MS_BIND)
    _loopback_up()
    os.setsid()  # a session of its own, no terminal (bubblewrap's --new-session)
    student = os.fork()
    if student == 0:
        _student(request, fds, start)
    for fd in fds:
        os.close(fd)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _drop_bounding_set()
    _drop_capabilities()
    _ok(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no new privileges")
    _strict_filter(start)  # it runs no student code, but lives in the student's namespaces
    while True:  # reap whatever is orphaned here; the namespace ends with the student's process
        pid, status = os.wait()
        if pid == student:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _forked(request: dict, fds: list[int], start: dict) -> None:
    """Between the fork server and the child's init: the new namespaces (never returns)."""
    if start.get("own_user_namespace"):
        _own_user_namespace()
    _ok(libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")
    if os.fork() == 0:
        _init(request, fds, start)
    os._exit(0)


def _receive(control: socket.socket) -> tuple[dict, list[int]] | None:
    """The next fork request and the three descriptors it carries, or None when the trusted side is gone."""
    descriptors = array.array("i")
    data, ancillary, _, _ = control.recvmsg(4096, socket.CMSG_SPACE(3 * descriptors.itemsize))
    if not data:
        return None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            descriptors.frombytes(payload[: len(payload) - len(payload) % descriptors.itemsize])
    return json.loads(data), list(descriptors)


_warm: dict | None = None
"""The notebook's namespace once the prelude has run (None: no prelude, each child makes a fresh one)."""
WRITABLE = ("/tmp", "/dev/shm", "/work/scratch")


def _traces() -> tuple:
    """What of this process a cell could leave behind that a forked child would not get as running the cell itself
    gives it: threads, child processes, open files, the working folder, files in the writable folders."""
    try:
        os.waitpid(-1, os.WNOHANG)
        children = True  # a child process, running or exited
    except ChildProcessError:
        children = False
    files = []
    for top in WRITABLE:
        for folder, dirs, names in os.walk(top):
            for name in sorted(dirs + names):
                info = os.lstat(os.path.join(folder, name))
                files.append((folder, name, info.st_mode, info.st_size, info.st_mtime_ns))
    return len(os.listdir("/proc/self/task")), children, sorted(os.listdir("/proc/self/fd")), os.getcwd(), files


def _run_prelude(cells: list) -> dict | None:
    """The course's own leading cells of the notebook (read-only cells, restored from the source notebook: never a
    student's code), run once here so that every child starts after them: the notebook's namespace, or None when a
    cell raised or left a trace a child would miss (:func:`_traces`); this process must then not fork children."""
    import child

    before = _traces()
    namespace = child.notebook_namespace()
    if not child.run_prelude(cells, namespace) or _traces() != before:
        return None
    return namespace


def main() -> None:
    global _warm
    start = json.loads(sys.argv[1])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # child.py and wire.py beside it (-I adds none)
    sys.path += [str(p) for p in start.get("path", [])]  # started with -S, as the child is
    import child

    child.preload(start.get("preload", []))
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    control = socket.socket(fileno=int(start["control"]))
    if start.get("prelude"):
        _warm = _run_prelude(start["prelude"])
        if _warm is None:  # refused: the trusted side starts a fork server without it
            os.write(control.fileno(), b"P")
            os._exit(0)
    os.write(control.fileno(), b"R")  # ready: imports (and the prelude) done
    while (received := _receive(control)) is not None:
        request, fds = received
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            try:
                control.close()
                _forked(request, fds, start)
            finally:
                os._exit(70)
        for fd in fds:
            os.close(fd)
        os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
