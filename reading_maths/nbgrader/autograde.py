"""``reading-maths autograde``: grade ``submitted/`` in the sandbox, record it with nbgrader's own converter.

A reader follows one assignment through named steps:

1. :func:`find_submissions` — ``submitted/<student>/<assignment>/<notebook>.ipynb``, found with nbgrader's
   own course-directory layout, for the notebooks the gradebook knows; a folder holding a link, a hard link,
   a FIFO or a device is refused unread (0, and the reason as the comment);
2. :func:`grade_and_record` — every notebook graded by the sandboxed engine in ``jobs`` local processes
   (:func:`reading_maths.grading.batch.grade_many`) or on a Dask cluster, and each student recorded here
   as soon as their notebooks are back, with nbgrader's converter (:class:`~reading_maths.nbgrader.recording.Recorder`:
   ``autograded/``, the timestamps, late penalties and grades, committed about once a second; a submission
   nbgrader refuses gets 0 and the reason), and read back before the commit
   (:func:`~reading_maths.nbgrader.recording.read_back`).

:mod:`reading_maths.nbgrader.watch` runs these steps for each submission as it arrives.
Each student's conversion runs on its own, so one broken submission never stops the others.
Nothing under ``submitted/`` is written; re-running gives the same gradebook and the same files.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reading_maths.course import assignments as course_assignments
from reading_maths.grading.batch import Pool, grade_many, started_pool
from reading_maths.grading.engine import Settings
from reading_maths.inputs import refusal, unsafe_entries
from reading_maths.nbgrader.environment import use_nbgrader_env
from reading_maths.results import GradeResult

# nbgrader (and the recording, built on it) is imported where it is used: :func:`autograde` starts the
# graders' processes first, and they import none of it
if TYPE_CHECKING:
    from collections.abc import Callable

    from distributed import Client
    from nbgrader.apps import AutogradeApp
    from nbgrader.coursedir import CourseDirectory

    from reading_maths.grading.remote import WorkerReport
    from reading_maths.nbgrader.recording import Outcome


@dataclass
class Submission:
    """One student's submission of the assignment: the notebooks the gradebook knows, and where they are."""

    student: str
    folder: Path
    notebooks: dict[str, Path]
    """notebook id -> submitted file, for the files that exist"""
    refused: str | None = None
    """why nothing in the folder is read (a link, a hard link, a FIFO or a device in it), if so"""


def open_course(root: Path, assignment: str) -> tuple[AutogradeApp, CourseDirectory]:
    """nbgrader's configuration, loaded as ``nbgrader autograde`` loads it (course folder, Jupyter paths)."""
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.apps import AutogradeApp

    use_nbgrader_env()
    app = AutogradeApp()
    with contextlib.chdir(root):
        app.initialize(["--log-level=ERROR"], root=str(root))
    app.coursedir.assignment_id = assignment
    with Gradebook(app.coursedir.db_url, app.coursedir.course_id) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            known = [a.id for a in course_assignments(root)]
            if assignment not in known:
                raise LookupError(f"no assignment {assignment!r}; known assignments: {', '.join(known)}") from None
            raise LookupError(f"the gradebook has no assignment {assignment!r} yet: "
                              f"run `reading-maths release {assignment}` first") from None
    return app, app.coursedir


def find_submissions(coursedir: CourseDirectory, assignment: str, student: str | None = None) -> list[Submission]:
    """Step 1: the students' folders under ``submitted/`` (nbgrader's layout), sorted by student id."""
    from nbgrader.api import Gradebook

    from reading_maths.nbgrader.recording import notebook_ids

    pattern = coursedir.format_path(coursedir.submitted_directory, "(?P<student>[^/]+)", assignment, escape=True)
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        notebooks = notebook_ids(gb, assignment)
    found = []
    for folder in sorted(glob.glob(coursedir.format_path(coursedir.submitted_directory, student or "*", assignment))):
        match = re.fullmatch(pattern, folder)
        if match is None or not (os.path.isdir(folder) or os.path.islink(folder)):
            continue
        # nbgrader copies the whole folder: every entry must be plain, and the student's folder above it too
        unsafe = linked_student_folder(Path(folder)) or unsafe_entries(Path(folder))
        if unsafe:
            found.append(Submission(match["student"], Path(folder), {}, refused="; ".join(unsafe[:3])))
            continue
        files = {nb: Path(folder, f"{nb}.ipynb") for nb in notebooks if Path(folder, f"{nb}.ipynb").is_file()}
        found.append(Submission(match["student"], Path(folder), files))
    return found


