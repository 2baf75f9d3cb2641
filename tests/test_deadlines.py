"""What students are told of the term (reading_maths/nbgrader/deadlines.py, the checks service's ``api/deadlines``):
each assignment's due date from the course's ``nbgrader_config.py`` (or its gradebook), read afresh, the time
left or late, and the late policy with the penalty a submission would cost at that moment."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from conftest import BACKENDS, database_url, use_gradebook
from reading_maths.nbgrader.deadlines import deadlines, penalty_percent, policy_text, roster

REPO = Path(__file__).resolve().parents[1]
UTC = dt.UTC


@pytest.fixture
def course(tmp_path) -> Path:
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy2(REPO / "nbgrader_config.py", course / "nbgrader_config.py")
    return course


def move(course: Path, assignment: str, when: str) -> None:
    """Edit the course's config as an instructor would: one due date changed in place."""
    config = course / "nbgrader_config.py"
    lines = config.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(f'"{assignment}":'))
    lines[at] = f'    "{assignment}": "{when}",\n'
    config.write_text("".join(lines))


def by_id(answer: dict) -> dict[str, dict]:
    return {a["id"]: a for a in answer["assignments"]}


def test_the_configs_dates_in_utc_with_time_left_and_the_policy_in_words(course):
    when = dt.datetime(2027, 2, 10, 17, 0, tzinfo=UTC)
    answer = deadlines(course, "ada", when)
    assert answer["course_id"] == "reading-maths" and answer["now"] == "2027-02-10T17:00:00Z"
    assert answer["policy"] == "10 % of the score per started day late"
    code = by_id(answer)["code"]
    # "2027-02-12 17:00:00 Europe/London": London is on GMT in February
    assert code == {"id": "code", "due": "2027-02-12T17:00:00Z", "seconds_late": -2 * 86400.0,
                    "penalty_percent": 0.0, "source": "nbgrader_config.py"}
    assert [a["id"] for a in answer["assignments"]] == ["notation", "matching", "proofs", "code", "build"]


def test_moving_a_date_in_the_config_is_seen_on_the_next_call(course):
    when = dt.datetime(2027, 2, 1, 12, 0, tzinfo=UTC)
    assert by_id(deadlines(course, "ada", when))["proofs"]["seconds_late"] < 0
    move(course, "proofs", "2027-01-30 09:00:00 Europe/London")  # two days and three hours before `when`
    proofs = by_id(deadlines(course, "ada", when))["proofs"]
    assert proofs["due"] == "2027-01-30T09:00:00Z" and proofs["seconds_late"] == (2 * 24 + 3) * 3600
    assert proofs["penalty_percent"] == 30.0  # three started days at 10 %


def test_summer_time_is_the_zones_own(course):
    move(course, "code", "2027-06-11 17:00:00 Europe/London")
    assert by_id(deadlines(course, "ada"))["code"]["due"] == "2027-06-11T16:00:00Z"


@pytest.mark.slow  # nbgrader's Gradebook runs alembic
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_gradebook_names_the_rest_and_the_config_wins(course, backend, request):
    from nbgrader.api import Gradebook

    url = database_url(request, backend, course / "gradebook.db")
    use_gradebook(course, url)
    with Gradebook(url) as gb:
        gb.update_or_create_assignment("extra", duedate=dt.datetime(2027, 3, 1, 12, 0))
        gb.update_or_create_assignment("code", duedate=dt.datetime(2030, 1, 1))
        gb.add_student("bea")
    listed = by_id(deadlines(course, "ada", dt.datetime(2027, 3, 1, 13, 0, tzinfo=UTC)))
    assert listed["extra"]["due"] == "2027-03-01T12:00:00Z" and listed["extra"]["source"] == "gradebook"
    assert listed["extra"]["penalty_percent"] == 10.0
    assert listed["code"]["due"] == "2027-02-12T17:00:00Z" and listed["code"]["source"] == "nbgrader_config.py"
    assert roster(course) == ["bea"]


def test_no_gradebook_is_made_by_reading(course):
    deadlines(course, "ada")
    assert not (course / "gradebook.db").exists()


def test_nbgraders_own_policies_in_words(course):
    from nbgrader.plugins import LateSubmissionPlugin

    config = course / "nbgrader_config.py"
    config.write_text(config.read_text().replace(
        'c.AssignLatePenalties.plugin_class = "reading_maths.nbgrader.late.TenPercentPerDay"', ""))
    answer = deadlines(course, "ada", dt.datetime(2027, 3, 1, tzinfo=UTC))
    assert answer["policy"] == "no penalty for late work" and by_id(answer)["code"]["penalty_percent"] == 0.0
    zero = LateSubmissionPlugin(penalty_method="zero")
    assert policy_text(zero) == "late work scores 0" and penalty_percent(zero, "ada", 1.0) == 100.0
    assert penalty_percent(zero, "ada", -5.0) == 0.0
