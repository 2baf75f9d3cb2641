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
import os
import secrets
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from reading_maths.course import find_root

SECRET_FILE = "course-secret.key"
"""The course's secret, beside the gradebook: mixed into every grader's seed, so that hidden random inputs are
the course's own (a new course folder, a new term: new inputs).  Made by ``reading-maths release`` (or the first
grading) with the permissions the gradebook gets (the course folder keeps students out of it, as of ``graders/``),
never released, never committed."""


def _course_of(anchor: str | Path | None) -> Path:
    """The course holding ``anchor`` (a path inside it), else the one holding the working directory."""
    root = None
    if anchor is not None:
        start = Path(anchor).resolve()
        with contextlib.suppress(FileNotFoundError):
            root = find_root(start if start.is_dir() else start.parent)
    return root or find_root()


def reference(assignment: str, anchor: str | Path | None = None) -> SimpleNamespace:
    """The reference solution of ``assignment``: its source notebook's non-test cells, run.

    ``anchor`` is a path inside the course (by default the calling grader file, or the course folder);
    when it lies outside any course, the course is found from the working directory.
    """
    return reference_of(_course_of(sys._getframe(1).f_code.co_filename if anchor is None else anchor), assignment)


def course_seed(number: int, anchor: str | Path | None = None) -> tuple[int, ...]:
    """A grader file's seed for its hidden random inputs: its own ``number`` and its course's secret words
    (``anchor`` as for :func:`reference`).  Fixed edge cases are literals in the grader and stay as they are."""
    return (number, *course_secret(_course_of(sys._getframe(1).f_code.co_filename if anchor is None else anchor)))


@functools.cache
def course_secret(root: Path) -> tuple[int, ...]:
    """The secret of the course at ``root`` as 32-bit words, made (256 random bits) if it has none."""
    path = Path(root) / SECRET_FILE
    if not path.exists():
        keep_secret(Path(root), secrets.token_bytes(32))
    data = path.read_bytes()
    if len(data) < 16:
        raise ValueError(f"{path} is not a course secret (fewer than 16 bytes): delete it to make a new one")
    return tuple(int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - 3, 4))


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


def keep_secret(root: Path, data: bytes) -> None:
    """Make ``data`` the secret of the course at ``root`` unless it has one (atomically: a file that appears is
    whole; when two processes race, the first one's counts)."""
    path = root / SECRET_FILE
    draft = path.with_name(f".{SECRET_FILE}.{os.getpid()}")
    try:
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(draft)


def hidden_rng(seed: int | tuple[int, ...], case: str) -> np.random.Generator:
    """A generator for one hidden case: the same numbers on every run, different per case (and per course, for a
    seed from :func:`course_seed`)."""
    entropy = (*(seed if isinstance(seed, tuple) else (seed,)), *case.encode())
    sequence = _sequences.get(entropy)
    if sequence is None or sequence.n_children_spawned:  # a spawned one would seed its next children differently
        sequence = np.random.SeedSequence(list(entropy))
        if len(_sequences) < 4096:
            _sequences[entropy] = sequence
    return np.random.Generator(np.random.PCG64(sequence))  # np.random.default_rng(list(entropy)), without the hashing


_sequences: dict[tuple[int, ...], np.random.SeedSequence] = {}
"""Each case's seed sequence (hashing the seed is most of making a generator, and every notebook asks again)."""
