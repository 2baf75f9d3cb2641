"""The checks desk: a student's notebook in, the limits applied, the hidden graders' verdict out.

A request is judged against the assignment's :mod:`~reading_maths.checks.rules` and recorded in the
:mod:`~reading_maths.checks.store` (its attempt is reserved before grading, so two requests at once are
counted as two); the notebook is then graded exactly as ``reading-maths grade`` grades one
(:func:`reading_maths.grading.batch.grade_one`, sandboxed), within the check's time budget (``budget`` in
checks.toml; by default a batch's, :mod:`reading_maths.grading.budget`), by one of the desk's worker
processes, each keeping a warm fork server and a child started ahead.  A check costs what a notebook of a batch
costs: the notebook is read once (by the desk, in a thread) and handed to the worker as read; the worker also
makes what the student is shown and the record's row (:class:`Checked`), so that the event loop only stores it;
nothing is imported, loaded or parsed again per check (checks.toml is read each time, and parsed again only when
it changed).

The queue is fair under hostile load:

- a student has at most one check in the desk at a time, from the moment its request arrives (before its
  body is read) to its answer; another is refused at once, and recorded;
- checks are graded in the order they came, except that students whose last check ran longer than
  :data:`SLOW_AFTER` hold at most a quarter of the workers together, so that a few slow-but-right notebooks
  never hold them all; there are three workers per core by default (:data:`PER_CORE`), since a slow check
  mostly waits: two students slow at their first check, not yet known slow, leave the class two workers per core;
  a slow student's sandboxed children weigh less than the class's (:data:`SLOW_NICENESS`);
- after a request refused as malformed or too large, the student's next requests are refused unread for
  :data:`COOLDOWN` seconds;
- reading a notebook (JSON, nbformat, recognising its assignment) happens in a thread, never on the event
  loop, after the size limit (:data:`MAX_NOTEBOOK_BYTES`, which the web side applies before reading a body);
- a worker that dies (killed for memory, say) fails only the check it was grading, with a reason, and is
  replaced by a new one; a worker that outlives its check's budget by :data:`OVERRUN` is killed the same way.

The student gets, per question, the points and the feedback lines that released feedback would show them,
as the rules allow: never the cases, hidden inputs or grader code.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import logging
import math
import multiprocessing
import os
import pickle
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

import nbformat

from reading_maths.checks import rules as course_rules
from reading_maths.checks.store import Encoded, Store, bounded, encoded, now, stamp
from reading_maths.course import assignment as course_assignment
from reading_maths.course import assignments, recognise
from reading_maths.grading.batch import WORKER_NICENESS, grade_one
from reading_maths.grading.budget import TIMES_FILE, expected_budget
from reading_maths.grading.engine import Settings, assignment_prelude
from reading_maths.notebook import MAX_PARTS
from reading_maths.results import GradeResult
from reading_maths.sandbox.child_starter import starter
from reading_maths.sandbox.fork_server_client import Forked

MAX_NOTEBOOK_BYTES = 16 << 20
"""The largest notebook a check accepts (the course's are tens of kilobytes); larger is refused unread."""
SLOW_AFTER = 5.0
"""Seconds of grading after which a student counts as slow until one of their checks is quicker: together,
slow students' checks hold at most a quarter of the workers (one at least).  A check of the course's
reference answers takes well under a second."""
COOLDOWN = 5.0
"""Seconds after a request refused as malformed or too large (400, 413) during which the same student's
requests are refused before their body is read: an upload that costs the service something to refuse
cannot be repeated in a loop."""
OVERRUN = 60.0
"""Seconds past its budget after which a check's worker is killed and replaced (the sandbox's own limits
end a check long before: this is for a worker that is stuck itself)."""
SLOW_NICENESS = 19
"""The niceness of a slow student's sandboxed children (the class's have the workers', 15): a CPU share about
2.4 times smaller where they compete, so that a notebook spinning a core through its budget takes less of the
class's time."""
PER_CORE = 3
"""Grading workers per core by default.  A check is CPU work, and two workers per core already keep the cores
busy (one is not enough: each waits on its sandboxed child at every call); the third is for the slow students
not yet known to be slow, whose first checks hold workers for their budget while the class's go on.  Each
worker, with its fork server and children, takes about 160 MB."""
START_TIMEOUT = 300.0
"""Seconds a new worker may take to load and start its fork servers."""
log = logging.getLogger(__name__)


class Refused(Exception):
    """A check not accepted: ``reason`` for the student, ``next_allowed`` when one will be (None: never, or
    as soon as the request is fixed); ``status`` the HTTP status to answer with."""

    def __init__(self, reason: str, next_allowed: datetime | None = None, status: int = 429, check_id=None):
        super().__init__(reason)
        self.reason, self.next_allowed, self.status, self.check_id = reason, next_allowed, status, check_id

    def to_json(self) -> dict:
        return {"refused": self.reason, "next_allowed": stamp(self.next_allowed), "id": self.check_id}


def next_allowed(rules: course_rules.Rules, used: list[tuple[datetime, list[str]]], questions: list[str],
                 when: datetime) -> datetime | None:
    """When a check of ``questions`` is next allowed, given the attempts ``used`` in the window before
    ``when`` (oldest first); ``None`` when it is allowed now."""
    if rules.per == "notebook":
        counts = {None: [t for t, _ in used]}
    else:
        counts = {q: [t for t, qs in used if q in qs] for q in questions}
    waits = [times[len(times) - rules.attempts] + rules.window for times in counts.values()
             if len(times) >= rules.attempts]
    return max(waits) if waits else None


def refusal_of(rules: course_rules.Rules, asked: Asked, used: list[tuple[datetime, list[str]]],
               when: datetime) -> Refused | None:
    """Why ``asked`` is refused at ``when``, given the attempts ``used`` in the window; None when it is not."""
    name = asked.assignment
    if rules.closed(when):
        return Refused(f"checks of {name} closed at {stamp(rules.closes)}", status=403)
    if rules.attempts == 0:
        return Refused(f"{name} has no checks", status=403)
    wait = next_allowed(rules, used, asked.questions, when)
    if wait is None:
        return None
    if rules.closes is not None and wait >= rules.closes:
        return Refused(f"no checks of {name} left before they close at {stamp(rules.closes)}")
    every = f"{rules.attempts} per {course_rules.spoken(rules.window)}" + (" per question" * (rules.per == "question"))
    return Refused(f"you have used your checks of {name} ({every}); the next check is allowed at {stamp(wait)}",
                   next_allowed=wait)


def reserve_attempt(store: Store, asked: Asked, rules: course_rules.Rules) -> int:
    """Apply the assignment's ``rules`` to ``asked``: the id of its row in ``store``, its attempt reserved, or
    :class:`Refused` (recorded too).  Atomic across the processes sharing the store (:meth:`Store.reserve`): two
    services never both take a student's last attempt."""
    when = now()
    row = {"user": asked.user, "assignment": asked.assignment, "notebook": asked.notebook, "sha256": asked.sha256,
           "size": len(asked.data), "asked_at": stamp(when), "questions": asked.questions}
    check_id, refusal = store.reserve(row, when - rules.window, lambda used: refusal_of(rules, asked, used, when))
    if refusal is not None:
        refusal.check_id = check_id
        raise refusal
    return check_id


def shown(result: GradeResult, rules: course_rules.Rules, questions: list[str]) -> dict:
    """What the student sees of ``result``: per question asked, points and/or feedback lines, as ``rules.show``
    says."""
    scores, messages = rules.show in ("both", "scores"), rules.show in ("both", "messages")
    listed = []
    for q in result.questions:
        if q.id not in questions:
            continue
        item = {"id": q.id, "max_score": q.max_score, "status": q.status if scores else None}
        if scores:
            item["score"] = q.score
        if messages:
            item["feedback"] = q.feedback
        listed.append(item)
    data = {"assignment": result.assignment, "questions": listed, "show": rules.show}
    if scores:
        data["score"] = round(sum(item["score"] for item in listed), 6)
        data["max_score"] = round(sum(item["max_score"] for item in listed), 6)
    if messages:
        data["errors"] = list(result.errors)
    return data


@dataclass(frozen=True)
class Checked:
    """A check graded by a worker: what the student is shown (``view``), and the row's ``shown`` and ``result``
    as the record keeps them, cut and encoded there rather than on the service's event loop."""

    view: dict
    shown: Encoded
    result: Encoded


def check_upload(read: bytes, settings: Settings, root: Path, assignment: str,
                 rules: course_rules.Rules, questions: list[str], head: dict, slow: bool = False) -> Checked:
    """A check, in a worker: the notebook (``read``: as the desk read it, pickled there; it is not read and
    validated again) graded as ``reading-maths grade`` grades one (:func:`~reading_maths.grading.batch.grade_one`;
    messages name it ``<assignment>.ipynb``), what the student is shown of it as ``rules`` allow (:func:`shown`,
    with the check's ``head``: its id, user and notebook), and both made ready for the record.  A ``slow``
    student's notebook runs in children that weigh less (:func:`weighing_less`)."""
    name = f"{assignment}.ipynb"
    nb = pickle.loads(read)  # noqa: S301 - the desk's own pickle of what nbformat read, as the pipe's own are
    with weighing_less(settings, root, assignment) if slow else contextlib.nullcontext():
        result = grade_one(Path(name), settings, root, assignment, shown=name, nb=nb)
    result.notebook = head["notebook"]
    view = bounded(shown(result, rules, questions) | head)
    return Checked(view, encoded(view, cut=False), encoded(result.to_json()))


@contextlib.contextmanager
def weighing_less(settings: Settings, root: Path, assignment: str) -> Iterator[None]:
    """Meanwhile, each sandboxed child this worker's starter hands out (for ``assignment``) is made
    :data:`SLOW_NICENESS` before the notebook's code reaches it, so that it (and every process it starts) weighs
    less than the class's children.  A child started by bubblewrap rather than forked keeps the worker's."""
    if not (settings.ahead and settings.sandbox.isolated):
        yield
        return
    handing = starter(settings.sandbox, course_assignment(root, assignment).imports)  # the one grade() uses
    take = handing.take

    def take_weighing_less():
        process, group = take()
        if isinstance(process, Forked):  # alive and waiting for its code: its pid is its own
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, process.pid, SLOW_NICENESS)
        return process, group

    handing.take = take_weighing_less
    try:
        yield
    finally:
        del handing.take


