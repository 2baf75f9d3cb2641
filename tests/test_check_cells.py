"""The public check cells read like feedback, in a real Jupyter kernel, and Validate still catches unfinished work.

Each release notebook is answered (right, wrong, not at all) and run top to bottom by nbclient in a
real IPython kernel, as Run All does in JupyterLab; what each check cell shows is what a student
reads: one line, the course's message, no traceback. Then nbgrader's own ``validate`` runs on them.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from classroom.builder import ClassBuilder, fill
from conftest import ROOT, cells_by_grade_id
from reading_maths.course import Assignment, assignments
from reading_maths.notebook import grade_id, nbgrader_meta

ANSI = re.compile(r"\x1b\[[0-9;]*m")
ASSIGNMENTS = [a.id for a in assignments(ROOT)]


def check_questions(nb) -> list[str]:
    return [grade_id(c)[: -len("-check")] for c in nb.cells if (grade_id(c) or "").endswith("-check")]


@pytest.mark.parametrize("folder", ["source", "release"])
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_notebook_carries_the_helpers_and_a_summary(folder, assignment):
    nb = nbformat.read(ROOT / folder / assignment / f"{assignment}.ipynb", as_version=4)
    by_id = cells_by_grade_id(nb)
    helper = by_id["check-helpers"]
    assert helper.source.split("\n", 1)[1] == (ROOT / "reading_maths" / "kit" / "checks.py").read_text().rstrip("\n"), \
        "paste reading_maths/kit/checks.py into the notebook's check-helpers cell"
    assert nbgrader_meta(helper)["locked"] and not nbgrader_meta(helper)["grade"]
    assert "import reading_maths" not in helper.source and "from reading_maths" not in helper.source
    questions = check_questions(nb)
    assert questions == [q for q in Assignment(assignment, ROOT).questions if q in questions] and questions
    order = [grade_id(c) for c in nb.cells]
    for q in questions:
        check = by_id[f"{q}-check"]
        assert f'@public_checks("{q}")' in check.source and "raises-exception" in check.metadata.get("tags", [])
        assert order.index("check-helpers") < order.index(f"{q}-check")
    summary = nb.cells[-1]
    assert grade_id(summary) == "public-checks-summary" and nbgrader_meta(summary)["locked"]
    call = next(n for n in ast.walk(ast.parse(summary.source)) if isinstance(n, ast.Call))
    assert [e.value for e in call.args[0].elts] == questions, "the summary lists every check cell's question"


def run_notebook(nb: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    """Every cell in order in a real kernel, going on past errors as Run All does past tagged cells."""
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(folder)}})
    client.execute()
    return nb


def shown(cell) -> tuple[str, str]:
    """(stdout, error display) of an executed cell, as the student sees them (colours removed)."""
    out = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")
    err = "\n".join("\n".join(o.traceback) for o in cell.outputs if o.output_type == "error")
    return out, ANSI.sub("", err)


@pytest.fixture(scope="module")
def answered(tmp_path_factory) -> dict[tuple[str, str], nbformat.NotebookNode]:
    """Each release notebook answered right, wrong and not at all, run in a kernel."""
    tmp = tmp_path_factory.mktemp("checks")
    found = {}
    for assignment in ASSIGNMENTS:
        pool = ClassBuilder(Assignment(assignment, ROOT)).pool()
        release = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        variants = {"right": fill(release, [a["right"][0] for a in pool.values()]),
                    "blank": release}
        if assignment == "code":
            variants["wrong"] = fill(release, [a["wrong"][0] for a in pool.values()])
            foreign = nbformat.from_dict(variants["right"])
            foreign.cells.insert(2, nbformat.v4.new_code_cell("import rich.text"))  # installed here, not when graded
            variants["foreign"] = foreign
        for kind, nb in variants.items():
            found[(assignment, kind)] = run_notebook(nbformat.from_dict(nb), tmp)
    return found


def check_outputs(nb) -> dict[str, tuple[str, str]]:
    """``question -> (stdout, error display)`` of each executed check cell."""
    by_id = cells_by_grade_id(nb)
    return {q: shown(by_id[f"{q}-check"]) for q in check_questions(nb)}


@pytest.mark.kernel
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_right_answers_get_one_line_each(answered, assignment):
    nb = answered[(assignment, "right")]
    found = check_outputs(nb)
    for q, (out, err) in found.items():
        assert not err, f"{q}: {err}"
        assert out.count("\n") == 1 and out.startswith(f"{q}: "), out
    summary, _ = shown(nb.cells[-1])
    n = len(found)
    assert summary.splitlines() == [*(f"✓ {out.strip()}" for out, _ in found.values()),
                                    f"{n} of {n} questions pass their public checks."]
    if assignment == "code":
        assert found["softmax"][0] == "softmax: all public checks passed\n"


@pytest.mark.kernel
def test_a_wrong_answer_shows_the_course_message_without_a_traceback(answered):
    nb = answered[("code", "wrong")]
    failed = {q: (out, err) for q, (out, err) in check_outputs(nb).items() if err}
    assert len(failed) >= 2, "the catalogued mistakes should fail some public checks"
    for q, (out, err) in failed.items():
        assert not out and err.startswith(f"{q}: ") and "\n" not in err, err
        assert "Traceback" not in err and "assert " not in err and "Error" not in err.split(":")[0], err
        ename = next(o.ename for o in cells_by_grade_id(nb)[f"{q}-check"].outputs if o.output_type == "error")
        assert ename == "CheckFailed"
    summary, _ = shown(nb.cells[-1])
    assert re.search(r"^✗ ", summary, re.M) and summary.rstrip().endswith("questions pass their public checks.")


@pytest.mark.kernel
def test_a_package_grading_lacks_is_warned_about_before_submission(answered):
    nb = answered[("code", "foreign")]
    for q, (out, err) in check_outputs(nb).items():
        assert not err and out.startswith(f"{q}: ") and "note: your notebook uses rich, which the grading " \
            "environment does not have" in out, (out, err)
    assert "note: your notebook uses rich" in shown(nb.cells[-1])[0]


def test_the_opening_cell_lists_the_grading_environment():
    from reading_maths.kit.checks import GRADING_MODULES

    for assignment in ASSIGNMENTS:
        intro = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", as_version=4).cells[0].source
        listed = intro[intro.index("**The grading environment**"):].split("\n\n")[0].lower()
        assert all(m.lower() in listed for m in GRADING_MODULES), (assignment, listed)


@pytest.mark.kernel
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_an_unfinished_notebook_says_so_in_one_line_per_question(answered, assignment):
    nb = answered[(assignment, "blank")]
    found = check_outputs(nb)
    for q, (_, err) in found.items():
        assert err.startswith(f"{q}: ") and "Traceback" not in err, err
    summary, _ = shown(nb.cells[-1])
    assert summary.rstrip().endswith(f"0 of {len(found)} questions pass their public checks.")


@pytest.mark.kernel
def test_while_nbgrader_autogrades_the_checks_are_not_run(tmp_path, monkeypatch):
    """nbgrader's kernel (and the sandbox) have NBGRADER_EXECUTION=autograde: the hidden graders decide, so an
    unfinished notebook's check cells neither fail nor run the student's code."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # the kernel nbclient starts inherits it
    release = nbformat.read(ROOT / "release" / "code" / "code.ipynb", as_version=4)
    nb = run_notebook(release, tmp_path)
    assert {q: shown for q, shown in check_outputs(nb).items()} == {q: ("", "") for q in check_questions(nb)}
    assert shown(nb.cells[-1]) == ("", "")


