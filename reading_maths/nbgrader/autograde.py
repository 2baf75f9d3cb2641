"""``reading-maths autograde``: grade ``submitted/`` in the sandbox, record it with nbgrader's own converter.

A reader follows one assignment through named steps:

1. :func:`find_submissions` — ``submitted/<student>/<assignment>/<notebook>.ipynb``, found with nbgrader's
   own course-directory layout, for the notebooks the gradebook knows;
2. :func:`grade_and_record` — in ``jobs`` local processes at once, each student's notebooks graded by the
   sandboxed engine (:func:`reading_maths.grading.batch.grade_one`) and recorded by the same process
   with nbgrader's converter (:class:`reading_maths.nbgrader.recording.Recorder`: ``autograded/``, the
   timestamps, late penalties and grades, one commit per student; a submission nbgrader refuses gets 0
   and the reason). Each process does both, so ``--jobs 1`` is one core's work and ``--jobs 2`` two;
   with ``scheduler``, notebooks are graded on a Dask cluster instead and recorded here as they arrive
   (:func:`grade_on_cluster`);
3. :func:`reading_maths.nbgrader.recording.read_back` — what the gradebook then holds for each student,
   read by whoever recorded them, before their commit.

:mod:`reading_maths.nbgrader.watch` runs these steps for each submission as it arrives.
Each student's conversion runs on its own, so one broken submission never stops the others.
Nothing under ``submitted/`` is written; re-running gives the same gradebook and the same files.
"""

from __future__ import annotations

import contextlib
import glob
import multiprocessing
import os
import re
from concurrent.futures import as_completed
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import AutogradeApp
from nbgrader.coursedir import CourseDirectory

from reading_maths.course import Assignment
from reading_maths.grading.batch import failed_to_grade, forked_pool, grade_many, grade_one, progress_bar
from reading_maths.grading.engine import Settings
from reading_maths.nbgrader.environment import use_nbgrader_env
from reading_maths.nbgrader.recording import Outcome, Recorder, notebook_ids
from reading_maths.results import GradeResult


@dataclass
class Submission:
    """One student's submission of the assignment: the notebooks the gradebook knows, and where they are."""

    student: str
    folder: Path
    notebooks: dict[str, Path]
    """notebook id -> submitted file, for the files that exist"""


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


def grade_and_record(submission: Submission, settings: Settings, root: Path, assignment: str) -> Outcome:
    """Step 2, in a pool worker: grade one student's notebooks, record them with the worker's
    :class:`Recorder`; returns what the gradebook now holds for the student."""
    results = {(submission.student, nb): grade_one(path, settings, root, assignment)
               for nb, path in submission.notebooks.items()}
    return _worker_recorder.settle(submission, results)


_worker_recorder: Recorder | None = None
"""In a pool worker: the gradebook session it records its students in (made by :func:`start_worker`)."""


def start_worker(root: Path, assignment: str, turn: AbstractContextManager | None = None) -> Recorder:
    """Set up this process to :func:`grade_and_record` (a pool worker's initializer), taking ``turn`` to
    record (shared by the pool's workers); returns its recorder."""
    global _worker_recorder
    _worker_recorder = Recorder(*open_course(root, assignment), assignment, turn)
    return _worker_recorder


def grade_locally(submissions: list[Submission], settings: Settings, root: Path, assignment: str,
                  jobs: int, progress: bool) -> dict[str, Outcome]:
    """Step 2 on this machine: ``jobs`` processes (0: one per core), forked once the graders are loaded,
    each grading and recording whole submissions; returns each student's :class:`Outcome`.

    A submission whose worker failed (a crashed process) is recorded here as not graded, with the reason.
    """
    outcomes: dict[str, Outcome] = {}
    if not submissions:
        return outcomes
    failed: list[tuple[Submission, str]] = []
    workers = min(jobs or os.cpu_count() or 1, len(submissions))
    turn = multiprocessing.get_context("fork").Lock()  # the workers record one at a time
    with progress_bar(len(submissions), progress) as advance, \
            forked_pool(workers, root, assignment, initializer=start_worker, initargs=(root, assignment, turn)) as pool:
        ahead = replace(settings, ahead=True)  # each worker starts its next child while it grades
        futures = {pool.submit(grade_and_record, s, ahead, root, assignment): s for s in submissions}
        for future in as_completed(futures):
            submission = futures[future]
            try:
                outcomes[submission.student] = future.result()
            except Exception as exc:  # noqa: BLE001 - a worker that died: its students are still recorded
                failed.append((submission, f"grading failed: {type(exc).__name__}"))
            advance()
    if failed:
        recorder = Recorder(*open_course(root, assignment), assignment)
        try:
            for submission, reason in failed:
                results = {(submission.student, nb): failed_to_grade(path, Assignment(assignment, root), reason)
                           for nb, path in submission.notebooks.items()}
                outcomes[submission.student] = recorder.settle(submission, results)
        finally:
            recorder.close()
    return outcomes


def grade_on_cluster(submissions: list[Submission], settings: Settings, root: Path, assignment: str,
                     scheduler: str, progress: bool) -> dict[str, Outcome]:
    """Step 2 on the Dask cluster at ``scheduler``: notebooks graded there, each student recorded here with
    one :class:`Recorder` as soon as all of their notebooks are back; returns each student's :class:`Outcome`."""
    keys = [(s.student, nb) for s in submissions for nb in s.notebooks]
    paths = [s.notebooks[nb] for s in submissions for nb in s.notebooks]
    owner = {s.student: s for s in submissions}
    results: dict[tuple[str, str], GradeResult] = {}
    outcomes: dict[str, Outcome] = {}
    recorder = Recorder(*open_course(root, assignment), assignment)

    def arrived(index: int, result: GradeResult) -> None:
        results[keys[index]] = result
        student = keys[index][0]
        if all((student, nb) in results for nb in owner[student].notebooks):
            outcomes[student] = recorder.settle(owner[student], results)

    try:
        if paths:
            grade_many(paths, settings, root=root, assignment=assignment, progress=progress, on_result=arrived,
                       scheduler=scheduler)
        for submission in submissions:
            if submission.student not in outcomes:  # no notebook to grade: settled here
                outcomes[submission.student] = recorder.settle(submission, results)
    finally:
        recorder.close()
    return outcomes


def autograde(root: Path, assignment: str, settings: Settings, *, student: str | None = None, jobs: int = 0,
              progress: bool = True, scheduler: str | None = None) -> list[Outcome]:
    """Grade every submission of ``assignment`` (or one student's) and record it in nbgrader's gradebook.

    ``jobs`` local processes grade and record (0: one per core); ``scheduler``: grade on the Dask cluster at
    this address (``tcp://host:8786``) instead, recording here.
    """
    root = Path(root).resolve()
    app, coursedir = open_course(root, assignment)
    submissions = find_submissions(coursedir, assignment, student)
    if scheduler:
        outcomes = grade_on_cluster(submissions, settings, root, assignment, scheduler, progress)
    else:
        outcomes = grade_locally(submissions, settings, root, assignment, jobs, progress)
    return [outcomes[s.student] for s in submissions]