def _warm(sandbox, root: Path) -> None:
    """A worker's start: lower priority, then each assignment's fork server started with a child ready, after the
    read-only cells its notebooks start with (:func:`~reading_maths.grading.engine.assignment_prelude`), as a
    check's grading asks for it."""
    os.nice(WORKER_NICENESS)
    for assignment in assignments(root):
        ready = starter(sandbox, assignment.imports, prelude=assignment_prelude(assignment))
        ready.retire(*ready.take())


def _serve(conn, inherited: list, desk: int, sandbox, root: Path) -> None:
    """A worker process: warm, say so, then grade each notebook sent until the desk's end of the pipe closes or
    the desk (process ``desk``) is gone.  ``inherited``: the desk's ends of every worker's pipe, this one's
    included, which the fork copied here: closed, so that each worker sees its own pipe close."""
    for end in inherited:
        end.close()
    try:
        _warm(sandbox, root)
    except Exception as exc:  # noqa: BLE001 - said to the desk, which starts another
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", os.getpid()))
    while True:
        try:
            while not conn.poll(2.0):
                if os.getppid() != desk:  # the desk was killed: nobody to answer
                    return
            job = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer = ("graded", check_upload(*job))
        except Exception as exc:  # noqa: BLE001 - grade_one never raises; this is the worker's own trouble
            answer = ("failed", f"{type(exc).__name__}: {exc}")
        conn.send(answer)


