"""The exchange served by the hub (hub/exchange.py), with no exchange folder at all, on the real hub
(tests/hub_class.py: real Unix accounts, PAM, JupyterHub as root).

The instructor's course says ``c.CourseExchange.kind = "service"``, so the hub starts the exchange service (as
the instructor) instead of laying out a folder. Everyone runs real ``nbgrader`` commands as themselves, with a
hub API token of their own:

1. the instructor releases ``notation``; ada (right answers) and bob (as fetched) fetch it, list it and submit;
   the instructor collects (each ``timestamp.txt`` the service's time), autogrades, generates and releases
   feedback; each student fetches their own feedback, with their own score. The scores are the ones
   ``reading-maths grade`` gives each student's own notebook, as on the folder exchange.
2. eve, on the class list, calls the service's API directly with her token: she cannot read ada's submission or
   feedback, submit as ada or with a time of her own, read or submit in a course she is not on, read what is not
   released, release, or store a file whose name leaves the submission's folder. Each is refused and the
   service's contents are the same afterwards. Her own submission with a forged ``timestamp.txt`` is collected
   with the service's time, and collect says what her file claimed.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta

import nbformat
import pytest
from hub_class import as_person, class_on_hub, new_people
from test_hub import grade_json, in_feedback

from classroom.builder import answered

pytestmark = pytest.mark.hub  # a heavy test: run it alone

A = "notation"
OTHER = "other-course"  # a second course of the same instructor's, whose class list is empty


def other_course(people) -> None:
    """A second course of the instructor's, on the exchange service too, with nobody on its class list."""
    teacher = people["teacher"]
    other = teacher.home / OTHER
    shutil.copytree(teacher.course, other)
    config = other / "nbgrader_config.py"
    config.write_text(config.read_text().replace('course_id = "reading-maths"', f'course_id = "{OTHER}"'))
    for path in [other, *other.rglob("*")]:
        os.lchown(path, *(os.stat(teacher.home)[4:6]))


def hub_token(hub, person) -> str:
    """A new hub API token of ``person``'s (``jupyterhub token``, as root on the hub's database)."""
    from hub.site import CONFIG

    done = subprocess.run([sys.executable, "-m", "jupyterhub", "token", f"--JupyterHub.config_file={CONFIG}",
                           person.name], cwd=hub.site.state, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "READING_MATHS_HUB_SITE": str(hub.site.root)}, check=True)
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def hub_class():
    people = new_people("ada", "bob", "eve")
    with class_on_hub(people, exchange="service", before=other_course, other_courses=(OTHER,)) as hub:
        tokens = {key: hub_token(hub, person) for key, person in people.items()}
        yield hub, people, tokens


def run(hub_class, who: str, *command: str, **options) -> subprocess.CompletedProcess:
    """``command`` as ``who``, with their own hub API token."""
    hub, people, tokens = hub_class
    return as_person(hub, people[who], *command, extra_env={"JUPYTERHUB_API_TOKEN": tokens[who]}, **options)


