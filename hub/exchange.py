"""The exchange service: nbgrader's exchange over HTTP for a hub whose servers share no disk (docs/exchange.md).

JupyterHub starts it (hub/jupyterhub_config.py) when the course's ``nbgrader_config.py`` says
``c.CourseExchange.kind = "service"``; each server's nbgrader reaches it through the classes of
:mod:`reading_maths.nbgrader.served`, with that server's ``$JUPYTERHUB_API_TOKEN``. Under
/services/exchange/api/courses/:

    GET  .                                  the caller's courses
    GET  <course>/releases                  the released assignments and their file names
    GET  <course>/releases/<a>              a release's files;   PUT: release it (the instructor)
    GET  <course>/submissions/<a>           the caller's submissions (the instructor's: everyone's)
    POST <course>/submissions/<a>           submit: the caller's, at the service's time
    GET  <course>/submissions/<a>/<id>      one submission's files (the instructor)
    PUT  <course>/feedback/<a>/<student>    release a student's feedback (the instructor)
    GET  <course>/feedback                  the caller's own feedback

Who calls is who the hub says the token belongs to; nothing in a request names its owner or its time. The
course's instructors are ``$READING_MATHS_EXCHANGE_INSTRUCTORS``; its students are its class list, the students
in its gradebook (``nbgrader db student add``), read on every request, so adding or removing a student there
is all enrolment takes. Anyone else gets 403 for the course and nothing of it. The store and its rules
(paths, sizes, ids) are :mod:`reading_maths.nbgrader.exchange_store`'s, in ``$READING_MATHS_EXCHANGE_DB``.
Run as ``python -m hub.exchange`` with the environment JupyterHub gives a service plus
``$READING_MATHS_COURSE`` (the course folders, separated by ``:``).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

from jupyterhub.services.auth import HubAuthenticated, UserNotAllowed
from jupyterhub.utils import url_path_join
from sqlalchemy import create_engine, make_url, text
from tornado import web

from reading_maths.nbgrader.exchange_store import MAX_TOTAL, Refused, Store, check_files, check_id

MAX_BODY = MAX_TOTAL * 4 // 3 + (1 << 20)
"""The largest request read: the largest set of files, base64-encoded, and room for the JSON around it."""
BODY_TIMEOUT = 300
"""Seconds a request's body may take to arrive, and a connection may stay idle (a slow sender holds no socket
for longer)."""


@dataclass
class Course:
    """A course the service serves: its id, its instructors and where its class list is."""

    id: str
    instructors: frozenset[str]
    gradebook: str

    def students(self) -> set[str]:
        """The class list, read now from the gradebook (a missing or unreadable one enrols nobody; a SQLite file is
        opened read-only, so none is made where there was none)."""
        url = make_url(self.gradebook)
        if url.get_backend_name() == "sqlite" and url.database:
            url = url.set(database=f"file:{url.database}", query={"mode": "ro", "uri": "true"})
        engine = create_engine(url)
        try:
            with engine.connect() as db:
                return {name for (name,) in db.execute(text("SELECT id FROM student"))}
        except Exception:  # noqa: BLE001 - a missing or locked gradebook: nobody is enrolled, the service runs
            return set()
        finally:
            engine.dispose()


def now() -> datetime:
    """The service's clock: naive UTC, as nbgrader keeps times."""
    return datetime.now(UTC).replace(tzinfo=None)


@web.stream_request_body
class Api(HubAuthenticated, web.RequestHandler):
    """Every route: the caller identified by the hub (asynchronously) from the request's headers, before any of
    its body is read (a body is streamed in only for a caller the hub knows, and only for PUT and POST); every
    refusal as JSON."""

    async def prepare(self):
        self.chunks: list[bytes] = []
        self.received = 0
        model = await self.hub_auth.get_user(self, sync=False)
        try:
            self.caller = self.check_hub_user(model) if model and model.get("kind") == "user" else None
        except UserNotAllowed:
            self.caller = None
        if self.caller is None:
            raise web.HTTPError(403)
        self.name = self.caller["name"]
        headers = self.request.headers
        announced = headers.get("Content-Length", "0") != "0" or "Transfer-Encoding" in headers
        if self.request.method not in ("PUT", "POST") and announced:
            raise web.HTTPError(400, reason="only PUT and POST send a body")

    def data_received(self, chunk: bytes) -> None:
        self.received += len(chunk)
        if self.received > MAX_BODY:
            raise web.HTTPError(413)
        self.chunks.append(chunk)

    def write_error(self, status_code: int, **kwargs) -> None:
        self.finish({"refused": self._reason})

    def refuse(self, refused: Refused):
        self.set_status(refused.status)
        self.finish({"refused": refused.reason})

    async def run(self, work, *args):
        """``work(*args)`` in a thread (the store and the gradebook block); a refusal answered as JSON."""
        try:
            return await asyncio.get_running_loop().run_in_executor(None, work, *args)
        except Refused as refused:
            self.refuse(refused)
            return None

    @property
    def store(self) -> Store:
        return self.settings["store"]

    def course(self, course_id: str) -> Course:
        course = self.settings["courses"].get(course_id)
        if course is None:
            raise Refused(404, f"no course {course_id!r} here")
        return course

    def role(self, course_id: str) -> tuple[Course, str]:
        """The course and the caller's part in it ("instructor" or "student"); else Refused (403)."""
        course = self.course(course_id)
        if self.name in course.instructors:
            return course, "instructor"
        if self.name in course.students():
            return course, "student"
        raise Refused(403, f"{self.name} is not in course {course_id}")

    def instructor(self, course_id: str) -> Course:
        course, part = self.role(course_id)
        if part != "instructor":
            raise Refused(403, f"only the course's instructors may do that, not {self.name}")
        return course

    def body_files(self) -> dict[str, bytes]:
        """The files sent, checked (exchange_store.check_files). A request sends files and nothing else: one that
        names an owner, a time or anything more is refused, not trimmed."""
        try:
            body = json.loads(b"".join(self.chunks) or b"{}")
        except (ValueError, RecursionError):  # RecursionError: arrays nested deeper than Python's stack
            raise Refused(400, "the body is not JSON (or nested too deep)") from None
        if not isinstance(body, dict) or set(body) != {"files"} or self.request.query:
            raise Refused(400, "a request sends its files and nothing else: the owner and the time are the service's")
        return check_files(body["files"])

    def answer(self, result) -> None:
        if result is not None and not self._finished:
            self.finish(result)


