"""A hub running the checks service, for the tests and the load benchmark: real JupyterHub, real service,
real HTTP, students who hold their own API tokens (JupyterHub's dummy authenticator: no Unix accounts, no
single-user servers), and notebooks of ``code`` that each score differently.

    with checks_hub(course, ["ada", "bob"], "teacher", scratch) as trial:
        trial.ask("ada", notebook_bytes)      # (HTTP status, JSON answer) from POST api/checks
"""

from __future__ import annotations

import json
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat

from hub.site import CONFIG, make_site, running
from reading_maths.notebook import SOLUTION_MARKERS, grade_id

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = ("softmax", "attention", "adam_step", "adam", "dpo_loss")
TRIAL_CONFIG = '''\
c = get_config()  # noqa: F821
load_subconfig({config!r})  # noqa: F821 - the hub's own configuration, then what the trial changes
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.services.append({{"name": "trial", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{"name": "trial", "scopes": ["admin:users", "tokens"], "services": ["trial"]}})
'''


def variant(number: int, repo: Path = REPO) -> bytes:
    """The ``code`` notebook a student ``number`` sends: the release notebook with the reference answers, except the
    questions whose bit is set in ``number``, left as released (raising NotImplementedError): 32 different
    notebooks, each with its own scores."""
    nb = nbformat.read(repo / "release" / "code" / "code.ipynb", as_version=4)
    source = {grade_id(c): c.source for c in nbformat.read(repo / "source" / "code" / "code.ipynb", as_version=4).cells}
    left = {q for bit, q in enumerate(QUESTIONS) if number >> bit & 1}
    for cell in nb.cells:
        gid = grade_id(cell) or ""
        if gid.endswith("-answer") and gid.removesuffix("-answer") not in left:
            cell.source = SOLUTION_MARKERS.sub("", source[gid]).strip() + "\n"
    return nbformat.writes(nb).encode("utf-8")


def slow(number: int = 0, seconds: float = 20.0, repo: Path = REPO) -> bytes:
    """:func:`variant` ``number`` with a cell that sleeps ``seconds`` before its first answer: right, but slow."""
    nb = nbformat.reads(variant(number, repo).decode("utf-8"), as_version=4)
    first = next(i for i, c in enumerate(nb.cells) if (grade_id(c) or "").endswith("-answer"))
    nb.cells.insert(first, nbformat.v4.new_code_cell(f"import time\ntime.sleep({seconds})"))
    return nbformat.writes(nb).encode("utf-8")


def failing_cells(count: int, number: int = 0, repo: Path = REPO) -> bytes:
    """:func:`variant` ``number`` with ``count`` cells that each raise an error before its first answer."""
    nb = nbformat.reads(variant(number, repo).decode("utf-8"), as_version=4)
    first = next(i for i, c in enumerate(nb.cells) if (grade_id(c) or "").endswith("-answer"))
    nb.cells[first:first] = [nbformat.v4.new_code_cell(f"raise ValueError('failing cell {i}')") for i in range(count)]
    return nbformat.writes(nb).encode("utf-8")


def foreign(mib: float) -> bytes:
    """A well-formed notebook of no assignment of this course, of about ``mib`` MiB (a cell of text)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("x" * int(mib * (1 << 20)))]
    return nbformat.writes(nb).encode("utf-8")


@dataclass
class Trial:
    url: str
    service: str
    tokens: dict[str, str]

    def call(self, who: str, method: str, path: str, body: bytes | None = None, timeout: float = 900):
        """``(status, decoded body)`` of a request to the service as ``who`` (their token)."""
        request = urllib.request.Request(f"{self.service}{path}", data=body, method=method,
                                         headers={"Authorization": f"token {self.tokens[who]}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text.decode("utf-8", "replace")

    def ask(self, who: str, notebook: bytes, path: str = "code/code.ipynb", questions: list[str] | None = None):
        query = {"path": path} | ({"questions": ",".join(questions)} if questions else {})
        return self.call(who, "POST", f"api/checks?{urllib.parse.urlencode(query)}", notebook)

    def grading(self, who: str, instructor: str, timeout: float = 120) -> int:
        """The pid of the worker grading ``who``'s check, once one is (asked of api/workers as ``instructor``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, answer = self.call(instructor, "GET", "api/workers", timeout=30)
            assert status == 200, answer
            pids = [w["pid"] for w in answer["workers"] if w["user"] == who]
            if pids:
                return pids[0]
            time.sleep(0.2)
        raise RuntimeError(f"no worker took {who}'s check within {timeout}s")


def _hub_api(url: str, token: str, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(f"{url}/hub/api/{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def wait_for_service(trial: Trial, who: str, timeout: float = 300) -> None:
    """Until the service answers (it loads the graders and warms its workers first)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if trial.call(who, "GET", "api/checks", timeout=10)[0] == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the checks service at {trial.service} did not answer within {timeout}s")
        time.sleep(0.5)


@contextmanager
def checks_hub(course: Path, students: list[str], instructor: str, scratch: Path):
    """JupyterHub with the checks service on ``course`` (run as this process's user), ``students`` and
    ``instructor`` each holding a token that reaches it; yields a :class:`Trial`."""
    token = secrets.token_hex(24)
    site = make_site(scratch / "site", Path(sys.prefix), [*students, instructor], checks=(instructor, course, None))
    config = scratch / "trial_config.py"
    config.write_text(TRIAL_CONFIG.format(config=str(CONFIG), token=token))
    with running(site, config=config) as hub:
        tokens = {name: _hub_api(hub.url, token, "POST", f"users/{name}/tokens",
                                 {"scopes": ["access:services!service=checks"], "note": "checks trial"})["token"]
                  for name in [*students, instructor]}
        trial = Trial(hub.url, f"http://127.0.0.1:{site.settings()['checks']['port']}/services/checks/", tokens)
        wait_for_service(trial, instructor)
        yield trial
