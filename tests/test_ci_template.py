"""The student-repository workflow template: the public checks and validation only, run as written.

A workflow in a student's repository cannot keep tests hidden, so the template grades nothing: it
neither installs this package nor fetches the graders, and gets no secret. Its check step is taken
from ci/student-repo-workflow.yml and run with bash (as GitHub Actions does, ``bash -e``) in a folder
holding only the student's notebook, with a temporary GITHUB_STEP_SUMMARY, on a right, a wrong and
an unfinished notebook of the `code` assignment. Grading runs in the course's own CI
(tests/test_course_ci.py).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from classroom.builder import ClassBuilder, fill
from conftest import ROOT
from reading_maths.course import Assignment

pytestmark = pytest.mark.kernel

TEMPLATE = ROOT / "ci" / "student-repo-workflow.yml"
STEP = "Public checks and validation"


def _workflow() -> dict:
    return yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))


def test_template_grades_nothing_and_says_why():
    text = TEMPLATE.read_text(encoding="utf-8")
    workflow = _workflow()
    job = workflow["jobs"]["check"]
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "reading-maths" not in runs and "graders" not in runs, "the student's CI never sees the graders"
    assert "secrets." not in text, "a student's workflow can print any secret it gets"
    assert workflow["permissions"] == {"contents": "read"}
    assert "nbgrader validate --Validator.validate_all=True" in runs
    comments = " ".join(line.strip("# ") for line in text.splitlines() if line.startswith("#"))
    assert "hidden tests fetched here would not stay hidden" in comments
    assert "ci/course-grading-workflow.yml" in comments
    project = yaml.safe_load((ROOT / ".github" / "workflows" / "test.yml").read_text(encoding="utf-8"))
    assert any("make test" in s.get("run", "") for s in project["jobs"]["test"]["steps"])


def _notebook(path: Path, kind: str) -> None:
    release = nbformat.read(ROOT / "release" / "code" / "code.ipynb", as_version=4)
    pool = ClassBuilder(Assignment("code", ROOT)).pool()
    answers = {"right": [a["right"][0] for a in pool.values()], "wrong": [a["wrong"][0] for a in pool.values()],
               "unfinished": []}[kind]
    nbformat.write(fill(release, answers), path)


@pytest.mark.parametrize("kind", ["right", "wrong", "unfinished"])
def test_check_step_runs_as_in_ci(tmp_path, kind):
    [step] = [s["run"] for s in _workflow()["jobs"]["check"]["steps"] if s.get("name") == STEP]
    repo = tmp_path / "student-repo"
    repo.mkdir()
    _notebook(repo / "code.ipynb", kind)
    summary = tmp_path / "step_summary.md"
    summary.write_text("", encoding="utf-8")
    env = dict(os.environ, NOTEBOOK="code.ipynb", GITHUB_STEP_SUMMARY=str(summary),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    env.pop("READING_MATHS_COURSE", None)
    done = subprocess.run(["bash", "-e", "-c", step], cwd=repo, env=env, capture_output=True, text=True,
                          check=False, timeout=600)

    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### Public checks of code.ipynb")
    if kind == "right":
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "Success! Your notebook passes all the tests." in text
        return
    assert done.returncode != 0, "the check fails the job"
    assert "VALIDATION FAILED" in text
    if kind == "unfinished":
        assert "softmax: not answered yet" in text and "NotImplementedError" in text
    else:
        # catalogued mistakes: each failed check cell's error is its one line in the course's words
        errors = [b.split("The error was:", 1)[1].split("\n\n\n", 1)[0] for b in text.split("=" * 90)
                  if "The error was:" in b and "@public_checks(" in b]
        assert errors, text
        for error in errors:
            lines = [x.strip() for x in error.splitlines() if x.strip() and x.strip() != "```"]
            assert len(lines) == 1 and re.match(r"(softmax|attention|adam_step|adam|dpo_loss): \S", lines[0]), lines
