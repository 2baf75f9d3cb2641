"""Every check asked for, kept in SQLite or PostgreSQL: who, when, the notebook's sha256, the outcome and the result.

One row per request, refused ones included.  ``outcome`` is ``pending`` while the notebook is graded,
then ``graded`` (``result`` holds the engine's whole result, ``shown`` what the student was shown),
``failed`` (the service could not grade it; it does not count against the student) or ``refused``
(``refusal`` says why, ``next_allowed`` when the next check is allowed).  The instructor exports it
with ``reading-maths checks export``.

A row is bounded whatever was sent: the notebook itself is never kept (its sha256 and ``size`` are), and
every text and every list of messages in it is cut (:func:`bounded`), so that a notebook of 20,000 failing
cells, or a refused 1 GB upload, is a row of a few kilobytes.
"""

from __future__ import annotations

import csv
import io
import json
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    bindparam,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import URL, Connection, make_url

from reading_maths.databases import engine_for, locked
from reading_maths.sandbox.cgroups import process_exists

LOCATION = "READING_MATHS_CHECKS_DB"
"""The environment variable naming the course's store: a file, or a database URL (``postgresql+psycopg://...``)."""
FILE = "checks.sqlite"
"""The store in the course's folder when :data:`LOCATION` is not set."""

CHECKS = Table(
    "checks", MetaData(),
    Column("id", Integer, primary_key=True),
    Column("user", Text, nullable=False),
    Column("assignment", Text),
    Column("notebook", Text, nullable=False),
    Column("sha256", Text, nullable=False),
    Column("asked_at", Text, nullable=False),
    Column("finished_at", Text),
    Column("questions", Text, nullable=False, server_default="[]"),
    Column("outcome", Text, nullable=False),
    Column("score", Float),
    Column("max_score", Float),
    Column("result", Text),
    Column("shown", Text),
    Column("refusal", Text),
    Column("next_allowed", Text),
    Column("size", Integer),
    Column("service", Text),
    Index("checks_by_user", "user", "assignment", "asked_at"),
)
"""One row per request (times as ISO 8601 text in UTC, lists and results as JSON text); ``service`` is the
process that took a pending check (``host:pid``)."""
COUNTING = ("pending", "graded")
"""Outcomes that use up an attempt."""
ADD = insert(CHECKS).returning(CHECKS.c.id)
COUNTED = (select(CHECKS.c.asked_at, CHECKS.c.questions)
           .where(CHECKS.c.user == bindparam("user"), CHECKS.c.assignment == bindparam("assignment"),
                  CHECKS.c.asked_at >= bindparam("since"), CHECKS.c.outcome.in_(COUNTING))
           .order_by(CHECKS.c.asked_at, CHECKS.c.id))
FINISH = update(CHECKS).where(CHECKS.c.id == bindparam("check_id"))
"""The statements a check runs, made once (their values are bound per call: SQLAlchemy builds nothing per check)."""
COLUMNS = ("id", "user", "assignment", "notebook", "sha256", "asked_at", "finished_at", "questions", "outcome",
           "score", "max_score", "result", "shown", "refusal", "next_allowed", "size")
MAX_TEXT = 1000
"""Characters kept of any one text in a row (a message, a reason, a notebook's name)."""
MAX_LINES = 30
"""Messages kept of any list of them (a notebook's errors, a question's feedback); the rest are counted."""
MAX_QUESTIONS = 50
"""Questions kept of those a request names."""


_KEPT = frozenset((bool, int, float))


