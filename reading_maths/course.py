"""The course on disk: where it is, its assignments (discovered, not listed), and recognising a notebook.

An assignment is a folder ``source/<id>/`` holding ``<id>.ipynb`` beside a folder ``graders/<id>/``;
adding one needs no change here.  Every function takes the course root explicitly; only the
entry points (the command line, nbgrader's kernel, Otter) look for it, with :func:`find_root`.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from reading_maths.notebook import grade_id, is_test_cell, nbgrader_meta, read_notebook, test_cells

if TYPE_CHECKING:
    from reading_maths.grading.graderfile import GraderFile

def find_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: the working directory) holding
    ``graders/`` and ``source/``."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "graders").is_dir() and (folder / "source").is_dir():
            return folder
    raise FileNotFoundError(f"no course folder (one holding graders/ and source/) at or above {here}")


@dataclass(frozen=True)
class Assignment:
    """One assignment: ``source/<id>/<id>.ipynb`` and ``graders/<id>/<question>.py``."""

    id: str
    root: Path

    @property
    def source_notebook(self) -> Path:
        return self.root / "source" / self.id / f"{self.id}.ipynb"

    @cached_property
    def source(self):
        return read_notebook(self.source_notebook, student=False)

    @cached_property
    def questions(self) -> list[str]:
        """Auto-graded question ids, in notebook order (the grade ids of the test cells)."""
        return [g for c in test_cells(self.source) if (g := grade_id(c))]

    @cached_property
    def imports(self) -> tuple[str, ...]:
        """The modules the source notebook's code imports at the top of its cells (``numpy``,
        ``matplotlib.pyplot``): what a student's notebook imports too, imported by the sandboxed child
        before the student's code arrives."""
        found: dict[str, None] = {}
        for cell in self.source.cells:
            if cell.cell_type != "code" or is_test_cell(cell):  # hidden tests never run in the sandbox
                continue
            try:
                statements = ast.parse("".join(cell.source)).body
            except SyntaxError:
                continue
            for statement in statements:
                if isinstance(statement, ast.Import):
                    found |= dict.fromkeys(alias.name for alias in statement.names)
                elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                    found[statement.module] = None
        return tuple(m for m in found if m != "__future__")

    @cached_property
    def grade_ids(self) -> list[str]:
        """Every graded cell's id, auto and hand-marked, in notebook order."""
        return [gid for c in self.source.cells if nbgrader_meta(c).get("grade") and (gid := grade_id(c))]

    @cached_property
    def own_ids(self) -> frozenset[str]:
        """The grade ids that name one of the questions: their grade, answer, check (and other
        ``<question>-...``) cells, not the helper cells every notebook of the course carries."""
        questions = set(self.questions) | set(self.manual_cells)
        return frozenset(g for c in self.source.cells
                         if (g := grade_id(c)) and (g in questions or g.rsplit("-", 1)[0] in questions))

    def holds(self, nb) -> bool:
        """Whether the notebook ``nb`` has at least one of this assignment's own grade ids."""
        return any(grade_id(c) in self.own_ids for c in nb.get("cells", []))

    @cached_property
    def manual_cells(self) -> list[str]:
        """Grade ids of the hand-marked answers (graded in formgrader, not here)."""
        return [
            g for c in self.source.cells
            if nbgrader_meta(c).get("grade") and nbgrader_meta(c).get("solution") and (g := grade_id(c))
        ]

    def grader(self, question: str) -> GraderFile:
        from reading_maths.grading.graderfile import load_grader  # the course layout needs no grading code

        return load_grader(self.root / "graders" / self.id / f"{question}.py")

    @property
    def graders(self) -> list[GraderFile]:
        return [self.grader(q) for q in self.questions]


@cache
def assignment(root: Path, id: str) -> Assignment:
    """The assignment ``id`` of the course at ``root``: one object per process, so its source notebook is read
    once (``grading/remote.py`` forgets it when the course's files change)."""
    return Assignment(id, Path(root))


def assignments(root: Path) -> list[Assignment]:
    """The course's assignments, by id: every ``source/<id>/<id>.ipynb`` with a ``graders/<id>/`` folder."""
    found = [p.name for p in (Path(root) / "source").iterdir()
             if (p / f"{p.name}.ipynb").is_file() and (Path(root) / "graders" / p.name).is_dir()]
    return [assignment(Path(root), a) for a in sorted(found)]


def shown_path(path: Path | str, root: Path) -> str:
    """How messages and stored results name a file: relative to the course root when it is inside the course
    (``submitted/alice/code/code.ipynb``), else by its name (what the student called it)."""
    absolute, top = os.path.abspath(path), os.path.abspath(root)
    if absolute.startswith(top + os.sep):
        return Path(os.path.relpath(absolute, top)).as_posix()
    return Path(path).name


def recognise(nb, root: Path) -> Assignment | None:
    """The assignment a notebook belongs to, from the grade ids of its question cells: for a notebook graded
    without being told its assignment (``reading-maths grade`` on a folder of several)."""
    ids = {grade_id(c) for c in nb.get("cells", []) if grade_id(c)}
    best, overlap = None, 0
    for candidate in assignments(root):
        shared = len(ids & candidate.own_ids)
        if shared > overlap:
            best, overlap = candidate, shared
    return best
