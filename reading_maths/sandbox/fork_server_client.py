"""The trusted side of the fork server (:mod:`reading_maths.sandbox.inside.fork_server`): children in a few
milliseconds.

A :class:`ForkServer` starts one fork server for its grading process, in the sandbox, and asks it for a child per
notebook: it hands over the child's two pipes and a socket, the child makes its own namespaces, drops
every privilege, checks that it has, and says hello on the socket, and the kernel tells this side its
real pid with that hello (``SO_PASSCRED``).  This side then puts it in a cgroup of its own, as a spawned
child gets, before any of the notebook's code is sent.  What comes back, a :class:`Forked`, stands
where a ``subprocess.Popen`` stands for a child bubblewrap started.

A fork server that cannot be started, or whose child does not say hello in time, raises :class:`NoForkServer`,
and the grading process goes back to starting each child with bubblewrap.
"""

from __future__ import annotations

import array
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from reading_maths.sandbox import process, syscall_filter
from reading_maths.sandbox.cgroups import Cgroup
from reading_maths.sandbox.limits import SCRATCH_BYTES
from reading_maths.sandbox.process import (
    CHILD_DIR,
    PROC_MASKED,
    Sandbox,
    bound_paths,
    sandbox_uid,
    site_paths,
)
from reading_maths.sandbox.stopping import exited, kill, parent, stop

START_TIMEOUT = 30.0
HELLO_TIMEOUT = 10.0
WARM = ("numpy",)
"""Imported by every fork server whatever its notebook's own imports: the wire's arrays need NumPy, and students
import it where the source notebook does not (every answer cell of ``matching``'s class).  Imported once here, it
costs the children nothing; imported by each child, about 80 ms of CPU a notebook."""


class NoForkServer(RuntimeError):
    """The fork server could not be started, or could not start a child."""


class Forked:
    """A child forked by the fork server, as a session holds a child process (what it uses of ``Popen``'s interface).

    ``pid`` is the student's process; ``init`` is a pidfd of the init of its PID namespace (killing it ends them
    all), the only process this side ever signals.  Neither is this process's child: the fork server's sandbox reaps
    them, so they are only ever named by that pidfd, never by a pid that a later process could have.
    """

    def __init__(self, pid: int, init: int, to_child: int, from_child: int, moved: Future | None,
                 prelude: tuple[tuple[int, str], ...] = ()):
        self.pid = pid
        self.prelude = prelude
        """the cells ``(index, code)`` it has already run (those of its fork server's prelude)"""
        self.stdin = open(to_child, "wb", buffering=0)  # noqa: SIM115 - closed by stopping.Dying
        self.stdout = open(from_child, "rb")  # noqa: SIM115
        self.returncode: int | None = None
        self._exited: int | None = init
        self._moved = moved

    def wait_moved(self) -> None:
        """Until it is in its cgroup (the move waits for the kernel, in the fork server client's thread)."""
        if self._moved is not None:
            self._moved.result()

    def init_pidfd(self) -> int | None:
        """The pidfd of the namespace's init while it runs (None once it has exited)."""
        self.poll()
        return self._exited

    def poll(self) -> int | None:
        if self.returncode is None and exited(self._exited):
            self.returncode = -signal.SIGKILL
            os.close(self._exited)
            self._exited = None
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            signal.pidfd_send_signal(self._exited, signal.SIGKILL)

    def wait(self) -> int | None:
        return self.poll()


class LifelongThreads:
    """A pool of ``workers`` threads of this process, alive as long as the process (a forked child makes its own).

    bubblewrap's ``--die-with-parent`` kills a sandbox when the *thread* that started it ends: a fork server or a
    trial started by a short-lived thread (a pool's, that of one batch of trials) would be killed with it.
    """

    def __init__(self, workers: int, name: str):
        self.workers, self.name = workers, name
        self._pools: dict[int, ThreadPoolExecutor] = {}
        self._making = threading.Lock()
        os.register_at_fork(after_in_child=self._fresh_lock)

    def _fresh_lock(self) -> None:
        self._making = threading.Lock()  # a forked child's (the thread that held it is not there)

    def __call__(self) -> ThreadPoolExecutor:
        with self._making:
            if os.getpid() not in self._pools:
                self._pools[os.getpid()] = ThreadPoolExecutor(self.workers, thread_name_prefix=self.name)
            return self._pools[os.getpid()]


_launcher = LifelongThreads(1, "fork-server-launcher")
"""The thread that starts this process's fork servers (so that none is started again after its thread ends)."""


