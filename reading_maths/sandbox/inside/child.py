"""The untrusted side: runs a student's notebook cells and answers calls, inside the sandbox.

Started by :mod:`reading_maths.sandbox.session` as the script ``python -I -S child.py`` with the protocol
on its stdin and stdout.  It moves the protocol to private descriptors, points the standard
streams at sinks, runs the cells it is sent (reporting each start and end), then answers requests
on the student's names with plain data (:mod:`reading_maths.sandbox.inside.wire`): ``call`` a
function, or ``locate`` one (the cell and line of its ``def``, so that the trusted side reads its
source from its own copy of the notebook).  Everything here is assumed to be under the student's
control; the trusted side believes nothing it says beyond plain values.
"""

from __future__ import annotations

import builtins
import json
import os
import sys

if __package__:  # imported by the trusted side's tests
    from reading_maths.sandbox.inside import wire
    from reading_maths.sandbox.inside.notebook_shell import ZMQInteractiveShell, no_input, run_code
else:  # the sandbox's entry point (or the fork server's module): only the files of sandbox/inside beside it
    if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import wire
    from notebook_shell import ZMQInteractiveShell, no_input, run_code

OUTPUT_CAP = 1 << 20


class _Sink:
    """A text stream that keeps nothing: cell output is not needed for grading."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class GraderPipes:
    """The pipes to the grader (the protocol descriptors), moved away from 0 and 1."""

    def __init__(self) -> None:
        self.inp = os.dup(0)
        self.out = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
        sys.stdout = sys.stderr = _Sink()

    def _read(self, size: int) -> bytes:
        chunks, need = [], size
        while need:
            chunk = os.read(self.inp, need)
            if not chunk:
                raise SystemExit(0)
            chunks.append(chunk)
            need -= len(chunk)
        return b"".join(chunks)

    def receive(self) -> dict:
        length = wire.header_length(self._read(wire.HEADER_SIZE))
        return wire.parse(self._read(length))

    def send(self, message: dict) -> None:
        wire.send(self.out, message)


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:500]
    except BaseException:  # noqa: BLE001 - a hostile __str__
        return ""


def _error_text(exc: BaseException) -> str:
    message = _message(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def run_cells(channel: GraderPipes, cells: list[dict], namespace: dict) -> None:
    for cell in cells:
        channel.send({"event": "cell", "id": cell["id"]})
        error = None
        try:
            run_code(cell["source"], f"<cell {cell['id']}>", namespace)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
            error = _error_text(exc)
        channel.send({"event": "cell_done", "id": cell["id"], "error": error})


def describe(namespace: dict, name: str):
    if name not in namespace:
        return {"kind": "missing"}
    value = namespace[name]
    try:
        if callable(value):
            return {"kind": "callable"}
        return {"kind": "value", "value": wire.encode(value)}
    except BaseException as exc:  # noqa: BLE001
        return {"kind": "value", "value": {"__unencodable__": _error_text(exc)}}


def _callback(channel: GraderPipes, number: int):
    def call_trusted(*args):
        channel.send({"event": "callback", "id": number, "args": wire.encode(list(args))})
        reply = channel.receive()
        if reply.get("op") == "callback_return":
            return wire.decode(reply.get("value"))
        raise RuntimeError(str(reply.get("message", "the grader's function failed")))

    return call_trusted


def _bind(channel: GraderPipes, value):
    if isinstance(value, wire.Callback):
        return _callback(channel, value.number)
    return value


def _locate(namespace: dict, name: str) -> dict:
    """Where the function ``name`` was defined: the cell's number and the line of its ``def``."""
    code = getattr(namespace[name], "__code__", None)
    filename = getattr(code, "co_filename", "")
    if not (isinstance(filename, str) and filename.startswith("<cell ") and filename.endswith(">")):
        raise LookupError(f"{name} was not defined with def in a cell")
    return {"event": "located", "cell": int(filename[6:-1]), "line": int(code.co_firstlineno),
            "function": str(getattr(namespace[name], "__name__", ""))[:200]}


