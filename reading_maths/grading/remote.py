"""Grading on a Dask ``distributed`` cluster: the notebook's bytes go out, the structured result comes back.

A worker needs this package, the sandbox (bubblewrap) and the course's ``source/`` and ``graders/``
folders, at the driver's path or where ``READING_MATHS_COURSE`` points on the worker; never the
gradebook, which only the driver writes.  Each task grades one notebook in a fresh sandboxed child,
exactly as the local pool does, so one student's process never serves another.  When a worker dies,
the scheduler gives its unfinished tasks to the others; each task's result arrives once.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path

from reading_maths.course import shown_path
from reading_maths.grading.engine import Settings
from reading_maths.inputs import read_regular
from reading_maths.kit.reference import SECRET_FILE, course_secret, keep_secret
from reading_maths.results import GradeResult

_versions: dict[Path, tuple] = {}


def _refresh(root: Path) -> None:
    """Forget cached graders and references when the course's files changed since this worker's last task.

    Workers outlive a batch: a grader fixed between two runs must not be served from the cache.
    """
    from reading_maths.course import assignment
    from reading_maths.grading.graderfile import load_grader
    from reading_maths.kit.reference import reference_of

    files = sorted([*root.glob("graders/*/*.py"), *root.glob("source/*/*.ipynb")])
    version = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    if _versions.get(root, version) != version:
        load_grader.cache_clear()
        reference_of.cache_clear()
        assignment.cache_clear()
    _versions[root] = version


@cache
def _worker_sandbox(allow_unsafe: bool, limits):
    from reading_maths.sandbox.process import choose

    return choose(allow_unsafe=allow_unsafe, limits=limits)


def grade_bytes(data: bytes, path: str, shown: str, settings: Settings, course: str,
                assignment: str | None, secret: bytes | None = None) -> GradeResult:
    """On a worker: grade one notebook given as bytes; the result is the driver's notebook at ``path``, its
    messages name it ``shown``, as the driver's own would.

    The worker picks its own sandbox: it refuses to grade without one unless the driver ran with
    ``--unsafe-no-sandbox`` itself.
    """
    from reading_maths.grading.batch import grade_one

    root = Path(os.environ.get("READING_MATHS_COURSE") or course)
    if secret is not None:
        adopt_secret(root, secret)
    _refresh(root)
    settings = replace(settings, sandbox=_worker_sandbox(not settings.sandbox.isolated, settings.sandbox.limits))
    with tempfile.TemporaryDirectory(prefix="reading-maths-task-") as folder:
        copy = Path(folder, Path(path).name)
        copy.write_bytes(data)
        result = grade_one(copy, settings, root, assignment, shown)
    result.notebook = path
    return result


def adopt_secret(root: Path, secret: bytes) -> None:
    """Give the worker's course the driver's secret (its hidden random inputs are the driver's); a course that has
    another is refused, never graded with other inputs."""
    path = root / SECRET_FILE
    keep_secret(root, secret)
    if path.read_bytes() != secret:
        raise RuntimeError(f"this worker's course at {root} has another {SECRET_FILE} than the driver's: copy the "
                           "driver's, or its hidden inputs differ")


def graded_on_cluster(paths: list[Path], settings: Settings, address: str, root: Path,
                      assignment: str | None) -> Iterator[tuple[int, GradeResult | BaseException]]:
    """Send every notebook to the scheduler at ``address``; yield ``(index, result or error)`` as they finish."""
    from distributed import Client, as_completed

    from reading_maths.course import Assignment
    from reading_maths.grading.batch import failed_to_grade

    batch = uuid.uuid4().hex[:8]
    course_secret(root)
    secret = (root / SECRET_FILE).read_bytes()  # every worker draws the course's own hidden inputs
    with Client(address, timeout="30s") as client:
        futures = {}
        for i, p in enumerate(paths):
            try:
                data = read_regular(p)  # a link is refused here, never sent (nor its target)
            except OSError as exc:
                yield i, failed_to_grade(p, Assignment(assignment, root) if assignment else None,
                                         exc.strerror or str(exc))
                continue
            futures[client.submit(grade_bytes, data, str(p), shown_path(p, root), settings, str(root), assignment,
                                  secret, key=f"reading-maths-grade-{batch}-{i}", pure=False, retries=1)] = i
        for future in as_completed(futures):
            try:
                yield futures[future], future.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: the notebook killed every worker it met
                yield futures[future], exc
