"""The notebook's IPython side, inside the sandbox: what ``get_ipython()`` and a cell's magics do when graded.

The trusted side sends each cell as the Python IPython's transformer makes of it
(:mod:`reading_maths.cells`): magics and ``!cmd`` become calls on ``get_ipython()``, answered here as
IPython's kernel would for the notebook's names: the code a magic runs in the notebook (``%time``,
``%prun``, ``%run``) runs, ``%timeit``'s runs once inside a function of its own, ``%%writefile`` writes
the file; programs, installs, help and display do nothing.  Like ``wire.py``, it needs only the
standard library, and everything here runs under the student's control.
"""

from __future__ import annotations

import builtins
import os

TOP_LEVEL_AWAIT, CO_COROUTINE = 0x2000, 0x80  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, inspect.CO_COROUTINE


def run_code(source: str, filename: str, namespace: dict):
    """Run a cell's Python (top-level ``await`` included, as IPython allows)."""
    code = compile(source, filename, "exec", flags=TOP_LEVEL_AWAIT)
    if code.co_flags & CO_COROUTINE:
        import asyncio

        return asyncio.run(eval(code, namespace))  # noqa: S307 - this process is the sandbox
    return exec(code, namespace)  # noqa: S102


def no_input(prompt: object = "") -> str:
    raise EOFError("input() waits for someone to type, and no one does when grading: "
                   "write the value into the code instead")


def _statement(namespace: dict, line: str):
    """``%time stmt`` and ``%prun stmt``: the statement runs in the notebook; an expression's value is returned."""
    try:
        code = compile(line, "<timed eval>", "eval")
    except SyntaxError:
        return exec(compile(line, "<timed exec>", "exec"), namespace)  # noqa: S102
    return eval(code, namespace)  # noqa: S307


def _in_function(namespace: dict, setup: str, body: str) -> None:
    """``%timeit``: setup and body run once, inside a function, so that what they define is not kept."""
    import ast

    template = ast.parse("def _timed():\n    pass\n")
    statements = ast.parse(f"{setup}\n{body}").body
    template.body[0].body = statements or template.body[0].body
    scope: dict = {}
    exec(compile(template, "<magic-timeit>", "exec"), namespace, scope)  # noqa: S102
    scope["_timed"]()


def _timeit_setup(line: str) -> str:
    """The statement after ``%timeit``'s options (``-n 10 -r 3 -q -o``)."""
    import re

    return re.sub(r"\A\s*(?:-[nrp]\s*\S+\s*|-[tcqo]+\s+)*", "", line + " ").strip()


def _write_file(line: str, text: str) -> None:
    """``%%writefile [-a] name``, relative to the notebook's folder (the child's own scratch)."""
    import importlib

    words = line.split()
    append = "-a" in words or "--append" in words
    name = next((w for w in words if not w.startswith("-")), "")
    if len(name) > 1 and name[0] == name[-1] and name[0] in "'\"":
        name = name[1:-1]
    with open(os.path.expanduser(name), "a" if append else "w", encoding="utf-8") as file:
        file.write(text)
    importlib.invalidate_caches()


def _run_file(namespace: dict, line: str) -> None:
    """``%run [-i] script.py``: the script runs as ``__main__`` and its names join the notebook's."""
    words = line.split()
    name = next((w for w in words if not w.startswith("-")), "")
    scope = namespace if "-i" in words else {"__name__": "__main__", "__builtins__": builtins}
    with open(os.path.expanduser(name), encoding="utf-8") as file:
        exec(compile(file.read(), name, "exec"), scope)  # noqa: S102
    namespace.update({k: v for k, v in scope.items() if not k.startswith("__")})


class _Captured:
    """What ``%%capture out`` leaves in ``out``: output is not kept when grading."""

    stdout = stderr = ""
    outputs: list = []

    def show(self) -> None:
        pass

    __call__ = show


class ZMQInteractiveShell:
    """Stands in for ``get_ipython()`` (named like the kernel's shell, which notebooks test for)."""

    def __init__(self, namespace: dict):
        self.user_ns = namespace
        self._own = set(namespace) | {"get_ipython", "display"}

    def __call__(self):
        return self

    def run_line_magic(self, magic: str, line: str = "", *_, **__):
        ns = self.user_ns
        if magic in ("time", "prun"):
            return _statement(ns, line)
        if magic == "timeit":
            return _in_function(ns, _timeit_setup(line), "")
        if magic == "run":
            return _run_file(ns, line)
        if magic == "env" and ("=" in line or " " in line.strip()):
            key, _, value = line.strip().replace("=", " ", 1).partition(" ")
            os.environ[key] = value.strip()
        elif magic == "cd":
            os.chdir(os.path.expanduser(line.strip() or "~"))
        elif magic == "pwd":
            return os.getcwd()
        elif magic == "who_ls":
            return sorted(k for k in ns if not k.startswith("_") and k not in self._own)
        elif magic == "reset" and "-f" in line.split():
            for key in [k for k in ns if k not in self._own]:
                del ns[key]
        return None

    def run_cell_magic(self, magic: str, line: str, cell: str):
        if magic == "timeit":
            _in_function(self.user_ns, _timeit_setup(line), cell)
        elif magic == "writefile":
            _write_file(line, cell)

    def magic(self, text: str):
        magic, _, line = text.lstrip("%").partition(" ")
        return self.run_line_magic(magic, line)

    def system(self, *args, **kwargs) -> None:
        return None

    def getoutput(self, *args, **kwargs) -> list:
        return []

    def captured(self) -> _Captured:
        return _Captured()
