"""Shared fixtures: the course root, and grading a question in this process (the pytest driver)."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from hostile.ordinary import MODES

from reading_maths.course import Assignment
from reading_maths.kit.reference import course_secret
from reading_maths.notebook import grade_id, read_notebook
from reading_maths.results import QuestionResult

ROOT = Path(__file__).resolve().parents[1]
course_secret(ROOT)  # made here, as root, before any test grades (as the course's first release makes it)

pytest_plugins = ["inprocess", "pytester"]  # inprocess: pytest --fast (make test-fast), the in-process tests


def grade_in_process(assignment: str, question: str, env: dict) -> QuestionResult:
    """Run the course's grader for ``question`` on ``env`` (plain objects), NumPy's warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return Assignment(assignment, ROOT).grader(question).run(env)


def cells_by_grade_id(notebook) -> dict:
    """The notebook's cells that carry a grade id, by that id."""
    return {grade_id(c): c for c in notebook.cells if grade_id(c)}


def source_cells(assignment: str) -> dict:
    """:func:`cells_by_grade_id` of the assignment's source notebook, read afresh."""
    return cells_by_grade_id(read_notebook(Assignment(assignment, ROOT).source_notebook))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="module", params=MODES)
def mode(request) -> str:
    """Each of :data:`hostile.ordinary.MODES` in turn: a module's batch graded as root, then as the ordinary user."""
    return request.param
