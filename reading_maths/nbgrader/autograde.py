"""``reading-maths autograde``: grade ``submitted/`` in the sandbox, record it with nbgrader's own converter.

A reader follows one assignment through named steps:

1. :func:`find_submissions` — ``submitted/<student>/<assignment>/<notebook>.ipynb``, found with nbgrader's
   own course-directory layout, for the notebooks the gradebook knows;
2. :func:`grade_submissions` — every notebook graded at once by the sandboxed engine
   (:func:`reading_maths.grading.batch.grade_many`, with its progress bar);
3. :func:`record` — per student, nbgrader's ``Autograde`` converter with the sandbox's results injected
   in place of its kernel (:mod:`reading_maths.nbgrader.steps`): nbgrader itself writes ``autograded/``,
   the timestamps, the late penalties and the grades, all in one gradebook session for the batch
   committed once per student (:mod:`reading_maths.nbgrader.session`); the full structured result of
   each notebook is kept beside it, in ``autograded/<student>/<assignment>.json`` (:func:`save_results`).
   No student code runs in this process;
4. :func:`record_refused` — a submission nbgrader refuses (not a notebook, a duplicated grade id, ...) gets
   0 on every question and a comment saying why, written with :class:`nbgrader.api.Gradebook`.
5. once for the batch, in one gradebook session: :func:`release_zero_point_tasks` and :func:`read_back`.

``scheduler`` grades on a Dask cluster instead of local processes (:mod:`reading_maths.grading.remote`);
:mod:`reading_maths.nbgrader.watch` runs these steps for each submission as it arrives.

Each student's conversion runs on its own, so one broken submission never stops the others.
Nothing under ``submitted/`` is written; re-running gives the same gradebook and the same files.
"""

from __future__ import annotations

import contextlib
import glob
import json
import logging
import os
import re
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import AutogradeApp
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from reading_maths.grading.batch import grade_many
from reading_maths.grading.engine import Settings
from reading_maths.nbgrader.environment import use_nbgrader_env
from reading_maths.nbgrader.session import batch_gradebook
from reading_maths.nbgrader.steps import SandboxedAutograde
from reading_maths.reports.escape import markdown_text
from reading_maths.results import GradeResult

log = logging.getLogger(__name__)


@dataclass
class Submission:
    """One student's submission of the assignment: the notebooks the gradebook knows, and where they are."""

    student: str
    folder: Path
    notebooks: dict[str, Path]
    """notebook id -> submitted file, for the files that exist"""


@dataclass
class Outcome:
    """What happened to one student's submission."""

    student: str
    refused: str | None = None
    """why nbgrader could not record it (its questions then get 0), or None"""
    scores: dict[str, float | None] = field(default_factory=dict)
    max_scores: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return round(sum(s or 0.0 for s in self.scores.values()), 6)


def open_course(root: Path, assignment: str) -> tuple[AutogradeApp, CourseDirectory]:
    """nbgrader's configuration, loaded as ``nbgrader autograde`` loads it (course folder, Jupyter paths)."""
    use_nbgrader_env()
    app = AutogradeApp()
    with contextlib.chdir(root):
        app.initialize(["--log-level=ERROR"], root=str(root))
    app.coursedir.assignment_id = assignment
    with Gradebook(app.coursedir.db_url, app.coursedir.course_id) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise LookupError(f"the gradebook has no assignment {assignment!r}: "
                              f"run `nbgrader generate_assignment {assignment}` first") from None
    return app, app.coursedir


def notebook_ids(gb: Gradebook, assignment: str) -> list[str]:
    """The assignment's notebooks, as the gradebook lists them."""
    return sorted(nb.name for nb in gb.find_assignment(assignment).notebooks)


def find_submissions(coursedir: CourseDirectory, assignment: str, student: str | None = None) -> list[Submission]:
    """Step 1: the students' folders under ``submitted/`` (nbgrader's layout), sorted by student id."""
    pattern = coursedir.format_path(coursedir.submitted_directory, "(?P<student>[^/]+)", assignment, escape=True)
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        notebooks = notebook_ids(gb, assignment)
    found = []
    for folder in sorted(glob.glob(coursedir.format_path(coursedir.submitted_directory, student or "*", assignment))):
        match = re.fullmatch(pattern, folder)
        if match is None or not os.path.isdir(folder):
            continue
        files = {nb: Path(folder, f"{nb}.ipynb") for nb in notebooks if Path(folder, f"{nb}.ipynb").is_file()}
        found.append(Submission(match["student"], Path(folder), files))
    return found


def grade_submissions(submissions: list[Submission], settings: Settings, root: Path, assignment: str,
                      jobs: int = 0, progress: bool = True,
                      on_submission: Callable[[Submission, dict], None] | None = None,
                      scheduler: str | None = None) -> dict[tuple[str, str], GradeResult]:
    """Step 2: grade every submitted notebook in the sandbox, in parallel; keyed by (student, notebook id).

    ``on_submission(submission, results)`` runs as soon as all of a student's notebooks are graded,
    so recording overlaps with the grading of the others. ``scheduler``: a Dask scheduler's address to
    grade on instead of local processes (results are recorded here, as they arrive).
    """
    keys = [(s.student, nb) for s in submissions for nb in s.notebooks]
    paths = [s.notebooks[nb] for s in submissions for nb in s.notebooks]
    owner = {s.student: s for s in submissions}
    results: dict[tuple[str, str], GradeResult] = {}

    def arrived(index: int, result: GradeResult) -> None:
        results[keys[index]] = result
        student = keys[index][0]
        if on_submission and all((student, nb) in results for nb in owner[student].notebooks):
            on_submission(owner[student], results)

    if paths:
        grade_many(paths, settings, jobs=jobs, root=root, assignment=assignment, progress=progress,
                   on_result=arrived, scheduler=scheduler)
    return results


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


