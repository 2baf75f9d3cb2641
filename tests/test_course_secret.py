"""Hidden random inputs are the course's own (issue 31, deliverable 3): a course secret made by ``release``, kept
beside the gradebook (never released, never committed), mixed into every grader's seed.  A leak of one
term's or one course's hidden random inputs is worth nothing in another; fixed edge cases stay as they are, and
the reference scores full marks whatever the secret."""

from __future__ import annotations

import shutil
import stat
import subprocess

import numpy as np
import pytest

from conftest import ROOT
from reading_maths.grading.graderfile import load_grader
from reading_maths.kit.reference import SECRET_FILE, course_secret, course_seed, hidden_rng, reference_of

pytestmark = pytest.mark.slow  # nbgrader's generate_assignment; every code grader on two courses


def _course(folder):
    for part in ("source", "graders"):
        shutil.copytree(ROOT / part, folder / part)
    return folder


def test_release_makes_the_secret_and_never_releases_or_commits_it(regenerated):
    secret = regenerated / SECRET_FILE
    assert secret.is_file() and not stat.S_IMODE(secret.stat().st_mode) & 0o022, "nobody else may change it"
    data = secret.read_bytes()
    assert len(data) == 32 and len(set(data)) > 8
    released = b"".join(p.read_bytes() for p in (regenerated / "release").rglob("*") if p.is_file())
    assert data not in released and data.hex().encode() not in released
    ignored = subprocess.run(["git", "check-ignore", "-q", SECRET_FILE], cwd=ROOT, check=False)
    assert ignored.returncode == 0, f"{SECRET_FILE} must be ignored by git: it is never committed"


def test_each_course_draws_its_own_hidden_inputs_and_keeps_the_fixed_ones(tmp_path):
    first, second = _course(tmp_path / "term1"), _course(tmp_path / "term2")
    assert course_secret(first) != course_secret(second)
    draws = [hidden_rng(course_seed(90_417_233, anchor=c), "random_rows").standard_normal(6) for c in (first, second)]
    assert not np.allclose(*draws), "two courses drew the same hidden inputs"
    again = hidden_rng(course_seed(90_417_233, anchor=first), "random_rows").standard_normal(6)
    assert np.array_equal(draws[0], again), "one course's hidden inputs must be the same on every run"
    for course in (first, second):
        for question in ("softmax", "attention", "adam_step", "adam", "dpo_loss"):
            grader = load_grader(course / "graders" / "code" / f"{question}.py")
            result = grader.run({question: getattr(reference_of(course, "code"), question)})
            assert result.score == result.max_score, (course.name, question, result.feedback)


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    from reading_maths.nbgrader.release import release

    course = _course(tmp_path_factory.mktemp("course"))
    shutil.copy(ROOT / "nbgrader_config.py", course)
    release(course, ["code"], db_url=f"sqlite:///{course / 'gradebook.db'}")
    return course