def likely_notebooks(root: Path, assignment: str) -> list[Path]:
    """The notebooks :func:`find_submissions` would find in nbgrader's default layout
    (``submitted/<student>/<assignment>/<assignment>.ipynb``, in folders it reads), found without nbgrader: the
    pool grades them while this process reads nbgrader's configuration, and takes over those it then asks for."""
    name = glob.escape(assignment)
    found = map(Path, sorted(glob.glob(str(root / "submitted" / "*" / name / f"{name}.ipynb"))))  # as nbgrader globs
    return [p for p in found if not (linked_student_folder(p.parent) or unsafe_entries(p.parent))]


def linked_student_folder(folder: Path) -> list[str]:
    """``[reason]`` when the student's folder holding the assignment's ``folder`` is a link (the assignment's
    folder would be another's, or the course's own source), else ``[]``."""
    st = os.lstat(folder.parent)
    why = refusal(st.st_mode, 1, folder.parent.name)  # one name: a folder's link count is not the student's doing
    return [why] if why else []


def nothing_to_grade(coursedir: CourseDirectory, assignment: str, student: str | None) -> str:
    """Why there is nothing to grade, naming what ``submitted/`` does hold."""
    if student:
        others = [s.student for s in find_submissions(coursedir, assignment)]
        return (f"no submission of {assignment!r} by {student!r} under submitted/; "
                + (f"students with one: {', '.join(others)}" if others else "there is none yet"))
    held = sorted({Path(p).name for p in glob.glob(coursedir.format_path(coursedir.submitted_directory, "*", "*"))})
    return (f"no submissions of {assignment!r} under submitted/ (collect them first: `nbgrader collect "
            f"{assignment}`, `nbgrader zip_collect {assignment}` or `reading-maths gather`); "
            + (f"submitted/ holds: {', '.join(held)}" if held else "submitted/ is empty"))


def grade_and_record(submissions: list[Submission], settings: Settings, root: Path, assignment: str, *,
                     jobs: int = 0, cluster: Client | None = None, progress: bool = True,
                     pool: Pool | None = None) -> dict[str, Outcome]:
    """Step 2: every notebook graded in ``jobs`` local processes (0: one per core; fewer than the machine's
    cores keep all of this to that many; ``pool``: these, already started) or on the Dask cluster of the client
    ``cluster``, and each student recorded here, with one :class:`Recorder`, as soon as all of their
    notebooks are back (while the others are graded); returns each student's :class:`Outcome`.

    Recording is one process's work, with nothing waiting on it: the graders never stop for the gradebook.
    """
    from reading_maths.nbgrader.recording import Recorder

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
            grade_many(paths, settings, jobs=jobs, root=root, assignment=assignment, progress=progress,
                       on_result=arrived, cluster=cluster, pool=pool)
        for submission in submissions:
            if submission.student not in outcomes:  # no notebook to grade: settled here
                outcomes[submission.student] = recorder.settle(submission, results)
    finally:
        recorder.close()
    return outcomes


def autograde(root: Path, assignment: str, settings: Settings, *, student: str | None = None, jobs: int = 0,
              progress: bool = True, scheduler: str | None = None,
              on_workers: Callable[[list[WorkerReport]], None] | None = None) -> list[Outcome]:
    """Grade every submission of ``assignment`` (or one student's) and record it in nbgrader's gradebook.

    ``jobs`` local processes grade (0: one per core); ``scheduler``: grade on the Dask cluster at this address
    (``tcp://host:8786``, or a Dask Gateway's ``https://host/path?workers=N``) instead, once every worker's checks
    (given to ``on_workers``) say it grades as this machine would
    (:func:`~reading_maths.grading.remote.checked_workers`). Either way this process records.

    For a whole class, the local processes are started first (:func:`~reading_maths.grading.batch.started_pool`):
    they load the graders, start their sandboxes and grade the notebooks where nbgrader's default layout keeps
    them (:func:`likely_notebooks`) while this process imports nbgrader, reads its configuration and finds the
    submissions.
    """
    root = Path(root).resolve()
    with contextlib.ExitStack() as running:
        cluster = None
        if scheduler:  # its workers checked before the gradebook is opened
            from reading_maths.grading.remote import checked_workers, cluster_client

            cluster = running.enter_context(cluster_client(scheduler))
            checked_workers(cluster, settings, root, assignment, on_workers)
        pool = None if scheduler or student else running.enter_context(started_pool(settings, jobs, root, assignment))
        if pool is not None:  # graded while nbgrader is imported and the submissions found its way
            pool.grade_ahead(likely_notebooks(root, assignment), settings, root, assignment)
        _, coursedir = open_course(root, assignment)
        submissions = find_submissions(coursedir, assignment, student)
        outcomes = grade_and_record(submissions, settings, root, assignment, jobs=jobs, cluster=cluster,
                                    progress=progress, pool=pool)
    return [outcomes[s.student] for s in submissions]
