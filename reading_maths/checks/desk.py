"""The checks desk: a student's notebook in, the limits applied, the hidden graders' verdict out.

A request is judged against the assignment's :mod:`~reading_maths.checks.rules` and recorded in the
:mod:`~reading_maths.checks.store` (its attempt is reserved before grading, so two requests at once are
counted as two); the notebook is then graded exactly as ``reading-maths grade`` grades one
(:func:`reading_maths.grading.batch.grade_one`, sandboxed), in a pool of worker processes that each keep
a warm fork server and a child started ahead.  Requests are graded in the order they came, and a
student has at most one check in the queue at a time, so that nobody's burst delays the class.  The
student gets, per question, the points and the feedback lines that released feedback would show them, as
the rules allow: never the cases, hidden inputs or grader code.
"""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat

from reading_maths.checks import rules as course_rules
from reading_maths.checks.store import Store, now, stamp
from reading_maths.course import assignments, recognise
from reading_maths.grading.batch import WORKER_NICENESS, grade_one
from reading_maths.grading.engine import Settings
from reading_maths.results import GradeResult
from reading_maths.sandbox.child_starter import starter

MAX_NOTEBOOK_BYTES = 16 << 20


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


def grade_upload(data: bytes, settings: Settings, root: Path, assignment: str) -> GradeResult:
    """Grade a notebook given as bytes (in a pool worker): written to a private folder, graded, removed."""
    with tempfile.TemporaryDirectory(prefix="reading-maths-check-") as folder:
        path = Path(folder) / f"{assignment}.ipynb"
        path.write_bytes(data)
        return grade_one(path, settings, root, assignment)


def _warm(sandbox, root: Path) -> None:
    """A pool worker's start: lower priority, then each assignment's fork server started with a child ready."""
    os.nice(WORKER_NICENESS)
    for imports in dict.fromkeys(a.imports for a in assignments(root)):
        ready = starter(sandbox, imports)
        ready.retire(*ready.take())


@dataclass
class Asked:
    """A request, read: whose, which assignment, the bytes, their sha256, the questions it asks about."""

    user: str
    notebook: str
    data: bytes
    assignment: str
    questions: list[str]

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


class Desk:
    """Checks for the course at ``root``, recorded in ``db``, graded by ``workers`` processes (0: one per core)."""

    def __init__(self, root: Path, db: Path, settings: Settings, workers: int = 0):
        self.root, self.store = Path(root), Store(db)
        self.store.abandon_pending()
        self.settings = Settings(settings.sandbox, settings.cell_timeout, settings.call_timeout, ahead=True)
        self.workers = workers or os.cpu_count() or 1
        for a in assignments(self.root):
            a.graders  # noqa: B018 - loaded before the workers are forked, so that they start with them
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                        initializer=_warm, initargs=(self.settings.sandbox, self.root))
        for done in [self.pool.submit(os.getpid) for _ in range(self.workers)]:
            done.result()  # every worker forked and warm before the first request

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.store.close()

    def read(self, user: str, notebook: str, data: bytes, questions: list[str] | None = None) -> Asked:
        """The request as the desk understands it, or :class:`Refused` (status 400) saying what is wrong."""
        if len(data) > MAX_NOTEBOOK_BYTES:
            raise Refused(f"the notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MB", status=413)
        try:
            nb = nbformat.reads(data.decode("utf-8"), as_version=4)
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
        return Asked(user, notebook, data, assignment.id, asked)

    def judge(self, asked: Asked) -> int:
        """Apply the assignment's rules to ``asked``: the id of its row, its attempt reserved, or :class:`Refused`
        (recorded too)."""
        rules = course_rules.load(self.root).of(asked.assignment)
        when = now()
        row = {"user": asked.user, "assignment": asked.assignment, "notebook": asked.notebook,
               "sha256": asked.sha256, "asked_at": stamp(when), "questions": asked.questions}
        used = self.store.counted(asked.user, asked.assignment, when - rules.window)
        refusal = refusal_of(rules, asked, used, when)
        if refusal is None and self.store.pending(asked.user):  # one at a time: nobody fills the queue alone
            refusal = Refused("your previous check is still running: wait for its answer, then ask again")
        if refusal is not None:
            refusal.check_id = self.store.add(**row, outcome="refused", refusal=refusal.reason,
                                              next_allowed=stamp(refusal.next_allowed))
            raise refusal
        return self.store.add(**row, outcome="pending")

    async def ask(self, user: str, notebook: str, data: bytes, questions: list[str] | None = None) -> dict:
        """A check for ``user``: what they are shown (with the check's ``id``), or :class:`Refused`."""
        asked = self.read(user, notebook, data, questions)
        check_id = self.judge(asked)
        rules = course_rules.load(self.root).of(asked.assignment)
        try:
            result = await asyncio.get_running_loop().run_in_executor(
                self.pool, grade_upload, asked.data, self.settings, self.root, asked.assignment)
        except Exception as exc:  # noqa: BLE001 - a worker lost: the attempt is given back
            self.store.finish(check_id, "failed", None, None)
            raise Refused(f"the check could not be run ({type(exc).__name__}); it was not counted, try again",
                          status=503, check_id=check_id) from None
        result.notebook = asked.notebook
        view = shown(result, rules, asked.questions) | {"id": check_id, "user": user, "notebook": asked.notebook}
        self.store.finish(check_id, "graded", result.to_json(), view)
        return view
