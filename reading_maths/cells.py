"""Notebook cells as IPython runs them, turned into plain Python on the trusted side.

IPython's own :class:`~IPython.core.inputtransformer2.TransformerManager` turns line magics, ``!cmd``,
``x?`` help, prompts pasted from a console and a cell's common indentation into Python calls on
``get_ipython()``, which the sandboxed child answers (:mod:`reading_maths.sandbox.inside.notebook_shell`).
Cell magics are read here, each as IPython treats its body:

- the body runs in the notebook's namespace (``%%time``, ``%%capture``, ``%%prun``): the magic's line is
  blanked and the body, itself transformed, runs in its place, on the lines it has in the cell, so that a
  function it defines is found at its line;
- the body runs inside a function of its own (``%%timeit``): it runs once, and what it defines is not kept
  (:mod:`reading_maths.grading.causes` says so when a question misses a name defined there);
- the body is written to a file (``%%writefile``, ``%%file``), which a later ``import`` reads;
- the body is shown, not run (``%%html``, ``%%markdown``, ``%%latex``, ...), in Jupyter as when graded;
- the body runs in another program (``%%bash``, ``%%sh``, ``%%script``, ...) or needs an extension: it is
  not run when grading, and :func:`not_run` says so, for the question's feedback.
"""

from __future__ import annotations

import re
from functools import lru_cache

BODY_IN_NAMESPACE = frozenset({"time", "capture", "prun"})
BODY_IN_FUNCTION = frozenset({"timeit"})
WRITES_FILE = frozenset({"writefile", "file"})
SHOWN_ONLY = frozenset({"html", "HTML", "svg", "SVG", "javascript", "js", "latex", "markdown"})
LINE_NOT_RUN = frozenset({"pip", "conda", "mamba", "micromamba", "uv", "sx", "system", "sc", "bash"})
"""Line magics that install packages or run programs: grading runs no other program."""

_CELL_MAGIC = re.compile(r"\A%%([A-Za-z_][\w.]*|!)[ \t]*(.*)")
_SHELL_CALL = re.compile(r"get_ipython\(\)\.(system|getoutput)\(|get_ipython\(\)\.run_line_magic\('([\w.]+)'")


def split_magic(source: str) -> tuple[str, str, str, str] | None:
    """``(magic, line, body, blank lines before it)`` when the cell starts with a cell magic, else None."""
    stripped = source.lstrip("\n")
    match = _CELL_MAGIC.match(stripped)
    if match is None:
        return None
    body = stripped.partition("\n")[2]
    return match.group(1), match.group(2).strip(), body, "\n" * (len(source) - len(stripped))


def _line_magics(source: str) -> str:
    """The cell's Python as IPython's transformer writes it (unchanged where the transformer fails)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - a cell IPython cannot read either: compiling it reports the error
        return source


@lru_cache(maxsize=4096)
def to_python(source: str) -> str:
    """The Python the sandboxed child runs for a cell: the same names, and functions on the same lines."""
    split = split_magic(source)
    if split is None:
        return _line_magics(source)
    magic, line, body, blank = split
    if magic in BODY_IN_NAMESPACE:
        prefix = _capture_target(line) if magic == "capture" else ""
        return blank + prefix + "\n" + to_python(body)
    if magic in BODY_IN_FUNCTION:
        return blank + f"get_ipython().run_cell_magic('timeit', {line!r}, {to_python(body)!r})\n"
    if magic in WRITES_FILE:
        return blank + f"get_ipython().run_cell_magic('writefile', {line!r}, {body!r})\n"
    return blank + "\n"  # shown only, or not run (see not_run)


def _capture_target(line: str) -> str:
    """``%%capture out``: ``out`` holds what the body printed (nothing is kept when grading)."""
    words = [w for w in line.split() if not w.startswith("-")]
    return f"{words[0]} = get_ipython().captured()" if words and words[0].isidentifier() else ""


@lru_cache(maxsize=4096)
def not_run(source: str) -> tuple[str, ...]:
    """What in a cell is not run when grading, each as a sentence for the student ("`%%bash` is not run ...")."""
    split = split_magic(source)
    if split is not None:
        magic = split[0]
        if magic in BODY_IN_NAMESPACE | BODY_IN_FUNCTION | WRITES_FILE | SHOWN_ONLY:
            return ()
        return (f"`%%{magic}` is not run when grading: keep your definitions in plain Python cells.",)
    found = []
    for match in _SHELL_CALL.finditer(to_python(source)):
        kind, magic = match.groups()
        if kind:
            found.append("`!` shell commands are not run when grading: keep your definitions in plain Python "
                         "cells, and use only the modules listed at the top of the notebook.")
        elif magic in LINE_NOT_RUN:
            found.append(f"`%{magic}` is not run when grading: nothing is installed, so use only the modules "
                         "listed at the top of the notebook.")
    return tuple(dict.fromkeys(found))
