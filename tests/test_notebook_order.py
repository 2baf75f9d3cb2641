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
