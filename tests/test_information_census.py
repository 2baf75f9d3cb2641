"""The canary census (issue 31, deliverable 4): no hidden input reaches anything a student can read.

A notebook whose functions record every argument they get and say it back through every channel a student's code
has (:mod:`hostile.canary`) is graded through every path a course grades by; every byte a student could read of
the result is searched for every value the graders pass in calls that are not public, in every spelling
(:func:`hostile.canary.canaries`).  Each path also grades the reference notebook: the control, whose output
holds what the search must not count (the text's numbers, scores).  And each path must show the canary's public
values (the text's z = (3, 1, 0), which its later functions raise with): proof that the channels are open and the
search would see a leak, so that a test that cannot fail is not mistaken for one that passes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest
from hostile.canary import (
    GRADER_FAILURES,
    build_canary,
    canary_notebook,
    hidden_values,
    honest_notebook,
    leaks,
    unclosed_messages,
)
from hostile.ordinary import as_user, ordinary_user
from test_autograde import generated_course, nbgrader, reading_maths

from conftest import ROOT

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

PUBLIC = b"3.0, 1.0, 0.0"
"""The text's example z = (3, 1, 0), as the canary repeats it: seen in every path's output, or the channel is shut
and the search proves nothing."""


@pytest.fixture(scope="module")
def hidden() -> set[float]:
    values = hidden_values(ROOT)
    assert len(values) > 500, "the graders pass hundreds of hidden numbers: the census must know them"
    return values


def _assert_no_leak(outputs: dict[str, bytes], control: dict[str, bytes], hidden: set[float]) -> None:
    assert any(PUBLIC in data for data in outputs.values()), "the canary's public values never came out"
    assert not [(name, said) for name, data in outputs.items() for said in GRADER_FAILURES if said in data]
    found = leaks(outputs, b"\n".join(control.values()), hidden)
    assert not found, f"hidden values reached a student's eyes: {found[:12]}"


def _grade_cli(notebook: Path, folder: Path, mode: str) -> dict[str, bytes]:
    """``reading-maths grade`` with every output a CI job shows a student: the JSON, stderr, JUnit, results.json,
    the Markdown summary, and the terminal table of a run without ``--json``."""
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    files = {"junit": folder / "junit.xml", "gradescope": folder / "results.json", "summary": folder / "summary.md"}
    command = [str(ROOT / ".venv" / "bin" / "reading-maths"), "grade", str(notebook), "--json",
               "--junit", str(files["junit"]), "--gradescope", str(files["gradescope"]),
               "--summary", str(files["summary"])]
    env = dict(os.environ)
    if mode == "user":
        command, env["HOME"] = as_user(command), ordinary_user()[2]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, env=env, timeout=600, check=False)
    assert done.returncode in (0, 3), done.stderr[-3000:]
    table = subprocess.run([c for c in command if c != "--json"][:-6], cwd=ROOT, capture_output=True,
                           env=dict(env, COLUMNS="200"), timeout=600, check=False)  # the terminal table
    return {"stdout": done.stdout, "stderr": done.stderr, "table": table.stdout + table.stderr,
            **{k: p.read_bytes() for k, p in files.items()}}


@pytest.fixture
def open_folder():
    """A folder in /tmp the ordinary user can reach (pytest's own are private to root)."""
    path = Path(tempfile.mkdtemp(prefix="rm-census-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_cli_outputs_hold_no_hidden_value(hidden, mode, open_folder):
    tmp_path = open_folder
    for name, nb in (("canary", canary_notebook(ROOT)), ("honest", honest_notebook(ROOT))):
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
        (tmp_path / f"{name}.ipynb").chmod(0o644)
    canary = _grade_cli(tmp_path / "canary.ipynb", tmp_path / "canary", mode)
    control = _grade_cli(tmp_path / "honest.ipynb", tmp_path / "honest", mode)
    _assert_no_leak(canary, control, hidden)
    result = json.loads(canary["stdout"])
    assert result["questions"][0]["id"] == "softmax" and result["questions"][0]["score"] == 17, \
        "the canary's softmax is right: it keeps full marks while it records"
    assert any("LATER" in e for e in result["errors"]), "the cells after each grade cell ran and were reported"
    assert not unclosed_messages(result, ROOT), "a hidden-run message is not in the graders' own words"
    assert any(c["hidden_run"] and not c["passed"] for q in result["questions"] for c in q["cases"])
    adam = [c["message"] for q in result["questions"] if q["id"] == "adam" for c in q["cases"] if c["hidden_run"]]
    assert adam and all(m.endswith(": your code raised an exception of your own class.") for m in adam), \
        "the canary's classes named Leak_<values> and OverflowError<value> are its own, and named so"


def test_build_entries_say_nothing_of_the_hidden_run_but_the_graders_words(mode, open_folder):
    """The build canary (a function named after its hidden inputs, an entry rebuilt from them): every message of
    a case judged in the hidden run is a catalogue message under the grader's own label, whatever the student's
    process said; what it recorded never comes out."""
    nbformat.write(build_canary(ROOT), open_folder / "build.ipynb")
    (open_folder / "build.ipynb").chmod(0o644)
    outputs = _grade_cli(open_folder / "build.ipynb", open_folder / "out", mode)
    result = json.loads(outputs["stdout"])
    judged = [c for q in result["questions"] for c in q["cases"] if c["hidden_run"]]
    assert judged and not unclosed_messages(result, ROOT)
    assert not any(b"no def implementation_1 " in data or b"'L " in data for data in outputs.values())


def test_nbgrader_autograde_and_released_feedback_hold_no_hidden_value(hidden, tmp_path):
    course = generated_course(tmp_path / "course", "code")
    course_hidden = hidden_values(course)  # this course has a secret of its own: its own hidden random inputs
    for student, nb in (("canary", canary_notebook(course)), ("honest", honest_notebook(course))):
        path = course / "submitted" / student / "code" / "code.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    reading_maths(course, "autograde", "code")
    nbgrader(course, "generate_feedback", "code", "--force")
    released = {student: {str(p.relative_to(course)): p.read_bytes()
                          for p in (course / "feedback" / student).rglob("*") if p.is_file()}
                for student in ("canary", "honest")}
    assert released["canary"], "generate_feedback wrote no feedback"
    _assert_no_leak(released["canary"], released["honest"], course_hidden)


def test_a_check_answer_holds_no_hidden_value(hidden, tmp_path):
    import browser as b

    from reading_maths.checks.desk import Desk
    from reading_maths.grading.engine import Settings
    from reading_maths.sandbox.process import Limits, choose

    course = tmp_path / "course"
    b.copy_course(ROOT, course)
    course_hidden = hidden_values(course)
    (course / "checks.toml").write_text('[defaults]\nattempts = 10\nshow = "both"\n')
    settings = Settings(choose(allow_unsafe=False, limits=Limits()), cell_timeout=30.0, call_timeout=30.0)
    desk = Desk(course, tmp_path / "checks.sqlite", settings, workers=1)
    try:
        import asyncio

        answers = {}
        for student, nb in (("canary", canary_notebook(ROOT)), ("honest", honest_notebook(ROOT))):
            answers[student] = asyncio.run(desk.ask(student, "code/code.ipynb", nbformat.writes(nb).encode()))
    finally:
        desk.close()
    shown = {"answer": json.dumps(answers["canary"]).encode()}
    _assert_no_leak(shown, {"answer": json.dumps(answers["honest"]).encode()}, course_hidden)

