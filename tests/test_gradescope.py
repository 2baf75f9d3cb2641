"""`reading-maths gradescope`: the autograder zip, run as Gradescope runs it, checked against its specification.

The zip is built by the CLI and unpacked into a throw-away folder standing in for ``/autograder``
(``AUTOGRADER_ROOT``): ``source/`` holds the zip's contents; ``setup.sh`` runs there as Gradescope
runs it when it builds the image (bubblewrap is already installed here, so it skips apt; it makes a
virtual environment and pip-installs the package, with pip's cache); ``run_autograder`` is copied to
the root, as Gradescope copies it, and run once per submission, each time with a fresh
``submission/`` and ``results/``. What it writes, ``results/results.json``, is checked field by field
against Gradescope's autograder specification (gradescope-autograders.readthedocs.io, "Autograder
Specifications": output format, test case visibility, output string formatting).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from hostile.canary import canary_notebook, hidden_values, honest_notebook, leaks

from classroom.builder import ClassBuilder, fill
from conftest import ROOT
from reading_maths.course import Assignment

pytestmark = pytest.mark.sandbox

CLI = [sys.executable, "-m", "reading_maths.cli"]
RELEASE = ROOT / "release" / "code" / "code.ipynb"
REFERENCE = "source/course/source/code/code.ipynb"  # the reference solution, where the zip puts it in the image

# -- Gradescope's specification, as data ------------------------------------------------------------
TOP_LEVEL = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
             "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST_FIELDS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
               "visibility", "extra_data"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
STATUS = {"passed", "failed"}

# A student who reads the hidden graders and the reference, and writes their own results.json.
HOSTILE = '''\
import json, pathlib, reading_maths
AUTOGRADER = pathlib.Path(reading_maths.__file__).resolve().parents[5]   # venv/lib/python3.x/site-packages/...
loot = []
for path in (AUTOGRADER / "source" / "course" / "graders" / "code" / "softmax.py",
             AUTOGRADER / "source" / "course" / "source" / "code" / "code.ipynb",
             AUTOGRADER / "source" / "setup.sh"):
    try:
        loot.append(path.read_text()[:400])
    except Exception as exc:
        loot.append(type(exc).__name__)
try:
    (AUTOGRADER / "results").mkdir(exist_ok=True)
    (AUTOGRADER / "results" / "results.json").write_text(json.dumps({"score": 999, "tests": []}))
except Exception as exc:
    loot.append(type(exc).__name__)

def softmax(z, T=1.0):
    raise RuntimeError(" | ".join(loot))

raise RuntimeError(" | ".join(loot))
'''


def secrets() -> list[str]:
    """Lines of the hidden grader and the reference solution that must never reach a student."""
    grader = (ROOT / "graders" / "code" / "softmax.py").read_text().splitlines()
    found = [s.strip() for s in grader if s.strip().startswith(("SEED", "def _", "REF ="))]
    source = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    answer = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax-answer")
    found += [s.strip() for s in answer.source.splitlines() if len(s.strip()) > 25 and "###" not in s]
    assert len(found) >= 4, found
    return found


def submissions() -> dict[str, nbformat.NotebookNode | bytes]:
    """What students upload: the release notebook answered right, wrong, not at all, with an attack; junk."""
    builder = ClassBuilder(Assignment("code", ROOT))
    pool = builder.pool()
    release = nbformat.read(RELEASE, as_version=4)
    right = fill(release, [answers["right"][0] for answers in pool.values()])
    hostile = fill(release, [answers["right"][0] for q, answers in pool.items() if q != "softmax"])
    cell = next(c for c in hostile.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax-answer")
    cell.source = HOSTILE
    return {
        "right": right,
        "wrong": fill(release, [answers["wrong"][0] for answers in pool.values()]),
        "blank": release,
        "hostile": hostile,
        "canary": canary_notebook(ROOT),  # says every hidden input it sees every way it can (hostile/canary.py)
        "control": honest_notebook(ROOT),
        "corrupt": b"\xff\xfe{ not a notebook",
        "foreign": nbformat.read(ROOT / "release" / "notation" / "notation.ipynb", as_version=4),
        # links to the reference solution in the image (Gradescope's unzip keeps symbolic links)
        "symlink": ("symlink", REFERENCE),
        "hardlink": ("hardlink", REFERENCE),
    }


@pytest.fixture(scope="module")
def autograder(tmp_path_factory) -> Path:
    """The zip built by the CLI, unpacked into a stand-in for /autograder, after setup.sh ran there."""
    tmp = tmp_path_factory.mktemp("gradescope")
    zipped = tmp / "autograder.zip"
    done = subprocess.run([*CLI, "gradescope", "code", "--out", str(zipped)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    root = tmp / "autograder"
    with zipfile.ZipFile(zipped) as zf:
        names = zf.namelist()
        zf.extractall(root / "source")
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
    assert {"setup.sh", "run_autograder"} <= set(names), "both scripts at the root of the zip, as the spec asks"
    assert all(modes[s] & 0o111 for s in ("setup.sh", "run_autograder")), "the scripts are executable"
    for script in ("setup.sh", "run_autograder"):  # ZipFile.extractall drops the mode bits
        os.chmod(root / "source" / script, 0o755)
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), READING_MATHS_PYTHON=sys._base_executable)
    env.pop("READING_MATHS_COURSE", None)
    env.pop("VIRTUAL_ENV", None)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root, env=env, capture_output=True,
                           text=True, timeout=900, check=False)
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    assert "sandbox: " in setup.stdout, "setup.sh shows whether the sandbox works in Gradescope's container"
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope's image build does
    return root


@pytest.fixture(scope="module")
def results(autograder) -> dict[str, dict]:
    """results.json of run_autograder for each submission, one run each, as Gradescope runs it."""
    env = dict(os.environ, AUTOGRADER_ROOT=str(autograder))
    for name in ("READING_MATHS_COURSE", "VIRTUAL_ENV"):
        env.pop(name, None)
    env["PATH"] = "/usr/bin:/bin"
    found = {}
    for name, work in submissions().items():
        for folder in ("submission", "results"):
            shutil.rmtree(autograder / folder, ignore_errors=True)
        (autograder / "submission").mkdir()
        (autograder / "results").mkdir()
        target = autograder / "submission" / ("code.ipynb" if name != "foreign" else "notation.ipynb")
        if isinstance(work, tuple):
            kind, reference = work
            (target.symlink_to if kind == "symlink" else target.hardlink_to)(autograder / reference)
        elif isinstance(work, bytes):
            target.write_bytes(work)
        else:
            nbformat.write(work, target)
        done = subprocess.run([str(autograder / "run_autograder")], cwd=autograder, env=env, capture_output=True,
                              text=True, timeout=600, check=False)
        assert done.returncode == 0, f"{name}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        text = (autograder / "results" / "results.json").read_text(encoding="utf-8")
        found[name] = {"json": json.loads(text), "text": text, "stdout": done.stdout}
    return found


def test_zip_holds_the_course_graders_and_the_package(autograder):
    source = autograder / "source"
    graders = sorted(p.name for p in (source / "course" / "graders" / "code").glob("*.py"))
    assert graders == sorted(p.name for p in (ROOT / "graders" / "code").glob("*.py"))
    assert (source / "course" / "source" / "code" / "code.ipynb").is_file()
    assert not (source / "course" / "graders" / "proofs").exists(), "only the assignment's own graders"
    assert (source / "package" / "pyproject.toml").is_file()
    assert (autograder / "venv" / "bin" / "reading-maths").is_file(), "setup.sh installed the package"
    pins = (source / "constraints.txt").read_text().splitlines()
    assert any(p.startswith("numpy==") for p in pins) and not any(p.startswith("reading-maths") for p in pins)


@pytest.mark.parametrize("name", ["right", "wrong", "blank", "hostile"])
def test_results_follow_the_specification(results, name):
    data = results[name]["json"]
    assert set(data) <= TOP_LEVEL, set(data) - TOP_LEVEL
    assert isinstance(data["score"], (int, float))
    assert "execution_time" not in data, "how long the hidden tests took is a channel out of the hidden run"
    assert data["stdout_visibility"] == "hidden", "the grader's own stdout is for instructors only"
    assert data["output_format"] == data["test_output_format"] == data["test_name_format"] == "text"
    tests = data["tests"]
    assert tests and len({t["name"] for t in tests}) == len(tests)
    for test in tests:
        assert set(test) <= TEST_FIELDS, set(test) - TEST_FIELDS
        assert test["visibility"] in VISIBILITY and test["status"] in STATUS
        assert test["output_format"] == test["name_format"] == "text", "student text is shown as text"
        assert 0 <= test["score"] <= test["max_score"] and isinstance(test["output"], str) and test["output"]
        assert test["status"] == ("passed" if test["score"] == test["max_score"] else "failed") or \
            test["max_score"] == 0
    assert data["score"] == pytest.approx(sum(t["score"] for t in tests)), "the top-level score is the tests' total"
    questions = Assignment("code", ROOT).questions
    assert [t["name"] for t in tests if t["name"].endswith("public checks")] == \
        [f"{q}: public checks" for q in questions]
    graders = {g.question: g for g in Assignment("code", ROOT).graders}
    for q in questions:
        public = next(t for t in tests if t["name"] == f"{q}: public checks")
        hidden = next(t for t in tests if t["name"] == f"{q}: hidden tests")
        assert public["visibility"] == "visible"
        # hidden tests carry points, so per the spec they are hidden until the grades are published
        assert hidden["visibility"] == "after_published"
        cases = graders[q].cases
        assert public["max_score"] == sum(c.points for c in cases if not c.hidden)
        assert hidden["max_score"] == sum(c.points for c in cases if c.hidden)


def test_right_wrong_and_blank_scores(results):
    right, wrong, blank = (results[k]["json"] for k in ("right", "wrong", "blank"))
    total = sum(g.max_score for g in Assignment("code", ROOT).graders)
    assert right["score"] == total and all(t["status"] == "passed" for t in right["tests"])
    assert right["extra_data"]["max_score"] == total
    assert 0 < wrong["score"] < total
    assert blank["score"] == 0 and all(t["status"] == "failed" for t in blank["tests"])
    # each catalogued mistake is named in the course's words: visibly when a public check catches it,
    # after publication when only the hidden tests do
    builder = ClassBuilder(Assignment("code", ROOT))
    for question, answers in builder.pool().items():
        mistake = answers["wrong"][0].mistake
        message = next(m.message for m in Assignment("code", ROOT).grader(question).mistakes if m.name == mistake)
        shown = [t for t in wrong["tests"] if t["name"].startswith(f"{question}: ") and message in t["output"]]
        assert shown and all(t["status"] == "failed" for t in shown), (question, mistake)
    public = [t for t in wrong["tests"] if t["name"].endswith("public checks") and t["status"] == "failed"]
    assert public and all(t["visibility"] == "visible" for t in public)


def test_hidden_cases_are_not_revealed(results):
    lines = secrets()
    for name, found in results.items():
        leaked = [s for s in lines if s in found["text"]]
        assert not leaked, f"{name}: results.json shows {leaked}"


def test_a_hostile_submission_gains_nothing(results):
    hostile, right = results["hostile"]["json"], results["right"]["json"]
    assert hostile["score"] != 999, "the student's own results.json replaced the grader's"
    scores = {t["name"]: t["score"] for t in hostile["tests"]}
    assert scores["softmax: public checks"] == scores["softmax: hidden tests"] == 0
    others = {t["name"]: t["score"] for t in right["tests"] if not t["name"].startswith("softmax")}
    assert {k: scores[k] for k in others} == others, "the honest answers beside the attack keep their points"
    # the attack's own report of what it could read: nothing of the course
    assert "FileNotFoundError" in results["hostile"]["text"] or "PermissionError" in results["hostile"]["text"]


@pytest.mark.parametrize("name, reason", [("corrupt", "code.ipynb is not UTF-8"),
                                          ("symlink", "code.ipynb is a symbolic link: refused"),
                                          ("hardlink", "code.ipynb is a hard link (2 names for one file): refused"),
                                          ("foreign", "notation.ipynb is not a notebook of this course")])
def test_an_ungradable_upload_gets_zero_and_a_reason(results, name, reason):
    data = results[name]["json"]
    assert set(data) <= TOP_LEVEL and data["score"] == 0 and data["tests"] == []
    assert data["output"].startswith(f"Your submission could not be graded: {reason}")
    assert "autograder" not in data["output"], "no path of the grading machine is shown"


def test_every_run_shows_the_instructor_whether_the_sandbox_works(results):
    """run_autograder prints setup.sh's `reading-maths doctor` (what "Test Autograder" shows the instructor)."""
    for name, found in results.items():
        assert found["stdout"].startswith("sandbox: "), name
        assert "sandbox:" not in found["text"], "not in results.json: students do not see it"


def test_no_hidden_input_reaches_results_json_at_any_visibility(results):
    """Everything Gradescope can show a student (results.json, every test's output at every visibility, the
    top-level output, stdout) holds none of the hidden values the canary saw; its public values come out."""
    canary = {"results.json": results["canary"]["text"].encode(), "stdout": results["canary"]["stdout"].encode()}
    control = (results["control"]["text"] + results["control"]["stdout"]).encode()
    assert any(b"3.0, 1.0, 0.0" in data for data in canary.values()), "the canary's public values never came out"
    assert not leaks(canary, control, hidden_values(ROOT))
