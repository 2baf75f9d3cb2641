"""Recording students' results: nbgrader's own converter made once, one gradebook session, a commit a second.

:class:`Recorder` is what records: per student, nbgrader's ``Autograde`` converter (:class:`BatchAutograde`, made
once per batch) with the sandbox's results injected in place of its kernel (:mod:`reading_maths.nbgrader.steps`),
so nbgrader itself writes ``autograded/``, the timestamps and the late penalties, and the grades and comments are
nbgrader's ``SaveAutoGrades`` rows written in two statements; a submission nbgrader refuses (not a
notebook, a duplicated grade id, ...) gets 0 on every question and a comment saying why; each notebook's
structured result is kept beside it in ``autograded/<student>/<assignment>.json``.  No student code runs here.

The process that runs ``autograde`` records what its graders (local processes or a Dask cluster) send
back, with one :class:`Recorder`; each student's recording is a savepoint in a transaction that commits about
once a second (on SQLite it takes the write lock when it begins: :mod:`reading_maths.nbgrader.session`), so
another program writing the gradebook meanwhile waits its turn rather than failing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from nbconvert.writers import FilesWriter
from nbgrader.api import Assignment, BaseCell, Grade, Gradebook, Notebook, SubmittedAssignment, SubmittedNotebook
from nbgrader.apps import AutogradeApp
from nbgrader.coursedir import CourseDirectory
from sqlalchemy import update
from traitlets.config import Config

from reading_maths.course import shown_path
from reading_maths.nbgrader.patches import OwnedNotebookExporter
from reading_maths.nbgrader.session import batch_gradebook
from reading_maths.nbgrader.steps import RecordGrades, SandboxedAutograde
from reading_maths.reports.escape import markdown_text
from reading_maths.results import GradeResult

if TYPE_CHECKING:
    from reading_maths.nbgrader.autograde import Submission

log = logging.getLogger(__name__)


def notebook_ids(gb: Gradebook, assignment: str) -> list[str]:
    """The assignment's notebooks, as the gradebook lists them."""
    return sorted(nb.name for nb in gb.find_assignment(assignment).notebooks)


class _Collect(logging.Handler):
    """Keeps nbgrader's warnings and errors for one student, to explain a refusal."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def refusal_reason(messages: list[str], exc: BaseException, results: list[GradeResult]) -> str:
    """One line saying why nbgrader refused a submission, clearer than its own messages where we can."""
    duplicated = sorted({m.group(1) for m in map(re.compile(r"Cell with id '(.*)' exists multiple times").search,
                                                  messages) if m})
    if duplicated:
        return (f"grade id {', '.join(map(repr, duplicated))} appears more than once in the notebook "
                "(cells were duplicated); nbgrader cannot grade it")
    for result in results:
        if result.errors and all(q.status == "error" for q in result.questions):
            return result.errors[0]
    tracebacks = [m.strip().splitlines()[-1] for m in messages if m.startswith("Traceback")]
    if tracebacks:
        return f"nbgrader could not read the submission ({tracebacks[0]})"
    return f"nbgrader could not read the submission ({type(exc).__name__}: {exc})"


SKIPPED = {"SaveFeedbackComments", "GradeInSandbox"}
"""Steps of the configured ``autograde_preprocessors`` a batch does not run: :class:`RecordGrades` writes the
comments, and the notebook is graded before it is recorded."""


def _name(step: type | str) -> str:
    """A preprocessor's class name, whether the configuration gives the class or its import string."""
    return str(getattr(step, "__name__", step)).rsplit(".", 1)[-1]


