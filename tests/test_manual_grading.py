"""A teacher hand-marks the written proofs in formgrader and sees them in the total.

On a temporary copy of the course: a ``proofs`` submission with written answers is autograded by
``reading-maths autograde``; the gradebook lists the two written answers as needing a hand mark; the
marks are then entered the way formgrader's grade API does (``Gradebook.find_grade_by_id``, set
``manual_score``, clear ``needs_manual_grade``, commit), and the submission's total in the gradebook,
in ``nbgrader export``'s CSV and in ``reading-maths report``'s grades CSV includes them.

The mark schemes are nbgrader "Manually graded task" cells worth 0 points (so that nbgrader strips
them from the release); nbgrader flags every task cell for manual grading, and autograde unflags these
0-point ones, so the submission stops needing manual grading once the written proofs are marked.
"""

from __future__ import annotations

import csv
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from test_autograde import nbgrader, reading_maths

from classroom.builder import answered
from conftest import ROOT

ASSIGNMENT = "proofs"
WRITTEN = {"puzzle_written": 1.5, "induction_written": 3.0}  # the hand marks (out of 2 and 4)
WRONG_PUZZLE_V = 'puzzle_v = ["E", "G", "A", "L", "J", "C", "I"]'  # E[g_t]² for E[g_t²]: 2 edits, 5 / 7
SCHEMES = {f"{name}-scheme" for name in WRITTEN}
STUDENTS = ("alice", "bob")


def _csv(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return {row["student_id"]: row for row in csv.DictReader(fh)}


def mark(gb: Gradebook, student: str, marks: dict[str, float]) -> None:
    """Hand marks entered as formgrader enters them (its ``PUT /api/grade/<id>`` handler)."""
    for g in gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student).grades:
        if g.name in marks:
            grade = gb.find_grade_by_id(g.id)
            grade.manual_score, grade.extra_credit = marks[g.name], None
            grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
            gb.db.commit()


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A course copy where alice (every answer right) and bob (puzzle_v wrong) submitted and were autograded."""
    folder = tmp_path_factory.mktemp("manual") / "course"
    folder.mkdir()
    (folder / "source").mkdir()
    shutil.copytree(ROOT / "source" / ASSIGNMENT, folder / "source" / ASSIGNMENT)
    shutil.copytree(ROOT / "graders", folder / "graders")
    shutil.copy(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    nbgrader(folder, "generate_assignment", ASSIGNMENT, "--create", "--force", "--log-level=WARN")
    release = nbformat.read(folder / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(folder / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    notebooks = {"alice": answered(release, source),
                 "bob": answered(release, source, {"puzzle_v-answer": WRONG_PUZZLE_V})}
    for student, nb in notebooks.items():
        path = folder / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
        written = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") in WRITTEN]
        assert len(written) == len(WRITTEN) and all(text.strip() for text in written)
    reading_maths(folder, "autograde", ASSIGNMENT, "--jobs", "2")
    return folder


def test_hand_marked_proofs_reach_the_total(course, tmp_path):
    db = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(db) as gb:
        maximum = gb.find_assignment(ASSIGNMENT).max_score
        manual_max = {c.name: c.max_score for c in gb.find_notebook(ASSIGNMENT, ASSIGNMENT).grade_cells
                      if c.name in WRITTEN}
        assert manual_max == {"puzzle_written": 2, "induction_written": 4}
        before = {}
        for student in STUDENTS:
            sub = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            grades = {g.name: g for g in sub.grades}
            # autograde left the written proofs to the teacher: formgrader lists them as to be marked
            for name in WRITTEN:
                assert grades[name].needs_manual_grade, (student, name)
                assert grades[name].auto_score is None and grades[name].manual_score is None
            assert sub.needs_manual_grade
            assert {n for n, g in grades.items() if g.needs_manual_grade} == set(WRITTEN), student
            assert all(grades[n].max_score == 0 for n in SCHEMES)
            before[student] = sub.score
        assert before["alice"] == maximum - sum(manual_max.values())  # every auto-graded point, no hand mark
        assert before["bob"] == before["alice"] - 2

        for student in STUDENTS:  # the teacher marks both written proofs in formgrader
            mark(gb, student, WRITTEN)

    expected = {s: before[s] + sum(WRITTEN.values()) for s in STUDENTS}
    with Gradebook(db) as gb:  # a fresh session, as formgrader's next page load
        for student in STUDENTS:
            sub = gb.find_submission(ASSIGNMENT, student)
            assert sub.score == pytest.approx(expected[student]), student
            nb = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            assert {g.name: g.score for g in nb.grades if g.name in WRITTEN} == WRITTEN
            assert not {g.name for g in nb.grades if g.needs_manual_grade}
            assert not sub.needs_manual_grade, student

    # nbgrader export and reading-maths report read the same gradebook; run them side by side
    with ThreadPoolExecutor(2) as pool:
        done = [pool.submit(nbgrader, course, "export", "--to", str(tmp_path / "export.csv"), "--log-level=WARN"),
                pool.submit(reading_maths, course, "report", ASSIGNMENT, "--out", str(tmp_path / "report"))]
        for job in done:
            job.result()
    exported = _csv(tmp_path / "export.csv")
    for student in STUDENTS:
        assert float(exported[student]["raw_score"]) == pytest.approx(expected[student])
        assert float(exported[student]["score"]) == pytest.approx(expected[student])
        assert float(exported[student]["max_score"]) == pytest.approx(maximum)

    graded = _csv(tmp_path / "report" / "grades.csv")
    for student in STUDENTS:
        assert float(graded[student][ASSIGNMENT]) == pytest.approx(expected[student])
        assert float(graded[student]["total"]) == pytest.approx(expected[student])
