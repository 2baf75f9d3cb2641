"""`reading-maths grade` end to end: real notebooks, the sandboxed engine, the CLI's outputs."""

import copy
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import nbformat
import pytest

from conftest import ROOT
from reading_maths.course import assignments
from reading_maths.notebook import grade_id

pytestmark = pytest.mark.sandbox

CLI = [sys.executable, "-m", "reading_maths.cli"]
SOURCE = ROOT / "source" / "code" / "code.ipynb"

NO_SHIFT_SOFTMAX = '''def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
'''


def run(*args, check=True):
    done = subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def variant(tmp, name, edit):
    """A copy of the source notebook (hidden tests included, as a student never has) edited by ``edit``."""
    nb = nbformat.read(SOURCE, as_version=4)
    edit(nb)
    path = tmp / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def answer(nb, qid):
    return next(c for c in nb.cells if grade_id(c) == f"{qid}-answer")


def set_answer(qid, code):
    def edit(nb):
        answer(nb, qid).source = code
    return edit


def rename(nb):
    cell = answer(nb, "softmax")
    cell.source = cell.source.replace("def softmax(", "def my_softmax(", 1)


def delete_answer(nb):
    nb.cells.remove(answer(nb, "adam"))


def hang_first(nb):
    nb.cells.insert(2, nbformat.v4.new_code_cell("while True:\n    pass"))


def duplicate_cells(nb):
    nb.cells.extend(copy.deepcopy(c) for c in list(nb.cells))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every notebook below, graded once in one batch (the CLI on a folder, in parallel)."""
    tmp = tmp_path_factory.mktemp("submissions")
    variant(tmp, "right", lambda nb: None)
    variant(tmp, "no_shift", set_answer("softmax", NO_SHIFT_SOFTMAX))
    variant(tmp, "renamed", rename)
    variant(tmp, "deleted", delete_answer)
    variant(tmp, "hang", hang_first)
    variant(tmp, "duplicated", duplicate_cells)
    done = run("grade", tmp, "--json", "--timeout", "3")
    return {r["notebook"].rsplit("/", 1)[-1][:-6]: r for r in json.loads(done.stdout)}


def scores(result):
    return {q["id"]: (q["score"], q["max_score"], q["status"]) for q in result["questions"]}


def test_json_has_the_contract_shape(graded):
    result = graded["right"]
    assert set(result) >= {"assignment", "notebook", "score", "max_score", "questions", "errors"}
    assert result["assignment"] == "code"
    assert [q["id"] for q in result["questions"]] == ["softmax", "attention", "adam_step", "adam", "dpo_loss"]
    for q in result["questions"]:
        assert set(q) >= {"id", "score", "max_score", "status", "feedback"}
        assert q["status"] in {"passed", "failed", "error", "timeout", "missing"}


def test_the_reference_scores_full_marks_through_the_sandbox(graded):
    result = graded["right"]
    assert result["score"] == result["max_score"] > 0, result


def test_a_typical_mistake_loses_points_on_its_question_only(graded):
    got, right = scores(graded["no_shift"]), scores(graded["right"])
    assert got["softmax"][0] < got["softmax"][1] and got["softmax"][2] == "failed"
    assert {k: v for k, v in got.items() if k != "softmax"} == {k: v for k, v in right.items() if k != "softmax"}
    softmax = graded["no_shift"]["questions"][0]
    assert "no-max-shift" in softmax["mistakes"]


def test_renamed_and_deleted_functions_cost_only_their_question(graded):
    renamed, deleted = scores(graded["renamed"]), scores(graded["deleted"])
    assert renamed["softmax"][0] == 0 and renamed["softmax"][2] == "missing"
    assert renamed["adam"][0] == renamed["adam"][1]
    assert deleted["adam"][0] == 0 and deleted["adam"][2] == "missing"
    assert deleted["softmax"][0] == deleted["softmax"][1]
    missing = graded["renamed"]["questions"][0]["feedback"][0]
    assert "`softmax`" in missing and "not defined" in missing


def test_an_endless_cell_is_stopped_and_costs_nothing_else(graded):
    result = graded["hang"]
    assert result["score"] == result["max_score"]
    assert any("ran longer than 3 s" in e for e in result["errors"])


def test_duplicated_cells_do_not_stop_grading(graded):
    assert graded["duplicated"]["score"] == graded["duplicated"]["max_score"]


def test_grading_twice_gives_the_same_result(tmp_path, graded):
    path = variant(tmp_path, "no_shift", set_answer("softmax", NO_SHIFT_SOFTMAX))
    again = json.loads(run("grade", path, "--json").stdout)
    first = dict(graded["no_shift"], notebook=None)
    assert dict(again, notebook=None) == first


@pytest.mark.parametrize("assignment", [a.id for a in assignments(ROOT)])
def test_blank_release_scores_zero(assignment):
    release = ROOT / "release" / assignment / f"{assignment}.ipynb"
    if not release.exists():
        pytest.skip(f"release/{assignment} not generated yet")
    result = json.loads(run("grade", release, "--json").stdout)
    assert result["score"] == 0 and result["max_score"] > 0


def test_not_a_notebook_and_a_foreign_notebook_are_refused_in_one_line(tmp_path):
    corrupt = tmp_path / "corrupt.ipynb"
    corrupt.write_bytes(b"\xff\xfe{ not json")
    done = run("grade", corrupt, check=False)
    assert done.returncode == 1 and "not UTF-8" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    foreign = tmp_path / "foreign.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), foreign)
    done = run("grade", foreign, check=False)
    assert done.returncode == 1 and "not a notebook of this course" in done.stderr


def test_ci_outputs_and_fail_under(tmp_path):
    path = variant(tmp_path, "no_shift", set_answer("softmax", NO_SHIFT_SOFTMAX))
    summary = tmp_path / "summary.md"
    done = run("grade", path, "--junit", tmp_path / "junit.xml", "--gradescope", tmp_path / "results.json",
               "--summary", summary, "--fail-under", 1000, check=False)
    assert done.returncode == 3
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"softmax", "attention", "adam_step", "adam", "dpo_loss"}
    assert cases["softmax"].find("failure") is not None and cases["adam"].find("failure") is None
    gs = json.loads((tmp_path / "results.json").read_text())
    questions = ("softmax", "attention", "adam_step", "adam", "dpo_loss")
    assert [t["name"] for t in gs["tests"]] == [f"{q}: {kind}" for q in questions
                                                for kind in ("public checks", "hidden tests")]
    assert gs["score"] == sum(t["score"] for t in gs["tests"]) < 67
    assert "| `softmax` |" in summary.read_text()
    assert run("grade", path, "--fail-under", 0, check=False).returncode == 0
