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
4. the instructor's page under the service lists both students' checks.

Screenshots of each step go to ``tests/screenshots/hub-checks/``.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import browser as b
import hub_pages as hp
import nbformat
import pytest
from hub_class import class_on_hub, new_people
from test_hub import grade_json

from hub.checks_trial import variant
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
