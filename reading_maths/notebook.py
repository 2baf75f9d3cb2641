"""Reading notebooks and their nbgrader cell metadata.

The kinds of cell follow nbgrader: an *answer* cell (``solution``), a *test* cell (``grade`` and
not ``solution``, one per question, ``grade_id`` = the question id), a *manually graded answer*
(``solution`` and ``grade``), *read-only* cells (``locked``), and plain cells a student added.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat

from reading_maths.inputs import UnsafeInput, read_regular

SOLUTION_MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$", re.MULTILINE)
MAX_PARTS = 20_000
"""Cells and outputs a student's notebook may hold (the course's have tens): nbformat takes about a minute
of the grader's own time, outside any notebook's budget, to check a 50 MiB notebook of a million cells."""


class NotANotebook(ValueError):
    """The file cannot be read as a Jupyter notebook."""


def read_notebook(path: Path, shown: str | None = None, student: bool = True) -> nbformat.NotebookNode:
    """Read a notebook as version 4, or raise :class:`NotANotebook` with a one-line reason naming the file
    ``shown`` (default: ``path``). A ``student``'s file that is a link, a hard link, a FIFO or a device is
    refused unread (:func:`reading_maths.inputs.read_regular`); the course's own files are read as they are."""
    shown = shown or str(path)
    try:
        raw = read_regular(Path(path)) if student else Path(path).read_bytes()
    except UnsafeInput as exc:
        raise NotANotebook(exc.strerror) from None
    except OSError as exc:
        raise NotANotebook(f"cannot read {shown}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise NotANotebook(f"{shown} is not UTF-8 text, so it is not a notebook") from None
    if student and _parts(text) > MAX_PARTS:
        raise NotANotebook(f"{shown} holds more than {MAX_PARTS} cells and outputs, more than a notebook of "
                           "this course can (a loop that adds cells or displays?)")
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds for bad input
        raise NotANotebook(f"{shown} is not a Jupyter notebook ({type(exc).__name__})") from None
    if not isinstance(nb.get("cells"), list):
        raise NotANotebook(f"{shown} is not a Jupyter notebook (no cells)")
    return nb


def _parts(text: str) -> int:
    """How many cells and outputs the notebook ``text`` holds (0 when it is not a JSON notebook: nbformat says why)."""
    try:
        cells = json.loads(text).get("cells")
        return len(cells) + sum(len(c.get("outputs") or ()) for c in cells if isinstance(c, dict))
    except Exception:  # noqa: BLE001 - malformed: left to nbformat's reason
        return 0


def nbgrader_meta(cell: Any) -> dict:
    """The cell's ``metadata.nbgrader`` dict, or ``{}`` when it has none or it is malformed."""
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    value = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    return value if isinstance(value, dict) else {}


def grade_id(cell: Any) -> str | None:
    value = nbgrader_meta(cell).get("grade_id")
    return value if isinstance(value, str) else None


def is_test_cell(cell: Any) -> bool:
    """An autograder test cell: graded, not an answer."""
    meta = nbgrader_meta(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def test_cells(nb: Any) -> list[Any]:
    """The notebook's test cells, in order."""
    return [c for c in nb.get("cells", []) if is_test_cell(c)]


def reference_cells(path: Path) -> list[str]:
    """Code of the source notebook's non-test code cells, solution markers removed."""
    nb = read_notebook(path, student=False)
    return [
        SOLUTION_MARKERS.sub("", cell.source)
        for cell in nb.cells
        if cell.cell_type == "code" and not is_test_cell(cell)
    ]
