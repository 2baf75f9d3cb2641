"""One gradebook session for a whole batch: nbgrader's converter and preprocessors, committing about once a second.

Recording one student through nbgrader's ``Autograde`` converter opens ``Gradebook(db_url)`` about ten
times (each open runs SQLAlchemy's ``create_all`` and nbgrader's ``check_course``) and commits about
33 times, once per cell in ``SaveAutoGrades`` (each commit an ``fsync``). While :func:`batch_gradebook`
is active, every ``Gradebook(...)`` that nbgrader's recording modules (and :mod:`.steps`) construct is
instead a handle on one shared :class:`~nbgrader.api.Gradebook`
(:func:`~reading_maths.nbgrader.patches.gradebooks_opened_by`):

- leaving its ``with`` block does not close it;
- its ``gb.db.commit()`` sends the SQL (``flush``: the next query sees it) and expires the loaded
  objects a recording changes, as a commit does, so nbgrader re-reads computed columns (a notebook's score for
  the late penalty) exactly as its fresh sessions would; it does not commit;
- ``Gradebook(db_url)`` with nbgrader's default course id still runs ``check_course`` once, so the
  gradebook's rows are the same as nbgrader's own run leaves;
- its lookups of the assignment's own definition (``find_notebook``, ``find_source_cell``,
  ``find_graded_cell``: cells, checksums, points, which recording never changes) are read once per batch.

The batch also adds the indexes nbgrader's schema lacks for the lookups recording makes
(:data:`LOOKUP_INDEXES`), so that the last student of a large class is recorded as fast as the first.

On SQLite each transaction of the batch session takes the database's write lock when it begins
(``BEGIN IMMEDIATE``) and other writers (formgrader, another nbgrader command) wait for it, and it for
them, up to :data:`LOCK_WAIT` seconds: two writers never hold read locks they both need to upgrade
(SQLite would refuse one of them at once rather than let them wait for each other).  On PostgreSQL
(``db_url = "postgresql+psycopg://..."``) nothing is needed: a writer waits only for the rows the batch wrote
and has not committed yet, at most about :data:`COMMIT_AFTER`.

Each student is a savepoint (:meth:`BatchGradebook.student`; its ``undo`` drops what a refused student's
conversion had written); :meth:`BatchGradebook.commit` commits for real, about once a second. nbgrader's code
runs unchanged; only the name ``Gradebook`` in its modules points here for the duration of the batch.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from nbgrader import utils as nbutils
from nbgrader.api import (
    Assignment,
    BaseCell,
    Comment,
    Course,
    Grade,
    Gradebook,
    MissingEntry,
    Notebook,
    SubmittedAssignment,
    SubmittedNotebook,
    new_uuid,
)
from sqlalchemy import event, insert

from reading_maths.nbgrader.patches import gradebooks_opened_by

LOCK_WAIT = 600
"""Seconds a recording waits for another program's write to the gradebook to commit before it gives up."""

COMMIT_AFTER = 1.0
"""Seconds of recorded students a batch commits together: each commit is an ``fsync``, and other writers (formgrader,
another nbgrader command) wait for the batch's write lock at most about this long between its commits."""
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


LOOKUP_INDEXES = {
    "grade": "notebook_id",                    # a submitted notebook's grades
    "comment": "notebook_id",                  # and comments
    "submitted_notebook": "assignment_id",     # a submission's notebooks
    "submitted_assignment": "student_id",      # a student's submissions
}
"""Columns nbgrader looks rows up by that its schema leaves without an index (its unique constraints lead
with another column), so that each lookup reads the whole table: recording a student got slower with
every student recorded before."""


def _index_lookups(engine: Any) -> None:
    """Add the :data:`LOOKUP_INDEXES` to the gradebook if they are missing. An index changes no row and no
    query's result (formgrader, ``nbgrader export`` and nbgrader's migrations read the gradebook as before).
    SQLite and PostgreSQL (``CREATE INDEX IF NOT EXISTS``); other databases are left as they are."""
    if engine.dialect.name not in ("sqlite", "postgresql"):
        return
    with engine.begin() as connection:
        for table, column in LOOKUP_INDEXES.items():
            connection.exec_driver_sql(
                f"CREATE INDEX IF NOT EXISTS ix_reading_maths_{table}_{column} ON {table} ({column})")


DEFINITIONS = (Course, Assignment, Notebook, BaseCell)
"""What the assignment is (its notebooks and cells): recording a student never changes these rows."""


