"""A teacher hand-marks answers in formgrader and sees them in the total: the proofs' written proofs,
and the build entries' meanings and reasons.

On a temporary copy of the course: submissions with written answers are autograded by
``reading-maths autograde``; the gradebook lists the written answers as needing a hand mark; the
marks are then entered the way formgrader's grade API does (``Gradebook.find_grade_by_id``, set
``manual_score``, clear ``needs_manual_grade``, commit), and the submission's total in the gradebook,
in ``nbgrader export``'s CSV and in ``reading-maths report``'s grades CSV includes them.

The mark schemes are nbgrader "Manually graded task" cells worth 0 points (so that nbgrader strips
them from the release); nbgrader flags every task cell for manual grading, and autograde unflags these
0-point ones, so the submission stops needing manual grading once the written answers are marked.
A build entry's code cell is itself the hand-marked answer for its symbol table's meanings.
"""

from __future__ import annotations

import copy
import csv
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from test_autograde import generated_course, nbgrader, reading_maths, release_and_source

from classroom.builder import answered
from conftest import database_url
from reading_maths.nbgrader.environment import course_directory

pytestmark = pytest.mark.sandbox

STUDENTS = ("alice", "bob")


@dataclass(frozen=True)
class Scenario:
    """One assignment's hand-marked answers: alice answers everything right, bob changes ``bob``'s cells."""

    assignment: str
    written: dict[str, float]
    """the hand marks the teacher gives both students"""
    maxima: dict[str, float]
    bob: dict[str, Callable[[str], str]]
    """bob's answer cells, from the right answer"""
    bob_loses: float
    """the automatic points bob's changes cost"""
    schemes: tuple[str, ...]


WRONG_PUZZLE_V = 'puzzle_v = ["E", "G", "A", "L", "J", "C", "I"]'  # E[g_t]² for E[g_t²]: 2 edits, 5 / 7
WEAK_TEST_2 = "\n\ndef test_2():\n    implementation_2([[3.0, 4.0]], [1.0, 1.0])\n"  # asserts nothing: 0 of 4
BUILD_MARKS = {"meanings_1": 2.0, "meanings_2": 1.5, "meanings_3": 1.0, "why_1": 2.0, "why_2": 0.5, "why_3": 1.5}
SCENARIOS = {
    "proofs": Scenario("proofs", {"puzzle_written": 1.5, "induction_written": 3.0},
                       {"puzzle_written": 2, "induction_written": 4}, {"puzzle_v-answer": lambda _: WRONG_PUZZLE_V},
                       2, ("puzzle_written-scheme", "induction_written-scheme")),
    "build": Scenario("build", BUILD_MARKS, dict.fromkeys(BUILD_MARKS, 2),
                      {"meanings_2": lambda right: right + WEAK_TEST_2}, 4, ("meanings-scheme", "why-scheme")),
}


def _csv(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return {row["student_id"]: row for row in csv.DictReader(fh)}


def mark(gb: Gradebook, assignment: str, student: str, marks: dict[str, float]) -> None:
    """Hand marks entered as formgrader enters them (its ``PUT /api/grade/<id>`` handler)."""
    for g in gb.find_submission_notebook(assignment, assignment, student).grades:
        if g.name in marks:
            grade = gb.find_grade_by_id(g.id)
            grade.manual_score, grade.extra_credit = marks[g.name], None
            grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
            gb.db.commit()


@pytest.fixture(scope="module", params=[("proofs", "sqlite"), ("build", "sqlite"), ("proofs", "postgresql")],
                ids=lambda param: " on ".join(param))
def course(request, tmp_path_factory) -> tuple[Scenario, Path]:
    """A course copy where alice (every answer right) and bob (one answer wrong) submitted and were autograded; its
    gradebook on SQLite, or on PostgreSQL."""
    scenario, backend = SCENARIOS[request.param[0]], request.param[1]
    a = scenario.assignment
    folder = tmp_path_factory.mktemp(f"manual-{a}") / "course"
    generated_course(folder, a, database_url(request, backend, folder / "gradebook.db"))
    alice = answered(*release_and_source(folder, a))
    bob = copy.deepcopy(alice)
    for cell in bob.cells:
        change = scenario.bob.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
        if change:
            cell.source = change(cell.source)
    for student, nb in {"alice": alice, "bob": bob}.items():
        path = folder / "submitted" / student / a / f"{a}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
        written = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") in scenario.written]
        assert len(written) == len(scenario.written) and all(text.strip() for text in written)
    reading_maths(folder, "autograde", a, "--jobs", "2")
    return scenario, folder


def test_hand_marks_reach_the_total(course, tmp_path):
    scenario, course = course
    assignment, written = scenario.assignment, scenario.written
    db = course_directory(course).db_url
    with Gradebook(db) as gb:
        maximum = gb.find_assignment(assignment).max_score
        manual_max = {c.name: c.max_score for c in gb.find_notebook(assignment, assignment).grade_cells
                      if c.name in written}
        assert manual_max == scenario.maxima
        before = {}
        for student in STUDENTS:
            sub = gb.find_submission_notebook(assignment, assignment, student)
            grades = {g.name: g for g in sub.grades}
            # autograde left the written answers to the teacher: formgrader lists them as to be marked
            for name in written:
                assert grades[name].needs_manual_grade, (student, name)
                assert grades[name].auto_score is None and grades[name].manual_score is None
            assert sub.needs_manual_grade
            assert {n for n, g in grades.items() if g.needs_manual_grade} == set(written), student
            assert all(grades[n].max_score == 0 for n in scenario.schemes)
            before[student] = sub.score
        assert before["alice"] == maximum - sum(manual_max.values())  # every auto-graded point, no hand mark
        assert before["bob"] == before["alice"] - scenario.bob_loses

        for student in STUDENTS:  # the teacher marks the written answers in formgrader
            mark(gb, assignment, student, written)

    expected = {s: before[s] + sum(written.values()) for s in STUDENTS}
    with Gradebook(db) as gb:  # a fresh session, as formgrader's next page load
        for student in STUDENTS:
            sub = gb.find_submission(assignment, student)
            assert sub.score == pytest.approx(expected[student]), student
            nb = gb.find_submission_notebook(assignment, assignment, student)
            assert {g.name: g.score for g in nb.grades if g.name in written} == written
            assert not {g.name for g in nb.grades if g.needs_manual_grade}
            assert not sub.needs_manual_grade, student

    # nbgrader export and reading-maths report read the same gradebook; run them side by side
    with ThreadPoolExecutor(2) as pool:
        done = [pool.submit(nbgrader, course, "export", "--to", str(tmp_path / "export.csv"), "--log-level=WARN"),
                pool.submit(reading_maths, course, "report", assignment, "--out", str(tmp_path / "report"))]
        for job in done:
            job.result()
    exported = _csv(tmp_path / "export.csv")
    for student in STUDENTS:
        assert float(exported[student]["raw_score"]) == pytest.approx(expected[student])
        assert float(exported[student]["score"]) == pytest.approx(expected[student])
        assert float(exported[student]["max_score"]) == pytest.approx(maximum)

    graded = _csv(tmp_path / "report" / "grades.csv")
    for student in STUDENTS:
        assert float(graded[student][assignment]) == pytest.approx(expected[student])
        assert float(graded[student]["total"]) == pytest.approx(expected[student])
