"""Grading many notebooks at once: a process pool or a Dask cluster, a progress bar, and no submission
stopping the rest."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from reading_maths.course import Assignment
from reading_maths.course import assignment as course_assignment
from reading_maths.grading.engine import NotGradable, Settings, grade
from reading_maths.results import GradeResult, QuestionResult


def failed_to_grade(path: Path, assignment: Assignment | None, reason: str) -> GradeResult:
    """The result for a notebook that could not be run at all: every question 0, with the reason."""
    result = GradeResult(assignment.id if assignment else None, str(path), errors=[reason])
    for grader in assignment.graders if assignment else []:
        result.questions.append(QuestionResult(grader.question, grader.max_score, status="error",
                                               problem=f"not graded: {reason}"))
    return result


def grade_one(path: Path, settings: Settings, root: Path, assignment: str | None,
              shown: str | None = None, nb=None) -> GradeResult:
    """Grade one notebook of ``assignment`` (None: recognised from its cells); a notebook that cannot be graded
    gets a result saying why (never an exception). Messages name the file ``shown`` (default: as the course sees
    it). ``nb``: the notebook read already (a check's: then ``path`` only names it)."""
    known = course_assignment(root, assignment) if assignment else None
    try:
        return grade(path, settings, root, known, shown, nb)
    except NotGradable as exc:
        return failed_to_grade(path, known, str(exc))
    except Exception:  # noqa: BLE001 - one broken submission never stops the batch
        # its text (or type) may be what the student's process chose, after a hidden input: the log has it
        logging.getLogger("reading_maths").exception("grading %s failed", shown or path)
        return failed_to_grade(path, known, "grading failed: the grader could not judge this notebook (the "
                                            "instructor's log has the details)")


WORKER_NICENESS = 15
"""How much less the graders (and the sandboxed children they start) weigh than this process, which records:
recording is one process's work, and it must keep up with all of them."""


def forked_pool(workers: int, root: Path, assignment: str | None) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes forked from this one once the assignment's graders and reference are
    loaded here, so that they start with them (and with Otter and NumPy imported) instead of each loading
    its own; :data:`WORKER_NICENESS` below this process."""
    if assignment:
        course_assignment(root, assignment).graders  # noqa: B018 - loaded (and cached) before the fork
    return ProcessPoolExecutor(max(1, workers), mp_context=multiprocessing.get_context("fork"),
                               initializer=os.nice, initargs=(WORKER_NICENESS,))


@contextlib.contextmanager
def kept_to(cores: int) -> Iterator[None]:
    """This process, and every process it starts meanwhile, on ``cores`` of this machine's cores (all of them
    when it has no more): ``--jobs N`` is N cores' work, the recording here and the sandboxed children included
    (each worker starts its next child while it grades, so a batch has more busy processes than workers)."""
    allowed = os.sched_getaffinity(0)
    if cores >= len(allowed):
        yield
        return
    os.sched_setaffinity(0, sorted(allowed)[:cores])
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


@contextlib.contextmanager
def progress_bar(total: int, shown: bool = True) -> Iterator[Callable[[], None]]:
    """A "grading" bar on the terminal for ``total`` items; yields the function that advances it by one."""
    columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, disable=not shown, transient=False) as bar:
        task = bar.add_task("grading", total=total)
        yield lambda: bar.advance(task)


def graded_in_pool(paths: list[Path], settings: Settings, jobs: int, root: Path,
                   assignment: str | None) -> Iterator[tuple[int, GradeResult | BaseException]]:
    """``jobs`` local processes on ``jobs`` cores; yields ``(index, result or error)`` as each notebook finishes."""
    ahead = replace(settings, ahead=True)  # each worker starts its next child while it grades
    with kept_to(jobs), forked_pool(min(jobs, len(paths)), root, assignment) as pool:
        futures = {pool.submit(grade_one, p, ahead, root, assignment): i for i, p in enumerate(paths)}
        for future in as_completed(futures):
            try:
                yield futures[future], future.result()
            except Exception as exc:  # noqa: BLE001 - a worker that died still yields a result
                yield futures[future], exc


def grade_many(paths: Iterable[Path], settings: Settings, *, jobs: int = 0, root: Path,
               assignment: str | None = None, progress: bool = True,
               on_result: Callable[[int, GradeResult], None] | None = None,
               scheduler: str | None = None) -> list[GradeResult]:
    """Grade notebooks in parallel, in the order given: ``jobs`` local processes (0 = one per core), or
    the Dask cluster whose scheduler is at ``scheduler`` (:mod:`reading_maths.grading.remote`).

    ``on_result(index, result)`` runs here, once per notebook, as each finishes, while the others are graded.
    """
    paths = list(paths)
    results: dict[int, GradeResult] = {}
    if scheduler:
        from reading_maths.grading.remote import graded_on_cluster

        completions = graded_on_cluster(paths, settings, scheduler, root, assignment)
    else:
        completions = graded_in_pool(paths, settings, jobs or os.cpu_count() or 1, root, assignment)
    with progress_bar(len(paths), progress) as advance:
        for i, outcome in completions:
            if i in results:
                continue
            if isinstance(outcome, BaseException):
                outcome = failed_to_grade(paths[i], course_assignment(root, assignment) if assignment else None,
                                          f"grading failed: {type(outcome).__name__}")
            results[i] = outcome
            if on_result is not None:
                on_result(i, outcome)
            advance()
    return [results[i] for i in range(len(paths))]