class BatchAutograde(SandboxedAutograde):
    """:class:`SandboxedAutograde` made once for a batch and run for one student at a time.

    Its writer, exporter and preprocessors are made once (nbgrader makes them again for every notebook), and
    :class:`~reading_maths.nbgrader.steps.RecordGrades` writes the grades and comments in place of nbgrader's
    ``SaveAutoGrades`` and :class:`~reading_maths.nbgrader.steps.SaveFeedbackComments` (the same rows, in two
    statements); the results are in already, so the configured list's sandboxed grading step (:data:`SKIPPED`)
    is left out. Everything else is nbgrader's converter as ``nbgrader autograde`` runs it.
    """

    def __init__(self, app: AutogradeApp, coursedir: CourseDirectory, log: logging.Logger):
        super().__init__({}, coursedir=coursedir, parent=app)
        self.force = True
        self.create_student = True
        self.log = log
        # nbconvert validates the whole notebook after every preprocessor unless told to do it once, after the last
        self.update_config(Config({"OverwriteCells": {"add_missing_cells": True},
                                   "Exporter": {"optimistic_validation": True}}))
        self.autograde_preprocessors = [RecordGrades if _name(step) == "SaveAutoGrades" else step
                                        for step in self.autograde_preprocessors if _name(step) not in SKIPPED]
        self.writer = FilesWriter(parent=self, config=self.config)  # as nbgrader's start() makes them
        self.exporter = OwnedNotebookExporter(parent=self, config=self.config)
        super()._init_preprocessors()

    def _init_preprocessors(self) -> None:
        """Made once, in ``__init__``."""

    def convert_student(self, student: str, assignment: str, results: dict[tuple[str, str], GradeResult]) -> None:
        """nbgrader's conversion of one student's submission (``start`` without its set-up)."""
        self.results = results
        self.coursedir.student_id, self.coursedir.assignment_id = student, assignment
        try:
            with contextlib.chdir(self.coursedir.root):
                self.init_notebooks()
                self.convert_notebooks()
        finally:
            self.coursedir.student_id = "*"


def record(converter: BatchAutograde, collect: _Collect, submission: Submission, assignment: str,
           results: dict[tuple[str, str], GradeResult]) -> str | None:
    """nbgrader's converter for one student; returns why it refused, or None when it recorded."""
    collect.messages = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat's cell-id and SQLAlchemy's session notices
            converter.convert_student(submission.student, assignment, results)
    except Exception as exc:  # noqa: BLE001 - nbgrader's NbGraderException, or anything it lets through
        mine = [results[k] for k in results if k[0] == submission.student]
        return refusal_reason(collect.messages + [traceback.format_exc()], exc, mine)
    return None


def _grade_rows(gb: Gradebook, assignment: str, student: str) -> list[Any]:
    """Every grade of a student's submission in one query, as nbgrader computes them: id, cell name, score,
    maximum, whether it needs a manual grade and the manual score (sorted by notebook and cell name)."""
    return (gb.db.query(Grade.id, BaseCell.name, Grade.score, Grade.max_score, Grade.needs_manual_grade,
                        Grade.manual_score)
            .join(BaseCell, BaseCell.id == Grade.cell_id)
            .join(SubmittedNotebook, SubmittedNotebook.id == Grade.notebook_id)
            .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
            .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
            .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
            .filter(Assignment.name == assignment, SubmittedAssignment.student_id == student)
            .order_by(Notebook.name, BaseCell.name).all())


def release_zero_point_tasks(gb: Gradebook, rows: list[Any]) -> list[Any]:
    """Unflag 0-point task cells (the proofs' mark schemes): nothing there for a teacher to mark; returns the
    student's grade rows (:func:`_grade_rows`) as they then are.

    nbgrader flags every task cell as needing a manual grade; a mark scheme is a task cell only so
    that nbgrader strips it from the release, and would otherwise keep the submission on formgrader's
    to-do list after every real hand mark is in.
    """
    zero = [row for row in rows if row.max_score == 0 and row.needs_manual_grade]
    if not zero:
        return rows
    gb.db.execute(update(Grade), [{"id": row.id, "needs_manual_grade": False} for row in zero])
    return [SimpleNamespace(**{**row._asdict(), "needs_manual_grade": False}) if row in zero else row
            for row in rows]


def record_refused(gb: Gradebook, coursedir: CourseDirectory, submission: Submission, assignment: str,
                   reason: str) -> None:
    """0 on every question of a refused submission, the reason as each comment (not committed).

    The grades are flagged as needing a manual look, so formgrader lists the submission for review;
    an instructor's manual score, if any, is kept.
    """
    # a refused folder is not read at all, its timestamp.txt included
    timestamp = None if submission.refused else coursedir.get_existing_timestamp(str(submission.folder))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gb.update_or_create_student(submission.student)
        extra = {"timestamp": timestamp} if timestamp else {}
        gb.update_or_create_submission(assignment, submission.student, **extra)
        for nb in notebook_ids(gb, assignment):
            notebook = gb.find_submission_notebook(nb, assignment, submission.student)
            for grade in notebook.grades:
                grade.auto_score = 0.0
                grade.needs_manual_grade = True
            for comment in notebook.comments:
                comment.auto_comment = markdown_text(f"Not graded, 0 recorded: {reason}")


