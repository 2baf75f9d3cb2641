"""Grading many notebooks at once: a process pool or a Dask cluster, a progress bar, and no submission
stopping the rest."""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from reading_maths.course import Assignment
from reading_maths.course import assignment as course_assignment
from reading_maths.grading.budget import budget_for
from reading_maths.grading.engine import NotGradable, Settings, assignment_prelude, grade
from reading_maths.results import GradeResult, QuestionResult
from reading_maths.sandbox.child_starter import starter

if TYPE_CHECKING:
    from multiprocessing.synchronize import Lock

    from distributed import Client


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

log = logging.getLogger(__name__)


MEASURING_WAIT = 60.0
"""Seconds a warming worker waits for another to measure the reference's grading time before it measures it too."""


def warm_up(settings: Settings, root: Path, assignment: str | None, measuring: Lock | None = None) -> None:
    """A pool worker made ready for its first notebook of ``assignment`` (None: not known yet, nothing loaded):
    the graders loaded (at this process's priority: nothing is recorded yet), then :data:`WORKER_NICENESS`,
    then the fork server started with a child waiting (:meth:`~reading_maths.sandbox.child_starter.Starter.prepare`;
    they are as nice as the worker) and the notebook's time budget known (the reference graded, when the course
    has not kept its time, by the first worker to hold ``measuring``; the others then read what it kept).
    Never raises: what failed here is done, or reported, when a notebook is graded.

    What the worker was forked with (the command's modules), and then the graders, are frozen out of its garbage
    collector: they live as long as the worker, and its collections never walk them again (about 3 % of a
    worker's CPU) nor write to the memory it shares with the command."""
    gc.freeze()
    known = None
    try:
        if assignment is not None:
            known = course_assignment(root, assignment)
            known.graders  # noqa: B018 - loaded (and cached) now
    except Exception:  # noqa: BLE001 - an unknown assignment, a broken grader: said when a notebook is graded
        log.debug("loading the graders of %s failed", assignment, exc_info=True)
        known = None
    gc.freeze()
    os.nice(WORKER_NICENESS)  # before any child is started: each inherits it
    if known is None:
        return
    try:
        if settings.ahead and settings.sandbox.isolated:
            starter(settings.sandbox, known.imports, prelude=assignment_prelude(known)).prepare()
        held = measuring is not None and measuring.acquire(timeout=MEASURING_WAIT)
        try:
            budget_for(known, settings)
        finally:
            if held and measuring is not None:
                measuring.release()
    except Exception:  # noqa: BLE001 - a sandbox that cannot start here: said when a notebook is graded
        log.debug("warming up for %s failed", assignment, exc_info=True)


class Pool(ProcessPoolExecutor):
    """The grading processes of :func:`started_pool`, which may begin grading notebooks (:meth:`grade_ahead`)
    before the batch knows its list; the batch then takes over the gradings it asks for (:meth:`grading`) and
    drops the others (:meth:`drop_ahead`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._ahead: dict[tuple, tuple[tuple | None, Future]] = {}

    def grade_ahead(self, paths: Iterable[Path], settings: Settings, root: Path, assignment: str | None) -> None:
        """Begin grading ``paths`` now, as :func:`graded_in_pool` grades them."""
        call = (replace(settings, ahead=True), root, assignment)
        for path in paths:
            self._ahead[(path, *call)] = (_identity(path), self.submit(grade_one, path, *call))

    def grading(self, path: Path, settings: Settings, root: Path, assignment: str | None) -> Future:
        """The grading of ``path`` with these arguments: the one begun ahead (unless its worker died before it was
        done, or the file has been changed or replaced since), else one begun now."""
        identity, begun = self._ahead.pop((path, settings, root, assignment), (None, None))
        if begun is not None and identity is not None and identity == _identity(path) and not (
                begun.done() and (begun.cancelled() or begun.exception() is not None)):
            return begun
        if begun is not None:
            begun.cancel()
        return self.submit(grade_one, path, settings, root, assignment)

    def drop_ahead(self) -> None:
        """The gradings begun ahead that no one took over cancelled (those a worker has begun finish unread)."""
        for _, future in self._ahead.values():
            future.cancel()
        self._ahead.clear()


def _identity(path: Path) -> tuple | None:
    """What changes when a file is written or replaced (its inode, size and times), or None if it cannot be read."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


