"""Shared fixtures: the course root, grading a question in this process (the pytest driver), and a PostgreSQL
server for the session."""

import warnings
from pathlib import Path

import numpy as np
import postgres as pg
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


BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)]
"""The databases the gradebook and the checks store run on, for ``parametrize``: a PostgreSQL test starts a server."""


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server for this test session (tests/postgres.py); skipped where PostgreSQL is not installed."""
    try:
        server = pg.start()
    except pg.NotInstalled as missing:
        pytest.skip(str(missing))
    yield server
    server.stop()


def database_url(request, backend: str, file: Path) -> str:
    """A new, empty database on ``backend``: the SQLite ``file``, or a database on the session's PostgreSQL
    server (``request``: the asking test's or fixture's)."""
    if backend == "sqlite":
        return f"sqlite:///{file}"
    return request.getfixturevalue("postgres").database()


def use_gradebook(course: Path, url: str) -> None:
    """The course's ``nbgrader_config.py`` pointed at the gradebook ``url``, as a course on PostgreSQL sets it."""
    with (course / "nbgrader_config.py").open("a", encoding="utf-8") as config:
        config.write(f"\nc.CourseDirectory.db_url = {url!r}\n")
