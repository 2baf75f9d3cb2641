"""The student-repository workflow template runs as written: its grading step, executed locally.

The `run:` step that calls `reading-maths grade` is taken from ci/student-repo-workflow.yml and run
with bash (as GitHub Actions does, `bash -e`), with the workflow's variables and a temporary
GITHUB_STEP_SUMMARY, on a right and a wrong notebook of the `code` assignment.
"""

import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import nbformat
import pytest
import yaml

from classroom.builder import ClassBuilder, fill
from conftest import ROOT
from reading_maths.course import Assignment

TEMPLATE = ROOT / "ci" / "student-repo-workflow.yml"
MIN_SCORE = 30


def _workflow() -> dict:
    return yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))


def _grading_steps() -> list[str]:
    steps = _workflow()["jobs"]["grade"]["steps"]
    return [s["run"] for s in steps if "run" in s and "reading-maths grade" in s["run"]]


def test_template_is_a_complete_workflow():
    workflow = _workflow()
    job = workflow["jobs"]["grade"]
    assert {"MIN_SCORE", "NOTEBOOK", "COURSE_REPO_URL"} <= set(job["env"])
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "$COURSE_REPO_URL" in runs and "pip install" in runs
    uploads = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["path"] == "report.xml" and uploads[0]["if"] == "always()"
    [step] = _grading_steps()
    assert '--fail-under "$MIN_SCORE"' in step and '--summary "$GITHUB_STEP_SUMMARY"' in step
    project = yaml.safe_load((ROOT / ".github" / "workflows" / "test.yml").read_text(encoding="utf-8"))
    assert any("make test" in s.get("run", "") for s in project["jobs"]["test"]["steps"])


def _wrong_notebook(path: Path) -> None:
    """The source notebook with a catalogued mistake in every answer cell."""
    builder = ClassBuilder(Assignment("code", ROOT))
    wrong = [answers["wrong"][0] for answers in builder.pool().values() if answers["wrong"]]
    nb = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    nbformat.write(fill(nb, wrong), path)


def _run_step(step: str, workdir: Path, notebook: str) -> tuple[subprocess.CompletedProcess, Path]:
    summary = workdir / "step_summary.md"
    summary.write_text("", encoding="utf-8")
    env = dict(os.environ, NOTEBOOK=notebook, MIN_SCORE=str(MIN_SCORE), GITHUB_STEP_SUMMARY=str(summary),
               READING_MATHS_COURSE=str(ROOT),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run(["bash", "-e", "-c", step], cwd=workdir, env=env, capture_output=True, text=True, check=False,
                          timeout=600)
    return done, summary


@pytest.mark.parametrize("kind", ["right", "wrong"])
def test_grading_step_runs_as_in_ci(tmp_path, kind):
    [step] = _grading_steps()
    notebook = tmp_path / "code.ipynb"
    if kind == "right":
        nbformat.write(nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4), notebook)
    else:
        _wrong_notebook(notebook)

    done, summary = _run_step(step, tmp_path, "code.ipynb")

    assert done.returncode == (0 if kind == "right" else 3), done.stdout[-2000:] + done.stderr[-2000:]
    text = summary.read_text(encoding="utf-8")
    assert "### code.ipynb (code):" in text and "| question | score | status | feedback |" in text
    for question in ("softmax", "attention", "adam_step", "adam"):
        assert f"| `{question}` |" in text
    suite = ET.parse(tmp_path / "report.xml").getroot().find("testsuite")
    assert suite.get("tests") == "4"
    if kind == "right":
        assert suite.get("failures") == "0"
        assert "57 / 57" in text or "passed" in text
    else:
        assert int(suite.get("failures")) >= 3
        assert suite.find("testcase/failure") is not None
