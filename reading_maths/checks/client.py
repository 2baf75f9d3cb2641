"""What a student's kernel calls to ask the hidden tests about their saved notebook.

    from reading_maths.checks.client import check
    check()                      # this notebook, as last saved; check(questions=["softmax"]) for some questions

It reads the saved file (JupyterLab's "Check with the hidden tests" button saves first and calls
:func:`lab`), sends it to the course's checks service on the hub with the server's own
``$JUPYTERHUB_API_TOKEN``, and shows the points and messages the instructor lets students see, or why
the check was refused and when the next is allowed.
"""

from __future__ import annotations

import html
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

TIMEOUT = 900  # seconds: a check waits its turn behind the class's
MAX_BYTES = 16 << 20  # the service's limit (reading_maths.checks.desk.MAX_NOTEBOOK_BYTES): larger is not sent


def _notebook(path: str | None) -> tuple[Path, str]:
    """The file to send and the name the service records (relative to the home folder, where the hub's
    servers start)."""
    given = path or os.environ.get("JPY_SESSION_NAME")
    if not given:
        raise ValueError("which notebook? call check('folder/notebook.ipynb')")
    file = Path(given) if Path(given).is_absolute() else Path.home() / given
    try:
        shown = str(file.relative_to(Path.home()))
    except ValueError:
        shown = file.name
    return file, shown


def ask(path: str | None = None, questions: list[str] | None = None) -> dict:
    """The service's answer as plain data: what the student is shown, or ``{"refused", "next_allowed"}``."""
    file, name = _notebook(path)
    url = os.environ.get("READING_MATHS_CHECKS_URL")
    token = os.environ.get("JUPYTERHUB_API_TOKEN")
    if not url or not token:
        return {"refused": "no checks service here (checks run on the course's JupyterHub)", "next_allowed": None}
    if file.stat().st_size > MAX_BYTES:
        return {"refused": f"{name} is larger than {MAX_BYTES >> 20} MiB, the most a check takes (clear its outputs, "
                           "save it and check again)", "next_allowed": None}
    query = {"path": name} | ({"questions": ",".join(questions)} if questions else {})
    request = urllib.request.Request(f"{url.rstrip('/')}/api/checks?{urllib.parse.urlencode(query)}",
                                     data=file.read_bytes(), method="POST",
                                     headers={"Authorization": f"token {token}",
                                              "Content-Type": "application/x-ipynb+json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            return json.loads(error.read())
        except ValueError:
            return {"refused": f"the checks service answered {error.code} {error.reason}", "next_allowed": None}
    except OSError as error:
        return {"refused": f"the checks service cannot be reached ({error})", "next_allowed": None}


def deadlines() -> dict:
    """The checks service's ``api/deadlines`` for this server's user (reading_maths.nbgrader.deadlines), or
    ``{"error": why}``."""
    url = os.environ.get("READING_MATHS_CHECKS_URL")
    token = os.environ.get("JUPYTERHUB_API_TOKEN")
    if not url or not token:
        return {"error": "no checks service here (it runs on the course's JupyterHub)"}
    request = urllib.request.Request(f"{url.rstrip('/')}/api/deadlines", headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return {"error": f"the checks service answered {error.code} {error.reason}"}
    except (OSError, ValueError) as error:
        return {"error": f"the checks service cannot be reached ({error})"}


def lines(answer: dict) -> list[str]:
    """An answer as plain text lines."""
    if "refused" in answer:
        when = answer.get("next_allowed")
        later = [f"Next check allowed at {when} (UTC)."] if when and when not in answer["refused"] else []
        return [f"Check refused: {answer['refused']}", *later]
    head = f"Check {answer['id']} of {answer['notebook']}"
    out = [head + (f": {answer['score']:g} / {answer['max_score']:g}" if "score" in answer else "")]
    for q in answer["questions"]:
        points = f"{q['score']:g} / {q['max_score']:g}" if "score" in q else f"out of {q['max_score']:g}"
        out.append(f"{q['id']}: {points}")
        out += [f"  - {line}" for line in q.get("feedback", [])]
    out += [f"note: {line}" for line in answer.get("errors", [])]
    return out


class Shown:
    """An answer as a notebook shows it (text, or HTML with everything escaped)."""

    def __init__(self, answer: dict):
        self.answer = answer

    def __repr__(self) -> str:
        return "\n".join(lines(self.answer))

    def _repr_html_(self) -> str:
        items = "".join(f"<li>{html.escape(line)}</li>" for line in lines(self.answer)[1:])
        return f"<div class='reading-maths-check'><b>{html.escape(lines(self.answer)[0])}</b><ul>{items}</ul></div>"


class ForLab:
    """An answer for JupyterLab's button, which asks for it as a user expression (JSON only, nothing printed)."""

    def __init__(self, answer: dict):
        self.answer = answer

    def _repr_json_(self) -> dict:
        return {"answer": self.answer, "lines": lines(self.answer)}


def check(path: str | None = None, questions: list[str] | None = None) -> Shown:
    """Check the saved notebook ``path`` (default: the one this kernel belongs to) with the hidden tests."""
    return Shown(ask(path, questions))


def lab(path: str) -> ForLab:
    return ForLab(ask(path))
