"""JupyterLab with the nbgrader extension, driven in a real (headless) Chromium.

A temporary copy of the course is served by ``jupyter lab``. As a student we open the released
``code`` notebook, type a softmax into its answer cell, run the cells and read the public check's
feedback (one line in the course's words for a wrong answer, without a traceback; one line saying
so for a right one), run the last cell's summary of every question, then press nbgrader's Validate
button. As the instructor we open formgrader from the Nbgrader menu and follow
the autograded submissions to their scores and to the cells that wait for a hand-marked grade.

Each step leaves a screenshot in ``tests/screenshots/``. The tests skip, saying why, when no
browser can be had.
"""

from __future__ import annotations

import re
import shutil
import sys
import types
from pathlib import Path

import browser as b
import nbformat
import numpy as np
import pytest

from reading_maths.notebook import grade_id, is_test_cell

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
SHOTS = Path(__file__).resolve().parent / "screenshots"

RIGHT_SOFTMAX, WRONG_SOFTMAX = b.RIGHT_SOFTMAX, b.WRONG_SOFTMAX

WRITTEN_ANSWER = ("With j = t - i the sum is a geometric series, (1 - b) * (1 + b + ... + b^(t-1)) = 1 - b^t, "
                  "which is the factor the hat divides out.")


# -- fixtures -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ctx():
    """One Chromium for the module (skips the module when there is none)."""
    with b.chromium() as context:
        yield context


@pytest.fixture(scope="module")
def course(tmp_path_factory, ctx):
    """A temporary course: the repository's source/, graders/, config, and release/code generated."""
    if not (REPO / "source" / "code" / "code.ipynb").is_file():
        pytest.skip("source/code/code.ipynb does not exist yet")
    scratch = tmp_path_factory.mktemp("browser")
    root = scratch / "course"
    b.copy_course(REPO, root)
    env = b.course_env(root, scratch)
    release = b.generate(root, "code", env)
    # The student test edits and saves release/code/code.ipynb: submissions start from this copy.
    pristine = scratch / "pristine" / "code.ipynb"
    pristine.parent.mkdir()
    shutil.copy2(release, pristine)
    return root, scratch, env


@pytest.fixture(scope="module")
def lab(course):
    root, scratch, env = course
    with b.jupyter_lab(root, scratch, env) as server:
        yield server


@pytest.fixture(scope="module")
def shots():
    SHOTS.mkdir(exist_ok=True)  # files are overwritten by name (xdist workers may share the folder)

    def shot(page, name: str) -> Path:
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path))
        return path
    return shot


@pytest.fixture(scope="module")
def graded(course):
    """Submissions and a gradebook: alice answered softmax, bob handed in the untouched notebook;
    bob also handed in ``proofs`` with a written answer, when that assignment exists."""
    root, scratch, env = course
    release = scratch / "pristine" / "code.ipynb"
    b.submit(root, "alice", "code", release, {"softmax-answer": RIGHT_SOFTMAX})
    b.submit(root, "bob", "code", release)
    tool = b.autograde(root, "code", env)
    done = {"code": b.autograded(root, "code")}
    points = {"code": b.max_score(release)}
    manual = []
    if (root / "source" / "proofs" / "proofs.ipynb").is_file():
        proofs = b.generate(root, "proofs", env)
        manual = [g for g, m in b.grade_ids(proofs).items() if m.get("grade") and m.get("solution")]
        b.submit(root, "bob", "proofs", proofs, {g: WRITTEN_ANSWER for g in manual})
        b.autograde(root, "proofs", env)
        done["proofs"] = b.autograded(root, "proofs")
        points["proofs"] = b.max_score(proofs)
    assert done["code"], f"{tool} graded no submission of `code` (see {root / 'autograded'})"
    return {"tool": tool, "autograded": done, "points": points, "manual": manual,
            "scores": gradebook_scores(root)}