class _DeferredSession:
    """A SQLAlchemy session whose ``commit`` flushes and expires instead of committing.

    It expires what a recording writes or computes from what it writes (students, submissions, grades, comments,
    their scores), not the assignment's definition (:data:`DEFINITIONS`), which nbgrader would otherwise read
    again, cell by cell, for every student.
    """

    def __init__(self, session: Any):
        self._session = session

    def commit(self) -> None:
        self._session.flush()
        for instance in list(self._session.identity_map.values()):
            if not isinstance(instance, DEFINITIONS):
                self._session.expire(instance)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class _Definition:
    """One notebook of the assignment as the gradebook defines it (its cells' source, checksums, points), read
    once per batch: nbgrader's recording looks each cell up again for every student (two dozen queries)."""

    def __init__(self, notebook: Any):
        def copy(row: Any, *fields: str) -> SimpleNamespace:
            return SimpleNamespace(**{f: getattr(row, f) for f in fields})

        self.notebook = SimpleNamespace(
            name=notebook.name, kernelspec=notebook.kernelspec,
            source_cells=[copy(c, "name", "cell_type", "locked", "checksum", "source") for c in notebook.source_cells],
            grade_cells=[copy(c, "name", "max_score") for c in notebook.grade_cells],
            solution_cells=[copy(c, "name") for c in notebook.solution_cells],
            task_cells=[copy(c, "name", "max_score") for c in notebook.task_cells])
        self.source_cells = {c.name: c for c in self.notebook.source_cells}
        graded = [*self.notebook.task_cells, *self.notebook.grade_cells]  # a grade cell wins, as in nbgrader
        self.graded_cells = {c.name: c for c in graded}


Layout = list[tuple[str, str, list[tuple[str, str]], list[tuple[str, str]]]]
"""Per notebook of an assignment: its row id, its name, and the ``(cell id, cell name)`` of each cell that gets a grade
row and of each that gets a comment row (:func:`_layout`)."""


def _layout(assignment: Any) -> Layout:
    """What nbgrader's ``add_submission`` mirrors of an assignment: the cells that get a grade row (task cells, grade
    cells) and those that get a comment row (task cells, answer cells); where a name is both, the later one is the
    row nbgrader's ``find_grade`` and ``find_comment`` find."""
    return [(nb.id, nb.name, [(c.id, c.name) for c in (*nb.task_cells, *nb.grade_cells)],
             [(c.id, c.name) for c in (*nb.task_cells, *nb.solution_cells)]) for nb in assignment.notebooks]


NewRows = tuple[str, dict[str, tuple[str, None]], dict[str, tuple[str, None]]]
"""A submitted notebook just added: its row id, and its grade and comment rows by cell name as ``(row id, manual
score)`` (no manual score yet), as :func:`reading_maths.nbgrader.steps.rows_by_cell` reads them."""


@dataclass
class _Known:
    """What a batch reads once, and the rows it has just added for the student being recorded."""

    definitions: dict[tuple[str, str], _Definition] = field(default_factory=dict)
    layouts: dict[str, Layout] = field(default_factory=dict)
    assignments: dict[str, Assignment] = field(default_factory=dict)
    added: dict[tuple[str, str, str], NewRows] = field(default_factory=dict)
    """:meth:`_Handle.added_rows`: cleared at each student"""


class _Handle:
    """What ``Gradebook(...)`` returns inside the batch: the shared gradebook, which ``with`` leaves open, and
    whose lookups of the assignment's definition (which recording never changes) are read once per batch."""

    def __init__(self, gradebook: Gradebook, known: _Known):
        self._gradebook = gradebook
        self._known = known

    def _definition(self, notebook: str, assignment: str) -> _Definition:
        key = (notebook, assignment)
        if key not in self._known.definitions:
            self._known.definitions[key] = _Definition(self._gradebook.find_notebook(notebook, assignment))
        return self._known.definitions[key]

    def find_notebook(self, name: str, assignment: str) -> SimpleNamespace:
        return self._definition(name, assignment).notebook

    def find_source_cell(self, name: str, notebook: str, assignment: str) -> SimpleNamespace:
        try:
            return self._definition(notebook, assignment).source_cells[name]
        except KeyError:
            raise MissingEntry(f"No such source cell: {assignment}/{notebook}/{name}") from None

    def find_graded_cell(self, name: str, notebook: str, assignment: str) -> SimpleNamespace:
        try:
            return self._definition(notebook, assignment).graded_cells[name]
        except KeyError:
            raise MissingEntry(f"No such graded cell: {assignment}/{notebook}/{name}") from None

    def find_assignment(self, name: str) -> Assignment:
        """nbgrader's, read once per batch (recording never changes an assignment's row)."""
        if name not in self._known.assignments:
            self._known.assignments[name] = self._gradebook.find_assignment(name)
        return self._known.assignments[name]

    def add_submission(self, assignment: str, student: str, **kwargs: Any) -> Any:
        """nbgrader's ``add_submission``: the same rows (the submission, and a row per notebook, grade and comment
        of the assignment, every column nbgrader leaves to its defaults), written in four statements rather than
        as an ORM object each. Anything but a timestamp or an extension is left to nbgrader's own."""
        if set(kwargs) - {"timestamp", "extension"}:
            return self._gradebook.add_submission(assignment, student, **kwargs)
        if "timestamp" in kwargs:
            kwargs["timestamp"] = nbutils.parse_utc(kwargs["timestamp"])
        found = self.find_assignment(assignment)
        if assignment not in self._known.layouts:
            self._known.layouts[assignment] = _layout(found)
        submission = {"id": new_uuid(), "assignment_id": found.id,
                      "student_id": self._gradebook.find_student(student).id, **kwargs}
        notebooks, grades, comments = [], [], []
        for notebook_id, name, graded, commented in self._known.layouts[assignment]:
            notebooks.append({"id": new_uuid(), "assignment_id": submission["id"], "notebook_id": notebook_id})
            new = [{"id": new_uuid(), "cell_id": cell, "notebook_id": notebooks[-1]["id"]} for cell, _ in graded]
            said = [{"id": new_uuid(), "cell_id": cell, "notebook_id": notebooks[-1]["id"]} for cell, _ in commented]
            self._known.added[(name, assignment, student)] = (
                notebooks[-1]["id"], {cell: (row["id"], None) for (_, cell), row in zip(graded, new, strict=True)},
                {cell: (row["id"], None) for (_, cell), row in zip(commented, said, strict=True)})
            grades += new
            comments += said
        session = self._gradebook.db
        session.execute(insert(SubmittedAssignment), [submission])
        session.execute(insert(SubmittedNotebook), notebooks)
        for model, rows in ((Grade, grades), (Comment, comments)):
            if rows:
                session.execute(insert(model), rows)
        return self._gradebook.find_submission(assignment, student)

    def added_rows(self, notebook: str, assignment: str, student: str) -> NewRows | None:
        """The rows of a submitted notebook :meth:`add_submission` added for the student being recorded, if it did."""
        return self._known.added.get((notebook, assignment, student))

    def update_or_create_submission(self, assignment: str, student: str, **kwargs: Any) -> Any:
        """nbgrader's, with a new submission made by :meth:`add_submission`."""
        try:
            self._gradebook.find_submission(assignment, student)
        except MissingEntry:
            return self.add_submission(assignment, student, **kwargs)
        return self._gradebook.update_or_create_submission(assignment, student, **kwargs)

    def __enter__(self) -> _Handle:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gradebook, name)


