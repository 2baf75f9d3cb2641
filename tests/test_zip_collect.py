"""`nbgrader zip_collect` with the course's LMS filename pattern (nbgrader_config.py's zip_collect block).

A Canvas-style bulk download (``{login}_[LATE_]{user id}_{submission id}_{filename}[-n].ipynb``, zipped) is
filed by nbgrader's own ``zip_collect`` as ``submitted/<login>/code/code.ipynb``, with a timestamp that keeps
the ``LATE_`` marker (the due date, or one second past it).
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT
from reading_maths.nbgrader.environment import use_nbgrader_env

pytestmark = pytest.mark.slow

STUDENTS = {
    "lovelaceada_12345_67890_code.ipynb": "lovelaceada",
    "turingalan_LATE_23456_78901_code-1.ipynb": "turingalan",
    "hoppergrace_34567_89012_code.ipynb": "hoppergrace",
}


def zip_collect(course: Path, files: dict[str, str], config: str = "") -> subprocess.CompletedProcess:
    """``files`` (name -> text) zipped as the LMS's download into ``course``, then ``nbgrader zip_collect code``
    with the course's config (and ``config`` after it)."""
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    with (course / "nbgrader_config.py").open("a") as fh:
        fh.write("\n" + config)
    shutil.copytree(ROOT / "source" / "code", course / "source" / "code")
    # zip_collect checks the file names against the released notebooks
    (course / "release" / "code").mkdir(parents=True)
    shutil.copy(ROOT / "source" / "code" / "code.ipynb", course / "release" / "code" / "code.ipynb")
    archive = course / "downloaded" / "code" / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)

    from nbgrader.api import Gradebook

    use_nbgrader_env()  # the gradebook runs alembic by name
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:  # as `reading-maths release` sets it
        gb.update_or_create_assignment("code", duedate="2027-02-12 17:00:00 UTC")
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "zip_collect", "code", f"--CourseDirectory.root={course}"],
        cwd=course, capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_zip_collect_files_canvas_download_as_submissions(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    notebook = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    files = {}
    for i, name in enumerate(STUDENTS):
        notebook.metadata["student_marker"] = i
        files[name] = nbformat.writes(notebook)
    zip_collect(course, files | {"readme.txt": "not a submission"})

    submitted = course / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == sorted(STUDENTS.values())
    for i, (name, student) in enumerate(STUDENTS.items()):
        path = submitted / student / "code" / "code.ipynb"
        assert path.is_file(), name
        assert nbformat.read(path, as_version=4).metadata["student_marker"] == i
        # Canvas gives no time: the due date, one second past it for a file marked LATE_
        late = "_LATE_" in name
        stamp = (submitted / student / "code" / "timestamp.txt").read_text()
        assert stamp.startswith("2027-02-12 17:00:01" if late else "2027-02-12 17:00:00"), (name, stamp)


def test_a_student_uploaded_timestamp_is_not_the_submissions_time(tmp_path):
    """A course that takes other files than notebooks from the LMS (a wider pattern and ``valid_ext``): a late
    student who uploads a ``timestamp.txt`` saying they were on time would have it filed as the submission's
    ``timestamp.txt``, which nbgrader then keeps. It is refused; the time is the LMS's (the LATE_ marker's)."""
    course = tmp_path / "course"
    course.mkdir()
    notebook = nbformat.writes(nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4))
    wider = (r'c.LmsFileNames.named_regexp = r"^(?:.*/)?(?P<student_id>[^/_]+)_(?P<late>LATE_|late_)?\d+_\d+_'
             r'(?P<file_id>[^/]+?)(?:-\d+)?\.(?:ipynb|txt)$"' '\nc.LmsFileNames.valid_ext = [".ipynb", ".txt"]\n')
    done = zip_collect(course, {"turingalan_LATE_23456_78901_code.ipynb": notebook,
                                "turingalan_LATE_23456_78901_timestamp.txt": "2027-02-09 09:00:00.000000 UTC",
                                "turingalan_LATE_23456_78901_data.txt": "a data file the course asked for",
                                "lovelaceada_12345_67890_code.ipynb": notebook}, wider)
    folder = course / "submitted" / "turingalan" / "code"
    assert "as timestamp.txt it would be the submission's time" in done.stdout + done.stderr, done.stderr[-3000:]
    assert (folder / "data.txt").is_file(), "other files are still taken"
    assert (folder / "timestamp.txt").read_text().startswith("2027-02-12 17:00:01")
    assert (course / "submitted" / "lovelaceada" / "code" / "timestamp.txt").read_text().startswith(
        "2027-02-12 17:00:00")
