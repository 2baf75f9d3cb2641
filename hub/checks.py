"""The checks service: JupyterHub starts it (hub/jupyterhub_config.py), as the instructor, at /services/checks/.

    POST /services/checks/api/checks?path=code/code.ipynb[&questions=softmax,adam]   body: the saved notebook
    GET  /services/checks/api/checks         the caller's checks (the instructor's: everyone's), as JSON
    GET  /services/checks/                   the same as a page; /services/checks/checks/<id> one check

Everyone is who the hub says they are (JupyterHub's OAuth: the hub's cookie in a browser, the server's
$JUPYTERHUB_API_TOKEN from a kernel); the grading, the limits and the record are
:class:`reading_maths.checks.desk.Desk`'s.  A student sees only their own checks; the instructor (a hub
admin or a name in ``$READING_MATHS_CHECKS_INSTRUCTORS``) sees every request.  Run as
``python -m hub.checks`` with the environment JupyterHub gives a service plus ``$READING_MATHS_COURSE``.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from urllib.parse import urlparse

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from jupyterhub.utils import url_path_join
from tornado import template, web

from reading_maths.checks.desk import MAX_NOTEBOOK_BYTES, Desk, Refused
from reading_maths.grading.engine import Settings
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
            keep += ("sha256", "score", "max_score", "questions")
        return {k: row[k] for k in keep}

    def page(self, name: str, **values) -> None:
        self.write(PAGES.load(name).generate(prefix=self.settings["prefix"], me=self.name,
                                             instructor=self.instructor, **values))


class Checks(Base):
    @web.authenticated
    async def post(self):
        path = self.get_argument("path", "notebook.ipynb")
        questions = [q for q in self.get_argument("questions", "").split(",") if q] or None
        try:
            view = await self.desk.ask(self.name, path, self.request.body, questions)
        except Refused as refused:
            self.set_status(refused.status)
            self.finish(refused.to_json())
            return
        self.finish(view)

    @web.authenticated
    def get(self):
        self.finish({"checks": self.visible(), "instructor": self.instructor})


class Listing(Base):
    @web.authenticated
    def get(self):
        self.page("list.html", rows=self.visible())


class One(Base):
    @web.authenticated
    def get(self, check_id: str):
        row = self.desk.store.get(int(check_id))
        if row is None or not (self.instructor or row["user"] == self.name):
            raise web.HTTPError(404)  # another student's check does not exist, as far as they can tell
        self.page("one.html", row=self.for_caller(row))


def make_app(desk: Desk, prefix: str, instructors: set[str]) -> web.Application:
    routes = [("", Listing), ("api/checks", Checks), (r"checks/(\d+)", One),
              ("oauth_callback", HubOAuthCallbackHandler)]
    return web.Application([(url_path_join(prefix, path), handler) for path, handler in routes],
                           desk=desk, prefix=prefix, instructors=instructors, xsrf_cookies=True,
                           cookie_secret=os.urandom(32))


async def serve() -> None:
    root = Path(os.environ["READING_MATHS_COURSE"])
    db = Path(os.environ.get("READING_MATHS_CHECKS_DB", root / "checks.sqlite"))
    settings = Settings(choose(allow_unsafe=False, limits=Limits()), cell_timeout=30.0, call_timeout=30.0)
    desk = Desk(root, db, settings, workers=int(os.environ.get("READING_MATHS_CHECKS_WORKERS", "0")))
    instructors = {n for n in os.environ.get("READING_MATHS_CHECKS_INSTRUCTORS", "").split(",") if n}
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    make_app(desk, prefix, instructors).listen(url.port, url.hostname, max_body_size=MAX_NOTEBOOK_BYTES + 4096)
    print(json.dumps({"serving": prefix, "course": str(root), "db": str(db), "workers": desk.workers}), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        desk.close()


if __name__ == "__main__":
    asyncio.run(serve())
