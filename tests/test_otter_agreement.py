"""Otter and ``reading-maths grade`` give every question the same score (issue 2, deliverable 7).

The grader files in ``graders/code/`` are Otter exception-format test files; this runs them under
stock Otter and compares with the sandboxed engine, per submission and per question.

How Otter finds the reference
-----------------------------
Every grader file calls ``reference("code")``, which locates the course through
``$READING_MATHS_COURSE`` or by walking up from the working directory to a folder holding
``graders/`` and ``source/``.  Rather than leaking the repository's path into Otter through the
environment, the autograder zip is made self-contained: ``otter generate`` is run from a staging
folder holding ``source/code/code.ipynb`` and ``graders/code/*.py``, passed as Otter *support
files*.  ``otter run`` copies support files into the submission folder, which is the kernel's
working directory, so the walk from there finds a course with exactly that assignment.  The
``otter`` processes run with ``READING_MATHS_COURSE`` removed and from a folder outside the
repository, so the test fails if the zip is not self-contained.  (The zip holds the solutions and
hidden graders, as every Otter autograder zip does: it is an instructor-side file.)  The kernel
imports ``reading_maths`` and ``otter`` from the installed environment, as ``otter run`` assumes.

Submissions are release-style notebooks: the source notebook with its hidden tests removed (as
nbgrader's ``ClearHiddenTests`` does), answer cells edited: the reference; one with two of the
catalogue's typical mistakes (softmax without the max shift, adam_step without bias correction,
which adam then calls); and a blank (nbgrader's stub in every answer cell).

Runtime: the exact ``otter generate`` and ``otter run`` command lines go through Otter's own click
CLI in one interpreter (each separate ``otter`` process would spend ~3 s of CPU importing Otter,
nbformat and jsonschema first); each ``otter run`` still starts its own kernel, which imports Otter
again.  One ``reading-maths grade`` of the folder runs meanwhile.  Everything runs once, in one
test, so that pytest-xdist never runs the expensive part twice.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT
from reading_maths.notebook import grade_id, is_test_cell

pytestmark = [pytest.mark.sandbox, pytest.mark.kernel]

SOURCE = ROOT / "source" / "code" / "code.ipynb"
QUESTIONS = ["softmax", "attention", "adam_step", "adam", "dpo_loss"]
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.DOTALL)
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"

NO_SHIFT_SOFTMAX = '''def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
'''

NO_BIAS_CORRECTION = '''def adam_step(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(x, dtype=np.float64) for x in (theta, g, m, v))
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * g**2
    return theta - alpha * m_t / (np.sqrt(v_t) + eps), m_t, v_t
'''

SUBMISSIONS = {
    "right": {},
    "mistakes": {"softmax": NO_SHIFT_SOFTMAX, "adam_step": NO_BIAS_CORRECTION},
    "blank": dict.fromkeys(QUESTIONS, STUB),
}


def release_style(path: Path, answers: dict[str, str]) -> Path:
    """The source notebook as a student submits it: hidden tests gone, ``answers`` in the answer cells."""
    nb = nbformat.read(SOURCE, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and is_test_cell(cell):
            cell.source = HIDDEN.sub("", cell.source)
        question = (grade_id(cell) or "").removesuffix("-answer")
        if grade_id(cell) == f"{question}-answer" and question in answers:
            cell.source = answers[question]
    nbformat.write(nb, path)
    return path


def without_course_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("READING_MATHS_COURSE", None)
    return env


# The exact ``otter generate`` / ``otter run`` command lines, run through Otter's own click CLI in
# one interpreter (saving an interpreter start and Otter's imports per command, ~3 s of CPU each).
DRIVER = """
import json, os, sys
from otter.cli import cli
for cwd, argv in json.load(sys.stdin):
    os.chdir(cwd)
    cli.main(argv, prog_name="otter", standalone_mode=False)
"""


def otter_commands(tmp: Path, notebooks: dict[str, Path]) -> dict[str, dict[str, float]]:
    """``otter generate`` on ``graders/code`` with the assignment as support files, then ``otter run``
    on every notebook; per notebook, the per-question scores of Otter's results.json."""
    staging = tmp / "staging"
    (staging / "source" / "code").mkdir(parents=True)
    shutil.copy(SOURCE, staging / "source" / "code" / "code.ipynb")
    shutil.copytree(ROOT / "graders" / "code", staging / "graders" / "code",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course-secret.key", staging)  # the course's hidden random inputs travel with its graders
    zip_path = tmp / "autograder.zip"
    commands = [(staging, ["generate", "-t", str(ROOT / "graders" / "code"), "-o", str(zip_path),
                           "--no-config", "--no-requirements", "--no-environment", "source", "graders",
                           "course-secret.key"])]
    for name, notebook in notebooks.items():
        (tmp / f"otter_{name}").mkdir()
        commands.append((tmp / f"otter_{name}",
                         ["run", str(notebook), "-a", str(zip_path), "-o", str(tmp / f"otter_{name}"), "--no-logo"]))
    done = subprocess.run([sys.executable, "-c", DRIVER], input=json.dumps([(str(d), c) for d, c in commands]),
                          cwd=tmp, env=without_course_env(), capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    scores = {}
    for name in notebooks:
        tests = json.loads((tmp / f"otter_{name}" / "results.json").read_text())["tests"]
        scores[name] = {t["name"]: t["score"] for t in tests if "score" in t}
    return scores


def reading_maths_grade(folder: Path) -> dict[str, dict[str, float]]:
    """``reading-maths grade FOLDER --json``: per notebook, per question, the score."""
    done = subprocess.run([sys.executable, "-m", "reading_maths.cli", "grade", str(folder), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return {Path(r["notebook"]).stem: {q["id"]: q["score"] for q in r["questions"]}
            for r in json.loads(done.stdout)}


@pytest.fixture(scope="module")
def scores(tmp_path_factory):
    """Both drivers on the same notebooks, concurrently: ``(otter, reading_maths)`` score tables."""
    tmp = tmp_path_factory.mktemp("otter_agreement")
    folder = tmp / "submissions"
    folder.mkdir()
    notebooks = {name: release_style(folder / f"{name}.ipynb", answers) for name, answers in SUBMISSIONS.items()}
    with ThreadPoolExecutor(max_workers=1) as pool:
        ours = pool.submit(reading_maths_grade, folder)
        return otter_commands(tmp, notebooks), ours.result()


def test_otter_and_reading_maths_give_the_same_score_per_question(scores):
    otter, ours = scores
    assert set(otter) == set(ours) == set(SUBMISSIONS)
    mismatches = [
        f"{name}/{q}: otter {otter[name].get(q)} vs reading-maths {ours[name].get(q)}"
        for name in SUBMISSIONS for q in QUESTIONS if otter[name].get(q) != ours[name].get(q)
    ]
    assert not mismatches, "\n".join(mismatches)
    assert set(otter["right"]) == set(QUESTIONS)

    # the agreement is not vacuous: full marks, zero, and points lost exactly where the mistakes are
    full = ours["right"]
    assert all(full[q] > 0 for q in QUESTIONS)
    assert all(ours["blank"][q] == 0 for q in QUESTIONS)
    assert ours["mistakes"]["softmax"] < full["softmax"]
    assert ours["mistakes"]["adam_step"] < full["adam_step"]
    assert ours["mistakes"]["attention"] == full["attention"]
