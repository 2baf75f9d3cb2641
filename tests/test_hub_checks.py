"""Checks with the hidden tests on the real hub, in a browser, as each person (root; Unix accounts made here).

The hub runs the checks service as the instructor, on the instructor's course, whose checks.toml allows two
checks of ``code`` per hour. Ada (right answers) and Bob (the temperature multiplied) each have their ``code``
notebook in their home folder; Eve, on the class list too, never checks:

1. Ada (whose browser is in New York) opens it in JupyterLab and presses "Check with the hidden tests": a
   dialog shows one row per question, her points, a result in words and the messages, the same as
   ``reading-maths grade`` gives her notebook, and when she checked, in words;
2. she checks again, then once more and is refused, told when the next check is allowed (her first check's
   time plus the hour), in words and in her zone; her page under the service lists all three, its times in her
   zone and in words, and her progress: her points per question over her two checks, what changed (nothing),
   and the checks left (none, the next in so many minutes);
3. Bob checks his, sees his own result (his catalogued mistake's message), his page lists only his checks, and
   Ada's check is not found for him;
4. the instructor's page under the service lists both students' checks, and the class: two of the three
   students on the class list have checked, the median points per question that day, Eve has not started;
5. the instructor releases ``code`` and ``proofs``; in nbgrader's Assignments tab Ada (whose browser is in New
   York) sees each one's due date in her own time zone, the time left and the late policy, from the checks
   service; the instructor moves ``code``'s date two days and three hours into the past in nbgrader_config.py, and
   Ada sees the new date without a new release; her Submit of ``code`` asks first, with the 30 % it costs now
   (cancelled: nothing submitted; confirmed: submitted); she submits ``proofs`` on time with no question, its date
   passes, and her second Submit says it will replace an on-time submission.

Every page and part of a page of ours that the test visits passes axe-core with no serious or critical
violation (tests/a11y.py). Screenshots of each step, and axe-core's results beside them (``*.axe.json``), go to
``tests/screenshots/hub-checks/``.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import a11y
import browser as b
import hub_pages as hp
import nbformat
import pytest
from hub_class import as_person, class_on_hub, new_people
from test_hub import grade_json

from hub.checks_trial import variant
from reading_maths.nbgrader.deadlines import deadlines
from reading_maths.notebook import grade_id

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parent / "screenshots" / "hub-checks"
LIMITS = '[assignments.code]\nattempts = 2\nwindow = "1h"\n'


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
    a11y.require_axe()

    people = new_people("ada", "bob", "eve")  # eve is on the class list and never checks
    with class_on_hub(people, checks=True, before=place) as hub:
        yield hub, people


@pytest.fixture(scope="module")
def browser(hub_class):
    with b.chromium_browser() as chromium:
        yield chromium


def check(page, person) -> str:
    """Open the student's ``code`` notebook, press the button, and return what the answer panel says."""
    notebook = person.home / "code" / "code.ipynb"
    hp.open_notebook(page, person.name, "code/code.ipynb", len(nbformat.read(notebook, as_version=4).cells))
    return hp.check(page)


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


class Audits:
    """axe-core on each page (or part of one) the test visits; the serious and critical violations, by page, are
    asserted at the end, so that one run reports them all."""

    def __init__(self):
        self.blocking: dict[str, list[dict]] = {}

    def __call__(self, page, name: str, include: list[str] | None = None) -> None:
        found = a11y.audit(page, SHOTS, name, include)
        if found:
            self.blocking[name] = found

    def assert_none(self) -> None:
        assert not self.blocking, "axe-core: " + "; ".join(
            f"{name}: " + ", ".join(f"{v['rule']} ({v['impact']}) at {' | '.join(v['elements'])}" for v in found)
            for name, found in self.blocking.items())


ANSWER = ["#reading-maths-check"]