def _stat(path: Path) -> tuple[int, int, int]:
    try:
        found = path.stat()
    except OSError:
        return (0, 0, 0)
    return (found.st_mtime_ns, found.st_size, found.st_ino)


class WorkerLost(Exception):
    """The worker grading a check died, or was killed for overrunning; ``reason`` is for the student."""


@dataclass(eq=False)
class Worker:
    """One grading process and the desk's end of its pipe; ``job`` the check it grades, since ``since``."""

    process: multiprocessing.process.BaseProcess
    conn: object
    pid: int | None = None
    job: Job | None = None
    since: float = 0.0

    def stop(self, wait: float = 0.0) -> None:
        """Ended: its pipe closed, which ends an idle worker (its children stopped on the way out) within
        ``wait`` seconds; killed if it is still there then."""
        self.conn.close()
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
        self.process.join(10)


@dataclass(eq=False)
class Job:
    """A check waiting for a worker, or being graded: whose, what to send, and its answer to come."""

    user: str
    args: tuple
    budget: float
    slow: bool
    answer: asyncio.Future = field(repr=False)
    graded_for: float = 0.0


@dataclass
class Asked:
    """A request, read: whose, which assignment, the bytes, their sha256, the questions it asks about."""

    user: str
    notebook: str
    data: bytes
    assignment: str
    questions: list[str]
    read: bytes = field(default=b"", repr=False)
    """the notebook as read, pickled (what the worker grades: it does not read it again; about the size of the
    notebook, where the objects nbformat made of it can be many times that while the check waits its turn)"""
    sha256: str = ""

    def __post_init__(self):
        self.sha256 = self.sha256 or hashlib.sha256(self.data).hexdigest()


