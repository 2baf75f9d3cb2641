"""The code assignment ("Code it up"): its source notebook, its graders and what their feedback reveals.

The generic classifier tests (right answers keep full marks, wrong ones lose points, every catalogued
mistake is diagnosed) are in test_corpora.py; this file checks what is particular to this assignment.
"""

import re
import runpy
import warnings
from functools import partial

import nbformat
import numpy as np
import pytest

from conftest import ROOT, grade_in_process, source_cells
from reading_maths.course import Assignment
from reading_maths.kit import reference
from reading_maths.notebook import SOLUTION_MARKERS, grade_id, nbgrader_meta, read_notebook

QUESTIONS = ["softmax", "attention", "adam_step", "adam", "dpo_loss"]
CODE = Assignment("code", ROOT)
GRADE_CELL = (
    "# The hidden tests for this question run here when your notebook is graded.\n"
    "### BEGIN HIDDEN TESTS\n"
    "from reading_maths.nbgrader.in_kernel import grade_question\n"
    'grade_question("code", "{q}")\n'
    "### END HIDDEN TESTS"
)
SIGNATURES = {
    "softmax": "def softmax(z, T=1.0):",
    "attention": "def attention(Q, K, V):",
    "adam_step": "def adam_step(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):",
    "adam": "def adam(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):",
    "dpo_loss": "def dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1):",
}


_grade = partial(grade_in_process, "code")  # (question, env): a question of code graded in this process


# -- the notebook ------------------------------------------------------------------------------------------

def test_questions_in_order_and_points_equal_grader_totals():
    assert CODE.questions == QUESTIONS
    cells = source_cells("code")
    for q in QUESTIONS:
        grader = CODE.grader(q)
        assert grader.question == q
        assert nbgrader_meta(cells[q])["points"] == grader.max_score > 0
        assert all(float(c.points).is_integer() and c.points > 0 for c in grader.cases)


def test_cells_follow_the_graders_readme():
    nb = read_notebook(CODE.source_notebook)
    ids = [grade_id(c) for c in nb.cells if grade_id(c)]
    expected = ["setup", "check-helpers"] + [f"{q}{s}" for q in QUESTIONS for s in ("-answer", "-check", "")] \
        + ["public-checks-summary"]
    assert ids == expected
    keys = {"grade", "solution", "locked", "grade_id", "schema_version"}
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, "commit without outputs"
        meta = nbgrader_meta(cell)
        if not meta:
            assert cell.cell_type == "markdown"
            continue
        gid = meta["grade_id"]
        assert meta["schema_version"] == 3
        if gid in QUESTIONS:
            assert set(meta) == keys | {"points"}
            assert (meta["grade"], meta["solution"], meta["locked"]) == (True, False, True)
            assert cell.source == GRADE_CELL.format(q=gid)
        else:
            assert set(meta) == keys
            kind = (meta["grade"], meta["solution"], meta["locked"])
            assert kind == ((False, True, False) if gid.endswith("-answer") else (False, False, True)), gid
    assert source_cells("code")["setup"].source.strip() == "import numpy as np"


@pytest.mark.parametrize("question", QUESTIONS)
def test_answer_cell_keeps_signature_and_docstring_outside_the_solution(question):
    source = source_cells("code")[f"{question}-answer"].source
    lines = source.splitlines()
    begin = next(i for i, line in enumerate(lines) if "### BEGIN SOLUTION" in line)
    end = next(i for i, line in enumerate(lines) if "### END SOLUTION" in line)
    assert lines[0] == SIGNATURES[question]
    assert '"""' in "\n".join(lines[1:begin]), "the docstring stays in the student's copy"
    assert begin < end and all(line.startswith("    ") for line in lines[begin:end + 1]), "markers inside the def"
    assert len(SOLUTION_MARKERS.findall(source)) == 2


def test_release_version_defines_stubs_that_score_zero():
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions
    from traitlets.config import Config

    config = Config()
    config.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    nb = nbformat.read(str(CODE.source_notebook), as_version=4)
    nb, _ = ClearSolutions(config=config).preprocess(nb, {"language": "python"})
    nb, _ = ClearHiddenTests().preprocess(nb, {})
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "BEGIN SOLUTION" not in code and "grade_question" not in code
    for q in QUESTIONS:
        answer = next(c.source for c in nb.cells if grade_id(c) == f"{q}-answer")
        assert answer.split('"""')[-1].split() == ["#", "YOUR", "CODE", "HERE", "raise", "NotImplementedError()"]
    env: dict = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and nbgrader_meta(cell).get("grade_id", "").endswith(("setup", "-answer")):
            exec(cell.source, env)  # noqa: S102 - our own notebook
    for q in QUESTIONS:
        with pytest.raises(NotImplementedError):
            env[q](**_stub_kwargs(q))
        result = _grade(q, env)
        assert result.score == 0 and result.status == "failed"