def test_checks_on_the_hub(hub_class, browser):
    from playwright.sync_api import expect

    hub, people = hub_class
    ada, bob, teacher = people["ada"], people["bob"], people["teacher"]
    shutil.rmtree(SHOTS, ignore_errors=True)
    SHOTS.mkdir(parents=True)
    audit = Audits()

    # 1. Ada checks her notebook and sees her result: the engine's, one row per question.
    a = hp.log_in(browser, hub.url, ada.name, ada.password, timezone_id=ZONE, locale="en-US", bypass_csp=True)
    said = check(a, ada)
    hp.shot(a, SHOTS, "01-ada-checked")
    audit(a, "01-ada-checked", ANSWER)
    audit(a, "01-ada-notebook-markdown", [".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown"])
    # the notebook's formulas, typeset by JupyterLab's own MathJax (bundled: offline), carry MathML for screen readers
    formula = a.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown mjx-container").first
    expect(formula.locator("mjx-assistive-mml math")).to_be_attached()
    expected = grade_json(teacher.course, ada.home / "code" / "code.ipynb")
    box = a.get_by_role("dialog", name=re.compile("^Check "))
    expect(box.get_by_role("heading")).to_contain_text(f"{expected['score']:g} / {expected['max_score']:g} points")
    for q in expected["questions"]:
        row = box.locator(f"tr.question[data-id='{q['id']}']")
        expect(row.locator(".points")).to_have_text(f"{q['score']:g} / {q['max_score']:g}")
        full = q["score"] >= q["max_score"]
        expect(row).to_have_attribute("data-result", "full" if full else "part" if q["score"] > 0 else "none")
        expect(row.locator(".mark")).to_have_text("✓ full marks" if full else re.compile("points$"))
    assert "All 14 checks passed." in said
    assert re.search(r"Checked just now \(\w{3}, \w{3} \d+, \d{4}, \d\d:\d\d [AP]M E[SD]T\)", plain(said)), said

    # 2. Again (her second check of two an hour), then past the limit: refused, with when the next is allowed.
    a.keyboard.press("Escape")  # the dialog closes from the keyboard
    expect(box).to_have_count(0)
    said = check(a, ada)
    assert f"{expected['score']:g} / {expected['max_score']:g} points" in said
    a.locator(".reading-maths-check-close").click()
    said = check(a, ada)
    hp.shot(a, SHOTS, "02-ada-refused")
    audit(a, "02-ada-refused", ANSWER)
    first, second, refused = rows(teacher.course)
    assert [r["outcome"] for r in (first, second, refused)] == ["graded", "graded", "refused"]
    assert {r["user"] for r in (first, second, refused)} == {ada.name}
    allowed = datetime.fromisoformat(first["asked_at"]) + timedelta(hours=1)
    assert "Check refused" in said and f"the next check is allowed at {allowed.isoformat()}" in said, said
    assert re.search(rf"Next check allowed in \d+ minutes \({re.escape(in_words(allowed))}\)", plain(said)), said
    page = service_page(a, hub)
    hp.shot(a, SHOTS, "03-ada-her-checks")
    audit(a, "03-ada-her-checks")
    assert "Your checks" in page and "refused: you have used your checks of code" in page
    assert f"times in {ZONE}" in page  # the zone her JupyterLab told the service, by a cookie of its own
    expect(a.locator("tr.check")).to_have_count(3)
    # her progress: points per question over her two checks, what changed, the attempts left
    mine = a.locator("section.progress[data-assignment=code]")
    expect(mine.locator("thead th")).to_have_count(1 + 2 + 1)
    for q in expected["questions"]:
        row = mine.locator(f"tr.question[data-question='{q['id']}']")
        expect(row.locator("td.points")).to_have_text([f"{q['score']:g} / {q['max_score']:g}"] * 2)
        expect(row.locator("td.change")).to_have_text("no change")
    expect(mine.locator(".attempts")).to_have_text(
        re.compile(r"^0 of 2 per hour left; the next check is allowed in \d+ minutes\.$"))
    expect(a.locator("tr.check td.asked").first).to_have_text(re.compile(r"^(just now|\d+ minutes? ago)$"))
    page = service_page(a, hub, f"checks/{first['id']}")
    hp.shot(a, SHOTS, "03b-ada-her-first-check")
    audit(a, "03b-ada-her-first-check")
    assert page.count("All 14 checks passed.") == 1 and f"({ZONE})" in page
    assert a.locator("tr.question[data-result=full] .mark").first.inner_text() == "✓ full marks"

    # 3. Bob sees his own result, and nothing of Ada's.
    s = hp.log_in(browser, hub.url, bob.name, bob.password, bypass_csp=True)
    said = check(s, bob)
    hp.shot(s, SHOTS, "04-bob-checked")
    audit(s, "04-bob-checked", ANSWER)
    expect(s.locator("#reading-maths-check tr.question[data-id=softmax]")).not_to_have_attribute("data-result", "full")
    assert "multiply the logits by the temperature" in said and ada.name not in said, said
    page = service_page(s, hub)
    hp.shot(s, SHOTS, "05-bob-his-checks")
    audit(s, "05-bob-his-checks")
    expect(s.locator("tr.check")).to_have_count(1)
    assert ada.name not in page and "Every check" not in page
    expect(s.locator("section.progress[data-assignment=code] .attempts")).to_have_text("1 of 2 per hour left.")
    bobs = grade_json(teacher.course, bob.home / "code" / "code.ipynb")
    page = service_page(s, hub, f"checks/{first['id']}")
    hp.shot(s, SHOTS, "06-bob-not-adas-check")
    audit(s, "06-bob-not-adas-check")
    assert "404" in page and "All 14 checks passed." not in page and ada.name not in page

    # 4. The instructor's page lists both students' checks, and the class: who checked, the median points per
    #    question that day, who has not started.
    t = hp.log_in(browser, hub.url, teacher.name, teacher.password, bypass_csp=True)
    page = service_page(t, hub)
    hp.shot(t, SHOTS, "07-instructor-every-check")
    audit(t, "07-instructor-every-check")
    assert "Every check" in page
    expect(t.locator("tr.check")).to_have_count(4)
    assert [r.strip() for r in t.locator("tr.check td.user").all_inner_texts()] == [bob.name, *[ada.name] * 3]
    klass = t.locator("section.class-progress[data-assignment=code]")
    expect(klass.locator(".checked")).to_have_text("2 of the 3 students on the class list have checked code.")
    expect(klass.locator(".not-started")).to_have_text(f"Not started (no check asked): {people['eve'].name}.")
    expect(klass.locator("tr.day")).to_have_count(1)
    expect(klass.locator("tr.day td.students")).to_have_text("2")
    for q, b_q in zip(expected["questions"], bobs["questions"], strict=True):
        median = (q["score"] + b_q["score"]) / 2
        expect(klass.locator(f"tr.day td.median[data-question='{q['id']}']")).to_have_text(f"{median:g}")
    assert os.stat(teacher.course / "checks.sqlite").st_uid == os.stat(teacher.course).st_uid  # kept by the service

    # 5. Deadlines in the Assignments tab, and a late Submit that asks first.
    deadlines_in_the_assignments_tab(hub, browser, people, audit)
    audit.assert_none()


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


def deadlines_in_the_assignments_tab(hub, browser, people, audit):
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
    s = hp.log_in(browser, hub.url, ada.name, ada.password, timezone_id=ZONE, locale="en-US", bypass_csp=True)
    panel = hp.assignment_list(s)
    for assignment in ("code", "proofs"):
        line = due_line(panel, "released", assignment)
        expect(line).to_be_visible(timeout=60_000)
        text = plain(line.inner_text())
        assert text.startswith(f"Due {in_words(due[assignment])} (in ") and text.endswith(policy), text
        assert line.get_attribute("data-late") == "no"
    hp.shot(s, SHOTS, "08-ada-due-dates")
    audit(s, "08-ada-due-dates", [".reading-maths-due"])

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
    audit(s, "10-ada-late-submit-asks", ["#reading-maths-late"])
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
