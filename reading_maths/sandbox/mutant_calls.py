"""What mutation testing needs of a student's function, wherever it lives: its ``def`` and its trials.

:func:`definition` gives the source of the ``def``; the trials (its program run again with that ``def``
replaced) are made by :mod:`reading_maths.sandbox.rerun`.  A :class:`Remote` function (a sandbox proxy,
:class:`reading_maths.sandbox.proxy.Proxy`) asks its sandboxed child; a real one (under pytest or stock
nbgrader's kernel) is read in this process.
"""

from __future__ import annotations

import abc
import ast
import functools
import inspect
import textwrap
from typing import Any


class Remote(abc.ABC):
    """A student's function that lives in another process (see :class:`reading_maths.sandbox.proxy.Proxy`)."""

    @abc.abstractmethod
    def definition(self) -> str:
        """The source of its ``def``."""

    @abc.abstractmethod
    def trials(self, calls: list[tuple[Remote, dict]]) -> Any:
        """Runs of its notebook again with its ``def`` replaced, then ``calls``: an object whose
        ``run(replacement, limit)`` makes one (see :func:`reading_maths.sandbox.rerun.run_fresh`)."""


MAX_SOURCE = 200_000


def function_source(source: str, line: int, function: str) -> str:
    """The text of the ``def function`` (decorators included) that starts at ``line`` of ``source``.

    Raises ``LookupError`` when there is no such definition (or the text cannot be parsed).
    """
    first, last = function_lines(source, line, function)
    return textwrap.dedent("\n".join(source.splitlines()[first - 1:last])) + "\n"


def replace_function(source: str, line: int, function: str, new: str) -> str:
    """``source`` with the ``def function`` that starts at ``line`` replaced by ``new`` (indented as it was)."""
    first, last = function_lines(source, line, function)
    lines = source.splitlines(keepends=True)
    indent = lines[first - 1][:len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    return "".join(lines[:first - 1]) + textwrap.indent(new.rstrip("\n") + "\n", indent) + "".join(lines[last:])


@functools.lru_cache(maxsize=256)
def function_lines(source: str, line: int, function: str) -> tuple[int, int]:
    """The first and last lines of the ``def function`` that starts at ``line`` (decorators included)."""
    if len(source) > MAX_SOURCE:
        raise LookupError("the cell is too long to read")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise LookupError("the cell cannot be parsed") from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if line in (first, node.lineno):
                return first, node.end_lineno or node.lineno
    raise LookupError(f"no def {function} at line {line}")


def definition(fn: Any) -> str:
    """The source of the ``def`` of a student's function, whichever process it lives in."""
    if isinstance(fn, Remote):
        return fn.definition()
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise LookupError(f"the source of {getattr(fn, '__name__', 'the function')} cannot be found") from exc

