"""The hub's hostile students: real student accounts on the real hub (tests/hub_class.py) attack the shared
exchange from their own accounts, as their JupyterLab terminal would, and none of it reaches a grade.

The instructor releases ``notation``; ada (the victim) fetches it and submits right answers with nbgrader.
eve, with only her account:

- plants an inbound entry whose notebook is a symbolic link to the instructor's source notebook;
- forges an entry named for ada with a far-future timestamp (a blank notebook: it would replace ada's);
- tries to move, replace and delete the course's folder and ``outbound/``, to plant a notebook in
  ``outbound/``, and to rename or delete ada's entry (whose name she is given);
- submits entries whose names hold control characters, one holding a huge (sparse) file, and a hundred more;
- hands in, as her newest entry, a notebook with script in every place it can hold markup
  (tests/hostile/markup.py), which the instructor then opens in formgrader in Chromium: nothing runs;
- runs ``reading-maths doctor``, which must state the exchange's layout as held.

The instructor collects (the course's SafeCollect: every refusal is in collect's output) and autogrades;
ada's grade is full marks, eve's refused entries gave her nothing, and the source notebook never reached
``submitted/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tempfile
from pathlib import Path

import nbformat
import pytest
from hostile.markup import ALLOWED, DOM_CHECK, Watch, hostile_notebook
from hub_class import as_person, class_on_hub, new_people

from classroom.builder import answered

pytestmark = pytest.mark.browser  # a heavy test: run it alone (under flock /tmp/rm-heavy.lock)

A = "notation"
CANARY = "http://127.0.0.1:9"  # the discard port: any request there is recorded (and aborted) by the browser

ATTACK = r'''
import json, os, sys
from datetime import datetime, timedelta, UTC
exchange, source, victim_entry, me, victim, markup = sys.argv[1:7]
course = os.path.join(exchange, "reading-maths")
inbound, outbound = os.path.join(course, "inbound"), os.path.join(course, "outbound")
stamp = lambda delta=0: (datetime.now(UTC) + timedelta(seconds=delta)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
tried = {}

def attempt(name, action):
    try:
        action()
        tried[name] = "done"
    except OSError as exc:
        tried[name] = exc.strerror

def entry(name, notebook=None, link=None, size=None):
    folder = os.path.join(inbound, name)
    os.mkdir(folder)
    path = os.path.join(folder, "notation.ipynb")
    if link:
        os.symlink(link, path)
    elif size:
        with open(path, "wb") as fh:
            fh.truncate(size)
    else:
        with open(path, "w") as fh:
            fh.write(notebook)
    with open(os.path.join(folder, "timestamp.txt"), "w") as fh:
        fh.write(name.split("+")[2])

blank = open(os.path.join(outbound, "notation", "notation.ipynb")).read()
attempt("plant a link to the source", lambda: entry(f"{me}+notation+{stamp(-60)}", link=source))
attempt("forge the victim's entry", lambda: entry(f"{victim}+notation+{stamp(86400 * 3000)}", blank))
attempt("control characters", lambda: entry(f"{me}\n\x1b[2J+notation+{stamp(-50)}", blank))
attempt("huge file", lambda: entry(f"{me}+notation+{stamp(-40)}+huge", size=80 << 20))
for i in range(100):
    attempt("many entries", lambda: entry(f"{me}+notation+{stamp(-3000 + i)}+{i}", blank))
attempt("hand in script", lambda: entry(f"{me}+notation+{stamp(-5)}", open(markup).read()))
attempt("move the course folder", lambda: os.rename(course, os.path.join(exchange, "moved")))
attempt("replace the course folder", lambda: (os.mkdir(os.path.join(exchange, "mine")),
                                               os.rename(os.path.join(exchange, "mine"), course)))
attempt("delete outbound", lambda: os.rmdir(outbound))
attempt("move outbound", lambda: os.rename(outbound, os.path.join(course, "gone")))
attempt("plant in outbound", lambda: open(os.path.join(outbound, "notation", "evil.ipynb"), "w"))
attempt("plant a folder in the course", lambda: os.mkdir(os.path.join(course, "feedback2")))
attempt("list inbound", lambda: os.listdir(inbound))
attempt("rename the victim's entry", lambda: os.rename(os.path.join(inbound, victim_entry),
                                                       os.path.join(inbound, victim_entry + "x")))
attempt("delete the victim's entry", lambda: os.rmdir(os.path.join(inbound, victim_entry)))
print(json.dumps(tried))
'''

REFUSED_BY_THE_SYSTEM = ("move the course folder", "replace the course folder", "delete outbound", "move outbound",
                         "plant in outbound", "plant a folder in the course", "list inbound",
                         "rename the victim's entry", "delete the victim's entry")


@pytest.fixture(scope="module")
def hub_class():
    people = new_people("ada", "eve")
    with class_on_hub(people) as hub:
        yield hub, people


def test_hostile_students_on_the_hub(hub_class):
    hub, people = hub_class
    teacher, ada, eve = people["teacher"], people["ada"], people["eve"]
    course, exchange = teacher.course, Path(hub.site.settings()["exchange"])
    as_person(hub, teacher, "nbgrader", "generate_assignment", A, "--create", "--force", cwd=course)
    as_person(hub, teacher, "nbgrader", "release_assignment", A, "--force", cwd=course)

    # the victim: fetch, answer right (the source's solutions), submit
    as_person(hub, ada, "nbgrader", "fetch_assignment", A)
    fetched = next(ada.home.rglob(f"{A}/{A}.ipynb"))  # ~/reading-maths/notation/: the path includes the course
    right = answered(nbformat.read(fetched, as_version=4), nbformat.read(course / "source" / A / f"{A}.ipynb",
                                                                          as_version=4))
    nbformat.write(right, fetched)
    os.lchown(fetched, *(os.stat(ada.home)[4:6]))
    as_person(hub, ada, "nbgrader", "submit", A)
    inbound = exchange / "reading-maths" / "inbound"
    victim_entry = next(p.name for p in inbound.iterdir() if p.name.startswith(f"{ada.name}+"))

    # the attacker, from her own account
    source = course / "source" / A / f"{A}.ipynb"
    markup = Path(tempfile.mkdtemp(prefix="rm-markup-")) / f"{A}.ipynb"  # eve's newest entry: script everywhere
    release = nbformat.read(course / "release" / A / f"{A}.ipynb", as_version=4)  # unanswered: it scores 0
    nbformat.write(hostile_notebook(release, CANARY), markup)
    os.chmod(markup.parent, 0o755)
    done = as_person(hub, eve, "python", "-c", ATTACK, str(exchange), str(source), victim_entry, eve.name, ada.name,
                     str(markup))
    tried = json.loads(done.stdout)
    assert {k: tried[k] for k in REFUSED_BY_THE_SYSTEM if tried[k] == "done"} == {}, tried
    assert tried["plant a link to the source"] == tried["forge the victim's entry"] == "done", tried
    doctor = as_person(hub, eve, "reading-maths", "doctor", check=False)
    assert doctor.stdout.count("[held]") and "NOT held] " not in doctor.stdout.split("exchange:")[1], doctor.stdout

    collected = as_person(hub, teacher, "nbgrader", "collect", A, "--update", cwd=course)
    log = collected.stdout + collected.stderr
    assert "is a symbolic link" in log and f"it is owned by {eve.name}, not by {ada.name}" in log, log
    assert "cannot be a student id" in log and "\x1b" not in log, log
    assert re.search(r"larger than \d+ MiB", log), log
    submitted = course / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == sorted([ada.name, eve.name])
    assert nbformat.read(submitted / ada.name / A / f"{A}.ipynb", as_version=4) == right  # not the forgery
    mine = submitted / eve.name / A / f"{A}.ipynb"  # eve's newest acceptable entry: the script-carrying one
    assert not mine.is_symlink() and nbformat.read(mine, as_version=4) == nbformat.read(markup, as_version=4)

    as_person(hub, teacher, "reading-maths", "autograde", A, "--jobs", "2", cwd=course, timeout=900)
    scores = {p.name: json.loads((course / "autograded" / p.name / f"{A}.json").read_text())[A]
              for p in (ada, eve)}
    assert scores[ada.name]["score"] == scores[ada.name]["max_score"] > 0, scores
    assert scores[eve.name]["score"] == 0, scores
    formgrader_shows_it_inertly(hub, teacher, eve)
    # (a new folder in the exchange's root is allowed, as nbgrader wants for other courses: "mine" is one)
    for leftover in (exchange / "moved", exchange / "reading-maths" / "feedback2"):
        assert not leftover.exists()
    shutil.rmtree(submitted, ignore_errors=True)
    shutil.rmtree(markup.parent, ignore_errors=True)



def formgrader_shows_it_inertly(hub, teacher, student) -> None:
    """The instructor opens the student's script-carrying submission in formgrader on the hub: nothing runs,
    nothing is requested beyond formgrader's own files, the formula typesets (tests/test_inert_submissions.py
    does the same on a local JupyterLab, with every output type too)."""
    import browser as b
    import hub_pages as hp

    with sqlite3.connect(f"file:{teacher.course / 'gradebook.db'}?mode=ro", uri=True) as db:
        (submission,), = db.execute("SELECT n.id FROM submitted_notebook n JOIN submitted_assignment a "
                                    "ON n.assignment_id = a.id WHERE a.student_id = ?", (student.name,))
    with b.chromium_browser() as chromium:
        lab = hp.log_in(chromium, hub.url, teacher.name, teacher.password)
        context = lab.context
        lab.close()  # the session's cookie stays; JupyterLab's own requests would mix with formgrader's
        base = f"{hub.url}/user/{teacher.name}"
        watch = Watch(context, base)
        page = watch.page(context)
        page.goto(f"{base}/formgrader/submissions/{submission}/")
        assert watch.settle(page) > 100
        page.screenshot(path=str(Path(__file__).parent / "screenshots" / "hub-inert-submission.png"), full_page=True)
        assert page.evaluate("() => top.pwned") is None and watch.dialogs == []
        assert watch.outside == [], watch.outside
        assert [u for u in watch.requests if not ALLOWED.match(u.split("?")[0])] == [], watch.requests
        assert page.evaluate(DOM_CHECK) == []
        formula = page.locator(".text_cell_render", has_text="The scores are scaled")
        assert formula.locator("mjx-container svg").count() == 1
