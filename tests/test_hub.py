"""A class on JupyterHub, driven in a real browser as each person.

JupyterHub (as root, local process spawner, PAM logins, configurable-http-proxy from npm) serves
real Unix accounts made for this test: an instructor with a copy of the course, and two students.
Their JupyterLab servers run as themselves from the hub's shared Python (hub/env.py); nbgrader's
exchange is the site's shared folder. The cluster-shaped variant (``[service]``) has no exchange folder anywhere:
everyone reaches the others only through the hub's exchange service (docs/exchange.md); the gradebook, the checks
service's store and the exchange's store are on a real PostgreSQL server; each student also presses Check (the
checks service on the hub) before submitting; the instructor grades the class through a real Dask Gateway from
their terminal instead of formgrader's buttons; and Bob calls the exchange service's API directly, refused. Through
the hub's pages:

1. the instructor generates and releases ``code`` and ``proofs`` from formgrader;
2. each student logs in, sees no formgrader, fetches both from the assignment list, answers ``code``
   (ada right, bob with the temperature multiplied), Validates, writes the ``proofs`` bias-correction
   proof (a hand-marked cell), and submits both;
3. the instructor collects, presses Autograde for each submission (nbgrader_config.py routes it through
   the sandbox, here as the instructor, an ordinary user: bubblewrap in a user namespace), hand-marks
   each written proof with a comment, generates and releases feedback;
4. each student fetches their feedback and sees their own score and message, never the other's; each feedback
   page, as served by the student's own server, passes axe-core with no serious or critical violation.

``proofs`` is released too because ``code`` has no hand-marked cell: the students write one short
proof there and leave the rest, which costs a fetch, one cell and a submit each (the whole test takes
a few minutes). Screenshots of each step go to ``tests/screenshots/hub/``, axe-core's results beside them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import a11y
import browser as b
import nbformat
import pytest
from gateway_server import CLIENT_ENV
from hub_class import as_person, class_on_hub, new_people

from reading_maths.notebook import SOLUTION_MARKERS, grade_id, is_test_cell

pytestmark = [pytest.mark.hub, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[1]
SHOTS = Path(__file__).resolve().parent / "screenshots" / "hub"
PROOF = ("With j = t - i the sum is the geometric series (1 - b)(1 + b + ... + b^(t-1)) = 1 - b^t; "
         "E[g_i] = E[g_t] is a constant, so linearity takes it out of the sum.")
MARKS = {"ada": (2, "Complete: the telescoping sum and why E[g] leaves the sum. Well done, Ada."),
         "bob": (1, "Bob: say why the geometric sum telescopes to 1 - b^t, not only that it does.")}


@dataclass
class Cluster:
    """What the cluster-shaped variant runs beside the hub: one PostgreSQL server holding the gradebook, the checks
    store and the exchange service's store, and a Dask Gateway that grades."""

    gradebook: str
    checks: str
    exchange: str
    gateway: str


@contextmanager
def cluster_services(folder: Path) -> Iterator[Cluster]:
    """A real PostgreSQL server (tests/postgres.py) with three databases, and a real Dask Gateway
    (tests/gateway_server.py), both on 127.0.0.1 and stopped afterwards."""
    import postgres
    from gateway_server import start_gateway

    with postgres.running() as server:
        address, stop_gateway = start_gateway(folder)
        try:
            yield Cluster(server.database(), server.database(), server.database(), address)
        finally:
            stop_gateway()


@pytest.fixture(scope="module", params=["folder", "service"])
def hub_class(request, tmp_path_factory):
    """The running hub with its accounts: ``(hub, people, cluster)``; everything is removed afterwards. ``folder``:
    one machine (nbgrader's exchange folder, SQLite, grading on this machine; cluster is None); ``service``: the
    cluster-shaped variant, no exchange folder at all, everyone reaching the others only through the exchange
    service (docs/exchange.md), the gradebook, the checks store and the exchange's store on PostgreSQL, the checks
    service on the hub, grading through a Dask Gateway."""
    people = new_people("ada", "bob")
    if request.param == "folder":
        with class_on_hub(people) as hub:
            yield hub, people, None
        return
    with cluster_services(tmp_path_factory.mktemp("cluster")) as cluster, \
            class_on_hub(people, checks=True, exchange="service",
                         course_settings={"CourseDirectory.db_url": cluster.gradebook},
                         checks_store=cluster.checks, exchange_store=cluster.exchange) as hub:
        yield hub, people, cluster


