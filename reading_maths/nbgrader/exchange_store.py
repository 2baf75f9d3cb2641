"""The exchange service's store (hub/exchange.py): releases, submissions and feedback in one database through
SQLAlchemy (SQLite on one machine, PostgreSQL on a cluster), every file a row, so the service keeps no folder.

The rules a request must pass whatever its client sends are here: ids are checked (:data:`ID`), every file's
path must stay inside its folder and every file is bounded (:func:`check_files`), a student keeps at most
:data:`MAX_SUBMISSIONS` submissions of an assignment. A submission's student and time are arguments given by the
service (the hub's user, the service's clock), never read from what was sent.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    delete,
    func,
    insert,
    make_url,
    select,
)

from reading_maths.databases import engine_for, locked
from reading_maths.inputs import MAX_BYTES
from reading_maths.nbgrader.gather import STUDENT_ID as ID
from reading_maths.nbgrader.times import FORMAT

MAX_FILES = 200
"""The most files one release, submission or feedback may hold."""
MAX_TOTAL = 50 << 20
"""The most bytes (decoded) one release, submission or feedback may hold."""
MAX_SUBMISSIONS = 100
"""The most submissions a student keeps of one assignment (each stays until the course is over)."""
MAX_KEPT = 4 * MAX_TOTAL
"""The most bytes a student's submissions of one assignment may hold in all (a notebook is kilobytes)."""
MAX_PATH = 1000
MAX_DEPTH = 16
"""The most parts a file's name may have: a folder nested deeper is no assignment's, and copying one (collect's
``shutil.copytree`` recurses per level) would exhaust Python's stack."""

metadata = MetaData()
_id = String(64)
releases = Table("exchange_release", metadata,
                 Column("course", _id, primary_key=True), Column("assignment", _id, primary_key=True),
                 Column("released_at", DateTime, nullable=False))
release_files = Table("exchange_release_file", metadata,
                      Column("course", _id, primary_key=True), Column("assignment", _id, primary_key=True),
                      Column("path", String(MAX_PATH), primary_key=True),
                      Column("content", LargeBinary, nullable=False))
submissions = Table("exchange_submission", metadata,
                    Column("id", Integer, primary_key=True, autoincrement=True),
                    Column("course", _id, nullable=False), Column("assignment", _id, nullable=False),
                    Column("student", _id, nullable=False), Column("submitted_at", DateTime, nullable=False),
                    Index("exchange_submission_by_student", "course", "assignment", "student"))
submission_files = Table("exchange_submission_file", metadata,
                         Column("submission", Integer, ForeignKey("exchange_submission.id"), primary_key=True),
                         Column("path", String(MAX_PATH), primary_key=True),
                         Column("content", LargeBinary, nullable=False))
feedback = Table("exchange_feedback", metadata,
                 Column("course", _id, primary_key=True), Column("assignment", _id, primary_key=True),
                 Column("student", _id, primary_key=True), Column("path", String(MAX_PATH), primary_key=True),
                 Column("content", LargeBinary, nullable=False), Column("released_at", DateTime, nullable=False))


