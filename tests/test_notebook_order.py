"""Each question is graded on the names as they stand at its grade cell, as nbgrader's kernel and the
student's own Restart & Run All see them: a later answer that reuses a helper's name for something
else does not break an earlier, right answer."""

import nbformat
import pytest

from classroom.builder import answered
from conftest import ROOT
from reading_maths.grading.engine import Settings, grade
from test_sandbox import SANDBOX

pytestmark = pytest.mark.sandbox

SOFTMAX = '''import numpy as np

def _helper(z, T):
    z = np.asarray(z, dtype=np.float64) / T
    return z - z.max(axis=-1, keepdims=True)

def softmax(z, T=1.0):
    e = np.exp(_helper(z, T))
    return e / e.sum(axis=-1, keepdims=True)
'''

ATTENTION = '''import numpy as np

def _helper(scores):  # the same name, another job
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

def attention(Q, K, V):
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    return _helper(Q @ K.T / np.sqrt(K.shape[1])) @ V
'''


def test_a_later_cell_reusing_a_helper_name_costs_the_earlier_answer_nothing(tmp_path):
    source = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    notebook = tmp_path / "code.ipynb"
    nbformat.write(answered(source, source, {"softmax": SOFTMAX, "attention": ATTENTION}), notebook)
    result = grade(notebook, Settings(SANDBOX, cell_timeout=20, call_timeout=20), ROOT)
    scores = {q.id: (q.score, q.max_score) for q in result.questions}
    assert all(score == maximum for score, maximum in scores.values()), (scores, result.errors)


def test_a_fix_below_the_grade_cell_is_not_graded_and_the_feedback_says_why(tmp_path):
    """nbgrader's semantics are kept (the draft above the grade cell is graded), and the student is told that the
    cell below redefines the function, and to move the fix up."""
    source = nbformat.read(ROOT / "source" / "code" / "code.ipynb", as_version=4)
    draft = "import numpy as np\n\ndef softmax(z, T=1.0):\n    e = np.exp(np.asarray(z, dtype=float) * T)\n" \
            "    return e / e.sum(axis=-1, keepdims=True)\n"
    nb = answered(source, source, {"softmax": draft})
    place = next(i for i, c in enumerate(nb.cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                 == "softmax")
    fix = next(c.source for c in answered(source, source).cells
               if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "softmax-answer")
    nb.cells.insert(place + 2, nbformat.v4.new_code_cell(fix))
    notebook = tmp_path / "code.ipynb"
    nbformat.write(nb, notebook)
    result = grade(notebook, Settings(SANDBOX, cell_timeout=20, call_timeout=20), ROOT)
    softmax, attention = result.question("softmax"), result.question("attention")
    assert softmax.score < softmax.max_score, "the draft above the grade cell is what is graded"
    said = [line for line in softmax.feedback if "defines `softmax` again" in line]
    assert said and f"cell {place + 3}" in said[0] and "move it up" in said[0], softmax.feedback
    assert not any("again" in line for line in attention.feedback), "a question graded in full is not told"
