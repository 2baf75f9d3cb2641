"""Budgets relative to the work (issue 32, deliverable 2): a notebook gets a multiple of the reference solution's
own grading time, measured once per course and content, stated by ``doctor``; a right notebook far slower than
it needs to be loses the questions it did not finish, with a message that says why, instead of holding a worker
for minutes."""

from __future__ import annotations

import json
import shutil
import subprocess

import nbformat
import pytest

from classroom.builder import answered
from conftest import ROOT
from reading_maths.course import Assignment
from reading_maths.grading.budget import FLOOR, MULTIPLE, TIMES_FILE, budget_for, measured_seconds
from reading_maths.grading.engine import Settings, grade
from test_sandbox import SANDBOX

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

SLOW = "import time\n_slow = {question}\n\n\ndef {question}(*args, **kwargs):\n    time.sleep(1.0)\n" \
       "    return _slow(*args, **kwargs)\n"
"""A right answer that waits a second on every call: ten times and more slower than it needs to be."""


def _course(folder):
    for part in ("source", "graders"):
        shutil.copytree(ROOT / part, folder / part)
    return folder


def test_the_reference_is_timed_once_per_content_and_the_budget_follows_it(tmp_path):
    course = _course(tmp_path / "course")
    code = Assignment("code", course)
    settings = Settings(SANDBOX, cell_timeout=30, call_timeout=30)
    assert measured_seconds(code) is None
    budget = budget_for(code, settings)
    seconds = measured_seconds(code)
    assert seconds is not None and seconds > 0, "the reference's time is kept in the course"
    assert budget == max(FLOOR, round(MULTIPLE * seconds, 1))
    kept = json.loads((course / TIMES_FILE).read_text())
    assert set(kept) == {"code"} and kept["code"]["seconds"] == seconds
    assert budget_for(code, Settings(SANDBOX, budget=7.5)) == 7.5, "the instructor's budget overrides"

    grader = course / "graders" / "code" / "softmax.py"
    grader.write_text(grader.read_text() + "\n# an edit\n")
    assert measured_seconds(code) is None, "an edited grader is measured again"


def test_a_right_but_slow_notebook_loses_what_it_did_not_finish(tmp_path):
    source = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    nb = answered(source, source)
    for cell in nb.cells:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        if gid.endswith("-answer") and gid[:-7] in ("softmax", "attention", "adam_step", "adam", "dpo_loss"):
            cell.source += "\n" + SLOW.format(question=gid[:-7])
    path = tmp_path / "slow.ipynb"
    nbformat.write(nb, path)
    code = Assignment("code", ROOT)
    settings = Settings(SANDBOX, cell_timeout=30, call_timeout=30)
    budget = budget_for(code, settings)
    assert budget < 100, f"the code assignment's budget is {budget} s: far below the 300 s it replaces"

    result = grade(path, settings, ROOT, code)
    first = result.question("softmax")
    assert first.score == first.max_score, "the questions finished in time keep their points"
    cut = [q for q in result.questions if q.status == "timeout"]
    assert cut and all(q.score < q.max_score and "time budget" in q.problem for q in cut)
    said = " ".join(result.errors)
    assert f"time budget of {budget:g} s" in said and "times what the course's own solution takes" in said


def test_doctor_states_each_assignments_budget():
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "reading-maths"), "doctor"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"budgets: {MULTIPLE:g} times the reference") for line in lines), done.stdout
    for assignment in ("notation", "matching", "proofs", "code", "build"):
        assert any(line.startswith(f"  {assignment}: ") for line in lines), (assignment, done.stdout)


@pytest.mark.parametrize("assignment", ["notation", "matching", "proofs", "code", "build"])
def test_the_opening_cell_states_the_budget(assignment):
    opening = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4).cells[0].source
    assert f"gets {MULTIPLE:g} times as long as the course's own solution" in opening
    assert f"at least {FLOOR:g} seconds" in opening
