"""The student's own Jupyter server's part of the hub's lab extension (hub/checks-lab): ``GET reading-maths/deadlines``
under the server's base URL answers what the checks service's ``api/deadlines`` says for this student, asked with
the server's ``$JUPYTERHUB_API_TOKEN`` (:func:`reading_maths.checks.client.deadlines`).

The lab page cannot ask the service itself: a script's request carrying the hub's cookie is refused without the
service's XSRF token, which the page never sees. The hub's site enables this extension for the students' servers
when it runs the checks service (hub/site.py, ``jupyter_server_config.d``).
"""

from __future__ import annotations

import asyncio
import json

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from reading_maths.checks import client

PATH = "reading-maths/deadlines"


class Deadlines(APIHandler):
    @web.authenticated
    async def get(self):
        answer = await asyncio.get_running_loop().run_in_executor(None, client.deadlines)
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(answer))


def _jupyter_server_extension_points():
    return [{"module": "reading_maths.checks.lab_server"}]


def _load_jupyter_server_extension(server_app):
    web_app = server_app.web_app
    web_app.add_handlers(".*$", [(url_path_join(web_app.settings["base_url"], PATH), Deadlines)])