class Refused(Exception):
    """A request the store does not carry out: ``status`` (HTTP) and the reason, one line."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


def shown(text: str, limit: int = 120) -> str:
    """``text`` as one printable line (control characters as escapes), cut to ``limit`` characters."""
    return text.encode("unicode_escape").decode("ascii")[:limit]


def path_problem(path: object) -> str | None:
    """Why ``path`` cannot name a file inside a folder (absolute, ``..``, ``.``, empty parts, control characters,
    too long or too deep, not UTF-8), or None."""
    if not isinstance(path, str) or not path:
        return "a file has no name"
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON's escape for U+D800 carries one): no file can be named so
        return f"{shown(path)!r} is not a name in UTF-8"
    if len(path) > MAX_PATH or any(len(part.encode()) > 255 for part in path.split("/")):
        return f"{shown(path)} is too long a name"
    if path.count("/") >= MAX_DEPTH:
        return f"{shown(path)} is nested more than {MAX_DEPTH} deep"
    if any(ch < " " or ch in "\x7f\\" for ch in path):
        return f"{shown(path)!r} holds a control character or a backslash"
    if path.startswith("/"):
        return f"{shown(path)} is an absolute path: it would leave the submission's folder"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return f"{shown(path)} has an empty, '.' or '..' part: it would leave the submission's folder"
    return None


def check_id(value: object, what: str) -> str:
    """``value`` when it can be a course, assignment or student id; else :class:`Refused`."""
    if not isinstance(value, str) or not ID.match(value):
        raise Refused(400, f"{shown(str(value))!r} cannot be {what}")
    return value


def check_files(files: object) -> dict[str, bytes]:
    """``files`` as sent (``[{"path": ..., "content": base64}]``) as path -> bytes, every rule checked; else
    :class:`Refused` naming the first file that breaks one."""
    if not isinstance(files, list) or not files:
        raise Refused(400, "no files were sent")
    if len(files) > MAX_FILES:
        raise Refused(413, f"{len(files)} files: at most {MAX_FILES} are kept")
    found: dict[str, bytes] = {}
    for entry in files:
        if not isinstance(entry, dict):
            raise Refused(400, "a file is sent as its path and its content, nothing else")
        path, content = entry.get("path"), entry.get("content")
        if (why := path_problem(path)) is not None or not isinstance(path, str):
            raise Refused(400, why or "a file has no name")
        try:
            data = base64.b64decode(content.encode("ascii"), validate=True) if isinstance(content, str) else None
        except (binascii.Error, UnicodeEncodeError):
            data = None
        if data is None:
            raise Refused(400, f"{shown(path)}: its content is not base64 (only regular files are sent)")
        if len(data) > MAX_BYTES:
            raise Refused(413, f"{shown(path)} is larger than {MAX_BYTES >> 20} MiB")
        if path in found:
            raise Refused(400, f"{shown(path)} is sent twice")
        found[path] = data
    for path in found:
        if any(path.startswith(other + "/") for other in found):
            raise Refused(400, f"{shown(path)} is inside another file: a name is a file or a folder, not both")
    if sum(map(len, found.values())) > MAX_TOTAL:
        raise Refused(413, f"the files hold more than {MAX_TOTAL >> 20} MiB")
    return found


def packed(rows) -> list[dict]:
    """``(path, content)`` rows as sent over HTTP."""
    return [{"path": path, "content": base64.b64encode(content).decode("ascii")} for path, content in rows]


def stamp(moment: datetime) -> str:
    return moment.strftime(FORMAT)


class Store:
    """The exchange's database at ``url`` (its tables made when missing)."""

    def __init__(self, url: str):
        self.engine = engine_for(make_url(url))
        metadata.create_all(self.engine)

    def release(self, course: str, assignment: str, files: dict[str, bytes], now: datetime) -> None:
        """Release ``assignment`` of ``course`` as ``files``, replacing an earlier release."""
        key = {"course": course, "assignment": assignment}
        with self.engine.begin() as db:
            for table in (release_files, releases):
                db.execute(delete(table).filter_by(**key))
            db.execute(insert(releases).values(**key, released_at=now))
            db.execute(insert(release_files), [key | {"path": p, "content": c} for p, c in files.items()])

    def released(self, course: str) -> list[dict]:
        """Each released assignment of ``course``: its id, time and file names."""
        with self.engine.connect() as db:
            rows = db.execute(select(releases.c.assignment, releases.c.released_at).filter_by(course=course)
                              .order_by(releases.c.assignment)).all()
            names = db.execute(select(release_files.c.assignment, release_files.c.path).filter_by(course=course)
                               .order_by(release_files.c.path)).all()
        return [{"assignment": a, "released_at": stamp(when), "files": [p for b, p in names if b == a]}
                for a, when in rows]

    def is_released(self, course: str, assignment: str) -> bool:
        """Whether ``assignment`` is released in ``course`` (no file read: a submission asks this each time)."""
        with self.engine.connect() as db:
            return db.execute(select(releases.c.assignment).filter_by(course=course, assignment=assignment)
                              ).first() is not None

    def release_files(self, course: str, assignment: str) -> list[dict] | None:
        """The files of a release, or None when ``assignment`` is not released."""
        with self.engine.connect() as db:
            rows = db.execute(select(release_files.c.path, release_files.c.content)
                              .filter_by(course=course, assignment=assignment)).all()
        return packed(rows) if rows else None

    def submit(self, course: str, assignment: str, student: str, files: dict[str, bytes], now: datetime) -> dict:
        """Keep a submission of ``student`` made at ``now``; its id and time."""
        key = {"course": course, "assignment": assignment, "student": student}
        theirs = [submissions.c[k] == v for k, v in key.items()]
        with locked(self.engine, f"exchange: {course} {assignment} {student}") as db:  # counted, then added
            kept = db.execute(select(func.count()).select_from(submissions).where(*theirs)).scalar_one()
            if kept >= MAX_SUBMISSIONS:
                raise Refused(429, f"{student} has {kept} submissions of {assignment}, the most kept")
            sizes = func.coalesce(func.sum(func.length(submission_files.c.content)), 0)
            held = db.execute(select(sizes).join_from(submissions, submission_files).where(*theirs)).scalar_one()
            if held + sum(map(len, files.values())) > MAX_KEPT:
                raise Refused(413, f"{student}'s submissions of {assignment} would hold more than "
                                   f"{MAX_KEPT >> 20} MiB in all")
            number = db.execute(insert(submissions).values(**key, submitted_at=now).returning(submissions.c.id)
                                ).scalar_one()
            db.execute(insert(submission_files), [{"submission": number, "path": p, "content": c}
                                                  for p, c in files.items()])
        return {"id": number, "student": student, "timestamp": stamp(now)}

    def submissions(self, course: str, assignment: str, student: str | None = None) -> list[dict]:
        """Every submission of ``assignment`` (only ``student``'s, if given): id, student and time."""
        query = (select(submissions.c.id, submissions.c.student, submissions.c.submitted_at)
                 .filter_by(course=course, assignment=assignment).order_by(submissions.c.id))
        if student is not None:
            query = query.filter_by(student=student)
        with self.engine.connect() as db:
            return [{"id": n, "student": s, "timestamp": stamp(t)} for n, s, t in db.execute(query).all()]

    def submission(self, course: str, assignment: str, number: int) -> dict | None:
        """One submission with its files, or None."""
        with self.engine.connect() as db:
            row = db.execute(select(submissions.c.student, submissions.c.submitted_at)
                             .filter_by(course=course, assignment=assignment, id=number)).first()
            if row is None:
                return None
            files = db.execute(select(submission_files.c.path, submission_files.c.content)
                               .filter_by(submission=number)).all()
        return {"id": number, "student": row[0], "timestamp": stamp(row[1]), "files": packed(files)}

    def give_feedback(self, course: str, assignment: str, student: str, files: dict[str, bytes],
                      now: datetime) -> None:
        """Keep feedback for ``student`` (a file of the same name replaced, others kept: one per submission)."""
        key = {"course": course, "assignment": assignment, "student": student}
        with self.engine.begin() as db:
            db.execute(delete(feedback).filter_by(**key).where(feedback.c.path.in_(list(files))))
            db.execute(insert(feedback), [key | {"path": p, "content": c, "released_at": now}
                                          for p, c in files.items()])

    def feedback_for(self, course: str, student: str) -> list[dict]:
        """All of ``student``'s feedback in ``course``, each file with its assignment."""
        with self.engine.connect() as db:
            rows = db.execute(select(feedback.c.assignment, feedback.c.path, feedback.c.content)
                              .filter_by(course=course, student=student).order_by(feedback.c.path)).all()
        return [{"assignment": a} | packed([(p, c)])[0] for a, p, c in rows]
