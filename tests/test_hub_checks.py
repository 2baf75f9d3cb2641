"""Checks with the hidden tests on the real hub, in a browser, as each person (root; Unix accounts made here).

The hub runs the checks service as the instructor, on the instructor's course, whose checks.toml allows one
check of ``code`` per hour. Ada (right answers) and Bob (the temperature multiplied) each have their ``code``
notebook in their home folder:

1. Ada opens it in JupyterLab and presses "Check with the hidden tests": she sees her points and messages,
   the same as ``reading-maths grade`` gives her notebook;
2. she presses it again and is refused, told the time of the next allowed check (her first check's time plus
   the hour); her page under the service lists both;
3. Bob checks his, sees his own result (his catalogued mistake's message), his page lists only his checks, and
   Ada's check is not found for him;
4. the instructor's page under the service lists both students' checks;
5. the instructor releases ``code`` and ``proofs``; in nbgrader's Assignments tab Ada (whose browser is in New
   York) sees each one's due date in her own time zone, the time left and the late policy, from the checks
   service; the instructor moves ``code``'s date two days and three hours into the past in nbgrader_config.py, and
   Ada sees the new date without a new release; her Submit of ``code`` asks first, with the 30 % it costs now
   (cancelled: nothing submitted; confirmed: submitted); she submits ``proofs`` on time with no question, its date
   passes, and her second Submit says it will replace an on-time submission.

Screenshots of each step go to ``tests/screenshots/hub-checks/``.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import browser as b
import hub_pages as hp
import nbformat
import pytest
from hub_class import as_person, class_on_hub, new_people
from test_hub import grade_json

from hub.checks_trial import variant
from reading_maths.checks.deadlines import deadlines
from reading_maths.notebook import grade_id

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parent / "screenshots" / "hub-checks"
LIMITS = '[assignments.code]\nattempts = 1\nwindow = "1h"\n'
BUTTON = "Check with the hidden tests"


def bobs_notebook() -> bytes:
    nb = nbformat.reads(variant(0).decode(), as_version=4)
    for cell in nb.cells:
        if grade_id(cell) == "softmax-answer":
            cell.source = b.WRONG_SOFTMAX
    return nbformat.writes(nb).encode()


def place(people) -> None:
    """Each student's notebook in their home, and the instructor's limits, owned by them."""
    for person, data in ((people["ada"], variant(0)), (people["bob"], bobs_notebook())):
        target = person.home / "code" / "code.ipynb"
        target.parent.mkdir()
        target.write_bytes(data)
        for path in (target.parent, target):
            shutil.chown(path, person.name, person.name)
    limits = people["teacher"].course / "checks.toml"
    limits.write_text(LIMITS)
    shutil.chown(limits, people["teacher"].name, people["teacher"].name)


@pytest.fixture(scope="module")
def hub_class():
    from hub.site import CHECKS_LAB

    if not CHECKS_LAB.is_dir():
        pytest.skip(f"the Check button is not built at {CHECKS_LAB}: run `make hub-lab`")

    people = new_people("ada", "bob")
    with class_on_hub(people, checks=True, before=place) as hub:
        yield hub, people


@pytest.fixture(scope="module")
def browser(hub_class):
    with b.chromium_browser() as chromium:
        yield chromium


def check(page, person) -> str:
    """Open the student's ``code`` notebook, press the button, and return what the answer panel says."""
    from playwright.sync_api import expect

    notebook = person.home / "code" / "code.ipynb"
    hp.open_notebook(page, person.name, "code/code.ipynb", len(nbformat.read(notebook, as_version=4).cells))
    toolbar = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar")
    toolbar.get_by_text(BUTTON, exact=True).click()
    box = page.locator("#reading-maths-check")
    expect(box).to_be_visible()
    expect(box).not_to_have_attribute("data-state", "running", timeout=hp.SLOW)
    return box.inner_text()


def service_page(page, hub, path: str = "") -> str:
    """The page's text; it carries the course's Content-Security-Policy (no script, nothing loaded)."""
    from reading_maths.reports.escape import HEADER_POLICY

    response = page.goto(f"{hub.url}/services/checks/{path}")
    assert response.headers.get("content-security-policy") == HEADER_POLICY, response.headers
    return page.locator("body").inner_text()


def rows(course: Path) -> list[dict]:
    with sqlite3.connect(course / "checks.sqlite") as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM checks ORDER BY id")]


