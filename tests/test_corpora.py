"""Graders as classifiers: right answers keep full marks, wrong ones lose points with the right message.

The grader files run in this process on plain Python objects (the pytest driver); the sandboxed
engine runs the same files on proxies, see test_engine.py.
"""

import hashlib
import runpy
import shutil
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from classroom.corpus import read_corpus
from conftest import ROOT, grade_in_process
from reading_maths.course import Assignment
from reading_maths.kit import Question, reference
from reading_maths.kit.reference import keep_secret

CORPORA = sorted((ROOT / "tests" / "corpora").glob("*/*.py"))

SWEPT_IN_MAKE_TEST = ("build/", "proofs/induction")
"""Corpora whose every answer costs a second or more of CPU to grade (SymPy in forked children: the build
entries' equations, the induction's sums): their sweeps are marked slow, so ``make test`` runs them and
``make test-fast`` keeps only their reference, blank and catalogued mistakes."""


def _entries(kind: str) -> list:
    return list(_corpus(kind))


def _corpus(kind: str):
    for path in CORPORA:
        corpus = read_corpus(path)
        where = f"{path.parent.name}/{path.stem}"
        marks = [pytest.mark.slow] if where.startswith(SWEPT_IN_MAKE_TEST) else []
        for name, entry in corpus.get(kind, {}).items():
            yield pytest.param(path.parent.name, path.stem, entry, id=f"{where}/{name}", marks=marks)


def _diagnosed(assignment: str, question: str) -> set[str]:
    """The mistakes a grader names by likeness (an answer computing what a wrong implementation or formula does),
    as opposed to the ones it recognises exactly (a wrong item, a distractor, a failure of a kind)."""
    return {m.name for m in Assignment(assignment, ROOT).grader(question).mistakes if m.impl is not None}


def _catalogue() -> list:
    return list(_catalogued())


def _catalogued():
    for path in CORPORA:
        grader = Assignment(path.parent.name, ROOT).grader(path.stem)
        if len(grader.names) == 1:
            for mistake in (m for m in grader.mistakes if callable(m.impl)):
                case_id = f"{path.parent.name}/{path.stem}/{mistake.name}"
                yield pytest.param(path.parent.name, path.stem, mistake, id=case_id)


@pytest.mark.parametrize("assignment, question, env", _entries("RIGHT"))
def test_right_answer_gets_full_marks(assignment, question, env):
    result = grade_in_process(assignment, question, env)
    assert result.score == result.max_score, result.feedback


@pytest.mark.parametrize("assignment, question, entry", _entries("WRONG"))
def test_wrong_answer_loses_points_with_one_counted_explanation(assignment, question, entry):
    """Each wrong answer graded once, then held to the three properties below."""
    env, expected = entry
    result = grade_in_process(assignment, question, env)
    _loses_points_with_its_message(result, assignment, question, expected)
    _counted_under_a_catalogued_mistake(result, assignment, question)
    _never_contradicts_itself(result, assignment, question)


def _loses_points_with_its_message(result, assignment: str, question: str, expected: str | None) -> None:
    """It loses points, gets the mistake or feedback its corpus names, and no mistake it did not make."""
    assert result.score < result.max_score
    if expected:
        assert expected in result.mistakes or any(expected in line for line in result.feedback), result.feedback
    catalogue = {m.name: m.message for m in Assignment(assignment, ROOT).grader(question).mistakes}
    named = set(result.mistakes) & _diagnosed(assignment, question)
    made = {m for m in named if m == expected or (expected and expected in catalogue[m])}
    assert named == made, f"names a mistake that was not made: {named - made}; {result.feedback}"


def _counted_under_a_catalogued_mistake(result, assignment: str, question: str) -> None:
    """What the report's "most common mistakes" counts: every case a wrong answer fails names a mistake of the
    grader's catalogue (its own, or the kit's kinds of failure), and the result keeps the catalogue's message."""
    catalogue = {m.name: m.message for m in Assignment(assignment, ROOT).grader(question).mistakes}
    uncounted = [(c.name, c.mistake, c.message) for c in result.cases if not c.passed and c.mistake not in catalogue]
    assert not uncounted
    assert result.to_json()["mistake_messages"] == {m: catalogue[m] for m in result.mistakes}


