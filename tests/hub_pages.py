"""What the hub test does on the hub's pages, one person at a time: log in, JupyterLab's notebook and
nbgrader's assignment list, formgrader. Every wait is bounded; nothing here asserts a grade.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

CHECK_BUTTON = "Check with the hidden tests"
SLOW = 240_000  # ms: a server start, an autograde or a validation on a busy two-core machine


def log_in(browser, url: str, name: str, password: str, **options) -> Page:
    """A fresh browser context for ``name`` (``options``: Playwright's, e.g. ``timezone_id``), logged in through
    the hub's login page, on JupyterLab."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, **options)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(f"{url}/hub/login")
    page.fill("#username_input", name)
    page.fill("#password_input", password)
    page.click("#login_submit")
    page.wait_for_url(re.compile(rf"/user/{re.escape(name)}/lab"), timeout=SLOW)
    expect(page.get_by_role("menuitem", name="Nbgrader")).to_be_visible(timeout=SLOW)
    return page


def check(page: Page) -> str:
    """Press the Check button of the open notebook and return what the answer panel says once it is graded."""
    toolbar = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar")
    toolbar.get_by_text(CHECK_BUTTON, exact=True).click()
    box = page.locator("#reading-maths-check")
    expect(box).to_be_visible()
    expect(box).not_to_have_attribute("data-state", "running", timeout=SLOW)
    return box.inner_text()


def nbgrader_menu(page: Page) -> list[str]:
    """The items of JupyterLab's Nbgrader menu (the menu is closed again afterwards)."""
    page.get_by_role("menuitem", name="Nbgrader").click()
    menu = page.locator(".lm-Menu").last
    expect(menu).to_be_visible()
    items = [t.strip() for t in menu.locator(".lm-Menu-itemLabel").all_inner_texts() if t.strip()]
    page.keyboard.press("Escape")
    return items


# -- the student's side: the assignment list and the notebook ---------------------------------------

def assignment_list(page: Page):
    """Open Nbgrader > Assignment List; return the panel."""
    page.get_by_role("menuitem", name="Nbgrader").click()
    page.locator(".lm-Menu").last.get_by_text("Assignment List", exact=True).click()
    panel = page.locator("#nbgrader-assignment-list")
    expect(panel).to_be_visible()
    return panel


def list_row(panel, section: str, assignment: str):
    """The row of ``assignment`` in one of the panel's lists (released, fetched, submitted)."""
    return panel.locator(f"#{section}_assignments_list .list_item:not(.nested_list_item)", has_text=assignment)


def open_notebook(page: Page, user: str, path: str, cells: int):
    """Open ``path`` (relative to the home folder) in JupyterLab; return its cells once all are shown."""
    page.goto(f"{page.url.split('/user/')[0]}/user/{user}/lab/tree/{path}")
    located = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
    expect(located).to_have_count(cells, timeout=SLOW)
    return located


def type_into(page: Page, cell, text: str, markdown: bool = False) -> None:
    """Replace a cell's text by ``text``, as one input event (no auto-indent or bracket closing)."""
    if markdown:
        cell.dblclick()  # a rendered Markdown cell opens its editor on double click
    editor = cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)
    page.keyboard.press("Escape")
    expect(editor).to_contain_text(text.strip().splitlines()[0][:40])


def save(page: Page) -> None:
    page.keyboard.press("Control+s")
    expect(page.locator(".jp-mod-current.jp-mod-dirty")).to_have_count(0, timeout=60_000)


def validate(page: Page) -> str:
    """Press nbgrader's Validate button; return the text of its results dialog (closed again)."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar").get_by_text(
        "Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Validat", timeout=SLOW)
    expect(dialog.get_by_text("Validating...")).to_have_count(0, timeout=SLOW)
    return dialog.inner_text()


def close_dialog(page: Page) -> None:
    page.locator(".jp-Dialog").get_by_role("button").last.click()
    expect(page.locator(".jp-Dialog")).to_have_count(0)


# -- the instructor's side: formgrader ----------------------------------------------------------------

def formgrader(page: Page, user: str, where: str = "manage_assignments") -> None:
    page.goto(f"{page.url.split('/user/')[0]}/user/{user}/formgrader/{where}")


def assignment_row(page: Page, assignment: str):
    row = page.locator("tr", has=page.get_by_role("link", name=assignment, exact=True))
    expect(row).to_be_visible(timeout=60_000)
    return row


def press(page: Page, row, icon: str, success: str) -> None:
    """Click a formgrader action (its glyphicon in ``row``) and close the success dialog saying ``success``."""
    row.locator(f".glyphicon-{icon}").click()
    modal = page.locator(".modal.in, .modal.show").last
    expect(modal).to_be_visible(timeout=SLOW)
    expect(modal).to_contain_text(success, timeout=SLOW)
    modal.locator(".modal-footer button").click()
    expect(page.locator(".modal")).to_have_count(0, timeout=30_000)


def shot(page: Page, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