class ForkServer:
    """One fork server for this grading process, and the children it forks."""

    def __init__(self, sandbox: Sandbox, preload: tuple[str, ...], prelude: tuple[tuple[int, str], ...] = ()):
        if not sandbox.isolated:
            raise NoForkServer("the fork server runs only in the full sandbox")
        self.sandbox, self.preload = sandbox, preload
        self.prelude = prelude
        """cells ``(index, code)`` of the course's own (read-only cells restored from the source notebook) that the
        fork server runs once, every child then starting after them; () once the fork server refused them"""
        self._process: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self._mover = ThreadPoolExecutor(1, thread_name_prefix="cgroup-move") if sandbox.cgroups else None

    def _start(self) -> None:
        control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        setup = {"path": list(site_paths()), "preload": list(dict.fromkeys(WARM + self.preload)),
                 "control": theirs.fileno(), "prelude": [{"id": index, "source": code} for index, code in self.prelude],
                 "bound": [str(p) for p in bound_paths()], "proc_masked": list(PROC_MASKED),
                 "processes": self.sandbox.limits.processes, "scratch_bytes": SCRATCH_BYTES,
                 "own_user_namespace": self.sandbox.mode == "userns",
                 "no_nested_user_namespace": process.refuses_nested_userns(),
                 "seccomp": (syscall_filter.program(strict=True) or b"").hex()}
        argv = [sys.executable, "-I", "-S", "-B", f"{CHILD_DIR}/fork_server.py", json.dumps(setup)]
        with theirs, syscall_filter.descriptor(strict=False) as seccomp:
            command = self.sandbox.limits.prlimit(processes=False) + self.sandbox.command(
                argv, fork_server=True, seccomp=seccomp)
            passed = (theirs.fileno(),) if seccomp is None else (theirs.fileno(), seccomp)
            self._process = _launcher().submit(
                subprocess.Popen, command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=passed, cwd="/", env=self.sandbox.environment(None),
                start_new_session=True).result()
        self._control = control
        said = control.recv(1) if select.select([control], [], [], START_TIMEOUT)[0] else b""
        if said == b"P" and self.prelude:  # a prelude cell raised, or left what a child would miss: none then
            self.close()
            self.prelude = ()
            self._start()
            return
        if said != b"R":
            self.close()
            raise NoForkServer("the fork server did not start")

    def fork(self, slot: int) -> tuple[Forked, Cgroup | None]:
        """A fresh child for one notebook, as ``slot``'s uid, in a cgroup of its own once :meth:`Forked.wait_moved`."""
        if self._process is None or self._process.poll() is not None:
            self.close()
            self._start()
        uid = sandbox_uid(slot) if self.sandbox.mode == "bwrap" else os.getuid()
        to_child, to_child_w = os.pipe()
        from_child_r, from_child = os.pipe()
        hello, hello_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        hello.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        try:
            request = json.dumps({"uid": uid} if self.sandbox.mode == "bwrap" else {}).encode()
            rights = array.array("i", [to_child, from_child, hello_theirs.fileno()])
            try:
                self._control.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)])
            except OSError:
                raise NoForkServer("the fork server is gone") from None
        finally:
            for fd in (to_child, from_child):
                os.close(fd)
            hello_theirs.close()
        with hello:
            pid = self._hello(hello, uid)
        if pid is None:
            os.close(to_child_w)
            os.close(from_child_r)
            raise NoForkServer("the fork server's child did not start")
        try:
            init = _init_of(pid)
        except NoForkServer:
            os.close(to_child_w)
            os.close(from_child_r)
            raise
        group = Cgroup.create(dict(self.sandbox.cgroups), self.sandbox.limits.memory_bytes,
                              self.sandbox.limits.processes) if self.sandbox.cgroups else None
        moved = self._mover.submit(group.move, pid) if group is not None else None
        return Forked(pid, init, to_child_w, from_child_r, moved, self.prelude), group

    @staticmethod
    def _hello(hello: socket.socket, uid: int) -> int | None:
        """The child's pid as the kernel gives it with its hello, once it is ``uid`` (None if it never says it)."""
        deadline = time.monotonic() + HELLO_TIMEOUT
        while (left := deadline - time.monotonic()) > 0 and select.select([hello], [], [], left)[0]:
            data, ancillary, _, _ = hello.recvmsg(16, socket.CMSG_SPACE(struct.calcsize("3i")))
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid, sender, _ = struct.unpack("3i", payload[:struct.calcsize("3i")])
                    if data == b"hello" and sender == uid and pid > 0:
                        return pid
            if not data:
                return None
        return None

    def close(self) -> None:
        """Stop the fork server (its children are stopped by their own holders)."""
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._process is not None:
            kill(self._process)
            self._process = None


def probe(sandbox: Sandbox) -> str | None:
    """None when a fork server starts here and forks a child that says hello, else why not."""
    server = ForkServer(sandbox, ()) if sandbox.isolated else None
    if server is None:
        return "no sandbox"
    try:
        forked, group = server.fork(0)
        forked.wait_moved()
        stop(forked, group).wait()
        return None
    except (NoForkServer, OSError) as exc:
        return str(exc)
    finally:
        server.close()


def _init_of(pid: int) -> int:
    """A pidfd of the parent of ``pid`` (the init of its PID namespace), checked, once open, to still be its parent:
    ``pid`` is alive (it waits for the notebook's code), so its parent's pid names no other process."""
    fd = None
    try:
        own = os.pidfd_open(pid)
    except OSError:
        raise NoForkServer("the fork server's child is gone") from None
    try:
        init = parent(pid)
        if init:
            fd = os.pidfd_open(init)
            if exited(own) or parent(pid) != init:
                os.close(fd)
                fd = None
    except OSError:
        pass
    finally:
        os.close(own)
    if fd is None:
        raise NoForkServer("the fork server's child is gone")
    return fd
