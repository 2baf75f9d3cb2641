"""``reading-maths new-question``: a scaffolded question, given a reference answer, grades to full marks from its
source notebook, and its grade cell's points are the grader's."""

import re
import shutil

import nbformat
import pytest
from click.testing import CliRunner
from nbgrader.nbgraderformat import MetadataValidator

from conftest import ROOT
from reading_maths.cli import main
from reading_maths.course import Assignment
from reading_maths.grading.graderfile import load_grader
from reading_maths.kit.reference import reference_of
from reading_maths.notebook import grade_id, is_test_cell, nbgrader_meta
from reading_maths.scaffold import PASTED, sync_generated_cells

SOLUTION = re.compile(r"### BEGIN SOLUTION\n.*### END SOLUTION", re.DOTALL)


def scaffolded(folder, answer: str = "return 2 * x"):
    """A copy of the course with the question ``double`` scaffolded in ``code`` and its solution filled in."""
    for part in ("source", "graders"):
        shutil.copytree(ROOT / part, folder / part)
    done = CliRunner().invoke(main, ["--course", str(folder), "new-question", "code", "double"])
    assert done.exit_code == 0, done.output
    path = folder / "source" / "code" / "code.ipynb"
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if grade_id(c) == "double-answer")
    cell.source = SOLUTION.sub(f"### BEGIN SOLUTION\n    {answer}\n    ### END SOLUTION", cell.source)
    nbformat.write(nb, path)
    return folder


def test_the_scaffold_writes_the_cells_grader_and_corpus(tmp_path):
    course = scaffolded(tmp_path)
    nb = nbformat.read(course / "source" / "code" / "code.ipynb", as_version=4)
    MetadataValidator().validate_nb(nb)  # nbgrader's own check of the cell metadata
    nbformat.validate(nb)
    order = [grade_id(c) for c in nb.cells]
    place = order.index("double-answer")
    assert order[place - 1:place + 3] == [None, "double-answer", "double-check", "double"]
    assert order[-1] == "public-checks-summary" and '"double"]' in nb.cells[-1].source
    grade = nbgrader_meta(nb.cells[place + 2])
    assert grade["grade"] and grade["locked"] and not grade["solution"]
    assert grade["points"] == load_grader(course / "graders" / "code" / "double.py").max_score == 3
    assert "raises-exception" in nb.cells[place + 1].metadata.tags
    assert Assignment("code", course).questions[-1] == "double"
    assert (course / "tests" / "corpora" / "code" / "double.py").is_file()
    again = CliRunner().invoke(main, ["--course", str(course), "new-question", "code", "double"])
    assert again.exit_code != 0 and "already has a question" in again.output


def test_a_scaffolded_question_grades_its_reference_to_full_marks_and_wrong_answers_lower(tmp_path):
    course = scaffolded(tmp_path)
    grader = Assignment("code", course).grader("double")
    full = grader.run(vars(reference_of(course, "code")))
    assert full.score == full.max_score == 3, full.feedback
    assert grader.run({"double": lambda x: x + 1}).score < 3
    assert grader.run({}).status == "missing"


def test_points_come_from_the_grader_when_releasing(tmp_path):
    course = scaffolded(tmp_path)
    grader = course / "graders" / "code" / "double.py"
    grader.write_text(grader.read_text().replace("@test_case(points=2, hidden=True)",
                                                 "@test_case(points=5, hidden=True)"))
    load_grader.cache_clear()
    assert sync_generated_cells(course, "code") and not sync_generated_cells(course, "code")
    nb = nbformat.read(course / "source" / "code" / "code.ipynb", as_version=4)
    assert next(nbgrader_meta(c)["points"] for c in nb.cells if grade_id(c) == "double") == 6


@pytest.mark.parametrize("assignment", ["build", "matching", "notation"])
def test_releasing_writes_the_boilerplate_cells_from_the_package(tmp_path, assignment):
    """Grade cells and pasted helper cells edited by hand (or left stale) are written again from the package."""
    for part in ("source", "graders"):
        shutil.copytree(ROOT / part, tmp_path / part)
    path = tmp_path / "source" / assignment / f"{assignment}.ipynb"
    pristine = nbformat.read(path, as_version=4)
    nb = nbformat.read(path, as_version=4)
    edited = set()
    for cell in nb.cells:
        if grade_id(cell) in PASTED or is_test_cell(cell):
            cell.source = cell.source.replace("\n", "\n# edited by hand\n", 1) + "\nprint('stale')"
            if is_test_cell(cell):
                nbgrader_meta(cell)["points"] = 99
            edited.add(grade_id(cell))
    assert {"check-helpers"} < edited
    nbformat.write(nb, path)
    assert sync_generated_cells(tmp_path, assignment)
    assert nbformat.read(path, as_version=4) == pristine


@pytest.mark.sandbox
def test_the_scaffolded_source_notebook_grades_to_full_marks_in_the_sandbox(tmp_path):
    from reading_maths.grading.engine import Settings, grade
    from test_sandbox import SANDBOX

    course = scaffolded(tmp_path)
    result = grade(course / "source" / "code" / "code.ipynb", Settings(SANDBOX, cell_timeout=20, call_timeout=20),
                   course, Assignment("code", course))
    assert result.question("double").score == 3, result.question("double").feedback
    assert result.score == result.max_score, [q.feedback for q in result.questions if q.score < q.max_score]