def _stub_kwargs(q):
    """Arguments of the right kind for each question's function."""
    return {
        "softmax": {"z": np.ones(2)},
        "attention": {"Q": np.ones((1, 2)), "K": np.ones((1, 2)), "V": np.ones((1, 2))},
        "adam_step": {"theta": np.ones(2), "g": np.ones(2), "m": np.zeros(2), "v": np.zeros(2), "t": 1},
        "adam": {"grad": lambda x: x, "theta0": np.ones(2), "steps": 1},
        "dpo_loss": dict.fromkeys(("pi_w", "pi_l", "ref_w", "ref_l"), -np.ones(2)),
    }[q]


def test_check_cells_pass_on_the_reference_and_need_only_the_notebook():
    cells = source_cells("code")
    env: dict = {}
    for gid in ["setup", "check-helpers"] + [f"{q}{s}" for q in QUESTIONS for s in ("-answer", "-check")]:
        source = SOLUTION_MARKERS.sub("", cells[gid].source)
        if gid.endswith("-check"):
            assert "assert" in source and "reading_maths" not in source and "import" not in source
        exec(compile(source, gid, "exec"), env)  # noqa: S102 - raises AssertionError if a public check fails
    ref = reference("code")
    for q in QUESTIONS:
        assert callable(getattr(ref, q))


def test_source_notebook_scores_full_marks():
    env = vars(reference("code"))
    for q in QUESTIONS:
        result = _grade(q, env)
        assert result.score == result.max_score, result.feedback


def test_the_text_numbers_are_in_the_prompts():
    text = "\n".join(c.source for c in read_notebook(CODE.source_notebook).cells if c.cell_type == "markdown")
    for number in ["8.044", "1.956", "0.401", "0.198", "6.017", "3.983", "0.4998", "0.0004",
                   "0.980", "0.844", "0.451", "\\pm\\alpha", "0.6456", "0.4100", "logaddexp"]:
        assert number in text, number


def test_reference_lives_only_in_the_notebook():
    for path in sorted((ROOT / "graders" / "code").glob("*.py")):
        source = path.read_text()
        for q in QUESTIONS:
            assert not re.search(rf"^def {q}\(", source, re.MULTILINE), f"{path.name} defines {q}"


# -- public and hidden cases, and what their feedback shows --------------------------------------------

def _wrong_everywhere(question):
    """An answer of the right kind that is wrong on every input."""
    if question == "softmax":
        return lambda z, T=1.0: np.full(np.shape(z), 0.5)
    if question == "attention":
        return lambda Q, K, V: np.full((np.shape(Q)[0], np.shape(V)[1]), 1e6)
    if question == "adam_step":
        return lambda theta, g, m, v, t, *a, **k: (np.asarray(theta) + 1, np.asarray(m) + 1, np.asarray(v) + 1)
    if question == "dpo_loss":
        return lambda pi_w, pi_l, ref_w, ref_l, beta=0.1: -123.0
    return lambda grad, theta0, steps, *a, **k: np.asarray(theta0, dtype=float) + 7


@pytest.mark.parametrize("question", QUESTIONS)
def test_public_cases_are_exactly_the_ones_that_show_inputs(question):
    grader = CODE.grader(question)
    assert any(not c.hidden for c in grader.cases) and any(c.hidden for c in grader.cases)
    result = _grade(question, {question: _wrong_everywhere(question)})
    assert result.score == 0
    for case in result.cases:
        if case.hidden:
            assert "Input:" not in case.message and "expected" not in case.message, case.message
        else:
            assert "Input:" in case.message and "expected" in case.message, case.message


def _recording(impl, seen):
    def student(*args, **kwargs):
        seen.append((args, kwargs))
        return impl(*args, **kwargs)

    return student


def _numbers_in(args) -> set[str]:
    """How the non-integer numbers of a case's inputs would look if feedback printed them."""
    found: set[str] = set()
    for value in args:
        if callable(value):
            value = getattr(value, "c", None)  # the quadratic's hidden minimum
            if value is None:
                continue
        try:
            arr = np.asarray(value, dtype=float).ravel()
        except (TypeError, ValueError):
            continue
        for x in arr:
            if np.isfinite(x) and not float(x).is_integer():
                found |= {f"{x:.3f}", f"{x:.4g}", f"{x:.2e}"}
    return found