@contextlib.contextmanager
def started_pool(settings: Settings, jobs: int, root: Path, assignment: str | None, *, workers: int | None = None,
                 load_here: bool = False) -> Iterator[Pool]:
    """``jobs`` grading processes (0: one per core) on ``jobs`` cores (:func:`kept_to`), forked from this one
    now, each warming up at once (:func:`warm_up`, children started ahead), so that a batch's once-per-run
    work overlaps: started before this process imports nbgrader and opens the gradebook, the workers load the
    graders and start their fork servers meanwhile (and import nothing of nbgrader, whose modules they never
    use).  ``workers``: fewer processes than ``jobs`` (a batch of fewer notebooks), on as many cores.
    ``load_here``: the graders are loaded here before the fork, so that the workers start with them (for a batch
    whose notebooks are already known: nothing else to do here meanwhile).  Notebooks handed to it ahead
    (:meth:`Pool.grade_ahead`) and never asked for are dropped when it closes."""
    jobs = jobs or os.cpu_count() or 1
    workers = max(1, min(jobs, workers or jobs))
    if load_here and assignment:
        course_assignment(root, assignment).graders  # noqa: B018 - loaded (and cached) before the fork
    fork = multiprocessing.get_context("fork")
    warm = (replace(settings, ahead=True), root, assignment, fork.Lock())
    with kept_to(jobs), Pool(workers, mp_context=fork, initializer=warm_up, initargs=warm) as pool:
        for _ in range(workers):  # every worker forked now (each warms up before it takes a task)
            pool.submit(int)
        try:
            yield pool
            pool.drop_ahead()
        except BaseException:  # the batch stops (Ctrl-C, the gradebook refused): the notebooks not begun are not
            pool.drop_ahead()
            pool.shutdown(wait=True, cancel_futures=True)
            raise


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


def graded_in_pool(paths: list[Path], settings: Settings, jobs: int, root: Path, assignment: str | None,
                   pool: Pool | None = None) -> Iterator[tuple[int, GradeResult | BaseException]]:
    """``jobs`` local processes on ``jobs`` cores (``pool``: these, started before, :func:`started_pool`, with
    the gradings it began ahead); yields ``(index, result or error)`` as each notebook finishes."""
    ahead = replace(settings, ahead=True)  # each worker starts its next child while it grades

    def hand_over(workers: Pool) -> dict[Future, int]:
        futures = {workers.grading(p, ahead, root, assignment): i for i, p in enumerate(paths)}
        workers.drop_ahead()
        return futures

    with contextlib.ExitStack() as running:
        futures = None
        if pool is not None:
            with contextlib.suppress(BrokenProcessPool):  # a worker started early died before it had a notebook
                futures = hand_over(pool)
        if futures is None:
            futures = hand_over(running.enter_context(started_pool(settings, jobs, root, assignment,
                                                                   workers=len(paths), load_here=True)))
        for future in as_completed(futures):
            try:
                yield futures[future], future.result()
            except Exception as exc:  # noqa: BLE001 - a worker that died still yields a result
                yield futures[future], exc


def grade_many(paths: Iterable[Path], settings: Settings, *, jobs: int = 0, root: Path,
               assignment: str | None = None, progress: bool = True,
               on_result: Callable[[int, GradeResult], None] | None = None,
               cluster: Client | None = None, pool: Pool | None = None) -> list[GradeResult]:
    """Grade notebooks in parallel, in the order given: ``jobs`` local processes (0 = one per core; ``pool``: the
    ones :func:`started_pool` started before), or the Dask cluster of the client ``cluster``
    (:mod:`reading_maths.grading.remote`).

    ``on_result(index, result)`` runs here, once per notebook, as each finishes, while the others are graded.
    """
    paths = list(paths)
    results: dict[int, GradeResult] = {}
    if cluster is not None:
        from reading_maths.grading.remote import graded_on_cluster

        completions = graded_on_cluster(paths, settings, cluster, root, assignment)
    else:
        completions = graded_in_pool(paths, settings, jobs or os.cpu_count() or 1, root, assignment, pool)
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