@pytest.mark.parametrize("assignment, question, mistake", _catalogue())
def test_catalogued_mistake_gets_its_own_message(assignment, question, mistake):
    grader = Assignment(assignment, ROOT).grader(question)
    result = grade_in_process(assignment, question, {grader.names[0]: mistake.impl})
    assert result.score < result.max_score
    assert mistake.name in result.mistakes, result.feedback
    assert result.to_json()["mistake_messages"][mistake.name] == mistake.message  # what reports count it by


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_reference_gets_full_marks_and_blank_gets_zero(path):
    assignment, question = path.parent.name, path.stem
    full = grade_in_process(assignment, question, vars(reference(assignment)))
    assert full.score == full.max_score > 0, full.feedback
    blank = grade_in_process(assignment, question, {})
    assert blank.score == 0 and blank.status == "missing"


@cache
def _explanations(assignment: str, question: str) -> list[str]:
    """The messages of the grader's properties (the text's facts a wrong answer may break)."""
    namespace = runpy.run_path(str(Assignment(assignment, ROOT).grader(question).path))
    return [p.message for v in namespace.values() if isinstance(v, Question) for p in v.properties]


def _never_contradicts_itself(result, assignment: str, question: str) -> None:
    """One explanation for a wrong answer: at most one mistake named, and no broken property beside it or
    beside another property (a mistake that explains some cases and not others is not named at all)."""
    failed = [c.message for c in result.cases if not c.passed]
    broken = {p for p in _explanations(assignment, question) if any(p in m for m in failed)}
    named = set(result.mistakes) & _diagnosed(assignment, question)
    assert len(named) <= 1 and not (named and broken) and len(broken) <= 1, (named, broken)


OTHER_SECRETS = (
    bytes.fromhex("0e3982e2ba195fc47362bb049108b612ede02b7283d12faf509a049f288bc4a1"),
    hashlib.sha256(b"reading-maths: another course").digest(),
    hashlib.sha256(b"reading-maths: a third course").digest(),
)
"""Course secrets other than this checkout's. Hidden inputs are drawn from a course's secret, so each course grades
on other numbers; every answer must be classified the same on all of them. Under the first, ``softmax``'s drawn
rows let single precision through (a wrong answer with full marks) until a fixed row was added."""


@pytest.fixture(scope="module")
def other_courses(tmp_path_factory) -> list[Path]:
    """Copies of the course's graders and sources, one per :data:`OTHER_SECRETS`."""
    roots = []
    for number, secret in enumerate(OTHER_SECRETS):
        root = tmp_path_factory.mktemp(f"secret{number}")
        for name in ("graders", "source"):
            shutil.copytree(ROOT / name, root / name)
        keep_secret(root, secret)
        roots.append(root)
    return roots


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in CORPORA if not f"{p.parent.name}/{p.stem}".startswith(SWEPT_IN_MAKE_TEST)],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_answer_is_classified_alike_under_other_course_secrets(path, other_courses):
    """Right answers keep full marks, and wrong ones and catalogued mistakes lose points, whatever the secret."""
    assignment, question = path.parent.name, path.stem
    corpus = read_corpus(path)
    misjudged = []
    for root in other_courses:
        grader = Assignment(assignment, root).grader(question)
        answers = [(True, name, env) for name, env in corpus.get("RIGHT", {}).items()]
        answers += [(False, name, env) for name, (env, _) in corpus.get("WRONG", {}).items()]
        if len(grader.names) == 1:
            answers += [(False, m.name, {grader.names[0]: m.impl}) for m in grader.mistakes if callable(m.impl)]
        for right, name, env in answers:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = grader.run(env)
            if (result.score == result.max_score) != right:
                misjudged.append(f"{'right' if right else 'wrong'} {name}: {result.score}/{result.max_score} "
                                 f"under secret {other_courses.index(root)}")
    assert not misjudged, misjudged
