"""Every check asked for, kept in SQLite: who, when, the notebook's sha256, the outcome and the result.

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
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS checks (
    id INTEGER PRIMARY KEY,
    user TEXT NOT NULL,
    assignment TEXT,
    notebook TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    asked_at TEXT NOT NULL,
    finished_at TEXT,
    questions TEXT NOT NULL DEFAULT '[]',
    outcome TEXT NOT NULL,
    score REAL,
    max_score REAL,
    result TEXT,
    shown TEXT,
    refusal TEXT,
    next_allowed TEXT,
    size INTEGER
);
CREATE INDEX IF NOT EXISTS checks_by_user ON checks (user, assignment, asked_at);
"""
COUNTING = ("pending", "graded")
"""Outcomes that use up an attempt."""
COLUMNS = ("id", "user", "assignment", "notebook", "sha256", "asked_at", "finished_at", "questions", "outcome",
           "score", "max_score", "result", "shown", "refusal", "next_allowed", "size")
MAX_TEXT = 1000
"""Characters kept of any one text in a row (a message, a reason, a notebook's name)."""
MAX_LINES = 30
"""Messages kept of any list of them (a notebook's errors, a question's feedback); the rest are counted."""
MAX_QUESTIONS = 50
"""Questions kept of those a request names."""


def bounded(value):
    """``value`` (plain JSON data) with every string cut to :data:`MAX_TEXT` characters and every list of strings
    to :data:`MAX_LINES` items, the last saying how many more there were."""
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


class Store:
    """The checks database at ``path`` (created on first use, readable by its owner only)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        new = not self.path.exists()
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if new:
            self.path.chmod(0o600)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: no fsync per row (a crash keeps the file whole)
        self.db.executescript(SCHEMA)
        if "size" not in {r["name"] for r in self.db.execute("PRAGMA table_info(checks)")}:
            self.db.execute("ALTER TABLE checks ADD COLUMN size INTEGER")  # a record kept before sizes were

    def close(self) -> None:
        self.db.close()

    def abandon_pending(self) -> None:
        """Checks left pending by a service that stopped mid-way: failed, so they count against nobody."""
        self.db.execute("UPDATE checks SET outcome = 'failed' WHERE outcome = 'pending'")

    def pending(self, user: str) -> bool:
        found = self.db.execute("SELECT 1 FROM checks WHERE user = ? AND outcome = 'pending'", (user,)).fetchone()
        return found is not None

    def add(self, **row) -> int:
        if row.get("questions") is not None:  # only a question of the assignment counts, and it has few
            row["questions"] = [bounded(q) for q in row["questions"][:MAX_QUESTIONS]]
        row = {k: json.dumps(v if k == "questions" else bounded(v)) if k in ("questions", "result", "shown")
               and v is not None else bounded(v) for k, v in row.items()}
        names = ", ".join(row)
        cursor = self.db.execute(f"INSERT INTO checks ({names}) VALUES ({', '.join('?' * len(row))})",  # noqa: S608
                                 tuple(row.values()))
        return cursor.lastrowid

    def finish(self, check_id: int, outcome: str, result: dict | Encoded | None, shown: dict | Encoded | None,
               reason: str | None = None) -> None:
        """The end of a pending check: ``graded`` with its result (plain data, or :func:`encoded` already), or
        ``failed`` with the ``reason``."""
        result = encoded(result) if isinstance(result, dict) and result else result or None
        shown = encoded(shown) if isinstance(shown, dict) and shown else shown or None
        self.db.execute("UPDATE checks SET outcome = ?, finished_at = ?, result = ?, shown = ?, score = ?, "
                        "max_score = ?, refusal = ? WHERE id = ?",
                        (outcome, stamp(now()), result.text if result else None, shown.text if shown else None,
                         result.score if result else None, result.max_score if result else None, bounded(reason),
                         check_id))

    def counted(self, user: str, assignment: str, since: datetime) -> list[tuple[datetime, list[str]]]:
        """The attempts ``user`` used on ``assignment`` since ``since``: (when, questions), oldest first."""
        rows = self.db.execute(
            f"SELECT asked_at, questions FROM checks WHERE user = ? AND assignment = ? AND asked_at >= ? "  # noqa: S608
            f"AND outcome IN ({', '.join('?' * len(COUNTING))}) ORDER BY asked_at, id",
            (user, assignment, stamp(since), *COUNTING))
        return [(datetime.fromisoformat(r["asked_at"]), json.loads(r["questions"])) for r in rows]

    def get(self, check_id: int) -> dict | None:
        row = self.db.execute("SELECT * FROM checks WHERE id = ?", (check_id,)).fetchone()
        return _plain(row) if row else None

    def listing(self, user: str | None = None) -> list[dict]:
        """Every request, newest first: ``user``'s only, or everyone's (``None``)."""
        if user is None:
            rows = self.db.execute("SELECT * FROM checks ORDER BY id DESC")
        else:
            rows = self.db.execute("SELECT * FROM checks WHERE user = ? ORDER BY id DESC", (user,))
        return [_plain(r) for r in rows]


def _plain(row: sqlite3.Row) -> dict:
    data = dict(row)
    for key in ("questions", "result", "shown"):
        data[key] = json.loads(data[key]) if data[key] else None
    return data


def export(path: Path, fmt: str = "csv") -> str:
    """The whole database as CSV (one row per request; result and shown as JSON text) or JSON lines, oldest first."""
    store = Store(path)
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
