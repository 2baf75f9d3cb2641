"""Inputs are never followed: a submission that is a link (to the instructor's source notebook), a hard link,
a FIFO or a device, or a folder holding one, gets a one-line reason and 0, never the target's content, and
the rest of the batch is graded: ``reading-maths grade``, ``reading-maths autograde`` and ``nbgrader collect``
(through the course's SafeCollect, which also refuses entries owned by someone else and future timestamps).
The Gradescope path is in tests/test_gradescope.py, the hub's in tests/test_hub_hostile.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook
from test_autograde import generated_course, nbgrader, reading_maths, release_and_source, run

from classroom.builder import answered
from conftest import ROOT

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

A = "notation"
RM = str(Path(sys.executable).parent / "reading-maths")
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"


def right_answers(course: Path) -> nbformat.NotebookNode:
    return answered(*release_and_source(course, A))


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    return generated_course(tmp_path_factory.mktemp("untrusted") / "course", A)


def write(nb: nbformat.NotebookNode, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def plant(folder: Path, kind: str, target: Path) -> Path:
    """``folder/notation.ipynb`` made a link of ``kind`` to ``target`` (or a FIFO); returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{A}.ipynb"
    if kind == "symlink":
        path.symlink_to(target)
    elif kind == "hardlink":
        os.link(target, path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "linked-folder":
        folder.rmdir()
        folder.symlink_to(target.parent, target_is_directory=True)
    return path


KINDS = {"symlink": "is a symbolic link", "hardlink": "is a hard link", "fifo": "is a FIFO",
         "linked-folder": "is a symbolic link"}


def test_grade_refuses_links_and_grades_the_rest(course, tmp_path):
    source = course / "source" / A / f"{A}.ipynb"
    copy = tmp_path / "elsewhere" / f"{A}.ipynb"  # a hard link needs a file of ours on the same file system
    copy.parent.mkdir()
    shutil.copy(source, copy)
    batch = tmp_path / "batch"
    write(right_answers(course), batch / "honest" / f"{A}.ipynb")
    for kind in KINDS:
        plant(batch / kind, kind, copy if kind == "hardlink" else source)
    done = run(course, RM, "grade", str(batch), "--json",
               "--assignment", A, check=False)
    assert done.returncode == 4, done.stderr  # graded, some could not be read
    results = {Path(r["notebook"]).parent.name if r["notebook"].endswith(".ipynb") else Path(r["notebook"]).name: r
               for r in json.loads(done.stdout)}
    assert results["honest"]["score"] == results["honest"]["max_score"] > 0
    for kind, reason in KINDS.items():
        found = results[kind]
        assert found["score"] == 0 and any(reason in e for e in found["errors"]), (kind, found)
        assert all(len(e.splitlines()) == 1 for e in found["errors"])
    assert all(reason in done.stderr for reason in KINDS.values())


def test_autograde_refuses_a_linked_submission(course):
    source = course / "source" / A / f"{A}.ipynb"
    submitted = course / "submitted"
    write(right_answers(course), submitted / "ada" / A / f"{A}.ipynb")
    plant(submitted / "eve" / A, "symlink", source)
    plant(submitted / "mallory" / A, "linked-folder", source)
    (submitted / "oscar" / A).mkdir(parents=True)
    shutil.copy(source, submitted / "oscar" / A / f"{A}.ipynb")
    (submitted / "oscar" / A / "notes.txt").symlink_to(course / "graders")  # a link beside the notebook
    reading_maths(course, "autograde", A, "--jobs", "2")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission(A, s).score for s in ("ada", "eve", "mallory", "oscar")}
        comments = [c.auto_comment or "" for c in gb.find_submission_notebook(A, A, "eve").comments]
    assert scores["ada"] > 0 and scores["eve"] == scores["mallory"] == scores["oscar"] == 0, scores
    assert any("symbolic link" in c for c in comments), comments
    for student in ("eve", "mallory", "oscar"):  # nothing of the target was copied for feedback to show
        assert not (course / "autograded" / student / A / f"{A}.ipynb").exists()