class Courses(Api):
    async def get(self):
        def mine():
            return {"courses": sorted(c for c in self.settings["courses"] if self._member(c))}

        self.answer(await self.run(mine))

    def _member(self, course_id: str) -> bool:
        try:
            self.role(course_id)
        except Refused:
            return False
        return True


class Releases(Api):
    async def get(self, course_id: str):
        def listed():
            self.role(course_id)
            return {"releases": self.store.released(course_id)}

        self.answer(await self.run(listed))


class Release(Api):
    async def get(self, course_id: str, assignment: str):
        def files():
            self.role(course_id)
            found = self.store.release_files(course_id, assignment)
            if found is None:
                raise Refused(404, f"{assignment!r} is not released in {course_id}")
            return {"files": found}

        self.answer(await self.run(files))

    async def put(self, course_id: str, assignment: str):
        def release():
            self.instructor(course_id)
            self.store.release(course_id, check_id(assignment, "an assignment id"), self.body_files(), now())
            return {"released": assignment}

        self.answer(await self.run(release))


class Submissions(Api):
    async def get(self, course_id: str, assignment: str):
        def listed():
            _, part = self.role(course_id)
            who = None if part == "instructor" else self.name
            return {"submissions": self.store.submissions(course_id, assignment, who)}

        self.answer(await self.run(listed))

    async def post(self, course_id: str, assignment: str):
        def submit():
            self.role(course_id)
            if not self.store.is_released(course_id, assignment):
                raise Refused(404, f"{assignment!r} is not released in {course_id}")
            return self.store.submit(course_id, assignment, check_id(self.name, "a student id"), self.body_files(),
                                     now())

        self.answer(await self.run(submit))


class Submission(Api):
    async def get(self, course_id: str, assignment: str, number: str):
        def files():
            self.instructor(course_id)
            found = self.store.submission(course_id, assignment, int(number))
            if found is None:
                raise Refused(404, f"no submission {number} of {assignment!r}")
            return found

        self.answer(await self.run(files))


class MyFeedback(Api):
    async def get(self, course_id: str):
        def mine():
            self.role(course_id)
            return {"feedback": self.store.feedback_for(course_id, self.name)}

        self.answer(await self.run(mine))


class GiveFeedback(Api):
    async def put(self, course_id: str, assignment: str, student: str):
        def give():
            self.instructor(course_id)
            if not self.store.submissions(course_id, assignment, student):
                raise Refused(404, f"{student!r} has no submission of {assignment!r}")
            self.store.give_feedback(course_id, assignment, student, self.body_files(), now())
            return {"feedback": student}

        self.answer(await self.run(give))


def make_app(store: Store, courses: dict[str, Course], prefix: str) -> web.Application:
    part = r"([^/]+)"
    routes = [("api/courses/?", Courses), (f"api/courses/{part}/releases", Releases),
              (f"api/courses/{part}/releases/{part}", Release),
              (f"api/courses/{part}/submissions/{part}", Submissions),
              (rf"api/courses/{part}/submissions/{part}/(\d+)", Submission),
              (f"api/courses/{part}/feedback", MyFeedback),
              (f"api/courses/{part}/feedback/{part}/{part}", GiveFeedback)]
    return web.Application([(url_path_join(prefix, path), handler) for path, handler in routes],
                           store=store, courses=courses)


def courses_from_environment() -> dict[str, Course]:
    """The courses in ``$READING_MATHS_COURSE``: each one's id and gradebook from its ``nbgrader_config.py``."""
    from reading_maths.nbgrader.environment import course_directory

    instructors = frozenset(n for n in os.environ.get("READING_MATHS_EXCHANGE_INSTRUCTORS", "").split(",") if n)
    found = {}
    for root in os.environ["READING_MATHS_COURSE"].split(os.pathsep):
        coursedir = course_directory(Path(root))
        found[coursedir.course_id] = Course(coursedir.course_id, instructors, coursedir.db_url)
    return found


async def serve() -> None:
    courses = courses_from_environment()
    first = Path(os.environ["READING_MATHS_COURSE"].split(os.pathsep)[0])
    store = Store(os.environ.get("READING_MATHS_EXCHANGE_DB") or f"sqlite:///{first / 'exchange-service.sqlite'}")
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    make_app(store, courses, prefix).listen(url.port, url.hostname, max_body_size=MAX_BODY, body_timeout=BODY_TIMEOUT,
                                            idle_connection_timeout=BODY_TIMEOUT)
    print(json.dumps({"serving": prefix, "courses": sorted(courses)}), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve())