def _wrong_entries(question):
    corpus = runpy.run_path(str(ROOT / "tests" / "corpora" / "code" / f"{question}.py"))
    for key, (env, _) in corpus["WRONG"].items():
        if callable(env.get(question)):
            yield key, env[question]
    for mistake in CODE.grader(question).mistakes:
        yield mistake.name, mistake.impl


@pytest.mark.parametrize("question", QUESTIONS)
def test_hidden_feedback_never_shows_hidden_inputs_or_expected_values(question):
    grader = CODE.grader(question)
    for key, impl in _wrong_entries(question):
        for case in grader.cases:
            if not case.hidden:
                continue
            seen: list = []
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                outcome, _ = grader._run_case(case, {question: _recording(impl, seen)})
            if outcome.passed:
                continue
            message = outcome.message
            assert "Input:" not in message and "expected" not in message, (key, case.name, message)
            shown = set(re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?", message))
            for args, kwargs in seen:
                leaked = shown & _numbers_in([*args, *kwargs.values()])
                assert not leaked, (key, case.name, leaked, message)


# -- exceptions on hidden inputs: named by a type from a closed list ----------------------------------------

def _raising(kind):
    def dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1):
        if np.max(np.abs(np.asarray(pi_w, dtype=float))) > 100:  # only the hidden batch of huge margins
            raise kind("no")
        return reference("code").dpo_loss(pi_w, pi_l, ref_w, ref_l, beta)

    return dpo_loss


def test_an_exception_on_a_hidden_input_is_named_by_its_type_only_when_python_or_numpy_owns_it():
    from reading_maths.sandbox.errors import OWN_CLASS, exception_kind, standard_name

    grader = CODE.grader("dpo_loss")
    spelled = type("OverflowError" + "9123456", (OverflowError,), {})  # a name made of what the code read
    for kind, said in ((ZeroDivisionError, "ZeroDivisionError"), (np.linalg.LinAlgError, "LinAlgError"),
                       (spelled, OWN_CLASS)):
        case = next(c for c in grader.cases if c.name == "huge_negative_margins")
        outcome, _ = grader._run_case(case, {"dpo_loss": _raising(kind)})
        assert outcome.mistake == "raised" and outcome.message.endswith(f"your code raised {said}."), outcome.message
        hidden, _ = grader._run_case(case, {"dpo_loss": _raising(kind)}, hidden_run=True)
        assert hidden.message.endswith(f": your code raised {said}."), hidden.message
        assert "9123456" not in outcome.message + hidden.message
    assert standard_name("OverflowError9123456") == OWN_CLASS == exception_kind(spelled)
    assert standard_name("UFuncTypeError") == "UFuncTypeError" and standard_name("Leak_1_2") == OWN_CLASS
    assert exception_kind(type("ValueError", (Exception,), {})) == OWN_CLASS  # named like Python's, not Python's


def test_a_catalogued_mistake_that_raises_is_named_with_its_exception_in_the_hidden_run():
    grader = CODE.grader("dpo_loss")
    mistake = next(m for m in grader.mistakes if m.name == "math-exp-overflow")
    case = next(c for c in grader.cases if c.name == "huge_negative_margins")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        hidden, _ = grader._run_case(case, {"dpo_loss": mistake.impl}, hidden_run=True)
    assert hidden.mistake == "math-exp-overflow"
    assert hidden.message.endswith(f": your code raised OverflowError. {mistake.message}"), hidden.message


def test_a_result_that_is_not_numbers_is_named_by_the_type_python_shows():
    result = _grade("softmax", {"softmax": lambda z, T=1.0: (x for x in np.asarray(z, dtype=float) / T)})
    assert any("returned a generator, not an array of numbers" in line for line in result.feedback), result.feedback
    result = _grade("softmax", {"softmax": lambda z, T=1.0: None})
    assert any("returned None, not an array of numbers" in line for line in result.feedback), result.feedback


def test_a_sandboxed_value_is_named_by_its_own_type_not_the_wire_wrapper():
    from reading_maths.sandbox.inside.wire import Unencodable

    result = _grade("softmax", {"softmax": Unencodable("generator")})
    assert any("it is a generator." in line for line in result.feedback), result.feedback
    result = _grade("softmax", {"softmax": lambda z, T=1.0: Unencodable("generator")})
    assert any("returned a generator, not an array of numbers" in line for line in result.feedback), result.feedback
    assert not any("Unencodable" in line for line in result.feedback)