@pytest.mark.kernel
@pytest.mark.parametrize("kind", ["right", "blank"])
def test_nbgrader_validate(tmp_path, kind):
    """nbgrader's Validate (validate_all, as the course config sets): full marks pass, unfinished fails, briefly."""
    pool = ClassBuilder(Assignment("code", ROOT)).pool()
    release = nbformat.read(ROOT / "release" / "code" / "code.ipynb", as_version=4)
    nb = fill(release, [a["right"][0] for a in pool.values()]) if kind == "right" else release
    nbformat.write(nb, tmp_path / "code.ipynb")
    done = subprocess.run([sys.executable, "-m", "nbgrader", "validate", "--Validator.validate_all=True", "code.ipynb"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    if kind == "right":
        assert "Success! Your notebook passes all the tests." in done.stdout, done.stdout[-3000:]
        return
    assert "VALIDATION FAILED" in done.stdout and "NotImplementedError" in done.stdout
    blocks = [b for b in done.stdout.split("=" * 90) if "The following cell failed" in b]
    checks = {q: b for q in check_questions(release) for b in blocks if f'@public_checks("{q}")' in b}
    assert set(checks) == set(check_questions(release)), "every unfinished question's check cell fails"
    for q, block in checks.items():
        error = [line.strip() for line in block.split("The error was:", 1)[1].splitlines() if line.strip()]
        assert len(error) == 1 and error[0].startswith(f"{q}: not answered yet"), error
