"""release/ is generated from source/ by one command, kept in sync, and gives nothing away."""

import json
import shutil

import pytest

from conftest import ROOT
from reading_maths.course import assignments
from reading_maths.nbgrader.release import release
from reading_maths.nbgrader.term import due_date
from reading_maths.notebook import is_test_cell, nbgrader_meta, read_notebook

pytestmark = pytest.mark.slow

ASSIGNMENTS = [a.id for a in assignments(ROOT)]


def _cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(c["cell_type"], c["source"], c.get("metadata", {}).get("nbgrader")) for c in nb["cells"]]


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    shutil.copytree(ROOT / "source", course / "source")
    shutil.copytree(ROOT / "graders", course / "graders")  # release takes each grade cell's points from its grader
    shutil.copy(ROOT / "nbgrader_config.py", course)
    release(course, ASSIGNMENTS, db_url=f"sqlite:///{course / 'gradebook.db'}")
    return course


def test_release_writes_the_assignment_and_its_due_date_into_a_postgresql_gradebook(postgres, tmp_path):
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    for part in ("source", "graders"):
        shutil.copytree(ROOT / part, course / part)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    url = postgres.database()
    dates = release(course, ["notation"], db_url=url)
    assert dates["notation"] is not None and due_date(url, "notation") == dates["notation"]
    with Gradebook(url) as gb:
        assert [nb.name for nb in gb.find_assignment("notation").notebooks] == ["notation"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_committed_release_matches_a_fresh_generation(regenerated, assignment):
    committed = ROOT / "release" / assignment / f"{assignment}.ipynb"
    assert committed.exists(), "run `reading-maths release` and commit release/"
    fresh = regenerated / "release" / assignment / f"{assignment}.ipynb"
    assert _cells(committed) == _cells(fresh), "release/ drifted from source/: run `reading-maths release`"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_has_no_solution_no_hidden_test_no_output(assignment):
    path = ROOT / "release" / assignment / f"{assignment}.ipynb"
    if not path.exists():
        pytest.skip("not generated")
    text = path.read_text(encoding="utf-8")
    for secret in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "grade_question", "MARK SCHEME", "hidden_rng"):
        assert secret not in text
    nb = read_notebook(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None
        if is_test_cell(cell):
            assert "import" not in cell.source, "a test cell shows more than its comment"
    answers = [c for c in nb.cells if nbgrader_meta(c).get("solution") and c.cell_type == "code"]
    assert answers and all("raise NotImplementedError" in c.source for c in answers)