def gradebook_scores(root: Path) -> dict[tuple[str, str], tuple[float, float]]:
    """``(assignment, student) -> (score, max_score)`` read from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "reading-maths") as gb:
        for assignment in gb.assignments:
            for sub in assignment.submissions:
                scores[(assignment.name, sub.student.id)] = (sub.score, sub.max_score)
    return scores


# -- the student's side -----------------------------------------------------------------------------

def check_cell_verdict(helper_source: str, check_source: str, answer: str) -> str | None:
    """What the check cell says about ``answer``: its one-line failure, or None when it passes."""
    main = types.ModuleType("__main__")  # the checks read the notebook's namespace as a kernel's __main__
    namespace = vars(main)
    namespace["np"] = np
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = main
    try:
        exec(compile(helper_source, "<check-helpers>", "exec"), namespace)  # noqa: S102 - the course's own cell
        exec(compile(answer, "<answer>", "exec"), namespace)  # noqa: S102 - our own fixed answer
        exec(compile(check_source, "<check>", "exec"), namespace)  # noqa: S102 - the course's own cell
    except AssertionError as exc:
        return str(exc)
    finally:
        sys.modules["__main__"] = saved
    return None


def test_student_checks_and_validate(lab, course, ctx, shots):
    from playwright.sync_api import expect

    root, _, _ = course
    nb = nbformat.read(root / "release" / "code" / "code.ipynb", as_version=4)
    index = {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}
    answer_at, check_at = index["softmax-answer"], index["softmax-check"]
    summary_at = index["public-checks-summary"]
    setup_at = [i for i, c in enumerate(nb.cells[:answer_at]) if c.cell_type == "code"]
    helper_source, check_source = nb.cells[index["check-helpers"]].source, nb.cells[check_at].source
    wrong_message = check_cell_verdict(helper_source, check_source, WRONG_SOFTMAX)
    assert wrong_message and wrong_message.startswith("softmax: ") and "\n" not in wrong_message, \
        "the public check should reject a softmax that multiplies by T, in one line"
    assert check_cell_verdict(helper_source, check_source, RIGHT_SOFTMAX) is None, \
        "the public check rejects a right softmax"

    page = ctx.new_page()
    page.goto(lab.at("/lab/tree/release/code/code.ipynb"))
    cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    expect(cells).to_have_count(len(nb.cells), timeout=60_000)
    expect(page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\|\s*Idle"))).to_be_visible(
        timeout=60_000)
    shots(page, "student-01-notebook-open")

    def run_cell(i: int) -> None:
        cells.nth(i).locator(".jp-InputPrompt").click()
        page.keyboard.press("Shift+Enter")

    def type_answer(code: str) -> None:
        editor = cells.nth(answer_at).locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(code)  # one input event: no auto-indent or bracket closing
        page.keyboard.press("Escape")
        expect(editor).to_contain_text("def softmax(z, T=1.0):")

    for i in setup_at:
        run_cell(i)
    check = cells.nth(check_at)

    # A wrong answer: the check cell fails with one line, the course's message for this mistake, and no traceback.
    type_answer(WRONG_SOFTMAX)
    run_cell(answer_at)
    run_cell(check_at)
    error = check.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    expect(error).to_have_text(wrong_message, timeout=60_000)
    for noise in ("Traceback", "AssertionError", "CheckFailed", "assert ", "Cell In["):
        expect(error).not_to_contain_text(noise)
    error.scroll_into_view_if_needed()
    shots(page, "student-02-wrong-answer-one-line")

    # The right answer: no error, one line saying so.
    type_answer(RIGHT_SOFTMAX)
    run_cell(answer_at)
    run_cell(check_at)
    outputs = check.locator(".jp-OutputArea-output")
    expect(outputs).to_have_text("softmax: all public checks passed", timeout=60_000)
    expect(check.locator(".jp-InputPrompt")).not_to_have_text(re.compile(r"\[\*\]"), timeout=60_000)
    expect(check.locator("[data-mime-type='application/vnd.jupyter.stderr']")).to_have_count(0)
    check.scroll_into_view_if_needed()
    shots(page, "student-03-right-answer-one-line")

    # The last cell: every question's public checks, run again on the answers as they are now.
    run_cell(summary_at)
    summary = cells.nth(summary_at).locator(".jp-OutputArea-output")
    source = nbformat.read(REPO / "source" / "code" / "code.ipynb", as_version=4)
    questions = [grade_id(c) for c in source.cells if is_test_cell(c)]
    expect(summary).to_contain_text(f"1 of {len(questions)} questions pass their public checks.", timeout=60_000)
    text = summary.inner_text()
    assert "✓ softmax: all public checks passed" in text, text
    for question in questions[1:]:
        assert f"✗ {question}: not checked yet" in text, text
    summary.scroll_into_view_if_needed()
    shots(page, "student-04-summary")

    # nbgrader's Validate button (saves, then validates on the server): the rest is unfinished.
    page.locator(".jp-NotebookPanel-toolbar").get_by_text("Validate", exact=True).click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Validation Results", timeout=90_000)
    report = dialog.inner_text()
    (SHOTS / "student-05-validate.txt").write_text(report)
    shots(page, "student-05-validate-dialog")
    # validate_all (nbgrader_config.py) makes Validate run the public check cells too
    assert "The following cell failed" in report, report
    dialog.get_by_role("button", name="Ok").click()
    page.close()
    assert "NotImplementedError" in report, report
    assert "attention: not answered yet" in report, "an unfinished question's check fails in one line"
    assert check_source.splitlines()[0] not in report, \
        "the softmax check passed in the notebook but Validate lists it as failed"


# -- the instructor's side --------------------------------------------------------------------------

def test_instructor_formgrader(lab, graded, ctx, shots):
    from playwright.sync_api import expect

    page = ctx.new_page()
    page.goto(lab.at("/lab?reset"))
    page.get_by_role("menuitem", name="Nbgrader").click()
    page.locator(".lm-Menu").last.get_by_text("Formgrader", exact=True).click()
    frame_el = page.locator("iframe[src*='/formgrader']")
    expect(frame_el).to_be_visible(timeout=30_000)
    fg = page.frame_locator("iframe[src*='/formgrader']")

    # Manage Assignments: `code` with its number of submissions.
    row = fg.locator("tr", has=fg.get_by_role("link", name="code", exact=True))
    expect(row).to_be_visible(timeout=30_000)
    n_code = sum(1 for (a, _) in graded["scores"] if a == "code")
    assert n_code == 2, graded["scores"]
    expect(row.locator("td").nth(8)).to_have_text(str(n_code))
    shots(page, "instructor-01-manage-assignments")

    # The gradebook is sensible: the untouched notebook scores 0, the right softmax scores more.
    scores = graded["scores"]
    assert scores[("code", "bob")][0] == 0, f"an untouched notebook scored: {scores} ({graded['tool']})"
    assert scores[("code", "alice")][0] > 0, f"a right softmax scored nothing: {scores} ({graded['tool']})"

    # Manage Submissions: every student with the gradebook's score out of the notebook's points.
    row.locator("td").nth(8).get_by_role("link").click()
    for student in ("alice", "bob"):
        score, out_of = graded["scores"][("code", student)]
        assert out_of == graded["points"]["code"]
        srow = fg.locator("tr", has=fg.get_by_text(student, exact=True))
        expect(srow).to_contain_text(f"{score:g} / {out_of:g}", timeout=30_000)
    shots(page, "instructor-02-code-submissions")

    # Manual Grading -> code -> code.ipynb -> an autograded submission, its grade cells scored.
    student = graded["autograded"]["code"][-1]
    fg.get_by_role("link", name="Manual Grading").first.click()
    fg.get_by_role("link", name="code", exact=True).click()
    fg.get_by_role("link", name="code", exact=True).click()
    expect(fg.locator("tbody tr")).to_have_count(n_code, timeout=30_000)
    shots(page, "instructor-03-manual-grading-code")
    fg.get_by_text("Show All Names").click()
    fg.get_by_role("link", name=student, exact=True).click()
    softmax_score = fg.locator("input.score#softmax")
    expect(softmax_score).to_be_visible(timeout=30_000)
    if student == "bob":  # the untouched notebook: 0 on every grade cell, as the gradebook says
        expect(softmax_score).to_have_attribute("placeholder", "0")  # the auto score; no manual one
    expect(fg.locator("body")).to_contain_text("def softmax")
    softmax_score.scroll_into_view_if_needed()
    shots(page, f"instructor-04-submission-{student}")

    # proofs: the written answers wait for a hand-marked score.
    if graded["autograded"].get("proofs"):
        fg.locator("a", has_text="Manual Grading").first.click()
        fg.get_by_role("link", name="proofs", exact=True).click()
        fg.get_by_role("link", name="proofs", exact=True).click()
        expect(fg.locator("tbody tr")).to_have_count(1, timeout=30_000)
        expect(fg.locator("tbody tr").first.locator(".needs-manual-grade")).to_have_attribute(
            "data-search", "needs manual grade")
        shots(page, "instructor-05-manual-grading-proofs")
        fg.locator("tbody tr").first.get_by_role("link").first.click()
        for gid in graded["manual"]:
            expect(fg.locator(f"input.score#{gid}")).to_be_visible(timeout=30_000)
        expect(fg.locator("body")).to_contain_text(WRITTEN_ANSWER[:40])
        fg.locator(f"input.score#{graded['manual'][0]}").scroll_into_view_if_needed()
        shots(page, "instructor-06-proofs-hand-marking")
    page.close()