def test_checks_on_the_hub(hub_class, browser):
    from playwright.sync_api import expect

    hub, people = hub_class
    ada, bob, teacher = people["ada"], people["bob"], people["teacher"]
    shutil.rmtree(SHOTS, ignore_errors=True)
    SHOTS.mkdir(parents=True)

    # 1. Ada checks her notebook and sees her result: the engine's, per question.
    a = hp.log_in(browser, hub.url, ada.name, ada.password)
    said = check(a, ada)
    hp.shot(a, SHOTS, "01-ada-checked")
    expected = grade_json(teacher.course, ada.home / "code" / "code.ipynb")
    assert f"{expected['score']:g} / {expected['max_score']:g}" in said.splitlines()[1], said
    for q in expected["questions"]:
        assert f"{q['id']}: {q['score']:g} / {q['max_score']:g}" in said
    assert "All 14 checks passed." in said

    # 2. Again, past the limit: refused, with the time of the next allowed check.
    a.locator(".reading-maths-check-close").click()
    said = check(a, ada)
    hp.shot(a, SHOTS, "02-ada-refused")
    first, refused = rows(teacher.course)
    assert (first["user"], first["outcome"], refused["outcome"]) == (ada.name, "graded", "refused")
    allowed = datetime.fromisoformat(first["asked_at"]) + timedelta(hours=1)
    assert "Check refused" in said and f"the next check is allowed at {allowed.isoformat()}" in said, said
    page = service_page(a, hub)
    hp.shot(a, SHOTS, "03-ada-her-checks")
    assert "Your checks" in page and "refused: you have used your checks of code" in page
    expect(a.locator("tr.check")).to_have_count(2)
    assert service_page(a, hub, f"checks/{first['id']}").count("All 14 checks passed.") == 1

    # 3. Bob sees his own result, and nothing of Ada's.
    s = hp.log_in(browser, hub.url, bob.name, bob.password)
    said = check(s, bob)
    hp.shot(s, SHOTS, "04-bob-checked")
    assert "multiply the logits by the temperature" in said and ada.name not in said, said
    page = service_page(s, hub)
    hp.shot(s, SHOTS, "05-bob-his-checks")
    expect(s.locator("tr.check")).to_have_count(1)
    assert ada.name not in page and "Every check" not in page
    page = service_page(s, hub, f"checks/{first['id']}")
    hp.shot(s, SHOTS, "06-bob-not-adas-check")
    assert "404" in page and "All 14 checks passed." not in page and ada.name not in page

    # 4. The instructor's page lists both students' checks.
    t = hp.log_in(browser, hub.url, teacher.name, teacher.password)
    page = service_page(t, hub)
    hp.shot(t, SHOTS, "07-instructor-every-check")
    assert "Every check" in page
    expect(t.locator("tr.check")).to_have_count(3)
    assert [r.strip() for r in t.locator("tr.check td.user").all_inner_texts()] == [bob.name, ada.name, ada.name]
    assert os.stat(teacher.course / "checks.sqlite").st_uid == os.stat(teacher.course).st_uid  # kept by the service

    # 5. Deadlines in the Assignments tab, and a late Submit that asks first.
    deadlines_in_the_assignments_tab(hub, browser, people)


ZONE = "America/New_York"  # Ada's browser: the dates are shown in her zone, not the course's (Europe/London)


def in_words(moment: datetime) -> str:
    """A due date as Chromium (en-US) shows it in Ada's zone: ``Fri, Feb 12, 2027, 12:00 PM EST``."""
    local = moment.astimezone(ZoneInfo(ZONE))
    return f"{local:%a}, {local:%b} {local.day}, {local.year}, {local:%I:%M %p} {local.tzname()}"


def move_due_date(course: Path, assignment: str, when: datetime) -> None:
    """The instructor edits one due date in nbgrader_config.py (in place: the file stays theirs)."""
    config = course / "nbgrader_config.py"
    text = config.read_text()
    line = f'    "{assignment}": "{when.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC",\n'
    text, count = re.subn(rf'^    "{assignment}": .*\n', line, text, flags=re.M)
    assert count == 1, f"no due date of {assignment} in {config}"
    with config.open("w") as out:
        out.write(text)


def due_line(panel, section: str, assignment: str):
    return hp.list_row(panel, section, assignment).locator(".reading-maths-due")


def plain(text: str) -> str:
    return text.replace("\u202f", " ").replace("\xa0", " ")


def submit(page, panel, assignment: str, late: bool):
    """Press Submit on ``assignment``'s fetched row: the late dialog that opens (``late``), or None once the
    submission is listed with no question asked."""
    from playwright.sync_api import expect

    hp.list_row(panel, "fetched", assignment).get_by_role("button", name="Submit").click()
    dialog = page.get_by_role("alertdialog")
    if late:
        expect(dialog).to_be_visible(timeout=60_000)
        return dialog
    expect(hp.list_row(panel, "submitted", assignment)).to_be_visible(timeout=hp.SLOW)
    expect(dialog).to_have_count(0)
    return None


def submissions(hub, person, assignment: str) -> list[Path]:
    inbound = Path(hub.site.settings()["exchange"]) / "reading-maths" / "inbound"
    return sorted(inbound.glob(f"{person.name}+{assignment}+*"))


