"""One gradebook session for a whole batch: nbgrader's converter and preprocessors, committing once per student.

Recording one student through nbgrader's ``Autograde`` converter opens ``Gradebook(db_url)`` about ten
times (each open runs SQLAlchemy's ``create_all`` and nbgrader's ``check_course``) and commits about
33 times, once per cell in ``SaveAutoGrades`` (each commit an ``fsync``). While :func:`batch_gradebook`
is active, every ``Gradebook(...)`` that nbgrader's recording modules (and :mod:`.steps`) construct is
instead a handle on one shared :class:`~nbgrader.api.Gradebook`:

- leaving its ``with`` block does not close it;
- its ``gb.db.commit()`` sends the SQL (``flush``: the next query sees it) and expires the loaded
  objects, as a commit does, so nbgrader re-reads computed columns (a notebook's score for the late
  penalty) exactly as its fresh sessions would; it does not commit;
- ``Gradebook(db_url)`` with nbgrader's default course id still runs ``check_course`` once, so the
  gradebook's rows are the same as nbgrader's own run leaves.

On SQLite each transaction of the batch session takes the database's write lock when it begins
(``BEGIN IMMEDIATE``) and other writers (formgrader, another nbgrader command) wait for it, and it for
them, up to :data:`LOCK_WAIT` seconds: two writers never hold read locks they both need to upgrade
(SQLite would refuse one of them at once rather than let them wait for each other).

:meth:`BatchGradebook.commit` commits for real (once per student); :meth:`BatchGradebook.rollback`
drops what a refused student's conversion had written. nbgrader's code runs unchanged; only the
name ``Gradebook`` in its modules points here for the duration of the batch.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from typing import Any

from nbgrader.api import Gradebook
from sqlalchemy import event

PATCHED = (
    "nbgrader.converters.autograde",          # init_assignment: student, submission, timestamp, missing notebooks
    "nbgrader.preprocessors.overwritekernelspec",
    "nbgrader.preprocessors.overwritecells",
    "nbgrader.preprocessors.saveautogrades",  # one commit per cell
    "nbgrader.preprocessors.latesubmissions",
    "reading_maths.nbgrader.steps",           # SaveFeedbackComments
)
"""The modules whose ``Gradebook`` is the batch's session while :func:`batch_gradebook` is active."""

LOCK_WAIT = 600
"""Seconds a recording waits for another program's write to the gradebook to commit before it gives up."""


def _write_lock_per_transaction(engine: Any) -> None:
    """On SQLite, begin every transaction of ``engine`` with ``BEGIN IMMEDIATE`` (SQLAlchemy's recipe:
    pysqlite's own implicit ``BEGIN`` switched off), waiting up to :data:`LOCK_WAIT` for the lock."""
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute(f"PRAGMA busy_timeout = {LOCK_WAIT * 1000}")

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    engine.dispose()  # the connections nbgrader's Gradebook opened are made again, with these settings


class _DeferredSession:
    """A SQLAlchemy session whose ``commit`` flushes and expires instead of committing."""

    def __init__(self, session: Any):
        self._session = session

    def commit(self) -> None:
        self._session.flush()
        self._session.expire_all()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class _Handle:
    """What ``Gradebook(...)`` returns inside the batch: the shared gradebook, which ``with`` leaves open."""

    def __init__(self, gradebook: Gradebook):
        self._gradebook = gradebook

    def __enter__(self) -> _Handle:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gradebook, name)


class BatchGradebook:
    """One :class:`~nbgrader.api.Gradebook` session for a batch; see the module docstring."""

    def __init__(self, db_url: str, course_id: str):
        self.db_url = db_url
        self.gradebook = Gradebook(db_url, course_id)
        _write_lock_per_transaction(self.gradebook.engine)
        self._session = self.gradebook.db
        self.gradebook.db = _DeferredSession(self._session)
        self._courses = {course_id}

    def open(self, db_url: str, course_id: str = "default_course", authenticator: Any = None) -> Any:
        """Stands in for ``Gradebook(db_url, course_id)`` in nbgrader's modules: this batch's session."""
        if db_url != self.db_url or authenticator is not None:
            return Gradebook(db_url, course_id, authenticator)
        if course_id not in self._courses:
            self.gradebook.check_course(course_id)  # nbgrader's own open creates the course row if missing
            self._courses.add(course_id)
        return _Handle(self.gradebook)

    def commit(self) -> None:
        """Commit everything recorded since the last commit (one ``fsync``)."""
        self._session.commit()

    def rollback(self) -> None:
        """Drop everything recorded since the last commit."""
        self._session.rollback()

    def close(self) -> None:
        self.rollback()
        self.gradebook.db = self._session
        self.gradebook.close()


@contextlib.contextmanager
def batch_gradebook(db_url: str, course_id: str) -> Iterator[BatchGradebook]:
    """One gradebook session that nbgrader's recording uses for the whole ``with`` block; uncommitted work
    is dropped when it ends. Not thread-safe: record from one thread (the batch's callbacks do)."""
    batch = BatchGradebook(db_url, course_id)
    modules = [importlib.import_module(name) for name in PATCHED]
    originals = [module.Gradebook for module in modules]
    try:
        for module in modules:
            module.Gradebook = batch.open
        yield batch
    finally:
        for module, original in zip(modules, originals, strict=True):
            module.Gradebook = original
        batch.close()