def record(app: AutogradeApp, coursedir: CourseDirectory, submission: Submission, assignment: str,
           results: dict[tuple[str, str], GradeResult]) -> str | None:
    """Step 3: nbgrader's converter for one student; returns why it refused, or None when it recorded."""
    logger = logging.getLogger(f"reading_maths.nbgrader.autograde.{submission.student}")
    logger.propagate = False
    logger.handlers = [collect := _Collect()]
    coursedir.student_id = submission.student
    coursedir.assignment_id = assignment
    converter = SandboxedAutograde(results, coursedir=coursedir, parent=app)
    converter.force = True
    converter.create_student = True
    converter.log = logger
    converter.update_config(Config({"OverwriteCells": {"add_missing_cells": True}}))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat's cell-id and SQLAlchemy's session notices
            converter.start()
    except Exception as exc:  # noqa: BLE001 - nbgrader's NbGraderException, or anything it lets through
        mine = [results[k] for k in results if k[0] == submission.student]
        return refusal_reason(collect.messages + [traceback.format_exc()], exc, mine)
    finally:
        coursedir.student_id = "*"
    return None


def release_zero_point_tasks(gb: Gradebook, assignment: str, student: str) -> None:
    """Unflag 0-point task cells (the proofs' mark schemes): nothing there for a teacher to mark.

    nbgrader flags every task cell as needing a manual grade; a mark scheme is a task cell only so
    that nbgrader strips it from the release, and would otherwise keep the submission on formgrader's
    to-do list after every real hand mark is in.
    """
    for notebook in gb.find_submission(assignment, student).notebooks:
        for grade in notebook.grades:
            if grade.max_score == 0 and grade.needs_manual_grade:
                grade.needs_manual_grade = False


def record_refused(gb: Gradebook, coursedir: CourseDirectory, submission: Submission, assignment: str,
                   reason: str) -> None:
    """Step 4: 0 on every question of a refused submission, the reason as each comment (not committed).

    The grades are flagged as needing a manual look, so formgrader lists the submission for review;
    an instructor's manual score, if any, is kept.
    """
    timestamp = coursedir.get_existing_timestamp(str(submission.folder))
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

    Written as ``{notebook id: result}``, paths relative to the course (the same file wherever the course
    is); reports read these, never the gradebook comments. ``merge`` keeps the other notebooks' entries
    already in the file (nbgrader's own autograde records one notebook at a time).
    """
    path = results_path(coursedir, student, assignment)
    mine = json.loads(path.read_text(encoding="utf-8")) if merge and path.is_file() else {}
    mine |= {nb: result.to_json() for nb, result in results.items()}
    text = json.dumps(mine, indent=1, ensure_ascii=False)
    text = text.replace(json.dumps(str(Path(coursedir.root).resolve()) + os.sep)[1:-1], "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def read_back(gb: Gradebook, assignment: str, student: str, refused: str | None) -> Outcome:
    """What the gradebook holds for one student: score and maximum per grade cell."""
    outcome = Outcome(student, refused)
    for notebook in gb.find_submission(assignment, student).notebooks:
        for grade in sorted(notebook.grades, key=lambda g: g.cell.name):
            outcome.scores[grade.name] = grade.score
            outcome.max_scores[grade.name] = grade.max_score
    return outcome


def autograde(root: Path, assignment: str, settings: Settings, *, student: str | None = None, jobs: int = 0,
              progress: bool = True, scheduler: str | None = None) -> list[Outcome]:
    """Grade every submission of ``assignment`` (or one student's) and record it in nbgrader's gradebook.

    ``scheduler``: grade on the Dask cluster at this address (``tcp://host:8786``) instead of ``jobs``
    local processes; recording stays here, in one gradebook session committed once per student.
    """
    root = Path(root).resolve()
    app, coursedir = open_course(root, assignment)
    submissions = find_submissions(coursedir, assignment, student)
    refusals: dict[str, str | None] = {}
    with batch_gradebook(coursedir.db_url, coursedir.course_id) as batch:  # one session for the batch

        def settle(submission: Submission, results: dict) -> None:
            if submission.notebooks:
                reason = record(app, coursedir, submission, assignment, results)
            else:
                found = sorted(p.name for p in submission.folder.iterdir()) if submission.folder.is_dir() else []
                expected = ", ".join(f"{nb}.ipynb" for nb in notebook_ids(batch.gradebook, assignment))
                reason = f"no {expected} in the submission (it holds: {', '.join(found) or 'nothing'})"
            if reason is not None:
                batch.rollback()  # whatever nbgrader had written for this student before it refused
                reason = reason.replace(f"{root}{os.sep}", "")  # paths as the course sees them, whatever its folder
                record_refused(batch.gradebook, coursedir, submission, assignment, reason)
            batch.commit()
            save_results(coursedir, submission.student, assignment,
                         {nb: results[(submission.student, nb)] for nb in submission.notebooks
                          if (submission.student, nb) in results})
            refusals[submission.student] = reason
            log.info("recorded %s", submission.student)

        results = grade_submissions(submissions, settings, root, assignment, jobs, progress, on_submission=settle,
                                    scheduler=scheduler)
        for submission in submissions:
            if submission.student not in refusals:  # nothing to grade: settled here
                settle(submission, results)
        for student, reason in refusals.items():
            if reason is None:
                release_zero_point_tasks(batch.gradebook, assignment, student)
        batch.commit()
        return [read_back(batch.gradebook, assignment, s.student, refusals[s.student]) for s in submissions]