def deadlines_in_the_assignments_tab(hub, browser, people):
    from playwright.sync_api import expect

    ada, teacher = people["ada"], people["teacher"]
    course = teacher.course
    for assignment in ("code", "proofs"):
        as_person(hub, teacher, "nbgrader", "generate_assignment", assignment, "--create", "--force", cwd=course)
        as_person(hub, teacher, "nbgrader", "release_assignment", assignment, "--force", cwd=course)
    os.environ["READING_MATHS_EXCHANGE"] = hub.site.settings()["exchange"]  # as the hub's config reads it
    try:
        listed = deadlines(course, ada.name)["assignments"]
    finally:
        del os.environ["READING_MATHS_EXCHANGE"]
    due = {a["id"]: datetime.fromisoformat(a["due"]) for a in listed}
    policy = "Late work: 10 % of the score per started day late."

    # Ada's browser is in New York: each released assignment's date in her zone, the time left, the policy.
    s = hp.log_in(browser, hub.url, ada.name, ada.password, timezone_id=ZONE, locale="en-US")
    panel = hp.assignment_list(s)
    for assignment in ("code", "proofs"):
        line = due_line(panel, "released", assignment)
        expect(line).to_be_visible(timeout=60_000)
        text = plain(line.inner_text())
        assert text.startswith(f"Due {in_words(due[assignment])} (in ") and text.endswith(policy), text
        assert line.get_attribute("data-late") == "no"
    hp.shot(s, SHOTS, "08-ada-due-dates")

    # Proofs: fetched and submitted on time, with no question asked.
    hp.list_row(panel, "released", "proofs").get_by_role("button", name="Fetch").click()
    expect(hp.list_row(panel, "fetched", "proofs")).to_be_visible(timeout=hp.SLOW)
    submit(s, panel, "proofs", late=False)
    expect(due_line(panel, "submitted", "proofs")).to_be_visible()
    on_time = datetime.now(UTC)
    assert len(submissions(hub, ada, "proofs")) == 1

    # The instructor moves code's date into the past and proofs' to just after Ada's submission: no new release.
    now = datetime.now(UTC).replace(microsecond=0)
    move_due_date(course, "code", now - timedelta(days=2, hours=3))
    move_due_date(course, "proofs", on_time + timedelta(seconds=1))
    s.reload()
    panel = hp.assignment_list(s)
    line = due_line(panel, "released", "code")
    expect(line).to_have_attribute("data-late", "yes", timeout=60_000)
    text = plain(line.inner_text())
    assert text == f"Due {in_words(now - timedelta(days=2, hours=3))} (2 days 3 hours ago: a submission now is " \
                   f"late). {policy}", text
    hp.shot(s, SHOTS, "09-ada-code-overdue")

    # A late Submit asks first, with the penalty at this moment: cancelled, nothing is submitted.
    hp.list_row(panel, "released", "code").get_by_role("button", name="Fetch").click()
    expect(hp.list_row(panel, "fetched", "code")).to_be_visible(timeout=hp.SLOW)
    dialog = submit(s, panel, "code", late=True)
    said = plain(dialog.inner_text())
    assert "Submit code late?" in said and "2 days 3 hours ago" in said, said
    assert "it costs 30 % of the score (the course's policy: 10 % of the score per started day late)" in said, said
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()  # the safe answer is the default
    hp.shot(s, SHOTS, "10-ada-late-submit-asks")
    s.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(hp.list_row(panel, "submitted", "code")).to_have_count(0)
    assert submissions(hub, ada, "code") == []

    # Confirmed (from the keyboard): submitted.
    dialog = submit(s, panel, "code", late=True)
    s.keyboard.press("Tab")
    expect(dialog.get_by_role("button", name="Submit late")).to_be_focused()
    s.keyboard.press("Enter")
    expect(hp.list_row(panel, "submitted", "code")).to_be_visible(timeout=hp.SLOW)
    assert len(submissions(hub, ada, "code")) == 1

    # Proofs' date has passed since her on-time submission: a second Submit says it would replace it.
    dialog = submit(s, panel, "proofs", late=True)
    said = plain(dialog.inner_text())
    assert "You submitted proofs on time" in said and "this late one replaces it" in said, said
    assert "it costs 10 % of the score" in said, said
    hp.shot(s, SHOTS, "11-ada-late-replaces-on-time")
    dialog.get_by_role("button", name="Submit late").click()
    expect(dialog).to_have_count(0)
    deadline = datetime.now(UTC) + timedelta(seconds=120)
    while len(submissions(hub, ada, "proofs")) < 2 and datetime.now(UTC) < deadline:
        s.wait_for_timeout(500)
    assert len(submissions(hub, ada, "proofs")) == 2  # nbgrader keeps both; collect takes the last
