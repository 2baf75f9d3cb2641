"""The feedback a student reads: small, self-contained, formulas typeset offline, each message once.

A temporary course grades one submission of every assignment (``reading-maths autograde``; ``code`` with
typical mistakes, so there are messages to read; a written proof whose TeX carries markup) and runs stock
``nbgrader generate_feedback`` with the course's nbgrader_config.py. Each page must stay under 300 KB, load
nothing remote and run no script; its formulas are MathML, which headless Chromium, with every network
request refused, typesets itself, and passes axe-core with no serious or critical violation (tests/a11y.py).
Screenshots: tests/screenshots/feedback-<assignment>.png, axe-core's results beside them (``.axe.json``).
"""

from __future__ import annotations

import html.parser
import re
from pathlib import Path

import a11y
import browser as b
import nbformat
import pytest

from classroom.builder import ClassBuilder, answered, fill
from conftest import ROOT
from reading_maths.course import Assignment, assignments

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parent / "screenshots"
ASSIGNMENTS = [a.id for a in assignments(ROOT)]
HOSTILE_TEX = r"The bound holds: $\text{<img src=x onerror=alert(1)>} \le 1$."


class Resources(html.parser.HTMLParser):
    """Every URL the page would load by itself, and every script."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.scripts += tag == "script"
        for key in ("src", "srcset", "data", "href") if tag != "a" else ():
            if attrs.get(key):
                self.urls.append(attrs[key])


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    scratch = tmp_path_factory.mktemp("feedback")
    course = scratch / "course"
    b.copy_course(ROOT, course)
    env = b.course_env(course, scratch)
    for a in ASSIGNMENTS:
        release = nbformat.read(b.generate(course, a, env), as_version=4)
        if a == "code":
            pool = ClassBuilder(Assignment(a, ROOT)).pool()
            nb = fill(release, [answers["wrong"][0] for answers in pool.values()])
        else:
            nb = answered(release, nbformat.read(ROOT / "source" / a / f"{a}.ipynb", as_version=4))
            for cell in nb.cells:
                if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"):
                    cell.source += "\n\n" + HOSTILE_TEX
        path = scratch / f"{a}.ipynb"
        nbformat.write(nb, path)
        b.submit(course, "alice", a, path)
        b.autograde(course, a, env)
        b.run([str(b.BIN / "nbgrader"), "generate_feedback", a, "--force", "--log-level=WARN"], course, env)
    found = {a: course / "feedback" / "alice" / a / f"{a}.html" for a in ASSIGNMENTS}
    assert all(p.is_file() for p in found.values()), "generate_feedback wrote no feedback"
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_feedback_is_small_self_contained_and_names_its_questions(pages, assignment):
    text = pages[assignment].read_text(encoding="utf-8")
    assert len(text.encode()) < 300_000, f"{len(text.encode())} bytes"
    found = Resources()
    found.feed(text)
    assert not [u for u in found.urls if not u.startswith(("#", "data:"))], f"the feedback loads {found.urls}"
    assert found.scripts == 0, "formulas are MathML: no MathJax, no script at all"
    assert "<math" in text and "$$" not in text, "formulas are MathML, not TeX left for a script"
    toc = re.search(r'<div id="toc">(.*?)</div>', text, re.DOTALL)[1]
    assert "Test cell" not in toc and "Comment<" not in toc, "nbgrader's generic table of contents"
    for question in Assignment(assignment, ROOT).questions:
        assert f">{question}: hidden tests" in toc, question
    assert "grade_question" not in text and "BEGIN HIDDEN TESTS" not in text, "the hidden-test call is hidden"
    helpers = re.search(r"<details class=\"course-code\"><summary>read-only course code \(check-helpers\)", text)
    assert helpers, "the check harness is folded away"
    assert "<img src=x" not in text, "a student's TeX stays text"


def test_each_message_once(pages):
    text = pages["code"].read_text(encoding="utf-8")
    comments = re.findall(r"<b>Comments:</b>(.*?)</div>", text, re.DOTALL)
    assert comments, "the wrong code answers have their graders' messages"
    for comment in comments:
        items = [re.sub(r"\(seen on:.*?\)", "", i) for i in re.findall(r"<li>(.*?)</li>", comment, re.DOTALL)]
        assert len(items) == len(set(items)), "a message repeated"
    assert "what the tests found: in the comment under your answer above" in text, "not again under the tests"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_formulas_render_in_a_browser_without_network(pages, assignment):
    attempted: list[str] = []
    with b.chromium() as ctx:
        def refuse(route):
            attempted.append(route.request.url)
            route.abort()

        ctx.route(lambda url: not url.startswith(("file:", "data:", "blob:")), refuse)
        page = ctx.new_page()
        page.goto(pages[assignment].as_uri())
        typeset = page.evaluate("""() => [...document.querySelectorAll('math')].map(m => {
            const r = m.getBoundingClientRect();
            return [getComputedStyle(m).display, r.width, r.height]; })""")
        assert typeset, "no formula on the page"
        assert all(display in ("math", "block math", "inline math") for display, _, _ in typeset), \
            "Chromium did not lay the MathML out as mathematics"
        assert all(w > 0 and h > 0 for _, w, h in typeset[:50])
        prose = page.evaluate("""() => [...document.querySelectorAll('.text_cell_render')].map(e => {
            const copy = e.cloneNode(true); copy.querySelectorAll('code, pre, math').forEach(c => c.remove());
            return copy.textContent; }).join(' ')""")
        assert "\\frac" not in prose and "$$" not in prose, "raw TeX is left in the text"
        SHOTS.mkdir(exist_ok=True)
        page.locator("math[display=block], math").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"feedback-{assignment}.png"))
        blocking = a11y.audit(page, SHOTS, f"feedback-{assignment}")
        page.close()
    assert not attempted, f"the feedback page tried to reach {attempted}"
    assert not blocking, "axe-core: " + "; ".join(f"{v['rule']} ({v['impact']}) at {v['elements']}" for v in blocking)
