"""Nothing a student wrote runs in the instructor's browser: formgrader's manual-grading page and the
generated feedback show a script-carrying submission inertly, with its formulas typeset.

A temporary course: a student hands in the ``code`` notebook with script in every place a notebook can
hold markup (tests/hostile/markup.py), ``reading-maths autograde`` grades it, the autograded notebook is
given the outputs and metadata a kernel running that code could leave, and the gradebook gets the student's
names with markup in them (as an LMS roster could). JupyterLab serves the course; Chromium opens the
submission's formgrader page, hovers, focuses and clicks everything in it, and the test proves that no
payload ran (``top.pwned``, dialogs), that no request left the page (every request is recorded by
Playwright's routing, anything not to the lab aborted; a canary server counts what gets through) and that
only formgrader's own files and API were asked for, while the formula cell is typeset by MathJax.
A control renders the same notebook with nbgrader's stock template: the detectors see its payloads run.
"""

from __future__ import annotations

import http.server
import shutil
import threading
from pathlib import Path

import browser as b
import nbformat
import pytest
from hostile.markup import (
    ALLOWED,
    DOM_CHECK,
    FORMULA,
    HOSTILE_NAME,
    MISSING_ATTACHMENT,
    POKE,
    Watch,
    as_executed,
    hostile_notebook,
)

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
SHOTS = Path(__file__).resolve().parent / "screenshots"
STUDENT = "eve"
class Canary(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - http.server's name
        Canary.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def canary():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Canary)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def course(tmp_path_factory, canary):
    """The course with eve's hostile submission autograded; returns (root, scratch, env, submission id)."""
    from nbgrader.api import Gradebook

    scratch = tmp_path_factory.mktemp("inert")
    root = scratch / "course"
    b.copy_course(REPO, root)
    env = b.course_env(root, scratch)
    release = nbformat.read(b.generate(root, "code", env), as_version=4)
    submitted = root / "submitted" / STUDENT / "code" / "code.ipynb"
    submitted.parent.mkdir(parents=True)
    nbformat.write(hostile_notebook(release, canary), submitted)
    b.run([str(b.BIN / "reading-maths"), "autograde", "code"], root, env)
    graded = root / "autograded" / STUDENT / "code" / "code.ipynb"
    nb = nbformat.read(graded, as_version=4)
    assert sum(FORMULA in c.source for c in nb.cells) == 1, "autograde dropped the student's Markdown cells"
    nbformat.write(as_executed(nb, canary), graded)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        gb.update_or_create_student(STUDENT, **HOSTILE_NAME)
        submission = gb.find_submission_notebook("code", "code", STUDENT).id
    return root, scratch, env, submission


@pytest.fixture()
def chromium():
    with b.chromium() as context:
        yield context


def test_formgrader_shows_a_hostile_submission_inertly(course, chromium, canary):
    root, scratch, env, submission = course
    Canary.hits.clear()
    with b.jupyter_lab(root, scratch, env) as lab:
        watch = Watch(chromium, lab.url)
        page = watch.page(chromium)
        page.goto(lab.at(f"/formgrader/submissions/{submission}/"))
        assert watch.settle(page) > 100
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "instructor-inert-submission.png"), full_page=True)

        assert page.evaluate("() => top.pwned") is None, "a student's script ran in formgrader"
        assert watch.dialogs == []
        assert watch.outside == [] and Canary.hits == [], (watch.outside, Canary.hits)
        assert [u for u in watch.requests if not ALLOWED.match(u.split("?")[0])] == [], watch.requests
        assert page.evaluate(DOM_CHECK) == []
        # the student's work is still there to be graded: the formula typeset, the markup shown as text
        formula = page.locator(".text_cell_render", has_text="The scores are scaled")
        assert formula.locator("mjx-container svg").count() == 1
        assert formula.locator("[data-mjx-error], mjx-merror").count() == 0
        assert page.get_by_text("<script>", exact=False).count() > 0
        assert page.locator("input.score#softmax").count() == 1  # formgrader's own grading form is intact
        # formgrader's lists print the student's names too (through jQuery's .text(): as text)
        for where in ("manage_students", f"manage_students/{STUDENT}/code", "gradebook/code/code",
                      "manage_submissions/code"):
            page.goto(lab.at(f"/formgrader/{where}"))
            page.wait_for_load_state("networkidle")  # the lists are filled from formgrader's API by then
            page.wait_for_timeout(500)
            assert page.evaluate("() => top.pwned") is None and watch.dialogs == [], where
        assert watch.outside == [] and Canary.hits == [], (watch.outside, Canary.hits)
        page.close()


def test_the_detectors_see_stock_formgrader_run_them(course, chromium, canary):
    """The control: nbgrader's own formgrade template on the same notebook runs the student's script."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    root, _, _, _ = course
    exporter = HTMLExporter(template_name="formgrade", extra_template_basedirs=[handlers.template_path])
    nb = nbformat.read(root / "autograded" / STUDENT / "code" / "code.ipynb", as_version=4)
    for cell in nb.cells:  # stock nbconvert fails the whole page on a missing attachment (the course's does not)
        cell.source = cell.source.replace(MISSING_ATTACHMENT, "")
    stock, _ = exporter.from_notebook_node(nb, resources={"base_url": "", "index": 0, "total": 1, "submission_id": "x"})
    watch = Watch(chromium, "http://lab.invalid")
    page = watch.page(chromium)
    page.set_content(stock, wait_until="domcontentloaded", timeout=60_000)
    page.evaluate(POKE)
    page.wait_for_timeout(1500)
    # (its <meta> refresh may have navigated the page away by now: the dialogs and requests were recorded)
    assert watch.dialogs and any(canary in u for u in watch.outside), (watch.dialogs, watch.outside)
    page.close()


def test_feedback_of_a_hostile_submission_is_inert(course, chromium, canary):
    """``generate_feedback``'s HTML, opened from disk, runs nothing and requests nothing either."""
    root, _, env, _ = course
    b.run([str(b.BIN / "nbgrader"), "generate_feedback", "code", f"--CourseDirectory.root={root}",
           "--force", "--log-level=WARN"], root, env)
    html = root / "feedback" / STUDENT / "code" / "code.html"
    Canary.hits.clear()
    watch = Watch(chromium, html.parent.as_uri())
    page = watch.page(chromium)
    page.goto(html.as_uri())
    watch.settle(page)
    assert page.evaluate("() => top.pwned") is None
    assert watch.dialogs == [] and watch.outside == [] and Canary.hits == [], (watch.outside, Canary.hits)
    assert page.locator(".text_cell_render", has_text="The scores are scaled").locator("mjx-container svg").count() == 1
    page.close()
    shutil.rmtree(root / "feedback", ignore_errors=True)