@pytest.fixture(scope="module")
def browser(hub_class):
    with b.chromium_browser() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def shots(hub_class):
    hub, _, _ = hub_class
    folder = SHOTS if hub.site.settings()["exchange"] else SHOTS.with_name("hub-service")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def answers(assignment: str, wrong: bool) -> dict[str, str]:
    """What a student types, by answer cell: the source's solutions (``code``), one with a catalogued
    mistake for the wrong student; the written proof (``proofs``)."""
    if assignment == "proofs":
        return {"puzzle_written": PROOF}
    nb = nbformat.read(REPO / "source" / "code" / "code.ipynb", as_version=4)
    typed = {grade_id(c): SOLUTION_MARKERS.sub("", c.source).strip() + "\n" for c in nb.cells
             if grade_id(c) in {f"{grade_id(t)}-answer" for t in nb.cells if is_test_cell(t)}}
    if wrong:
        typed["softmax-answer"] = b.WRONG_SOFTMAX
    return typed


def grade_json(course: Path, notebook: Path) -> dict:
    """``reading-maths grade --json`` of a submitted notebook, on the instructor's course: the expected grade."""
    done = subprocess.run([str(b.BIN / "reading-maths"), "grade", str(notebook), "--json"], cwd=course,
                          env={**os.environ, "READING_MATHS_COURSE": str(course)}, capture_output=True,
                          text=True, timeout=b.COMMAND_TIMEOUT, check=True)
    return json.loads(done.stdout)


def in_formgrader(number: float) -> str:
    """A score as formgrader's submission list prints it (JavaScript, two decimals at most)."""
    return f"{round(float(number), 2):g}"


def in_feedback(number: float) -> str:
    """A score as nbgrader's feedback page prints it (Jinja's ``float | round(2)``)."""
    return str(round(float(number), 2))


