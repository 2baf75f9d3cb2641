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

Typesetting (issue 31): the submission also holds every TeX macro that makes links, styles, classes, ids, HTML or
requests, built at run time too, and MathML written as HTML (tests/hostile/markup.py, ``typesetting_attacks``).
Formgrader's MathJax and the feedback's MathML typeset them with no attribute holding the student's mark, no request,
no script, whatever is clicked; each page carries the course's Content-Security-Policy first in its head, and
formgrader's own scripts still run under it. The control typesets the same cells with the course's former MathJax
configuration (base macros on, no ``safe``): the detectors see links, styles and script.
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
    TEX_MARK,
    Watch,
    as_executed,
    hostile_notebook,
    typesetting_attacks,
)

from reading_maths.nbgrader import inert

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
SHOTS = Path(__file__).resolve().parent / "screenshots"
STUDENT = "eve"

MARKED = """(marks) => {
  const found = [];
  for (const el of document.querySelectorAll('*'))
    for (const name of el.getAttributeNames()) {
      const value = el.getAttribute(name);
      if (marks.some(m => value.includes(m))) found.push(`${el.tagName} ${name}=${value.slice(0, 100)}`);
    }
  return found;
}"""
"""Every attribute of the page holding one of ``marks`` (the student's mark, the canary's address)."""

CLICK_MATH = """() => {
  const url = location.href;
  const all = [...document.querySelectorAll('mjx-container, mjx-container *, math, math *')];
  for (const el of all) {
    for (const type of ['mouseover', 'mouseenter', 'focus', 'mousedown', 'mouseup'])
      el.dispatchEvent(new MouseEvent(type, {bubbles: true}));
    el.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));
  }
  return [all.length, location.href === url];
}"""
"""Hover and click every element of the typeset math (a link's click follows it): returns how many, and whether
the page is still where it was."""

POLICY = """() => { const first = document.head.firstElementChild;
  return first && first.httpEquiv === 'Content-Security-Policy' ? first.content : null; }"""
VIOLATIONS = ("document.addEventListener('securitypolicyviolation', e => "
              "(window.violations = window.violations || []).push(e.effectiveDirective + ' ' + e.blockedURI))")
VULNERABLE = {"tex": {"inlineMath": [["$", "$"], ["\\(", "\\)"]], "displayMath": [["$$", "$$"], ["\\[", "\\]"]],
                      "processEscapes": True, "tags": "ams", "packages": {"[-]": ["require", "autoload"]}},
              "options": {"enableMenu": False}}
"""The course's MathJax configuration before issue 31 (require and autoload left out, base's macros on, no safe
extension): the control."""


def directive(policy: str, name: str) -> list[str]:
    return next((d.split()[1:] for d in policy.split(";") if d.split()[:1] == [name]), [])


def assert_nothing_acted(page, watch, canary) -> None:
    """Whatever is clicked in the typeset math: no mark in an attribute, no script, no request, no navigation."""
    assert page.evaluate(MARKED, [TEX_MARK, canary]) == []
    url = page.url
    clicked, stayed = page.evaluate(CLICK_MATH)
    assert clicked > 100
    for link in page.locator("mjx-container a, math [href]").all():
        link.click(force=True, timeout=5000)
    page.wait_for_timeout(1000)
    assert stayed and page.url == url
    assert page.evaluate("() => top.pwned") is None and watch.dialogs == []
    assert watch.outside == [] and Canary.hits == [], (watch.outside, Canary.hits)


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
    watch.settle(page, mathjax=False)
    assert page.evaluate("() => top.pwned") is None
    assert watch.dialogs == [] and watch.outside == [] and Canary.hits == [], (watch.outside, Canary.hits)
    assert page.locator(".text_cell_render", has_text="The scores are scaled").locator("math").count() == 1
    # the typesetting attacks: MathML with none of the student's attributes, nothing acts when clicked
    assert page.evaluate(POLICY) == inert.PAGE_POLICY, "the feedback's policy is not first in its head"
    assert page.locator(".text_cell_render", has_text=TEX_MARK).count() >= 3
    assert_nothing_acted(page, watch, canary)
    page.close()
    shutil.rmtree(root / "feedback", ignore_errors=True)