def results_path(coursedir: CourseDirectory, student: str, assignment: str) -> Path:
    """Where a student's structured results live: ``autograded/<student>/<assignment>.json``."""
    return Path(coursedir.format_path(coursedir.autograded_directory, student, assignment) + ".json")


def save_results(coursedir: CourseDirectory, student: str, assignment: str, results: dict[str, GradeResult],
                 *, merge: bool = False) -> None:
    """Keep each notebook's full result (the ``grade --json`` object) beside ``autograded/<student>/<a>/``.

    Written as ``{notebook id: result}``, each notebook named relative to the course (the same file wherever the
    course is); reports read these, never the gradebook comments. ``merge`` keeps the other notebooks' entries
    already in the file (nbgrader's own autograde records one notebook at a time).
    """
    path = results_path(coursedir, student, assignment)
    mine = json.loads(path.read_text(encoding="utf-8")) if merge and path.is_file() else {}
    mine |= {nb: result.to_json() | {"notebook": shown_path(result.notebook, Path(coursedir.root))}
             for nb, result in results.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(mine, ensure_ascii=False), encoding="utf-8")


@dataclass
class Outcome:
    """What happened to one student's submission."""

    student: str
    refused: str | None = None
    """why nbgrader could not record it (its questions then get 0), or None"""
    scores: dict[str, float | None] = field(default_factory=dict)
    max_scores: dict[str, float] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)
    """hand-marked questions not yet marked in formgrader"""

    @property
    def total(self) -> float:
        return round(sum(s or 0.0 for s in self.scores.values()), 6)


def read_back(rows: list[Any], student: str, refused: str | None) -> Outcome:
    """What the gradebook holds for one student (their :func:`_grade_rows`): score and maximum per grade cell."""
    outcome = Outcome(student, refused)
    for row in rows:
        outcome.scores[row.name] = row.score
        outcome.max_scores[row.name] = row.max_score
        if row.needs_manual_grade and row.manual_score is None:
            outcome.pending.add(row.name)
    return outcome


class Recorder:
    """Records students one at a time in one gradebook session, committed about once a second."""

    def __init__(self, app: AutogradeApp, coursedir: CourseDirectory, assignment: str):
        self.coursedir, self.assignment = coursedir, assignment
        self._open = contextlib.ExitStack()
        self.batch = self._open.enter_context(batch_gradebook(coursedir.db_url, coursedir.course_id))
        logger = logging.getLogger(f"{__name__}.batch")
        logger.propagate = False
        self._collect = _Collect()
        logger.handlers = [self._collect]
        self.converter = BatchAutograde(app, coursedir, logger)

    def settle(self, submission: Submission, results: dict[tuple[str, str], GradeResult]) -> Outcome:
        """Record one student (their notebooks' results keyed by ``(student, notebook id)``), committed with the
        students recorded about the same time (:meth:`BatchGradebook.student`); returns what the gradebook then
        holds for them (and why nbgrader refused the submission, if it did)."""
        gradebook = self.batch.gradebook
        reason: str | None
        with self.batch.student() as savepoint:
            if submission.refused:
                reason = submission.refused
            elif submission.notebooks:
                reason = record(self.converter, self._collect, submission, self.assignment, results)
            else:
                found = sorted(p.name for p in submission.folder.iterdir()) if submission.folder.is_dir() else []
                expected = ", ".join(f"{nb}.ipynb" for nb in notebook_ids(gradebook, self.assignment))
                reason = f"no {expected} in the submission (it holds: {', '.join(found) or 'nothing'})"
            if reason is not None:
                savepoint.undo()  # whatever nbgrader had written for this student before it refused
                record_refused(gradebook, self.coursedir, submission, self.assignment, reason)
            rows = _grade_rows(gradebook, self.assignment, submission.student)
            if reason is None:
                rows = release_zero_point_tasks(gradebook, rows)
            outcome = read_back(rows, submission.student, reason)
        save_results(self.coursedir, submission.student, self.assignment,
                     {nb: results[(submission.student, nb)] for nb in submission.notebooks
                      if (submission.student, nb) in results})
        log.info("recorded %s", submission.student)
        return outcome

    def close(self) -> None:
        """Commit the students recorded (not one whose recording an exception stopped), and close the gradebook."""
        self.batch.commit()
        self._open.close()
