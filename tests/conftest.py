"""Shared fixtures: the course root, and grading a question in this process (the pytest driver)."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from reading_maths.course import Assignment
from reading_maths.results import QuestionResult

ROOT = Path(__file__).resolve().parents[1]

pytest_plugins = ["inprocess", "pytester"]  # inprocess: pytest --fast (make test-fast), the in-process tests


def grade_in_process(assignment: str, question: str, env: dict) -> QuestionResult:
    """Run the course's grader for ``question`` on ``env`` (plain objects), NumPy's warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return Assignment(assignment, ROOT).grader(question).run(env)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