def test_formgrader_typesets_no_attack_under_its_policy(course, chromium, canary):
    """Every typesetting attack in formgrader's page: refused (shown as its macro's name), nothing acts; the page's
    policy is first in its head, allows no inline script but by hash and nothing from elsewhere, and formgrader's own
    scripts and inline handlers run under it (no violation at all)."""
    root, scratch, env, submission = course
    Canary.hits.clear()
    chromium.add_init_script(VIOLATIONS)
    with b.jupyter_lab(root, scratch, env) as lab:
        watch = Watch(chromium, lab.url)
        page = watch.page(chromium)
        url = lab.at(f"/formgrader/submissions/{submission}/")
        page.goto(url)
        watch.settle(page)
        policy = page.evaluate(POLICY)
        assert policy is not None, "no Content-Security-Policy first in formgrader's head"
        assert directive(policy, "default-src") == ["'none'"] and directive(policy, "base-uri") == ["'none'"]
        scripts = directive(policy, "script-src")
        assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts
        assert set(scripts) - {"'self'", "'unsafe-hashes'"} == {s for s in scripts if s.startswith("'sha256-")}
        # the attacks were typeset
        math = page.locator(".text_cell_render", has_text=TEX_MARK).locator("mjx-container")
        assert math.count() > 30
        assert_nothing_acted(page, watch, canary)
        # the refused macros are shown as their names (the assistive MathML holds the text)
        shown = page.evaluate("() => [...document.querySelectorAll('mjx-assistive-mml')].map(e => e.textContent)")
        for name in ("\\mmlToken", "\\href", "\\class", "\\style", "\\cssId", "\\unicode", "\\require",
                     "\\texttip", "\\bbox", "\\color", "\\data", "\\toggle"):
            assert any(name in text for text in shown), f"{name} was not refused"
        assert [u for u in watch.requests if not ALLOWED.match(u.split("?")[0])] == [], watch.requests
        # formgrader's own scripts ran (its name toggle is an inline handler, allowed by hash)
        assert page.evaluate("() => typeof jQuery === 'function' && typeof toggle_name === 'function'")
        page.locator(".glyphicon-eye-open.name-hidden").click()
        assert page.locator("a.name-shown").is_visible()
        assert page.evaluate("() => window.violations || []") == []
        page.close()


def test_the_detectors_see_the_former_mathjax_act(chromium, canary):
    """The control: the same cells, sanitised as formgrader's page does, typeset by MathJax as the course configured
    it before (base macros on, no safe extension): links and styles carry the student's values, a style loads the
    canary with no click, a click runs script."""
    Canary.hits.clear()
    cells = [inert.render_markdown(source) for source in typesetting_attacks(canary)]
    body = "".join(f"<div class='text_cell_render'>{cell}</div>" for cell in cells)
    page_html = (f"<!doctype html><html><head><meta charset='utf-8'>{inert.offline_mathjax('tex-svg.js', VULNERABLE)}"
                 f"</head><body><div id='notebook-container'>{body}</div></body></html>")
    watch = Watch(chromium, "http://lab.invalid")
    page = watch.page(chromium)
    page.set_content(page_html, wait_until="load", timeout=60_000)
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
    page.wait_for_timeout(1000)
    marked = page.evaluate(MARKED, [TEX_MARK, canary])
    assert any(" href=javascript:" in m for m in marked) and any(" style=" in m for m in marked), marked
    assert any(f"{TEX_MARK}-mml-style" in u for u in watch.outside), watch.outside  # no click needed
    for link in page.locator("mjx-container a").all():
        link.click(force=True, timeout=5000)
    page.wait_for_timeout(1000)
    assert any(p.startswith(TEX_MARK) for p in page.evaluate("() => top.pwned || []")), "no payload ran"
    page.close()


def test_mathml_keeps_no_attribute_that_acts(canary):
    """The feedback's MathML (latex2mathml, then the allowlist) and MathML written as HTML (formgrader's and the
    feedback's sanitiser): no link, style, class, id, colour or background, no ``maction``, no ``annotation-xml``; an
    address in a formula's text does not become a link when the cell's Markdown is rendered."""
    from html.parser import HTMLParser

    from reading_maths.nbgrader.feedback import MATHML_ATTRIBUTES, mathml

    class Markup(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags, self.attributes = set(), set()

        def handle_starttag(self, tag, attrs):
            self.tags.add(tag)
            self.attributes.update(name for name, _ in attrs)

    shown = [mathml(tex, display=False) or "" for tex in (
        rf"\href{{{canary}/x}}{{x}}", r"\style{background:url(x)}{x}", r"\class{k}{x}", r"\cssId{i}{x}",
        r"\color{url(x)}{x}", r"\colorbox{red}{x}", r"\mmlToken{mi}[href='javascript:x']{x}", r"\unicode{x41}",
        rf"\text{{{canary}/y}}")]
    shown = [inert.render_markdown(f"x {html}") for html in shown]  # rendered as the feedback's Markdown cells are
    shown.append(inert.render_markdown(typesetting_attacks(canary)[3]))  # MathML written as HTML
    for html in shown:
        found = Markup()
        found.feed(html)
        assert found.attributes <= set(MATHML_ATTRIBUTES), (found.attributes, html)
        assert not found.tags & {"a", "maction", "semantics", "annotation-xml", "script", "style"}, html


def test_one_policy_for_every_page():
    """The written pages' policy allows no script and no load; formgrader's allows its own files and the head's
    inline scripts by hash only, never ``'unsafe-inline'`` or ``'unsafe-eval'``."""
    from reading_maths.reports.escape import HEADER_POLICY, PAGE_POLICY

    assert directive(PAGE_POLICY, "script-src") == ["'none'"] and directive(PAGE_POLICY, "default-src") == ["'none'"]
    assert directive(HEADER_POLICY, "frame-ancestors") == ["'none'"]
    head = f"<html><head><script>var a = 1;</script>{inert.offline_mathjax('tex-svg.js')}</head>"
    page = str(inert.with_csp(head, "formgrader"))
    assert page.startswith('<html><head><meta http-equiv="Content-Security-Policy"')
    policy = page.split('content="')[1].split('"')[0].replace("&#x27;", "'")
    scripts = directive(policy, "script-src")
    assert len([s for s in scripts if s.startswith("'sha256-")]) == 3 + len(inert.FORMGRADER_HANDLERS)
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts
