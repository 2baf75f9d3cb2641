"""The checks service: JupyterHub starts it (hub/jupyterhub_config.py), as the instructor, at /services/checks/.

    POST /services/checks/api/checks?path=code/code.ipynb[&questions=softmax,adam]   body: the saved notebook
    GET  /services/checks/api/checks         the caller's checks (the instructor's: everyone's), as JSON
    GET  /services/checks/api/workers        the instructor only: each grading worker's pid and whose check it grades
    GET  /services/checks/api/deadlines      every assignment's due date, the time left or late, the late policy and
                                             the penalty a submission now would cost (read afresh from the course)
    GET  /services/checks/                   the same as a page; /services/checks/checks/<id> one check

Everyone is who the hub says they are (JupyterHub's OAuth: the hub's cookie in a browser, the server's
$JUPYTERHUB_API_TOKEN from a kernel); the grading, the limits and the record are
:class:`reading_maths.checks.desk.Desk`'s.  A student sees only their own checks; the instructor (a hub
admin or a name in ``$READING_MATHS_CHECKS_INSTRUCTORS``) sees every request.  Run as
``python -m hub.checks`` with the environment JupyterHub gives a service plus ``$READING_MATHS_COURSE``.

A check's body is streamed, not buffered by tornado: the caller is known, the size its ``Content-Length``
announces is checked, and the student's turn is taken (one check in flight each) before a byte of it is
read; a body that grows past the limit is refused as it arrives.  Every refusal is recorded.  A request
during a student's cool-down (after a malformed or oversized one) is recorded at once and answered when
the cool-down ends, its body unread.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from urllib.parse import urlparse

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from jupyterhub.utils import url_path_join
from tornado import escape, httputil, template, web

from reading_maths.checks import progress, words
from reading_maths.checks import rules as course_rules
from reading_maths.checks.desk import MAX_NOTEBOOK_BYTES, Desk, Refused
from reading_maths.checks.store import MAX_QUESTIONS, MAX_TEXT, location, now
from reading_maths.grading.engine import Settings
from reading_maths.nbgrader.deadlines import deadlines, roster
from reading_maths.reports.escape import HEADER_POLICY
from reading_maths.sandbox.process import Limits, choose

PAGES = template.Loader(str(Path(__file__).resolve().parent / "checks_pages"), autoescape="xhtml_escape")


class Base(HubOAuthenticated, web.RequestHandler):
    def set_default_headers(self):
        """Every response (pages, JSON, errors) carries the course's Content-Security-Policy: no script, nothing
        loaded from anywhere, not framed (the pages are escaped text and inline styles)."""
        super().set_default_headers()
        self.set_header("Content-Security-Policy", HEADER_POLICY)
        self.set_header("X-Content-Type-Options", "nosniff")

    def write_error(self, status_code: int, **kwargs) -> None:
        """An error as a page anyone can read (a language, a title, a heading), never a traceback."""
        reason = escape.xhtml_escape(httputil.responses.get(status_code, "Error"))
        home = escape.xhtml_escape(self.settings["prefix"])
        self.finish(f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{status_code}: {reason} · '
                    f'reading-maths</title></head><body><main><h1>{status_code}: {reason}</h1><p><a href="{home}">'
                    'Your checks</a></p></main></body></html>')

    def check_xsrf_cookie(self):
        """A token (a kernel's request) needs no XSRF token, a browser's cookie does: tornado checks before it
        asks who the caller is, so ask first."""
        _ = self.current_user
        return super().check_xsrf_cookie()

    @property
    def desk(self) -> Desk:
        return self.settings["desk"]

    @property
    def name(self) -> str:
        return self.current_user["name"]

    @property
    def instructor(self) -> bool:
        return bool(self.current_user.get("admin")) or self.name in self.settings["instructors"]

    def visible(self) -> list[dict]:
        rows = self.desk.store.listing(None if self.instructor else self.name)
        return [self.for_caller(r) for r in rows]

    def for_caller(self, row: dict) -> dict:
        """A row as its reader may see it: the instructor everything but the raw result, a student what they
        were shown."""
        keep = ("id", "user", "assignment", "notebook", "asked_at", "outcome", "refusal", "next_allowed", "shown")
        if self.instructor:
            keep += ("sha256", "size", "score", "max_score", "questions")
        return {k: row[k] for k in keep}

    def page(self, name: str, **values) -> None:
        """A page, its times in the reader's zone (the cookie the hub's JupyterLab sets; UTC without it) and in
        words."""
        where = words.zone(self.get_cookie(words.ZONE_COOKIE))
        self.write(PAGES.load(name).generate(prefix=self.settings["prefix"], me=self.name,
                                             instructor=self.instructor, when=lambda m: words.in_words(m, where),
                                             full=lambda m: words.full(m, where), mark=words.mark,
                                             zone_label=words.zone_label(where), **values))


ANY_BODY = 1 << 40
"""What tornado itself would read of a check's body: the handler refuses past MAX_NOTEBOOK_BYTES first."""
OTHER_BODIES = 64 << 10
"""The most of a body tornado reads for any other request (none of them has one)."""