class Desk:
    """Checks for the course at ``root``, recorded in ``db`` (a file or a database URL), graded by ``workers``
    processes (0: :data:`PER_CORE` per core)."""

    def __init__(self, root: Path, db: str | Path, settings: Settings, workers: int = 0):
        self.root, self.store = Path(root), Store(db)
        self.store.abandon_pending()
        self.settings = Settings(settings.sandbox, settings.cell_timeout, settings.call_timeout, ahead=True)
        self.size = workers or PER_CORE * (os.cpu_count() or 1)
        self.in_flight: set[str] = set()
        self.cooling: dict[str, float] = {}
        self.slow: set[str] = set()
        self.waiting: collections.deque[Job] = collections.deque()
        self.idle: list[Worker] = []
        self.workers: list[Worker] = []
        self.replaced = 0
        self._budgets: dict[str, tuple[tuple, float]] = {}
        self._tasks: set[asyncio.Task] = set()
        self._readers = ThreadPoolExecutor(2, thread_name_prefix="checks-read")
        self._waits = ThreadPoolExecutor(2 * self.size + 2, thread_name_prefix="checks-wait")
        for a in assignments(self.root):
            a.graders  # noqa: B018 - loaded before the workers are forked, so that they start with them
        self._ctx = multiprocessing.get_context("fork")
        started = [self._start() for _ in range(self.size)]
        for worker in started:  # every worker forked and warm before the first request
            self._ready(worker)
            self.idle.append(worker)

    # -- the workers ---------------------------------------------------------------------------------------

    def _start(self) -> Worker:
        ours, theirs = self._ctx.Pipe()
        inherited = [ours, *(w.conn for w in self.workers)]
        process = self._ctx.Process(target=_serve, args=(theirs, inherited, os.getpid(), self.settings.sandbox,
                                                         self.root),
                                    name="reading-maths-check-worker", daemon=True)
        process.start()
        theirs.close()
        worker = Worker(process, ours)
        self.workers.append(worker)
        return worker

    def _ready(self, worker: Worker) -> None:
        """Wait (blocking) until ``worker`` is warm; :class:`WorkerLost` when it is not."""
        try:
            if not worker.conn.poll(START_TIMEOUT):
                raise WorkerLost(f"a new worker did not start within {START_TIMEOUT:g} s")
            said, value = worker.conn.recv()
        except (EOFError, OSError):
            said, value = "failed", "it died while starting"
        if said != "ready":
            raise WorkerLost(f"a new worker could not start: {value}")
        worker.pid = value

    async def _replace(self, dead: Worker) -> None:
        """A new worker in place of ``dead`` (stopped here), tried again until one starts."""
        loop = asyncio.get_running_loop()
        self.workers.remove(dead)
        await loop.run_in_executor(self._waits, dead.stop)
        while True:
            worker = self._start()
            try:
                await loop.run_in_executor(self._waits, self._ready, worker)
            except WorkerLost as lost:
                log.error("checks: %s; trying again", lost)
                self.workers.remove(worker)
                await loop.run_in_executor(self._waits, worker.stop)
                await asyncio.sleep(5)
                continue
            self.replaced += 1
            self.idle.append(worker)
            self._dispatch()
            return

    def busy(self) -> list[dict]:
        """What each worker is doing, for the instructor: its pid, the student whose check it grades, since when."""
        clock = time.monotonic()
        return [{"pid": w.pid, "user": w.job.user if w.job else None,
                 "seconds": round(clock - w.since, 1) if w.job else None} for w in self.workers]

    def close(self) -> None:
        for worker in self.workers:
            worker.conn.close()
        for worker in self.workers:
            worker.stop(wait=10)
        self._waits.shutdown(wait=False, cancel_futures=True)
        self._readers.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    # -- the queue -----------------------------------------------------------------------------------------

    def _next(self) -> Job | None:
        """The oldest waiting check that may start now: a slow student's only while slow students' checks hold
        fewer than a quarter of the workers (one at least)."""
        slow_running = sum(1 for w in self.workers if w.job is not None and w.job.slow)
        for job in self.waiting:
            if not job.slow or slow_running < max(1, self.size // 4):
                self.waiting.remove(job)
                return job
        return None

    def _dispatch(self) -> None:
        while self.idle and self.waiting:
            job = self._next()
            if job is None:
                return
            worker = self.idle.pop()
            worker.job, worker.since = job, time.monotonic()  # now: the next job of this loop counts it as running
            task = asyncio.get_running_loop().create_task(self._run(worker, job))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @staticmethod
    def _exchange(worker: Worker, job: Job):
        """Send ``job`` to ``worker`` and wait for its answer (blocking, in a thread)."""
        try:
            worker.conn.send(job.args)
            if not worker.conn.poll(job.budget + OVERRUN):
                raise WorkerLost("the check ran far past its time budget, so the process grading it was stopped")
            return worker.conn.recv()
        except (EOFError, OSError):
            raise WorkerLost("the process grading this check stopped before it finished (it may have been killed, "
                             "for instance for using too much memory)") from None

    async def _run(self, worker: Worker, job: Job) -> None:
        try:
            answer = await asyncio.get_running_loop().run_in_executor(self._waits, self._exchange, worker, job)
        except WorkerLost as lost:
            worker.job = None
            if not job.answer.done():
                job.answer.set_exception(lost)
            await self._replace(worker)
            return
        job.graded_for = time.monotonic() - worker.since
        worker.job = None
        if not job.answer.done():
            job.answer.set_result(answer)
        self.idle.append(worker)
        self._dispatch()

    async def _graded(self, user: str, args: tuple, budget: float) -> Checked:
        """``args`` graded by the next free worker, in turn; :class:`WorkerLost` when its worker is lost."""
        slow = user in self.slow
        job = Job(user, (*args, slow), budget, slow, asyncio.get_running_loop().create_future())
        self.waiting.append(job)
        self._dispatch()
        said, value = await job.answer
        if job.graded_for > SLOW_AFTER:
            self.slow.add(user)
        else:
            self.slow.discard(user)
        if said != "graded":
            raise WorkerLost(f"the worker could not grade it ({value})")
        return value

    # -- requests ------------------------------------------------------------------------------------------

    def refuse(self, refusal: Refused, user: str, notebook: str, *, assignment: str | None = None,
               data: bytes | None = None, size: int | None = None, questions: list[str] | None = None) -> Refused:
        """``refusal``, recorded (its ``check_id`` set): every request is a row, refused ones too.  A malformed
        or oversized request starts the student's :data:`COOLDOWN`."""
        if refusal.status in (400, 413):
            clock = time.monotonic()
            self.cooling = {u: t for u, t in self.cooling.items() if t > clock} | {user: clock + COOLDOWN}
        refusal.check_id = self.store.add(
            user=user, assignment=assignment, notebook=notebook, asked_at=stamp(now()),
            sha256=hashlib.sha256(data).hexdigest() if data is not None else "",
            size=len(data) if data is not None else size, questions=questions or [], outcome="refused",
            refusal=refusal.reason, next_allowed=stamp(refusal.next_allowed))
        return refusal

    def too_large(self, user: str, notebook: str, size: int, questions: list[str] | None = None) -> Refused:
        """The refusal of a notebook of ``size`` bytes or more (announced, or read so far), recorded."""
        return self.refuse(Refused(f"the notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB, the most a check "
                                   "takes (clear its outputs, save it and check again)", status=413),
                           user, notebook, size=size, questions=questions)

    def admit(self, user: str, notebook: str, questions: list[str] | None = None, data: bytes | None = None) -> None:
        """Nothing, or :class:`Refused` (recorded) while ``user`` cools down after a malformed or oversized
        request.  The web side asks before reading the body (``data`` None: recorded without a sha256)."""
        left = self.cooling_for(user)
        if left > 0:
            refusal = Refused(f"your last request was refused as malformed or too large; wait {math.ceil(left)} s "
                              "before the next", next_allowed=now() + timedelta(seconds=left))
            raise self.refuse(refusal, user, notebook, questions=questions, data=data)

    def cooling_for(self, user: str) -> float:
        """Seconds left of ``user``'s cool-down (0: none)."""
        return max(0.0, self.cooling.get(user, 0.0) - time.monotonic())

    def claim(self, user: str, notebook: str, questions: list[str] | None = None, data: bytes | None = None) -> None:
        """``user``'s turn: theirs until :meth:`release`; :class:`Refused` (recorded) while they hold one already.
        The web side claims before reading the body (``data`` None: recorded without a sha256)."""
        if user in self.in_flight:
            raise self.refuse(Refused("your previous check is still running: wait for its answer, then ask again"),
                              user, notebook, questions=questions, data=data)
        self.in_flight.add(user)

    def release(self, user: str) -> None:
        self.in_flight.discard(user)

    def read(self, user: str, notebook: str, data: bytes, questions: list[str] | None = None) -> Asked:
        """The request as the desk understands it, or :class:`Refused` (status 400 or 413) saying what is wrong.
        It parses the notebook: call it in a thread, not on the event loop."""
        if len(data) > MAX_NOTEBOOK_BYTES:
            raise Refused(f"the notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB, the most a check takes "
                          "(clear its outputs, save it and check again)", status=413)
        try:
            text = data.decode("utf-8")
            raw = json.loads(text)
            cells = raw.get("cells")
            parts = len(cells) + sum(len(c.get("outputs") or ()) for c in cells if isinstance(c, dict))
        except Exception:  # noqa: BLE001 - whatever is wrong with it, it is not a notebook
            raise Refused(f"{notebook} is not a notebook (save it and check again)", status=400) from None
        if parts > MAX_PARTS:
            raise Refused(f"{notebook} holds more than {MAX_PARTS} cells and outputs, more than a notebook of this "
                          "course can (a loop that adds cells or displays?)", status=400)
        try:
            nb = nbformat.reads(text, as_version=4)
        except Exception:  # noqa: BLE001 - whatever is wrong with it, it is not a notebook
            raise Refused(f"{notebook} is not a notebook (save it and check again)", status=400) from None
        assignment = recognise(nb, self.root)
        if assignment is None:
            raise Refused(f"{notebook} is not a notebook of this course's assignments", status=400)
        known = [g.question for g in assignment.graders]
        asked = list(dict.fromkeys(questions)) if questions else known
        unknown = [q for q in asked if q not in known]
        if unknown:
            raise Refused(f"{assignment.id} has no question {', '.join(unknown)} (it has {', '.join(known)})",
                          status=400)
        return Asked(user, notebook, data, assignment.id, asked, pickle.dumps(nb, pickle.HIGHEST_PROTOCOL))

    async def ask(self, user: str, notebook: str, data: bytes, questions: list[str] | None = None,
                  claimed: bool = False) -> dict:
        """A check for ``user``: what they are shown (with the check's ``id``), or :class:`Refused`.  The caller
        may have taken the student's turn already (``claimed``: the web side, before reading the body); the
        turn ends here either way."""
        if not claimed:
            self.admit(user, notebook, questions, data)
            self.claim(user, notebook, questions, data)
        try:
            return await self._ask(user, notebook, data, questions)
        finally:
            self.release(user)

    async def _ask(self, user: str, notebook: str, data: bytes, questions: list[str] | None) -> dict:
        loop = asyncio.get_running_loop()
        try:
            asked = await loop.run_in_executor(self._readers, self.read, user, notebook, data, questions)
        except Refused as refusal:
            raise self.refuse(refusal, user, notebook, data=data, questions=questions) from None
        except Exception as exc:  # noqa: BLE001 - a notebook the reader did not expect: refused, and recorded
            refusal = Refused(f"{notebook} could not be read ({type(exc).__name__})", status=400)
            raise self.refuse(refusal, user, notebook, data=data, questions=questions) from None
        rules = course_rules.load(self.root).of(asked.assignment)
        check_id = reserve_attempt(self.store, asked, rules)
        budget = rules.budget.total_seconds() if rules.budget is not None else None
        head = {"id": check_id, "user": user, "notebook": asked.notebook}
        try:
            checked = await self._graded(user, (asked.read, replace(self.settings, budget=budget), self.root,
                                                asked.assignment, rules, asked.questions, head),
                                         budget or self.expected_budget(asked.assignment))
        except WorkerLost as lost:  # the attempt is given back
            reason = f"the check could not be run: {lost}; it was not counted, try again"
            self.store.finish(check_id, "failed", None, None, reason)
            raise Refused(reason, status=503, check_id=check_id) from None
        self.store.finish(check_id, "graded", checked.result, checked.shown)
        return checked.view

    def expected_budget(self, assignment: str) -> float:
        """The default budget of a check of ``assignment`` (:func:`expected_budget`), worked out again only when
        the files it depends on change (it hashes the source notebook and every grader)."""
        found = course_assignment(self.root, assignment)
        files = [found.source_notebook, self.root / TIMES_FILE,
                 *sorted((self.root / "graders" / assignment).glob("*.py"))]
        key = tuple((str(f), *_stat(f)) for f in files)
        if self._budgets.get(assignment, (None,))[0] != key:
            self._budgets[assignment] = (key, expected_budget(found))
        return self._budgets[assignment][1]