class _Savepoint:
    """A savepoint for one student's recording (:meth:`BatchGradebook.student`)."""

    def __init__(self, session: Any):
        self._session = session
        self.nested = session.begin_nested()

    def undo(self) -> None:
        """Drop what this student's recording wrote so far, and go on from there."""
        self.nested.rollback()
        self.nested = self._session.begin_nested()


class BatchGradebook:
    """One :class:`~nbgrader.api.Gradebook` session for a batch; see the module docstring."""

    def __init__(self, db_url: str, course_id: str):
        self.db_url = db_url
        self.gradebook = Gradebook(db_url, course_id)
        _write_lock_per_transaction(self.gradebook.engine)
        _index_lookups(self.gradebook.engine)
        self._session = self.gradebook.db
        self.gradebook.db = _DeferredSession(self._session)
        self._courses = {course_id}
        self._since: float | None = None
        """when the first student not yet committed was recorded"""
        self._known = _Known()

    def open(self, db_url: str, course_id: str = "default_course", authenticator: Any = None) -> Any:
        """Stands in for ``Gradebook(db_url, course_id)`` in nbgrader's modules: this batch's session."""
        if db_url != self.db_url or authenticator is not None:
            return Gradebook(db_url, course_id, authenticator)
        if course_id not in self._courses:
            self.gradebook.check_course(course_id)  # nbgrader's own open creates the course row if missing
            self._courses.add(course_id)
        return _Handle(self.gradebook, self._known)

    def commit(self) -> None:
        """Commit everything recorded since the last commit (one ``fsync``)."""
        self._session.commit()
        self._since = None

    def rollback(self) -> None:
        """Drop everything recorded since the last commit."""
        self._session.rollback()
        self._since = None

    @contextlib.contextmanager
    def student(self) -> Iterator[_Savepoint]:
        """One student's recording, a savepoint in the batch's transaction: an exception drops all of it, and
        :meth:`_Savepoint.undo` what was written so far. Committed with the others at most :data:`COMMIT_AFTER`
        seconds after the first of them (so a class is a few transactions, not one per student)."""
        savepoint = _Savepoint(self._session)
        self._known.added.clear()
        try:
            yield savepoint
        except BaseException:
            savepoint.nested.rollback()
            raise
        savepoint.nested.commit()
        self._since = self._since or time.monotonic()
        if time.monotonic() - self._since >= COMMIT_AFTER:
            self.commit()

    def close(self) -> None:
        self.rollback()
        self.gradebook.db = self._session
        self.gradebook.close()


@contextlib.contextmanager
def batch_gradebook(db_url: str, course_id: str) -> Iterator[BatchGradebook]:
    """One gradebook session that nbgrader's recording uses for the whole ``with`` block; uncommitted work
    is dropped when it ends. Not thread-safe: record from one thread (the batch's callbacks do)."""
    batch = BatchGradebook(db_url, course_id)
    try:
        with gradebooks_opened_by(batch.open):
            yield batch
    finally:
        batch.close()
