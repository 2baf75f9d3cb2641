"""The course on disk: its assignments, their questions and grader files, and recognising a notebook."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from reading_maths.graderfile import GraderFile, load_grader
from reading_maths.graderkit import course_root
from reading_maths.notebook import grade_id, nbgrader_meta, read_notebook, test_cells

ASSIGNMENTS = ("notation", "matching", "proofs", "code")
"""Assignment ids, in the order of the course text's "Your turn" section."""


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
        return read_notebook(self.source_notebook)

    @cached_property
    def questions(self) -> list[str]:
        """Auto-graded question ids, in notebook order (the grade ids of the test cells)."""
        return [grade_id(c) for c in test_cells(self.source)]

    @cached_property
    def manual_cells(self) -> list[str]:
        """Grade ids of the hand-marked answers (graded in formgrader, not here)."""
        return [
            grade_id(c) for c in self.source.cells
            if nbgrader_meta(c).get("grade") and nbgrader_meta(c).get("solution")
        ]

    def grader(self, question: str) -> GraderFile:
        return load_grader(self.root / "graders" / self.id / f"{question}.py")

    @property
    def graders(self) -> list[GraderFile]:
        return [self.grader(q) for q in self.questions]


def assignments(root: Path | None = None) -> list[Assignment]:
    """The course's assignments that exist on disk."""
    root = root or course_root()
    return [Assignment(a, root) for a in ASSIGNMENTS if (root / "source" / a / f"{a}.ipynb").is_file()]


def recognise(nb, root: Path | None = None) -> Assignment | None:
    """The assignment a notebook belongs to, from the grade ids of its cells."""
    ids = {grade_id(c) for c in nb.get("cells", []) if grade_id(c)}
    best, overlap = None, 0
    for assignment in assignments(root):
        known = {grade_id(c) for c in assignment.source.cells if grade_id(c)}
        if len(ids & known) > overlap:
            best, overlap = assignment, len(ids & known)
    return best
