"""Reference solutions and hidden inputs, as grader files ask for them.

A grader file names its assignment, ``REF = reference("code")``, and its own path says which course:
the nearest folder above the file holding ``graders/`` and ``source/`` (the path comes from the
calling code's file name, which every driver sets, Otter's included, though Otter runs the file
without a ``__file__``).  Under Otter's zip, which copies the files elsewhere, the course is the
nearest such folder above the working directory.  References are cached per (course, assignment),
so one process can grade several courses.
"""

from __future__ import annotations

import contextlib
import functools
import io
import linecache
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from reading_maths.course import find_root


def reference(assignment: str, anchor: str | Path | None = None) -> SimpleNamespace:
    """The reference solution of ``assignment``: its source notebook's non-test cells, run.

    ``anchor`` is a path inside the course (by default the calling grader file, or the course folder);
    when it lies outside any course, the course is found from the working directory.
    """
    root = None
    if anchor is None:
        anchor = sys._getframe(1).f_code.co_filename  # the grader file that asks
    if anchor is not None:
        start = Path(anchor).resolve()
        with contextlib.suppress(FileNotFoundError):
            root = find_root(start if start.is_dir() else start.parent)
    return reference_of(root or find_root(), assignment)


@functools.cache
def reference_of(root: Path, assignment: str) -> SimpleNamespace:
    """The reference solution of ``assignment`` in the course at ``root`` (cached per pair).

    The source notebook's solution cells are the one source of truth; this executes every code
    cell of ``source/<assignment>/<assignment>.ipynb`` that is not a grade (test) cell, in a fresh
    namespace, and returns that namespace.
    """
    from reading_maths.notebook import reference_cells  # local: keeps this module light

    path = Path(root) / "source" / assignment / f"{assignment}.ipynb"
    namespace: dict[str, Any] = {"__name__": f"reference_{assignment}"}
    with contextlib.redirect_stdout(io.StringIO()):  # check cells may print; nothing here is feedback
        for number, source in enumerate(reference_cells(path)):
            filename = f"{path} (code cell {number + 1})"  # inspect.getsource finds the cells' functions
            linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
            exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the instructor's own notebook
    return SimpleNamespace(**{k: v for k, v in namespace.items() if not k.startswith("__")})


def hidden_rng(seed: int, case: str) -> np.random.Generator:
    """A generator for one hidden case: the same numbers on every run, different per case."""
    return np.random.default_rng([seed, *case.encode()])