def _answer(channel: GraderPipes, namespace: dict, request: dict) -> dict:
    """One request: ``call`` or ``locate``."""
    if request.get("op") == "locate":
        return _locate(namespace, request["name"])
    function = namespace[request["name"]]
    args = [_bind(channel, a) for a in wire.decode(request.get("args", []), functions=True)]
    kwargs = {k: _bind(channel, v) for k, v in wire.decode(request.get("kwargs"), functions=True).items()}
    result = function(*args, **kwargs)
    sent = request.get("args", [])
    changed = [[i, after] for i, after in enumerate(map(wire.encode, args)) if i >= len(sent) or after != sent[i]]
    return {"event": "return", "value": wire.encode(result), "changed": changed}  # the arguments it changed


def ready(channel: GraderPipes, namespace: dict, names: list) -> None:
    channel.send({"event": "ready", "names": {n: describe(namespace, n) for n in names}})


def serve(channel: GraderPipes, namespace: dict, names: list) -> None:
    while True:
        request = channel.receive()
        if request.get("op") == "run":  # the next cells of the notebook, up to the next question
            run_cells(channel, request.get("cells", []), namespace)
            ready(channel, namespace, names)
            continue
        if request.get("op") not in ("call", "locate"):
            continue
        try:
            reply = _answer(channel, namespace, request)
        except BaseException as exc:  # noqa: BLE001 - report whatever the student's code raised
            reply = {"event": "raise", "type": type(exc).__name__[:80], "message": _message(exc)}
        channel.send(reply)


def preload(modules: list) -> None:
    """Import what the notebook imports, before its code arrives (a failure is the student's import's to report)."""
    for module in modules:
        try:
            __import__(str(module))
        except Exception:  # noqa: BLE001 - the student's own import will say what is wrong
            pass


KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING = 1


def own_session_keyring() -> None:
    """A new, empty, anonymous session keyring, so that this process possesses no key of the grader's (the
    syscall filter refuses every other use of keyrings, so it stays empty)."""
    import ctypes
    import platform

    number = KEYCTL_SYSCALL.get(platform.machine())
    if number is not None:
        ctypes.CDLL(None, use_errno=True).syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None)


def notebook_namespace() -> dict:
    """The namespace a notebook's cells run in, as a fresh kernel has it (``input`` refused: no one types)."""
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    namespace.update(get_ipython=ZMQInteractiveShell(namespace), display=lambda *a, **k: None)
    builtins.input = no_input
    sys.path.insert(0, os.getcwd())  # as in Jupyter: a module the notebook writes (%%writefile) is imported
    return namespace


def run_prelude(cells: list, namespace: dict) -> bool:
    """Run the course's own leading cells in ``namespace`` (in the fork server, before any child is forked: see
    ``fork_server.py``), their output thrown away as a child's is; False when one raised."""
    streams = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = _Sink()
    try:
        for cell in cells:
            run_code(cell["source"], f"<cell {cell['id']}>", namespace)
    except BaseException:  # noqa: BLE001 - the children then run every cell themselves
        return False
    finally:
        sys.stdout, sys.stderr = streams
    return True


def run(channel: GraderPipes, namespace: dict | None = None) -> None:
    """Run the notebook's cells as the trusted side sends them, then answer its requests until it stops.

    ``namespace``: the notebook's namespace once the fork server has run its leading cells (the trusted side then
    sends only the cells after them), else a fresh one."""
    own_session_keyring()
    setup = channel.receive()
    if namespace is None:
        namespace = notebook_namespace()
    run_cells(channel, setup.get("cells", []), namespace)
    names = setup.get("names", [])
    ready(channel, namespace, names)
    serve(channel, namespace, names)


def main() -> None:
    start = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    cap = int(start.get("processes", 0))
    if cap:  # in a user namespace the process cap is set here, where it counts only this sandbox
        import resource

        resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))
    sys.path += [str(p) for p in start.get("path", [])]  # started with -S: no site, no .pth imports
    channel = GraderPipes()
    preload(start.get("preload", []))
    run(channel)


if __name__ == "__main__":
    main()
