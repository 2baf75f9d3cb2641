"""One process, two courses: each is graded against its own references (issue 9, deliverable 4).

The course root travels down the call chain, and references are cached per (course, assignment), so
a grader process that serves two courses never grades the second against the first's solutions.
"""

import shutil

import nbformat
import pytest

from classroom.builder import answered
from conftest import ROOT
from reading_maths.grading.engine import Settings, grade
from reading_maths.notebook import grade_id
from test_sandbox import SANDBOX

pytestmark = pytest.mark.sandbox

RIGHT_LINE = "z = np.asarray(z, dtype=np.float64) / T "
OTHER_LINE = "z = np.asarray(z, dtype=np.float64) * T "


def course(folder, reference_line: str):
    """A copy of the code assignment whose reference softmax starts with ``reference_line``
    (its public check cell emptied, since it would reject another reference)."""
    (folder / "source" / "code").mkdir(parents=True)
    shutil.copytree(ROOT / "graders" / "code", folder / "graders" / "code")
    nb = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    for cell in nb.cells:
        if grade_id(cell) == "softmax-answer":
            assert RIGHT_LINE in cell.source
            cell.source = cell.source.replace(RIGHT_LINE, reference_line)
        elif grade_id(cell) == "softmax-check" and reference_line != RIGHT_LINE:
            cell.source = "pass"
    nbformat.write(nb, folder / "source" / "code" / "code.ipynb")
    return folder


def test_each_course_grades_against_its_own_reference(tmp_path):
    right = course(tmp_path / "right", RIGHT_LINE)
    other = course(tmp_path / "other", OTHER_LINE)
    source = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    notebook = tmp_path / "submission.ipynb"
    nbformat.write(answered(source, source), notebook)
    settings = Settings(SANDBOX, cell_timeout=20, call_timeout=20)

    first = grade(notebook, settings, right).question("softmax")
    second = grade(notebook, settings, other).question("softmax")
    again = grade(notebook, settings, right).question("softmax")

    assert first.score == first.max_score, first.feedback
    assert second.score < second.max_score, "graded against the other course's reference"
    assert again.score == first.score