def test_class_on_the_hub(hub_class, browser, shots):
    import hub_pages as hp
    from playwright.sync_api import expect

    a11y.require_axe()
    blocking = {}

    hub, people, cluster = hub_class
    teacher = people["teacher"]
    course = teacher.course
    served = hub.site.settings()["exchange"] is None
    checked = {}

    # 1. The instructor releases code and proofs from formgrader.
    t = hp.log_in(browser, hub.url, teacher.name, teacher.password)
    assert "Formgrader" in hp.nbgrader_menu(t)
    hp.formgrader(t, teacher.name)
    for assignment in ("code", "proofs"):
        hp.press(t, hp.assignment_row(t, assignment), "education", f"created the student version of '{assignment}'")
        hp.press(t, hp.assignment_row(t, assignment), "cloud-upload", f"Successfully released '{assignment}'")
    expect(hp.assignment_row(t, "code")).to_contain_text("released")
    hp.shot(t, shots, "01-instructor-released-code-and-proofs")

    # 2. Each student fetches, answers, validates and submits.
    pages = {}
    for student, wrong in (("ada", False), ("bob", True)):
        person = people[student]
        s = pages[student] = hp.log_in(browser, hub.url, person.name, person.password)
        menu = hp.nbgrader_menu(s)
        assert "Formgrader" not in menu and "Assignment List" in menu, menu
        panel = hp.assignment_list(s)
        for assignment in ("code", "proofs"):
            hp.list_row(panel, "released", assignment).get_by_role("button", name="Fetch").click()
            expect(hp.list_row(panel, "fetched", assignment)).to_be_visible(timeout=hp.SLOW)
        hp.shot(s, shots, f"02-{student}-fetched")

        for assignment in ("code", "proofs"):
            fetched = next(person.home.rglob(f"{assignment}/{assignment}.ipynb"))
            nb = nbformat.read(fetched, as_version=4)
            at = {grade_id(c): i for i, c in enumerate(nb.cells)}
            cells = hp.open_notebook(s, person.name, str(fetched.relative_to(person.home)), len(nb.cells))
            for gid, text in answers(assignment, wrong).items():
                hp.type_into(s, cells.nth(at[gid]), text, markdown=nb.cells[at[gid]].cell_type == "markdown")
            hp.save(s)
            saved = {grade_id(c): c.source for c in nbformat.read(fetched, as_version=4).cells}
            assert all(saved[g].strip() == text.strip() for g, text in answers(assignment, wrong).items())
            if assignment == "code":
                report = hp.validate(s)
                hp.shot(s, shots, f"03-{student}-validate-code")
                if wrong:  # the public softmax check fails, with the course's message for this mistake
                    assert "The following cell failed" in report and "Public checks for Problem 1" in report, report
                else:
                    assert "Success! Your notebook passes all the tests." in report, report
                hp.close_dialog(s)
                if cluster:  # the hidden tests' verdict from the checks service, its store on PostgreSQL
                    checked[student] = hp.check(s)
                    hp.shot(s, shots, f"03b-{student}-checked-code")
                    s.keyboard.press("Escape")

        panel = hp.assignment_list(s)
        for assignment in ("code", "proofs"):
            hp.list_row(panel, "fetched", assignment).get_by_role("button", name="Submit").click()
            expect(hp.list_row(panel, "submitted", assignment)).to_be_visible(timeout=hp.SLOW)
        hp.shot(s, shots, f"04-{student}-submitted")

    # 3. The instructor collects, autogrades, hand-marks and returns feedback.
    hp.formgrader(t, teacher.name)
    for assignment in ("code", "proofs"):
        hp.press(t, hp.assignment_row(t, assignment), "cloud-download", f"collected submissions of '{assignment}'")
    expected = {}
    for assignment in ("code", "proofs"):
        if cluster:  # the whole class through the Dask Gateway, from the instructor's terminal
            as_person(hub, teacher, "reading-maths", "autograde", assignment, "--scheduler",
                      f"{cluster.gateway}?workers=2", cwd=course, timeout=900,
                      extra_env={**CLIENT_ENV, "READING_MATHS_COURSE": str(course)})
        hp.formgrader(t, teacher.name, f"manage_submissions/{assignment}")
        for student in ("ada", "bob"):
            name = people[student].name
            row = t.locator("tr", has=t.get_by_text(name, exact=True))
            if not cluster:  # formgrader's button, through the sandbox on this machine
                hp.press(t, row, "flash", f"autograded '{assignment}' for student '{name}'")
            if assignment == "code":
                expected[student] = grade_json(course, course / "submitted" / name / "code" / "code.ipynb")
                result = expected[student]
                # the button graded in the sandbox: the engine's result is kept beside autograded/ (stock
                # nbgrader, which runs the hidden tests in a kernel, writes no such file)
                sandboxed = json.loads((course / "autograded" / name / "code.json").read_text())["code"]
                assert sandboxed["score"] == result["score"], (sandboxed, result)
                expect(row.locator(".score")).to_have_text(
                    f"{in_formgrader(result['score'])} / {in_formgrader(result['max_score'])}", timeout=60_000)
        hp.shot(t, shots, f"05-instructor-autograded-{assignment}")
    ada, bob = expected["ada"], expected["bob"]
    for student, said in checked.items():  # the check's verdict was the grade's
        assert f"{expected[student]['score']:g} / {expected[student]['max_score']:g} points" in said, said
    assert ada["score"] == ada["max_score"] > bob["score"] > 0, (ada["score"], bob["score"])
    bob_softmax = next(q for q in bob["questions"] if q["id"] == "softmax")
    line = next(line for line in bob_softmax["feedback"] if "multiply the logits by the temperature" in line)
    # the feedback page shows the message once, its inputs apart (nbgrader/feedback.py), code as code
    message = next(s for s in line.split(". ") if "multiply the logits by the temperature" in s).replace("`", "")

    for student, (points, comment) in MARKS.items():
        person = people[student]
        hp.formgrader(t, teacher.name, "gradebook/proofs/proofs")
        expect(t.locator("tbody tr")).to_have_count(2, timeout=60_000)
        t.get_by_text("Show All Names").click()
        t.get_by_role("link", name=f"{person.last_name}, {person.first_name}", exact=True).click()
        score, note = t.locator("input.score#puzzle_written"), t.locator("textarea#puzzle_written-comment")
        expect(score).to_have_class(re.compile("needs_manual_grade"))  # formgrader has loaded the grade
        for field, value, api in ((score, str(points), "/api/grade/"), (note, comment, "/api/comment/")):
            with t.expect_response(lambda r, api=api: api in r.url and r.request.method == "PUT" and r.ok):
                field.fill(value)
                field.press("Tab")  # formgrader saves a field when it loses focus
        expect(score).not_to_have_class(re.compile("needs_manual_grade"))
        t.reload()  # what was saved, not what was typed
        expect(t.locator("input.score#puzzle_written")).to_have_value(str(points), timeout=60_000)
        expect(t.locator("textarea#puzzle_written-comment")).to_have_value(comment)
        t.locator("input.score#puzzle_written").scroll_into_view_if_needed()
        hp.shot(t, shots, f"06-instructor-hand-marks-{student}")

    hp.formgrader(t, teacher.name)
    for assignment in ("code", "proofs"):
        hp.press(t, hp.assignment_row(t, assignment), "comment", f"generated feedback of '{assignment}'")
        hp.press(t, hp.assignment_row(t, assignment), "envelope", f"released feedback of '{assignment}'")
    hp.shot(t, shots, "07-instructor-feedback-released")

    # 4. Each student fetches their feedback: their own score and message, never the other's.
    for student, other in (("ada", "bob"), ("bob", "ada")):
        person, s = people[student], pages[student]
        s.goto(f"{hub.url}/user/{person.name}/lab")
        panel = hp.assignment_list(s)
        for assignment in ("code", "proofs"):
            hp.list_row(panel, "submitted", assignment).get_by_role("button", name="Fetch Feedback").click()
            expect(hp.list_row(panel, "submitted", assignment).get_by_text("(view feedback)")).to_be_visible(
                timeout=hp.SLOW)
        hp.shot(s, shots, f"08-{student}-feedback-fetched")
        texts = {}
        for assignment in ("code", "proofs"):
            html = next(person.home.rglob(f"{assignment}/feedback/*/{assignment}.html"))
            s.goto(f"{hub.url}/user/{person.name}/files/{html.relative_to(person.home)}")
            texts[assignment] = s.locator("body").inner_text()
            hp.shot(s, shots, f"09-{student}-feedback-{assignment}")
            blocking[f"{student}-feedback-{assignment}"] = a11y.audit(s, shots, f"09-{student}-feedback-{assignment}")
        mine = expected[student]
        total = f"(Score: {in_feedback(mine['score'])} / {in_feedback(mine['max_score'])})"
        assert total in texts["code"], texts["code"][:500]
        assert (message in texts["code"]) == (student == "bob")
        points, comment = MARKS[student]
        assert f"Score: {in_feedback(points)} / 2.0" in texts["proofs"] and comment in texts["proofs"]
        assert MARKS[other][1] not in texts["proofs"]
        assert all(people[other].name not in text for text in texts.values())
    assert not any(blocking.values()), blocking
    if served:  # nobody had an exchange folder: the site, the course and every home are without one
        roots = [hub.site.root, *(person.home for person in people.values())]
        assert [found for root in roots for found in root.rglob("exchange") if found.is_dir()] == []
        bob_calls_the_service(hub, people)
    if cluster:
        kept_on_postgresql(cluster, people, expected)


