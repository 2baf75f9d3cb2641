"""The service stores' databases: SQLite on one machine, PostgreSQL where several processes share one.

:func:`engine_for` makes an engine whose SQLite transactions are begun by us (WAL, no fsync per row), and
:func:`locked` a transaction that holds a named lock which every process sharing the database waits for: an
advisory lock on PostgreSQL (:func:`lock_key`), SQLite's write lock (``BEGIN IMMEDIATE``) on SQLite.  The checks
store counts a student's attempts under it, the exchange store a student's submissions, so that two processes
never both count before either adds.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL


def engine_for(url: URL) -> Engine:
    """An engine for ``url``: SQLite with our own transactions (:func:`locked` can take the write lock when one
    begins), or a server's, its connections checked before use."""
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False})
    event.listen(engine, "connect", _sqlite_settings)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def lock_key(what: str) -> int:
    """The key of ``what``'s PostgreSQL advisory lock (one 64-bit number): a hash of ``what``."""
    return int.from_bytes(hashlib.sha256(f"reading-maths: {what}".encode()).digest()[:8], "big", signed=True)


@contextlib.contextmanager
def locked(engine: Engine, what: str) -> Iterator[Connection]:
    """A transaction holding ``what``'s lock, which other processes wait for: on PostgreSQL an advisory lock
    (:func:`lock_key`), on SQLite the database's write lock, taken when it begins."""
    with engine.connect() as db:
        db.execution_options(write_lock=True)
        with db.begin():
            if engine.dialect.name != "sqlite":
                db.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key(what)})
            yield db


def _sqlite_settings(connection, _record) -> None:
    """SQLite: transactions begun by :func:`_sqlite_begin` (not by pysqlite), WAL without an fsync per row (a crash
    keeps the file whole)."""
    connection.isolation_level = None
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")


def _sqlite_begin(db: Connection) -> None:
    """A transaction that takes SQLite's write lock when it begins where :func:`locked` asks."""
    db.exec_driver_sql("BEGIN IMMEDIATE" if db.get_execution_options().get("write_lock") else "BEGIN")