def service(hub, token: str | None, method: str, path: str, body=None) -> tuple[int, dict]:
    """The exchange service's answer to a call of ``path`` (under api/courses/) with ``token`` (None: none)."""
    port = hub.site.settings()["exchange_service"]["port"]
    request = urllib.request.Request(f"http://127.0.0.1:{port}/services/exchange/api/courses/{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def api(hub_class, who: str, method: str, path: str, body=None) -> tuple[int, dict]:
    """The service's answer to ``who`` (a key of the class's people; "": nobody) calling ``path`` directly."""
    hub, _, tokens = hub_class
    return service(hub, tokens[who] if who else None, method, path, body)


def files(**named: bytes) -> list[dict]:
    return [{"path": path, "content": base64.b64encode(data).decode()} for path, data in named.items()]


@pytest.fixture(scope="module")
def released(hub_class):
    """``notation`` released by the instructor; ada has fetched it, answered it right and submitted it."""
    hub, people, _ = hub_class
    teacher, ada = people["teacher"], people["ada"]
    run(hub_class, "teacher", "nbgrader", "generate_assignment", A, "--create", "--force", cwd=teacher.course)
    run(hub_class, "teacher", "nbgrader", "release_assignment", A, cwd=teacher.course)
    run(hub_class, "ada", "nbgrader", "fetch_assignment", A)
    fetched = ada.home / "reading-maths" / A / f"{A}.ipynb"
    right = answered(nbformat.read(fetched, as_version=4),
                     nbformat.read(teacher.course / "source" / A / f"{A}.ipynb", as_version=4))
    nbformat.write(right, fetched)
    os.lchown(fetched, *(os.stat(ada.home)[4:6]))
    run(hub_class, "ada", "nbgrader", "submit", A)
    return fetched


def test_a_whole_assignment_through_the_service(hub_class, released):
    hub, people, _ = hub_class
    teacher, ada, bob = people["teacher"], people["ada"], people["bob"]
    course = teacher.course
    assert hub.site.settings()["exchange"] is None and not hub.site.exchange.exists()

    listed = run(hub_class, "bob", "nbgrader", "list")
    assert f"reading-maths {A}" in listed.stdout + listed.stderr
    run(hub_class, "bob", "nbgrader", "fetch_assignment", A)
    before = datetime.now(UTC).replace(tzinfo=None)
    run(hub_class, "bob", "nbgrader", "submit", A)
    after = datetime.now(UTC).replace(tzinfo=None)
    cached = run(hub_class, "bob", "nbgrader", "list", "--cached")
    assert f"{bob.name} {A}" in cached.stdout + cached.stderr

    collected = run(hub_class, "teacher", "nbgrader", "collect", A, cwd=course)
    assert "Refused" not in collected.stdout + collected.stderr, collected.stderr
    submitted = course / "submitted"
    for person, notebook in ((ada, released), (bob, bob.home / "reading-maths" / A / f"{A}.ipynb")):
        assert (submitted / person.name / A / f"{A}.ipynb").read_bytes() == notebook.read_bytes()
    from nbgrader.utils import parse_utc

    bobs_time = parse_utc((submitted / bob.name / A / "timestamp.txt").read_text().strip())
    assert before - timedelta(seconds=1) <= bobs_time <= after + timedelta(seconds=1)  # the service's clock
    _, listing = api(hub_class, "teacher", "GET", f"reading-maths/submissions/{A}")
    assert {(s["student"], s["timestamp"]) for s in listing["submissions"]} >= {
        (p.name, (submitted / p.name / A / "timestamp.txt").read_text().strip()) for p in (ada, bob)}

    run(hub_class, "teacher", "reading-maths", "autograde", A, "--jobs", "2", cwd=course, timeout=900)
    scores = {p.name: json.loads((course / "autograded" / p.name / f"{A}.json").read_text())[A] for p in (ada, bob)}
    for person in (ada, bob):  # what the folder exchange's path gives the same notebook
        expected = grade_json(course, submitted / person.name / A / f"{A}.ipynb")
        assert scores[person.name]["score"] == expected["score"], (scores, expected)
    assert scores[ada.name]["score"] == scores[ada.name]["max_score"] > scores[bob.name]["score"]

    run(hub_class, "teacher", "nbgrader", "generate_feedback", A, cwd=course)
    run(hub_class, "teacher", "nbgrader", "release_feedback", A, cwd=course)
    for person, other in ((ada, bob), (bob, ada)):
        key = next(k for k, p in people.items() if p is person)
        run(hub_class, key, "nbgrader", "fetch_feedback", A)
        page = next((person.home / "reading-maths" / A / "feedback").glob(f"*/{A}.html")).read_text()
        mine = scores[person.name]
        assert f"(Score: {in_feedback(mine['score'])} / {in_feedback(mine['max_score'])})" in page, page[:3000]
        assert other.name not in page
        listed = run(hub_class, key, "nbgrader", "list", "--cached")
        assert "feedback already fetched" in listed.stdout + listed.stderr


def contents(hub_class) -> dict:
    """Everything the service holds, as the instructor and each student can read it."""
    found = {}
    for course in ("reading-maths", OTHER):
        found[course] = api(hub_class, "teacher", "GET", f"{course}/releases")
        found[course, "submissions"] = api(hub_class, "teacher", "GET", f"{course}/submissions/{A}")
    for who in ("ada", "bob"):
        found[who] = api(hub_class, who, "GET", "reading-maths/feedback")
    return found


def test_a_hostile_student_calls_the_service(hub_class, released):
    hub, people, _ = hub_class
    teacher, ada, eve = people["teacher"], people["ada"], people["eve"]
    other = teacher.home / OTHER  # it has notation released too
    run(hub_class, "teacher", "nbgrader", "generate_assignment", A, "--create", "--force", cwd=other)
    run(hub_class, "teacher", "nbgrader", "release_assignment", A, "--force", cwd=other)
    _, mine = api(hub_class, "ada", "GET", f"reading-maths/submissions/{A}")
    victim = mine["submissions"][-1]
    assert victim["student"] == ada.name
    notebook = files(**{f"{A}.ipynb": released.read_bytes()})
    before = contents(hub_class)

    attempts = {
        "no token": api(hub_class, "", "GET", "reading-maths/releases"),
        "ada's submission": api(hub_class, "eve", "GET", f"reading-maths/submissions/{A}/{victim['id']}"),
        "ada's feedback": api(hub_class, "eve", "PUT", f"reading-maths/feedback/{A}/{ada.name}",
                              {"files": files(**{"x.html": b"<p>yours</p>"})}),
        "submit as ada": api(hub_class, "eve", "POST", f"reading-maths/submissions/{A}",
                             {"files": notebook, "student": ada.name}),
        "submit with a time": api(hub_class, "eve", "POST", f"reading-maths/submissions/{A}",
                                  {"files": notebook, "timestamp": "2020-01-01 00:00:00.000000 UTC"}),
        "another course's list": api(hub_class, "eve", "GET", f"{OTHER}/releases"),
        "another course's release": api(hub_class, "eve", "GET", f"{OTHER}/releases/{A}"),
        "submit to another course": api(hub_class, "eve", "POST", f"{OTHER}/submissions/{A}", {"files": notebook}),
        "what is not released": api(hub_class, "eve", "GET", "reading-maths/releases/proofs"),
        "submit what is not released": api(hub_class, "eve", "POST", "reading-maths/submissions/proofs",
                                           {"files": notebook}),
        "release": api(hub_class, "eve", "PUT", f"reading-maths/releases/{A}", {"files": notebook}),
        "a course that is not there": api(hub_class, "eve", "GET", "no-such-course/releases"),
    }
    for name in ("../ada/notation.ipynb", "/etc/cron.d/x", "a/../../b.ipynb", "./notation.ipynb", "a//b",
                 "notation.ipynb\n", "a\\..\\b"):
        attempts[f"the name {name!r}"] = api(hub_class, "eve", "POST", f"reading-maths/submissions/{A}",
                                             {"files": files(**{name: b"{}"})})
    attempts["a file and a folder of one name"] = api(hub_class, "eve", "POST", f"reading-maths/submissions/{A}",
                                                      {"files": files(**{"a": b"1", "a/b": b"2"})})
    attempts["a name that is not a file"] = api(hub_class, "eve", "POST", f"reading-maths/submissions/{A}",
                                                {"files": [{"path": "n.ipynb", "content": None}]})
    let_through = {what: answer for what, answer in attempts.items() if answer[0] < 400}
    assert let_through == {}, let_through
    assert all("refused" in answer for _, answer in attempts.values()), attempts
    assert contents(hub_class) == before

    status, listing = api(hub_class, "eve", "GET", f"reading-maths/submissions/{A}")
    assert status == 200 and listing["submissions"] == []  # ada's are not listed to her
    assert api(hub_class, "eve", "GET", "reading-maths/feedback") == (200, {"feedback": []})
    _, courses = api(hub_class, "eve", "GET", "")
    assert courses == {"courses": ["reading-maths"]}

    # her own submission, its timestamp.txt four days back: kept as hers, at the service's time
    forged = (datetime.now(UTC) - timedelta(days=4)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    status, kept = api(hub_class, "eve", "POST", f"reading-maths/submissions/{A}",
                       {"files": notebook + files(**{"timestamp.txt": forged.encode()})})
    assert status == 200 and kept["student"] == eve.name
    collected = run(hub_class, "teacher", "nbgrader", "collect", A, "--update", cwd=teacher.course)
    recorded = (teacher.course / "submitted" / eve.name / A / "timestamp.txt").read_text().strip()
    assert recorded == kept["timestamp"] != forged
    assert f"Submission time of {eve.name!r}" in collected.stdout + collected.stderr and forged in collected.stderr