def kept_on_postgresql(cluster: Cluster, people, expected: dict) -> None:
    """The gradebook on the PostgreSQL server holds each student's ``code`` score as graded through the gateway, and
    the checks store there holds each student's one graded check."""
    from nbgrader.api import Gradebook
    from sqlalchemy import create_engine, text

    with Gradebook(cluster.gradebook) as gb:
        for student in ("ada", "bob"):
            submission = gb.find_submission_notebook("code", "code", people[student].name)
            assert submission.score == pytest.approx(expected[student]["score"]), student
    engine = create_engine(cluster.checks)
    try:
        with engine.connect() as db:
            found = db.execute(text('SELECT "user", outcome FROM checks')).all()
    finally:
        engine.dispose()
    assert sorted(found) == sorted((people[s].name, "graded") for s in ("ada", "bob")), found


def bob_calls_the_service(hub, people) -> None:
    """Bob, with a hub token of his own, calls the exchange service's API directly (tests/test_hub_exchange.py does
    more): Ada's submission, feedback for her, a submission as her, a name leaving the folder, another course.
    Each is refused, and the service holds the same afterwards."""
    from test_hub_exchange import files, hub_token, service

    ada, teacher = people["ada"].name, hub_token(hub, people["teacher"])
    token = hub_token(hub, people["bob"])
    before = service(hub, teacher, "GET", "reading-maths/submissions/code")
    adas = next(s for s in before[1]["submissions"] if s["student"] == ada)
    notebook = files(**{"code.ipynb": b"{}"})
    tries = {"ada's submission": service(hub, token, "GET", f"reading-maths/submissions/code/{adas['id']}"),
             "feedback for ada": service(hub, token, "PUT", f"reading-maths/feedback/code/{ada}", {"files": notebook}),
             "submit as ada": service(hub, token, "POST", "reading-maths/submissions/code",
                                      {"files": notebook, "student": ada}),
             "a name leaving the folder": service(hub, token, "POST", "reading-maths/submissions/code",
                                                  {"files": files(**{"../code.ipynb": b"{}"})}),
             "another course": service(hub, token, "GET", "another-course/releases")}
    assert {what: status for what, (status, _) in tries.items() if status < 400} == {}, tries
    assert service(hub, teacher, "GET", "reading-maths/submissions/code") == before
