"""Feedback HTML renders its formulas offline: MathJax is inlined from a package, nothing is fetched.

A temporary course grades one submission of ``code`` (``reading-maths autograde``) and runs stock
``nbgrader generate_feedback`` with the course's nbgrader_config.py. The HTML must load no remote
script, stylesheet or image, must carry MathJax from the installed package, and, opened from disk in
a headless Chromium whose every network request is refused, must typeset the notebook's formulas
(MathJax's SVG output). The screenshot goes to tests/screenshots/feedback-offline-mathjax.png.
"""

from __future__ import annotations

import html.parser
from pathlib import Path

import browser as b
import nbformat
import pytest

from classroom.builder import ClassBuilder, fill
from conftest import ROOT
from reading_maths.course import Assignment
from reading_maths.nbgrader.feedback import mathjax_file

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parent / "screenshots"


class Resources(html.parser.HTMLParser):
    """Every URL the page would load by itself: script, stylesheet, image, frame, object sources."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and "src" not in attrs:
            self.inline_scripts += 1
        for key in ("src", "srcset", "data") if tag in ("script", "img", "iframe", "embed", "object", "source",
                                                        "audio", "video") else ():
            if attrs.get(key):
                self.urls.append(attrs[key])
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])


@pytest.fixture(scope="module")
def feedback(tmp_path_factory) -> Path:
    scratch = tmp_path_factory.mktemp("feedback")
    course = scratch / "course"
    b.copy_course(ROOT, course)
    env = b.course_env(course, scratch)
    release = b.generate(course, "code", env)
    pool = ClassBuilder(Assignment("code", ROOT)).pool()
    answered = scratch / "answered.ipynb"
    nbformat.write(fill(nbformat.read(release, as_version=4), [a["wrong"][0] for a in pool.values()]), answered)
    b.submit(course, "alice", "code", answered)
    b.autograde(course, "code", env)
    b.run([str(b.BIN / "nbgrader"), "generate_feedback", "code", "--force", "--log-level=WARN"], course, env)
    page = course / "feedback" / "alice" / "code" / "code.html"
    assert page.is_file(), "generate_feedback wrote no feedback"
    return page


def test_feedback_loads_nothing_remote_and_carries_the_package_mathjax(feedback):
    text = feedback.read_text(encoding="utf-8")
    found = Resources()
    found.feed(text)
    remote = [u for u in found.urls if u.startswith(("http:", "https:", "//"))]
    assert not remote, f"the feedback loads {remote}"
    assert "cdnjs" not in text and "MathJax.Hub.Config" not in text, "nbconvert's CDN MathJax 2 is gone"
    library = mathjax_file()
    assert library.is_file() and library.stat().st_size > 1_000_000
    assert library.read_text(encoding="utf-8") in text, "the installed MathJax file is inlined whole"
    assert "tex-svg.js" in text and found.inline_scripts >= 2
    assert "softmax: " in text, "still nbgrader's feedback: the grade cells' results are there"


def test_formulas_render_in_a_browser_without_network(feedback):
    from playwright.sync_api import expect

    attempted: list[str] = []
    with b.chromium() as ctx:
        def refuse(route):
            attempted.append(route.request.url)
            route.abort()

        ctx.route(lambda url: not url.startswith(("file:", "data:", "blob:")), refuse)
        page = ctx.new_page()
        page.goto(feedback.as_uri())
        typeset = page.locator("mjx-container svg")
        expect(typeset.first).to_be_visible(timeout=60_000)
        count = typeset.count()
        assert count >= 5, f"only {count} formulas were typeset"
        assert page.locator("text=$\\mathrm{Attention}").count() == 0, "raw TeX is left on the page"
        page.locator("mjx-container").first.scroll_into_view_if_needed()
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "feedback-offline-mathjax.png"))
        page.close()
    assert not attempted, f"the feedback page tried to reach {attempted}"
