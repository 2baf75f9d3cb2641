"""What a worker says of its course before a cluster grades (``autograde --scheduler``): the driver's graders,
references and secret, or what differs and how to fix it."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from reading_maths.grading.remote import course_lines, grade_bytes, grading_files
from reading_maths.kit.reference import SECRET_FILE

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "code"


@pytest.fixture
def driver(tmp_path) -> Path:
    course = tmp_path / "driver"
    for name in ("source", "graders"):
        shutil.copytree(ROOT / name / ASSIGNMENT, course / name / ASSIGNMENT)
    (course / SECRET_FILE).write_bytes(b"s" * 32)
    return course


def lines_of(worker: Path, driver: Path) -> list[tuple[bool, str]]:
    return list(course_lines(worker, ASSIGNMENT, grading_files(driver, ASSIGNMENT),
                             hashlib.sha256((driver / SECRET_FILE).read_bytes()).hexdigest()))


def test_a_copy_of_the_drivers_course_grades_as_it(driver, tmp_path):
    worker = shutil.copytree(driver, tmp_path / "worker")
    assert [held for held, _ in lines_of(worker, driver)] == [True, True]
    (worker / SECRET_FILE).unlink()  # none yet: the first notebook brings the driver's
    assert lines_of(worker, driver)[1] == (True, f"{SECRET_FILE}: none yet, the driver's is kept with the first "
                                                 "notebook")


def test_a_worker_with_another_grader_or_secret_says_which(driver, tmp_path):
    worker = shutil.copytree(driver, tmp_path / "worker")
    grader = next((worker / "graders" / ASSIGNMENT).glob("*.py"))
    grader.write_text(grader.read_text() + "\n# fixed on the driver only\n")
    (worker / SECRET_FILE).write_bytes(b"t" * 32)
    (graders, said), (secret, told) = lines_of(worker, driver)
    assert not graders and f"graders/{ASSIGNMENT}/{grader.name} missing or not the driver's" in said
    assert not secret and "another than the driver's" in told


def test_a_worker_without_the_course_says_where_it_looked(driver, tmp_path):
    assert lines_of(tmp_path / "nowhere", driver) == [
        (False, f"no course folder at {tmp_path / 'nowhere'}: share the driver's course folder, or copy it and set "
                "READING_MATHS_COURSE on the worker")]


def test_a_notebook_sent_to_a_worker_with_another_grader_is_refused_before_it_is_graded(driver, tmp_path,
                                                                                        monkeypatch):
    """A worker that joined after the batch's check of its workers: each notebook carries the driver's graders'
    digests, and a worker whose course differs refuses it, naming the file."""
    from reading_maths.grading.engine import Settings
    from reading_maths.sandbox.process import choose

    worker = shutil.copytree(driver, tmp_path / "worker")
    grader = next((worker / "graders" / ASSIGNMENT).glob("*.py"))
    grader.write_text(grader.read_text() + "\n# fixed on the worker only\n")
    monkeypatch.delenv("READING_MATHS_COURSE", raising=False)  # the worker's course is the path it is sent
    with pytest.raises(RuntimeError, match=f"graders/{ASSIGNMENT}/{grader.name} missing or not the driver's"):
        grade_bytes(b"{}", "code.ipynb", "code.ipynb", Settings(choose(allow_unsafe=True)), str(worker), ASSIGNMENT,
                    (driver / SECRET_FILE).read_bytes(), grading_files(driver, ASSIGNMENT))
