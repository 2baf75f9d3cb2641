"""``reading-maths autograde``: nbgrader's own ``Autograde`` converter, with the sandbox in place of its kernel.

A reader follows one assignment through named steps:

1. :func:`find_submissions` — ``submitted/<student>/<assignment>/<notebook>.ipynb``, found with nbgrader's
   own course-directory layout, for the notebooks the gradebook knows;
2. :func:`grade_submissions` — every notebook graded at once by the sandboxed engine
   (:func:`reading_maths.batch.grade_many`, with its progress bar);
3. :func:`record` — per student, nbgrader's :class:`~nbgrader.converters.Autograde` converter runs as
   ``nbgrader autograde`` would, keeping its sanitize steps (``ClearOutput``, ``DeduplicateIds``,
   ``OverwriteKernelspec``, ``OverwriteCells`` with ``add_missing_cells``, ``CheckCellMetadata``) and its
   recording steps (``LimitOutput``, ``SaveAutoGrades``, ``AssignLatePenalties``, ``CheckCellMetadata``), but
   with :class:`InjectResults` instead of ``Execute``: the grade cells receive the engine's results as
   outputs (the feedback on stdout, the score as the cell's ``execute_result``, which nbgrader's
   ``determine_grade`` reads as partial credit), and :class:`SaveFeedbackComments` writes the feedback as
   the gradebook comment of each question's answer cell. nbgrader itself writes ``autograded/``, the
   timestamps, the late penalties and the grades. No student code runs in this process;
4. :func:`record_refused` — a submission nbgrader refuses (not a notebook, a duplicated grade id, ...) gets
   0 on every question and a comment saying why, written with :class:`nbgrader.api.Gradebook`;
5. :func:`summary` — what the gradebook now holds, per student and question.

Each student's conversion runs on its own, so one broken submission never stops the others.
Nothing under ``submitted/`` is written; re-running gives the same gradebook and the same files.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import re
import sys
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbformat import NotebookNode
from nbformat.v4 import new_output
from nbgrader import utils as nbutils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import AutogradeApp
from nbgrader.converters import Autograde
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import List
from traitlets.config import Config

from reading_maths.batch import grade_many
from reading_maths.engine import Settings
from reading_maths.notebook import is_test_cell
from reading_maths.results import GradeResult, QuestionResult

RESOURCE_KEY = "reading_maths"
"""Where :class:`SandboxedAutograde` puts a notebook's engine result in nbconvert's ``resources``."""


# --- the preprocessors that replace nbgrader's Execute ---------------------------------------------


def cell_score(question: QuestionResult | None, points: float) -> float:
    """The engine's score for a question, on the scale of the grade cell's ``points``."""
    if question is None or question.max_score <= 0:
        return 0.0
    score = question.score if question.max_score == points else question.score * points / question.max_score
    return round(min(max(score, 0.0), points), 6)


def feedback_lines(question: QuestionResult | None, qid: str, points: float) -> list[str]:
    """What the grade cell prints and the gradebook comment says about one question."""
    if question is None:
        return [f"{qid}: 0 / {points:g}", " - not graded: the grader produced no result for this question"]
    return [f"{qid}: {cell_score(question, points):g} / {points:g}", *(f" - {line}" for line in question.feedback)]


def notebook_notes(result: GradeResult | None) -> list[str]:
    """Notes about the whole notebook (restored cells, cells that raised), shown once."""
    if not result:
        return []
    folder = str(Path(result.notebook).parent) + os.sep  # the student's folder: paths relative to it
    return [f" - {e.replace(folder, '')}" for e in result.errors]


class InjectResults(NbGraderPreprocessor):
    """Put the sandboxed engine's result into each test cell, in place of running the notebook.

    A test cell gets two outputs: a stdout stream with the feedback, and an ``execute_result`` whose
    ``text/plain`` is the score, which :func:`nbgrader.utils.determine_grade` reads as partial credit
    (0 gives 0 points, the cell's ``points`` full marks). No code is run.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        result: GradeResult | None = resources.get(RESOURCE_KEY, {}).get("result")
        questions = {q.id: q for q in result.questions} if result else {}
        notes = notebook_notes(result)
        for cell in nb.cells:
            if not is_test_cell(cell):
                continue
            qid = cell.metadata.nbgrader["grade_id"]
            points = float(cell.metadata.nbgrader["points"])
            lines = feedback_lines(questions.get(qid), qid, points)
            if notes:
                lines += ["About the whole notebook:", *notes]
                notes = []
            cell.outputs = [
                new_output("stream", name="stdout", text="\n".join(lines) + "\n"),
                new_output("execute_result", data={"text/plain": repr(float(cell_score(questions.get(qid), points)))},
                           execution_count=None),
            ]
            cell.execution_count = None
        return nb, resources


def answer_cells(nb: NotebookNode) -> dict[str, str]:
    """For each test cell's question, the grade id of its answer cell (where its comment goes).

    ``<question>-answer`` when the notebook has it, else the nearest autograded answer above the test cell.
    """
    ids = [c.metadata.nbgrader.get("grade_id") for c in nb.cells if nbutils.is_solution(c)]
    found: dict[str, str] = {}
    last_answer = None
    for cell in nb.cells:
        if nbutils.is_solution(cell) and not nbutils.is_grade(cell):
            last_answer = cell.metadata.nbgrader["grade_id"]
        elif is_test_cell(cell):
            qid = cell.metadata.nbgrader["grade_id"]
            answer = f"{qid}-answer" if f"{qid}-answer" in ids else last_answer
            if answer:
                found[qid] = answer
    return found


class SaveFeedbackComments(NbGraderPreprocessor):
    """Write each question's feedback as the gradebook comment of its answer cell (after ``SaveAutoGrades``).

    nbgrader keeps comments on answer cells only (a test cell has none), so the comment of
    ``softmax-answer`` carries the feedback of the question ``softmax``; nbgrader's own
    "No response." stays in front when the student left the answer unchanged.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        result: GradeResult | None = resources.get(RESOURCE_KEY, {}).get("result")
        questions = {q.id: q for q in result.questions} if result else {}
        points = {c.metadata.nbgrader["grade_id"]: float(c.metadata.nbgrader["points"])
                  for c in nb.cells if is_test_cell(c)}
        comments: dict[str, list[str]] = {}
        for qid, answer in answer_cells(nb).items():
            comments.setdefault(answer, []).extend(feedback_lines(questions.get(qid), qid, points[qid]))
        with Gradebook(info["db_url"]) as gb:
            for answer, lines in comments.items():
                comment = gb.find_comment(answer, info["notebook"], info["assignment"], info["student"])
                prefix = [comment.auto_comment] if comment.auto_comment == "No response." else []
                comment.auto_comment = "\n".join(prefix + lines)
            gb.db.commit()
        return nb, resources


class RestoreCells(OverwriteCells):
    """nbgrader's ``OverwriteCells``, giving the grade cells it puts back a fixed cell id.

    nbformat would draw a random id for them, and a submission with a deleted grade cell would get a
    different autograded file on each run.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        self._with_ids = (nb.get("nbformat"), nb.get("nbformat_minor", 0)) >= (4, 5)
        self._taken = {c.get("id") for c in nb.cells}
        return super().preprocess(nb, resources)

    def missing_cell_transform(self, source_cell, max_score, is_solution=False, is_task=False):
        cell = super().missing_cell_transform(source_cell, max_score, is_solution=is_solution, is_task=is_task)
        if self._with_ids:
            base = "restored-" + re.sub(r"[^A-Za-z0-9_-]", "-", source_cell.name)[:50]
            candidate, n = base, 1
            while candidate in self._taken:
                n += 1
                candidate = f"{base}-{n}"
            cell["id"] = candidate
            self._taken.add(candidate)
        return cell


class SandboxedAutograde(Autograde):
    """nbgrader's ``Autograde`` converter whose execute step injects precomputed, sandboxed results."""

    sanitize_preprocessors = List([
        ClearOutput,
        DeduplicateIds,
        OverwriteKernelspec,
        RestoreCells,               # OverwriteCells with add_missing_cells (set in record), fixed cell ids
        CheckCellMetadata,
    ]).tag(config=True)

    autograde_preprocessors = List([
        InjectResults,              # instead of Execute (and IgnorePattern, which only filters stderr)
        ClearMetadataPreprocessor,
        LimitOutput,
        SaveAutoGrades,
        SaveFeedbackComments,
        AssignLatePenalties,
        CheckCellMetadata,
    ]).tag(config=True)

    def __init__(self, results: dict[tuple[str, str], GradeResult], **kwargs):
        super().__init__(**kwargs)
        self.results = results

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        resources = super().init_single_notebook_resources(notebook_filename)
        info = resources["nbgrader"]
        resources[RESOURCE_KEY] = {"result": self.results.get((info["student"], info["notebook"]))}
        return resources


# --- the steps --------------------------------------------------------------------------------------


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
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
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


def notebook_ids(coursedir: CourseDirectory, assignment: str) -> list[str]:
    """The assignment's notebooks, as the gradebook lists them."""
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        return sorted(nb.name for nb in gb.find_assignment(assignment).notebooks)


def find_submissions(coursedir: CourseDirectory, assignment: str, student: str | None = None) -> list[Submission]:
    """Step 1: the students' folders under ``submitted/`` (nbgrader's layout), sorted by student id."""
    pattern = coursedir.format_path(coursedir.submitted_directory, "(?P<student>[^/]+)", assignment, escape=True)
    notebooks = notebook_ids(coursedir, assignment)
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
                      ) -> dict[tuple[str, str], GradeResult]:
    """Step 2: grade every submitted notebook in the sandbox, in parallel; keyed by (student, notebook id).

    ``on_submission(submission, results)`` runs as soon as all of a student's notebooks are graded,
    so recording overlaps with the grading of the others.
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
                   on_result=arrived)
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
    logger = logging.getLogger(f"reading_maths.autograde.{submission.student}")
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
    release_zero_point_tasks(coursedir, assignment, submission.student)
    return None


def release_zero_point_tasks(coursedir: CourseDirectory, assignment: str, student: str) -> None:
    """Unflag 0-point task cells (the proofs' mark schemes): nothing there for a teacher to mark.

    nbgrader flags every task cell as needing a manual grade; a mark scheme is a task cell only so
    that nbgrader strips it from the release, and would otherwise keep the submission on formgrader's
    to-do list after every real hand mark is in.
    """
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        for notebook in gb.find_submission(assignment, student).notebooks:
            for grade in notebook.grades:
                if grade.max_score == 0 and grade.needs_manual_grade:
                    grade.needs_manual_grade = False
        gb.db.commit()


def record_refused(coursedir: CourseDirectory, submission: Submission, assignment: str, reason: str) -> None:
    """Step 4: 0 on every question of a refused submission, the reason as each comment.

    The grades are flagged as needing a manual look, so formgrader lists the submission for review;
    an instructor's manual score, if any, is kept.
    """
    timestamp = coursedir.get_existing_timestamp(str(submission.folder))
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gb.update_or_create_student(submission.student)
        extra = {"timestamp": timestamp} if timestamp else {}
        gb.update_or_create_submission(assignment, submission.student, **extra)
        for nb in notebook_ids(coursedir, assignment):
            notebook = gb.find_submission_notebook(nb, assignment, submission.student)
            for grade in notebook.grades:
                grade.auto_score = 0.0
                grade.needs_manual_grade = True
            for comment in notebook.comments:
                comment.auto_comment = f"Not graded, 0 recorded: {reason}"
        gb.db.commit()


def read_back(coursedir: CourseDirectory, assignment: str, student: str, refused: str | None) -> Outcome:
    """What the gradebook holds for one student: score and maximum per grade cell."""
    outcome = Outcome(student, refused)
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        for notebook in gb.find_submission(assignment, student).notebooks:
            for grade in sorted(notebook.grades, key=lambda g: g.cell.name):
                outcome.scores[grade.name] = grade.score
                outcome.max_scores[grade.name] = grade.max_score
    return outcome


def autograde(root: Path, assignment: str, settings: Settings, *, student: str | None = None, jobs: int = 0,
              progress: bool = True) -> list[Outcome]:
    """Grade every submission of ``assignment`` (or one student's) and record it in nbgrader's gradebook."""
    root = Path(root).resolve()
    app, coursedir = open_course(root, assignment)
    submissions = find_submissions(coursedir, assignment, student)
    refusals: dict[str, str | None] = {}

    def settle(submission: Submission, results: dict) -> None:
        if submission.notebooks:
            reason = record(app, coursedir, submission, assignment, results)
        else:
            found = sorted(p.name for p in submission.folder.iterdir()) if submission.folder.is_dir() else []
            expected = ", ".join(f"{nb}.ipynb" for nb in notebook_ids(coursedir, assignment))
            reason = f"no {expected} in the submission (it holds: {', '.join(found) or 'nothing'})"
        if reason is not None:
            reason = reason.replace(f"{root}{os.sep}", "")  # paths as the course sees them, whatever its folder
            record_refused(coursedir, submission, assignment, reason)
        refusals[submission.student] = reason

    results = grade_submissions(submissions, settings, root, assignment, jobs, progress, on_submission=settle)
    for submission in submissions:
        if submission.student not in refusals:  # nothing to grade: settled here
            settle(submission, results)
    return [read_back(coursedir, assignment, s.student, refusals[s.student]) for s in submissions]


def summary(outcomes: list[Outcome], assignment: str):
    """Step 5: a rich table, one row per student: score per question, total, and any refusal."""
    from rich.table import Table

    questions = list(dict.fromkeys(q for o in outcomes for q in o.scores))
    table = Table(title=f"autograde {assignment}: {len(outcomes)} submission(s)")
    table.add_column("student", overflow="fold")
    for q in questions:
        table.add_column(q, justify="right", overflow="fold")  # long question ids wrap rather than vanish
    table.add_column("total", justify="right", no_wrap=True)
    table.add_column("note")
    for o in outcomes:
        cells = ["—" if o.scores.get(q) is None else f"{o.scores[q]:g}" for q in questions]
        maximum = sum(o.max_scores.values())
        table.add_row(o.student, *cells, f"{o.total:g} / {maximum:g}",
                      f"[red]refused: {o.refused}[/red]" if o.refused else "")
    return table


def run(root: Path, assignment: str, settings: Settings, *, student: str | None = None, jobs: int = 0) -> None:
    """The ``reading-maths autograde`` command: grade, record, print the summary (click errors on bad input)."""
    import click
    from rich.console import Console

    try:
        outcomes = autograde(root, assignment, settings, student=student, jobs=jobs)
    except LookupError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    if not outcomes:
        raise click.ClickException(f"no submissions of {assignment!r} under submitted/"
                                   + (f" for student {student!r}" if student else ""))
    Console().print(summary(outcomes, assignment))
    refused = [o.student for o in outcomes if o.refused]
    if refused:
        click.secho(f"{len(refused)} submission(s) could not be read by nbgrader and got 0: {', '.join(refused)}",
                    fg="yellow", err=True)