def bounded(value):
    """``value`` (plain JSON data) with every string cut to :data:`MAX_TEXT` characters and every list of strings
    to :data:`MAX_LINES` items, the last saying how many more there were."""
    if value is None or type(value) in _KEPT:  # most of a result: numbers and flags, kept as they are
        return value
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT - 1] + "…"
    if isinstance(value, dict):
        return {bounded(k): bounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if len(value) > MAX_LINES and all(isinstance(v, str) for v in value):
            value = [*value[:MAX_LINES - 1], f"… and {len(value) - MAX_LINES + 1} more like these"]
        return [bounded(v) for v in value]
    return value


@dataclass(frozen=True)
class Encoded:
    """A result or a view already cut (:func:`bounded`) and written as JSON text, with the scores its row keeps: a
    grading worker's work, so that the service's event loop only stores it."""

    text: str
    score: float | None = None
    max_score: float | None = None


def encoded(value: dict, cut: bool = True) -> Encoded:
    """``value`` (plain JSON data) as the record keeps it; ``cut``: :func:`bounded` first (False: it is already)."""
    value = bounded(value) if cut else value
    return Encoded(json.dumps(value), value.get("score"), value.get("max_score"))


def now() -> datetime:
    return datetime.now(UTC)


def stamp(when: datetime | None) -> str | None:
    return when.astimezone(UTC).isoformat(timespec="seconds") if when else None


def location(root: Path) -> str | Path:
    """The store of the course at ``root``: :data:`LOCATION`'s file or URL, or ``<root>/checks.sqlite``."""
    return os.environ.get(LOCATION) or Path(root) / FILE


def url_of(where: str | Path) -> URL:
    """``where`` as a database URL: a URL as it is, a file as SQLite's."""
    return make_url(str(where)) if "://" in str(where) else URL.create("sqlite", database=str(Path(where).resolve()))


def missing(where: str | Path) -> bool:
    """Whether ``where`` is a SQLite file not made yet (a reader makes none)."""
    url = url_of(where)
    return url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file()


STALE = timedelta(hours=1)
"""A check pending longer than this is one whose service stopped (a check's budget is at most minutes)."""


class Store:
    """The checks database at ``where`` (a file, made on first use and readable by its owner only, or a database
    URL): SQLite, or PostgreSQL where several checks services share it (SQLAlchemy Core: the same statements)."""

    def __init__(self, where: str | Path):
        self.url = url_of(where)
        self.service = f"{socket.gethostname()}:{os.getpid()}"
        self.sqlite = self.url.get_backend_name() == "sqlite"
        if self.sqlite:
            file = Path(self.url.database)
            if not file.exists():
                file.touch(mode=0o600)
        self.engine = engine_for(self.url)
        with self._locked("the table") as db:  # two services starting at once: one makes it
            CHECKS.metadata.create_all(db)
            kept = {c["name"] for c in inspect(db).get_columns("checks")}
            for column in CHECKS.columns:  # a record kept before a column was added (size, service)
                if column.name not in kept:
                    db.execute(text(f"ALTER TABLE checks ADD COLUMN {column.name} "
                                    f"{column.type.compile(self.engine.dialect)}"))

    def close(self) -> None:
        self.engine.dispose()

    def abandon_pending(self) -> None:
        """Checks left pending by a service that stopped mid-way: failed, so they count against nobody.  Another
        running service's (sharing this store) are left alone: failed are only those of a process of this
        machine that is gone (or of this very process, started again with the same id), of no named service,
        or asked more than :data:`STALE` ago."""
        horizon = stamp(now() - STALE)
        host = socket.gethostname()

        def gone(service: str | None, asked_at: str) -> bool:
            name, _, pid = (service or "").rpartition(":")
            if not service or asked_at < horizon or not pid.isdigit():
                return True
            return name == host and (service == self.service or not process_exists(int(pid)))

        with self.engine.begin() as db:
            pending = db.execute(select(CHECKS.c.id, CHECKS.c.service, CHECKS.c.asked_at)
                                 .where(CHECKS.c.outcome == "pending")).all()
            abandoned = [row.id for row in pending if gone(row.service, row.asked_at)]
            if abandoned:
                db.execute(update(CHECKS).where(CHECKS.c.id.in_(abandoned)).values(outcome="failed"))

    def add(self, **row) -> int:
        with self.engine.begin() as db:
            return self._add(db, row)

    def _add(self, db: Connection, row: dict) -> int:
        if row.get("questions") is not None:  # only a question of the assignment counts, and it has few
            row["questions"] = [bounded(q) for q in row["questions"][:MAX_QUESTIONS]]
        row = {k: json.dumps(v if k == "questions" else bounded(v)) if k in ("questions", "result", "shown")
               and v is not None else bounded(v) for k, v in row.items()}
        return db.execute(ADD, {"service": self.service, **row}).scalar_one()

    def reserve(self, row: dict, since: datetime, verdict: Callable[[list[tuple[datetime, list[str]]]], Any]
                ) -> tuple[int, Any]:
        """Add a request's ``row`` atomically, whichever process sharing the store asks: with the student's lock
        held (PostgreSQL: an advisory lock on their name; SQLite: the database's write lock), their attempts since
        ``since`` (:meth:`counted`) are given to ``verdict``, which returns None (the attempt is taken: the row is
        ``pending``) or a refusal (its ``reason`` and ``next_allowed`` are recorded: ``refused``).  Returns the
        row's id and the refusal."""
        with self._locked(f"student {row['user']}") as db:
            refusal = verdict(self._counted(db, row["user"], row["assignment"], since))
            outcome = {"outcome": "pending"} if refusal is None else {
                "outcome": "refused", "refusal": refusal.reason, "next_allowed": stamp(refusal.next_allowed)}
            return self._add(db, row | outcome), refusal

    def _locked(self, what: str):
        """A transaction holding ``what``'s lock in this store (:func:`reading_maths.databases.locked`)."""
        return locked(self.engine, f"checks: {what}")

    def finish(self, check_id: int, outcome: str, result: dict | Encoded | None, shown: dict | Encoded | None,
               reason: str | None = None) -> None:
        """The end of a pending check: ``graded`` with its result (plain data, or :func:`encoded` already), or
        ``failed`` with the ``reason``."""
        result = encoded(result) if isinstance(result, dict) and result else result or None
        shown = encoded(shown) if isinstance(shown, dict) and shown else shown or None
        with self.engine.begin() as db:
            db.execute(FINISH, {"check_id": check_id, "outcome": outcome, "finished_at": stamp(now()),
                                "result": result.text if result else None, "shown": shown.text if shown else None,
                                "score": result.score if result else None,
                                "max_score": result.max_score if result else None, "refusal": bounded(reason)})

    def counted(self, user: str, assignment: str, since: datetime) -> list[tuple[datetime, list[str]]]:
        """The attempts ``user`` used on ``assignment`` since ``since``: (when, questions), oldest first."""
        with self.engine.connect() as db:
            return self._counted(db, user, assignment, since)

    @staticmethod
    def _counted(db: Connection, user: str, assignment: str, since: datetime) -> list[tuple[datetime, list[str]]]:
        rows = db.execute(COUNTED, {"user": user, "assignment": assignment, "since": stamp(since)})
        return [(datetime.fromisoformat(r.asked_at), json.loads(r.questions)) for r in rows]

    def get(self, check_id: int) -> dict | None:
        with self.engine.connect() as db:
            row = db.execute(select(CHECKS).where(CHECKS.c.id == check_id)).first()
        return _plain(row) if row else None

    def listing(self, user: str | None = None) -> list[dict]:
        """Every request, newest first: ``user``'s only, or everyone's (``None``)."""
        query = select(CHECKS).order_by(CHECKS.c.id.desc())
        with self.engine.connect() as db:
            rows = db.execute(query if user is None else query.where(CHECKS.c.user == user)).all()
        return [_plain(r) for r in rows]


def _plain(row) -> dict:
    data = {column: row._mapping[column] for column in COLUMNS}
    for key in ("questions", "result", "shown"):
        data[key] = json.loads(data[key]) if data[key] else None
    return data


def export(where: str | Path, fmt: str = "csv") -> str:
    """The whole database (a file or a URL) as CSV (one row per request; result and shown as JSON text) or JSON
    lines, oldest first."""
    store = Store(where)
    try:
        rows = list(reversed(store.listing()))
    finally:
        store.close()
    if fmt == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in r.items()})
    return out.getvalue()