@web.stream_request_body
class Checks(Base):
    """POST a check (the body streamed to the handler, which bounds it), GET the caller's checks."""

    async def prepare(self):
        self.chunks, self.received, self.turn, self.posting = [], 0, False, False
        if self.request.method != "POST":
            return
        if self.current_user is None:
            raise web.HTTPError(403)
        self.request.connection.set_max_body_size(ANY_BODY)  # refused here, not by tornado (which says nothing)
        self.notebook = self.get_argument("path", "notebook.ipynb")[:MAX_TEXT]
        self.questions = [q[:MAX_TEXT] for q in self.get_argument("questions", "").split(",") if q][:MAX_QUESTIONS]
        try:
            self.desk.admit(self.name, self.notebook, self.questions)
        except Refused as refused:  # answered when the pause ends: a loop of requests is slowed to its pace
            await asyncio.sleep(self.desk.cooling_for(self.name))
            self.refused(refused)
            return
        try:
            announced = int(self.request.headers.get("Content-Length", 0))
            if announced > MAX_NOTEBOOK_BYTES:
                raise self.desk.too_large(self.name, self.notebook, announced, self.questions)
            self.desk.claim(self.name, self.notebook, self.questions)
        except Refused as refused:
            self.refused(refused)
            return
        self.turn = True

    def data_received(self, chunk: bytes):
        if self._finished or self.request.method != "POST":
            return
        self.received += len(chunk)
        if self.received > MAX_NOTEBOOK_BYTES:  # no Content-Length (chunked): refused as it grows
            self.chunks = []
            self.refused(self.desk.too_large(self.name, self.notebook, self.received, self.questions))
            return
        self.chunks.append(chunk)

    def refused(self, refused: Refused) -> None:
        self.set_status(refused.status)
        self.finish(refused.to_json())

    def on_finish(self):
        self.let_go()

    def on_connection_close(self):
        self.let_go()

    def let_go(self) -> None:
        """The student's turn given back, unless their check is with the desk (which gives it back when done)."""
        if getattr(self, "turn", False) and not self.posting:
            self.turn = False
            self.desk.release(self.name)

    @web.authenticated
    async def post(self):
        data, self.chunks = b"".join(self.chunks), []
        self.posting = True
        try:
            view = await self.desk.ask(self.name, self.notebook, data, self.questions or None, claimed=True)
        except Refused as refused:
            self.refused(refused)
            return
        self.finish(view)

    @web.authenticated
    def get(self):
        self.finish({"checks": self.visible(), "instructor": self.instructor})


class Workers(Base):
    @web.authenticated
    def get(self):
        if not self.instructor:
            raise web.HTTPError(404)
        self.finish({"workers": self.desk.busy(), "replaced": self.desk.replaced,
                     "waiting": len(self.desk.waiting), "in_flight": len(self.desk.in_flight)})


class Deadlines(Base):
    """The course's due dates and late policy (reading_maths.nbgrader.deadlines), for the caller at this moment:
    read from ``nbgrader_config.py`` (and the gradebook) on every request, in a thread."""

    @web.authenticated
    async def get(self):
        self.set_header("Cache-Control", "no-store")
        loop = asyncio.get_running_loop()
        self.finish(await loop.run_in_executor(None, deadlines, self.desk.root, self.name))


class Listing(Base):
    """The caller's checks, with their progress: a student's points per question over their checks, the change
    since the last and the attempts left; the instructor's: the class per assignment (who checked, the median
    points per question day by day, who on the class list has not started)."""

    @web.authenticated
    def get(self):
        rows = self.visible()
        where = words.zone(self.get_cookie(words.ZONE_COOKIE))
        mine, klass, class_list = [], [], []
        if self.instructor:
            class_list = roster(self.desk.root)
            klass = progress.whole_class(rows, class_list, where)
        else:
            try:
                limits = course_rules.load(self.desk.root)
            except course_rules.BadRules:
                limits = None
            mine = progress.student(rows, limits, lambda a, since: self.desk.store.counted(self.name, a, since),
                                    now())
        self.page("list.html", rows=rows, mine=mine, klass=klass, class_list=class_list,
                  change_words=progress.change_words)


class One(Base):
    @web.authenticated
    def get(self, check_id: str):
        row = self.desk.store.get(int(check_id))
        if row is None or not (self.instructor or row["user"] == self.name):
            raise web.HTTPError(404)  # another student's check does not exist, as far as they can tell
        self.page("one.html", row=self.for_caller(row))


def make_app(desk: Desk, prefix: str, instructors: set[str]) -> web.Application:
    routes = [("", Listing), ("api/checks", Checks), ("api/workers", Workers), ("api/deadlines", Deadlines),
              (r"checks/(\d+)", One),
              ("oauth_callback", HubOAuthCallbackHandler)]
    return web.Application([(url_path_join(prefix, path), handler) for path, handler in routes],
                           desk=desk, prefix=prefix, instructors=instructors, xsrf_cookies=True,
                           cookie_secret=os.urandom(32))


async def serve() -> None:
    root = Path(os.environ["READING_MATHS_COURSE"])
    db = location(root)  # $READING_MATHS_CHECKS_DB: a file, or PostgreSQL shared by several services
    settings = Settings(choose(allow_unsafe=False, limits=Limits()), cell_timeout=30.0, call_timeout=30.0)
    desk = Desk(root, db, settings, workers=int(os.environ.get("READING_MATHS_CHECKS_WORKERS", "0")))
    instructors = {n for n in os.environ.get("READING_MATHS_CHECKS_INSTRUCTORS", "").split(",") if n}
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    make_app(desk, prefix, instructors).listen(url.port, url.hostname, max_body_size=OTHER_BODIES)
    print(json.dumps({"serving": prefix, "course": str(root), "db": str(desk.store.url),  # its password hidden
                      "workers": desk.size}), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        desk.close()


if __name__ == "__main__":
    asyncio.run(serve())
