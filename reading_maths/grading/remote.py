"""Grading on a Dask ``distributed`` cluster: the notebook's bytes go out, the structured result comes back.

A worker needs this package, the sandbox (bubblewrap) and the course's ``source/`` and ``graders/``
folders, at the driver's path or where ``READING_MATHS_COURSE`` points on the worker; never the
gradebook, which only the driver writes.  Each task grades one notebook in a fresh sandboxed child,
exactly as the local pool does, so one student's process never serves another.  When a worker dies,
the scheduler gives its unfinished tasks to the others; each task's result arrives once.

The cluster is a scheduler's address (``tcp://host:8786``) or a Dask Gateway's URL (``https://host/path``): the
gateway's cluster ``?cluster=NAME`` is joined, or one of ``?workers=N`` is started for the batch (the other query
parameters are the gateway's cluster options) and shut down after it (:func:`cluster_client`).  Before any notebook
goes out, every worker runs ``doctor``'s checks and compares its course with the driver's (:func:`checked_workers`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import socket
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from reading_maths.course import shown_path
from reading_maths.grading.engine import Settings
from reading_maths.inputs import read_regular
from reading_maths.kit.reference import SECRET_FILE, course_secret, keep_secret
from reading_maths.results import GradeResult
from reading_maths.sandbox.doctor import Guarantee
from reading_maths.sandbox.limits import Limits

if TYPE_CHECKING:
    from distributed import Client

WORKERS_WAIT = 300.0
"""Seconds a batch waits for its cluster's workers to join, and for each worker's checks."""
GRADING_FILES = ("graders/{}/*.py", "source/{}/*.ipynb")
"""What grading reads of the course, per assignment: the graders and the reference notebooks."""
AUTH_HELP = ("its authentication is dask-gateway's own: gateway.auth.type (basic, kerberos, jupyterhub) and "
             "gateway.auth.kwargs in ~/.config/dask/gateway.yaml, or DASK_GATEWAY__AUTH__TYPE and "
             "JUPYTERHUB_API_TOKEN in the environment")


class ClusterUnavailable(RuntimeError):
    """The scheduler or gateway cannot be reached, refuses, or gives no worker; or its address is malformed."""


_versions: dict[Path, tuple] = {}


def _refresh(root: Path) -> None:
    """Forget cached graders and references when the course's files changed since this worker's last task.

    Workers outlive a batch: a grader fixed between two runs must not be served from the cache.
    """
    from reading_maths.course import assignment
    from reading_maths.grading.graderfile import load_grader
    from reading_maths.kit.reference import reference_of

    files = sorted(p for pattern in GRADING_FILES for p in root.glob(pattern.format("*")))
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
                assignment: str | None, secret: bytes | None = None,
                files: dict[str, str] | None = None) -> GradeResult:
    """On a worker: grade one notebook given as bytes; the result is the driver's notebook at ``path``, its
    messages name it ``shown``, as the driver's own would.

    The worker picks its own sandbox: it refuses to grade without one unless the driver ran with
    ``--unsafe-no-sandbox`` itself; and it refuses to grade with other graders or references than the driver's
    ``files`` (a worker that joined after the batch's check of its workers is checked here too).
    """
    from reading_maths.grading.batch import grade_one

    root = worker_course(course)
    if secret is not None:
        adopt_secret(root, secret)
    if files is not None:
        same_graders(root, assignment, files)
    _refresh(root)
    settings = replace(settings, sandbox=_worker_sandbox(not settings.sandbox.isolated, settings.sandbox.limits))
    with tempfile.TemporaryDirectory(prefix="reading-maths-task-") as folder:
        copy = Path(folder, Path(path).name)
        copy.write_bytes(data)
        result = grade_one(copy, settings, root, assignment, shown)
    result.notebook = path
    return result


def worker_course(course: str) -> Path:
    """The course folder on this worker: ``READING_MATHS_COURSE``, else the driver's path ``course``."""
    return Path(os.environ.get("READING_MATHS_COURSE") or course)


def adopt_secret(root: Path, secret: bytes) -> None:
    """Give the worker's course the driver's secret (its hidden random inputs are the driver's); a course that has
    another is refused, never graded with other inputs."""
    path = root / SECRET_FILE
    keep_secret(root, secret)
    if path.read_bytes() != secret:
        raise RuntimeError(f"this worker's course at {root} has another {SECRET_FILE} than the driver's: copy the "
                           "driver's, or its hidden inputs differ")


def same_graders(root: Path, assignment: str | None, files: dict[str, str]) -> None:
    """Refuse to grade when the worker's course at ``root`` differs from the driver's ``files``
    (:func:`grading_files`): a notebook is never graded by other graders than the driver's."""
    held, said = course_lines(root, assignment, files, "")[0]
    if not held:
        raise RuntimeError(f"this worker's {said}")


def grading_files(root: Path, assignment: str | None) -> dict[str, str]:
    """The SHA-256 of each file grading reads for ``assignment`` (every assignment: None), by its course path."""
    found = sorted(p for pattern in GRADING_FILES for p in root.glob(pattern.format(assignment or "*")))
    return {p.relative_to(root).as_posix(): _digest(p.read_bytes()) for p in found}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class WorkerReport:
    """What one worker found: ``doctor``'s sandbox and guarantees there, and its course against the driver's.

    ``fix``: how to give the worker a sandbox, where it has none; ``course``: (held, statement) for its graders and
    references, and for its secret.
    """

    worker: str
    host: str
    mode: str
    why: str
    fix: str | None
    guarantees: tuple[Guarantee, ...]
    course: tuple[tuple[bool, str], ...]

    def problems(self, unsafe: bool = False) -> list[str]:
        """What keeps this worker from grading as the driver would, each with its fix (``unsafe``: the driver has
        no sandbox either and runs with ``--unsafe-no-sandbox``, so a worker without one may grade)."""
        sandbox = [] if unsafe or self.fix is None else [f"no sandbox ({self.why}); fix: {self.fix}"]
        return sandbox + [statement for held, statement in self.course if not held]


def worker_report(limits: Limits, course: str, assignment: str | None, files: dict[str, str],
                  secret: str) -> WorkerReport:
    """On a worker: ``doctor``'s checks for sandboxes of the driver's ``limits``, and whether its course grades
    as the driver's: the same graders and references (``files``, their digests) and the same secret (its digest)."""
    from distributed import get_worker

    from reading_maths.sandbox.doctor import guarantees, remedy
    from reading_maths.sandbox.process import inspect

    mode, found = guarantees(limits=limits)
    worker = get_worker()
    name = f"{worker.address} ({worker.name})" if str(worker.name) != worker.address else worker.address
    return WorkerReport(name, socket.gethostname(), mode, inspect()[1], remedy(mode), tuple(found),
                        course_lines(worker_course(course), assignment, files, secret))


def course_lines(root: Path, assignment: str | None, files: dict[str, str],
                 secret: str) -> tuple[tuple[bool, str], ...]:
    """Whether the course at ``root`` holds the driver's graders and references and secret, and how to fix it."""
    share = "share the driver's course folder, or copy it and set READING_MATHS_COURSE on the worker"
    if not root.is_dir():
        return ((False, f"no course folder at {root}: {share}"),)
    mine = grading_files(root, assignment)
    differ = sorted(name for name in files.keys() | mine.keys() if files.get(name) != mine.get(name))
    graders = (not differ, f"graders and references at {root}: " +
               (f"{len(mine)} file(s), the driver's" if not differ else
                f"{', '.join(differ)} missing or not the driver's: {share}"))
    path = root / SECRET_FILE
    if path.is_file():
        same = hmac.compare_digest(_digest(path.read_bytes()), secret)
        kept = (same, f"{SECRET_FILE}: the driver's" if same else
                f"{SECRET_FILE}: another than the driver's (other hidden inputs): copy the driver's")
    else:
        writable = os.access(root, os.W_OK)
        kept = (writable, f"{SECRET_FILE}: none yet, the driver's is kept with the first notebook" if writable else
                f"{SECRET_FILE}: none, and {root} is not writable here: copy the driver's")
    return graders, kept


class WorkersUnfit(RuntimeError):
    """Some worker cannot grade as the driver would; nothing was sent to any."""

    def __init__(self, reports: list[WorkerReport], unsafe: bool) -> None:
        self.reports = reports
        unfit = [r for r in reports if r.problems(unsafe)]
        super().__init__("\n".join([f"{len(unfit)} of {len(reports)} worker(s) cannot grade, so nothing was graded "
                                    "(`reading-maths doctor` on a worker says more):",
                                    *(f"  {r.worker}: {problem}" for r in unfit for problem in r.problems(unsafe))]))


def checked_workers(client: Client, settings: Settings, root: Path, assignment: str | None,
                    on_reports: Callable[[list[WorkerReport]], None] | None = None) -> list[WorkerReport]:
    """Every worker's :func:`worker_report` (given to ``on_reports`` first); raises :class:`WorkersUnfit` when
    one cannot grade as the driver would."""
    course_secret(root)
    secret = _digest((root / SECRET_FILE).read_bytes())
    files = grading_files(root, assignment)
    batch = uuid.uuid4().hex[:8]
    futures = [client.submit(worker_report, settings.sandbox.limits, str(root), assignment, files, secret,
                             key=f"reading-maths-doctor-{batch}-{i}", workers=[address], allow_other_workers=False,
                             pure=False)
               for i, address in enumerate(client.ncores())]
    try:
        reports = sorted((future.result(timeout=WORKERS_WAIT) for future in futures), key=lambda r: r.worker)
    except TimeoutError:
        raise ClusterUnavailable(f"a worker did not report its checks within {WORKERS_WAIT:g} s") from None
    if on_reports is not None:
        on_reports(reports)
    unsafe = not settings.sandbox.isolated
    if any(r.problems(unsafe) for r in reports):
        raise WorkersUnfit(reports, unsafe)
    return reports


@dataclass(frozen=True)
class GatewayRequest:
    """A Dask Gateway's address, parsed: its URL, the cluster to join or the workers to start, the cluster options."""

    url: str
    cluster: str | None
    workers: int | None
    options: dict[str, Any]


def gateway_request(address: str) -> GatewayRequest | None:
    """``https://host/path?workers=N&OPTION=VALUE`` (a new cluster) or ``...?cluster=NAME[&workers=N]`` (one that
    runs), parsed; None for a scheduler's address (``tcp://``, ``tls://``, any other than http(s))."""
    from dask.config import interpret_value

    parts = urlsplit(address)
    if parts.scheme not in ("http", "https"):
        return None
    if parts.username or parts.password:
        raise ClusterUnavailable(f"{parts.hostname}: credentials go in dask-gateway's configuration, never in the "
                                 f"address ({AUTH_HELP})")
    query = parse_qs(parts.query, keep_blank_values=True)
    if twice := [key for key, values in query.items() if len(values) > 1]:
        raise ClusterUnavailable(f"{twice[0]} is given twice in the address")
    params = {key: values[0] for key, values in query.items()}
    cluster, workers = params.pop("cluster", None), params.pop("workers", None)
    if workers is not None and not (workers.isdigit() and int(workers) > 0):
        raise ClusterUnavailable(f"workers={workers} in the address: a number of workers (1 or more)")
    if cluster is None and workers is None:
        raise ClusterUnavailable("say how many workers to start (a Dask Gateway's address ending ?workers=N) or "
                                 "which of its clusters to join (?cluster=NAME)")
    if cluster is not None and params:
        raise ClusterUnavailable(f"{', '.join(params)}: cluster options are for a new cluster, not one joined "
                                 f"(?cluster={cluster})")
    url = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    return GatewayRequest(url, cluster, int(workers) if workers else None,
                          {key: interpret_value(value) for key, value in params.items()})


@contextmanager
def cluster_client(address: str) -> Iterator[Client]:
    """A client of the cluster at ``address`` once it has its workers: a scheduler's, or a Dask Gateway's cluster,
    joined or started here (and then shut down when the block ends)."""
    from distributed import Client

    request = gateway_request(address)
    if request is not None:
        with _gateway_client(request) as client:
            yield client
        return
    try:
        client = Client(address, timeout="30s")
    except OSError as exc:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    with client:
        _wait_for_workers(client, 1, f"the Dask scheduler at {address}")
        yield client


@contextmanager
def _gateway_client(request: GatewayRequest) -> Iterator[Client]:
    """A client of the gateway's cluster ``request`` names, or of one started for it (shut down at the end)."""
    from dask_gateway import Gateway

    with _gateway_errors(request.url):
        gateway = Gateway(request.url)
    try:
        with _gateway_errors(request.url):
            cluster = (gateway.connect(request.cluster) if request.cluster else
                       gateway.new_cluster(shutdown_on_close=True, **request.options))
        try:
            with _gateway_errors(request.url):
                if request.workers:
                    cluster.scale(request.workers)
                client = cluster.get_client(set_as_default=False)
            with client:
                _wait_for_workers(client, request.workers or 1, f"the Dask Gateway's cluster {cluster.name}")
                yield client
        finally:
            cluster.close(shutdown=not request.cluster)  # closes its own connection to the gateway too
            _closed_for_good(cluster.gateway)
    finally:
        gateway.close()
        _closed_for_good(gateway)


def _closed_for_good(gateway: Any) -> None:
    """Keep a closed dask-gateway client from closing itself again when collected: its loop has stopped by then,
    and the second close fails on it, printing a traceback (dask-gateway 2026.3 with distributed 2026.8)."""
    del gateway._loop_runner


@contextmanager
def _gateway_errors(url: str) -> Iterator[None]:
    """A gateway that cannot be reached or refuses, as :class:`ClusterUnavailable` saying so."""
    from aiohttp import ClientError, ClientResponseError
    from dask_gateway import GatewayClusterError, GatewayServerError

    try:
        yield
    except ClientResponseError as exc:
        raise ClusterUnavailable(f"the Dask Gateway at {url} refused: {exc.status} {exc.message}; "
                                 f"{AUTH_HELP}") from None
    except (ClientError, OSError) as exc:
        raise ClusterUnavailable(f"cannot reach the Dask Gateway at {url}: {exc}") from None
    except (ValueError, GatewayClusterError, GatewayServerError) as exc:  # e.g. no such cluster, a bad option
        raise ClusterUnavailable(f"the Dask Gateway at {url}: {exc}") from None


def _wait_for_workers(client: Client, workers: int, cluster: str) -> None:
    try:
        client.wait_for_workers(workers, timeout=WORKERS_WAIT)
    except TimeoutError:
        raise ClusterUnavailable(f"{cluster} has {len(client.ncores())} of the {workers} worker(s) it needs after "
                                 f"{WORKERS_WAIT:g} s") from None


def graded_on_cluster(paths: list[Path], settings: Settings, client: Client, root: Path,
                      assignment: str | None) -> Iterator[tuple[int, GradeResult | BaseException]]:
    """Send every notebook to the cluster of ``client``; yield ``(index, result or error)`` as they finish."""
    from distributed import as_completed

    from reading_maths.course import Assignment
    from reading_maths.grading.batch import failed_to_grade

    batch = uuid.uuid4().hex[:8]
    course_secret(root)
    secret = (root / SECRET_FILE).read_bytes()  # every worker draws the course's own hidden inputs
    files = grading_files(root, assignment)  # and grades with the course's own graders
    futures = {}
    for i, p in enumerate(paths):
        try:
            data = read_regular(p)  # a link is refused here, never sent (nor its target)
        except OSError as exc:
            yield i, failed_to_grade(p, Assignment(assignment, root) if assignment else None,
                                     exc.strerror or str(exc))
            continue
        futures[client.submit(grade_bytes, data, str(p), shown_path(p, root), settings, str(root), assignment,
                              secret, files, key=f"reading-maths-grade-{batch}-{i}", pure=False, retries=1)] = i
    for future in as_completed(futures, loop=client.loop):
        try:
            yield futures[future], future.result()
        except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: the notebook killed every worker it met
            yield futures[future], exc
