"""Trusted outputs remembered per input (``reading_maths.kit.memo``): exact keys, read-only values, never a
student's."""

import numpy as np
import pytest

from reading_maths.kit import Mistake, QuadraticGradient, Question, Scaled
from reading_maths.kit.memo import Memo, fingerprint


@pytest.mark.parametrize("a, b", [
    (0.0, -0.0),
    (1, 1.0),
    (1, True),
    (np.array([1.0, 2.0]), np.array([1, 2])),
    (np.array([1.0, 2.0]), np.array([[1.0, 2.0]])),
    (np.array([1.0, 2.0], dtype=">f8"), np.array([1.0, 2.0])),
    ((1.0, 2.0), [1.0, 2.0]),
    (np.float64(1.0), 1.0),
    (Scaled(2.0), Scaled(2.0, "another name")),
    (QuadraticGradient(np.eye(2), np.zeros(2)), QuadraticGradient(np.eye(2), np.ones(2))),
])
def test_different_inputs_have_different_fingerprints(a, b):
    assert fingerprint(a) != fingerprint(b)


def test_equal_inputs_share_a_fingerprint_and_unknown_objects_have_none():
    assert fingerprint(((np.arange(3.0), 2), {"T": 0.5})) == fingerprint(((np.arange(3.0), 2), {"T": 0.5}))
    assert fingerprint(QuadraticGradient(np.eye(2), np.zeros(2))) == fingerprint(QuadraticGradient(np.eye(2),
                                                                                                   np.zeros(2)))
    assert fingerprint([lambda x: x]) is None and fingerprint(np.array([object()])) is None


def test_remembered_outputs_are_computed_once_and_read_only():
    memo, runs = Memo(), []

    def compute():
        runs.append(1)
        return [np.arange(3.0)]

    first = memo.outputs(len, fingerprint(((np.arange(2.0),), {})), compute)
    again = memo.outputs(len, fingerprint(((np.arange(2.0),), {})), compute)
    assert runs == [1] and again is first
    with pytest.raises(ValueError):
        first[0][0] = 5.0
    memo.outputs(len, fingerprint((([lambda: 0],), {})), compute)
    memo.outputs(len, fingerprint((([lambda: 0],), {})), compute)
    assert len(runs) == 3, "an input without a fingerprint is computed every time"


def test_a_question_runs_its_reference_once_per_input_and_its_student_every_time():
    reference_runs, student_runs = [], []

    def reference(z):
        reference_runs.append(1)
        return np.asarray(z) * 2

    def student(z):
        student_runs.append(1)
        return np.asarray(z) * 3

    q = Question("double", reference, [Mistake("triple", "You triple.", lambda z: np.asarray(z) * 3)])
    for _ in range(3):
        with pytest.raises(AssertionError, match="You triple"):
            q.check(student, np.array([1.0, 2.0]), label="a case")
    assert len(reference_runs) == 1
    assert len(student_runs) >= 3


def test_what_a_mistake_raises_is_found_once_per_input_and_the_diagnosis_is_unchanged():
    """A student whose function raises is told which catalogued mistake raises the same: each mistake is tried on
    an input once per process, not once per student (it was most of a check's grading time)."""
    mistake_runs = []

    def raising(z):
        mistake_runs.append(1)
        raise ZeroDivisionError("t starts at 0")

    def student(z):
        raise ZeroDivisionError("mine")

    q = Question("double", lambda z: np.asarray(z) * 2,
                 [Mistake("from-zero", "You start from zero.", raising),
                  Mistake("triple", "You triple.", lambda z: np.asarray(z) * 3)])
    for _ in range(3):
        with pytest.raises(AssertionError, match="You start from zero") as failed:
            q.check(student, np.array([1.0, 2.0]), label="a case")
        assert failed.value.mistake == "from-zero"
    assert len(mistake_runs) == 1
    with pytest.raises(AssertionError) as other:  # another input: tried again, and told the same
        q.check(student, np.array([3.0]), label="another case")
    assert other.value.mistake == "from-zero" and len(mistake_runs) == 2