def entry(exchange: Path, student: str, when: datetime, notebook: nbformat.NotebookNode, owner: int | None = None,
          suffix: str = "") -> Path:
    """An inbound entry as ``nbgrader submit`` makes it: the notebook and timestamp.txt."""
    stamp = when.strftime(STAMP)
    folder = exchange / "reading-maths" / "inbound" / f"{student}+{A}+{stamp}{suffix}"
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{A}.ipynb")
    (folder / "timestamp.txt").write_text(stamp)
    if owner is not None:
        for path in (folder, *folder.iterdir()):
            os.lchown(path, owner, owner)
    return folder


def test_collect_takes_only_what_students_can_prove(course):
    """On the course's local exchange: a forged future entry, a link inside an entry, a garbage name and (as
    root) an entry owned by another account are refused with the reason in collect's output; the honest
    entries are collected."""
    exchange = course / "exchange"
    now = datetime.now(UTC)
    honest = right_answers(course)
    blank = nbformat.read(course / "release" / A / f"{A}.ipynb", as_version=4)
    entry(exchange, "ada", now - timedelta(minutes=5), honest)
    entry(exchange, "ada", now + timedelta(days=3000), blank)  # far future: would beat every resubmission
    linked = entry(exchange, "bob", now - timedelta(minutes=3), blank)
    (linked / f"{A}.ipynb").unlink()
    (linked / f"{A}.ipynb").symlink_to(course / "source" / A / f"{A}.ipynb")
    (exchange / "reading-maths" / "inbound" / f"carl+{A}+not-a-time").mkdir()
    if os.geteuid() == 0:
        entry(exchange, "dora", now - timedelta(minutes=1), blank, owner=65534)  # nobody's entry, named for dora
    done = nbgrader(course, "collect", A, "--update")
    log = done.stdout + done.stderr
    assert "is in the future" in log and "is a symbolic link" in log and "not student+assignment+timestamp" in log, log
    assert (course / "submitted" / "ada" / A / f"{A}.ipynb").is_file()
    assert nbformat.read(course / "submitted" / "ada" / A / f"{A}.ipynb", as_version=4) == honest
    assert not (course / "submitted" / "bob").exists() and not (course / "submitted" / "carl").exists()
    if os.geteuid() == 0:
        assert "it is owned by nobody, not by dora" in log and not (course / "submitted" / "dora").exists()


def test_a_fifo_does_not_stall_grading(tmp_path):
    fifo = plant(tmp_path / "x", "fifo", tmp_path)
    done = subprocess.run([RM, "grade", str(fifo), "--json"],
                          env={**os.environ, "READING_MATHS_COURSE": str(ROOT)}, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 1 and "is a FIFO" in done.stderr, done.stderr


def test_doctor_checks_a_shared_exchange(tmp_path):
    """``reading-maths doctor`` on a hub (READING_MATHS_EXCHANGE set) states the exchange's layout: held as the
    hub lays it out, NOT held (exit 1) once the root loses its sticky bit or inbound becomes listable."""
    from reading_maths.nbgrader.exchange import LAYOUT, lay_out

    exchange = tmp_path / "exchange"
    lay_out(exchange, "reading-maths", os.geteuid(), os.getegid())

    def doctor() -> subprocess.CompletedProcess:
        return subprocess.run([RM, "doctor"], env={**os.environ, "READING_MATHS_EXCHANGE": str(exchange)},
                              capture_output=True, text=True, timeout=120, check=False)

    done = doctor()
    lines = [x for x in done.stdout.splitlines() if "mode" in x]
    assert len(lines) == len(LAYOUT) and all("[held]" in x for x in lines), done.stdout
    os.chmod(exchange, 0o777)
    os.chmod(exchange / "reading-maths" / "inbound", 0o777)
    done = doctor()
    assert done.returncode == 1 and done.stdout.count("[NOT held]") >= 2, done.stdout
    assert "students could move, replace or plant folders there" in done.stdout
