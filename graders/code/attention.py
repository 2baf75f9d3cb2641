"""Hidden grader for Problem 2 of the code assignment: ``attention(Q, K, V)``.

Public cases are the text's hand-worked examples (one query and two keys, one query and three keys, and the
same with Q times 10); hidden cases are the sanity checks of step 6 (identical keys, a hard lookup, outputs
inside the range of V's columns), huge scores, unusual shapes and random asymmetric inputs.
Tolerance: the default rtol 1e-6.
"""

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference
from reading_maths.kit.properties import Property, close, one

OK_FORMAT = False
name = "attention"

SEED = course_seed(55_120_871)  # hidden: the number and the course's secret, never in release/
REF = reference("code")


# -- the mistake catalogue ---------------------------------------------------------------------------------

def _arrays(Q, K, V):
    return (np.asarray(x, dtype=np.float64) for x in (Q, K, V))


def _row_softmax(S):
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _sum_without_keepdims(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    S = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1)) @ V  # the row sums as a flat vector: they line up with the columns


def _no_sqrt(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    return _row_softmax(Q @ K.T) @ V


def _divide_by_dk(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    return _row_softmax(Q @ K.T / K.shape[1]) @ V


def _dk_from_v(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    return _row_softmax(Q @ K.T / np.sqrt(V.shape[1])) @ V


def _weights(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    return _row_softmax(Q @ K.T / np.sqrt(K.shape[1]))


def _column_softmax(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    S = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return (e / e.sum(axis=0, keepdims=True)) @ V


def _no_transpose(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    return _row_softmax(Q @ K / np.sqrt(K.shape[1])) @ V


def _values_transposed(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    return _row_softmax(Q @ K.T / np.sqrt(K.shape[1])) @ V.T


def _no_max_shift(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    e = np.exp(Q @ K.T / np.sqrt(K.shape[1]))
    return (e / e.sum(axis=1, keepdims=True)) @ V


def _global_max(Q, K, V):
    Q, K, V = _arrays(Q, K, V)
    S = Q @ K.T / np.sqrt(K.shape[1])
    e = np.exp(S - S.max())
    return (e / e.sum(axis=1, keepdims=True)) @ V


MISTAKES = [
    Mistake(
        "weights-not-output",
        "You return the attention weights softmax(Q K^T / sqrt(d_k)), an (n, m) array, instead of the output. "
        "Multiply the weights by V to get one output row per query, shape (n, d_v).",
        _weights,
    ),
    Mistake(
        "sum-without-keepdims",
        "Your softmax's row sums lose their axis (e.sum(axis=1) without keepdims=True), so they broadcast along "
        "the wrong axis: row i's sum divides column i, which raises when there are not as many queries as keys "
        "and gives wrong weights when there are. Write e.sum(axis=-1, keepdims=True), so each row is divided by "
        "its own sum.",
        _sum_without_keepdims,
    ),
    Mistake(
        "no-sqrt-dk",
        "Your scores are not scaled: divide Q K^T by sqrt(d_k), the square root of the key length K.shape[1], "
        "before the softmax.",
        _no_sqrt,
    ),
    Mistake(
        "divided-by-dk",
        "You divide the scores by d_k itself. The equation divides by the square root of d_k: np.sqrt(K.shape[1]).",
        _divide_by_dk,
    ),
    Mistake(
        "dk-from-values",
        "You scale by the square root of the length of the values (d_v, V.shape[1]). The scale is sqrt(d_k), "
        "the length of a query or key: K.shape[1].",
        _dk_from_v,
    ),
    Mistake(
        "softmax-over-columns",
        "Your softmax normalises down the columns of the score matrix (over the queries). It is applied to each "
        "row separately, one row per query: the weights of a query over the keys sum to 1 (axis=1).",
        _column_softmax,
    ),
    Mistake(
        "keys-not-transposed",
        "You multiply Q by K instead of by K transposed. The score of query i against key j is the dot product "
        "of row i of Q with row j of K: Q @ K.T, of shape (n, m).",
        _no_transpose,
    ),
    Mistake(
        "values-transposed",
        "You multiply the weights by V transposed. The output is weights @ V: (n, m) @ (m, d_v) -> (n, d_v), "
        "one row of V per key.",
        _values_transposed,
    ),
    Mistake(
        "no-max-shift",
        "Your attention overflows when the scores are large: np.exp of a score in the hundreds is inf, and "
        "inf / inf is nan. Subtract each row's maximum score before exponentiating, "
        "S - S.max(axis=1, keepdims=True); softmax ignores the shift.",
        _no_max_shift,
    ),
    Mistake(
        "global-max",
        "You subtract one maximum for the whole score matrix. A query whose scores lie far below it underflows to "
        "all-zero weights and 0 / 0 is nan. Subtract each row's own maximum: S.max(axis=1, keepdims=True).",
        _global_max,
    ),
    Mistake(
        "output-transposed",
        "Your output is transposed. It has one row per query: weights @ V, of shape (n, d_v), not its transpose.",
        lambda Q, K, V: REF.attention(Q, K, V).T,
    ),
    Mistake(
        "keys-as-queries",
        "You score the keys against themselves (K K^T). The scores compare each query with each key: Q K^T, "
        "one row per query.",
        lambda Q, K, V: REF.attention(K, K, V),
    ),
    Mistake(
        "sqrt-of-m",
        "You scale by the square root of the number of keys (m, K.shape[0]). The scale is sqrt(d_k), the length "
        "of each key: K.shape[1].",
        lambda Q, K, V: REF.attention(np.asarray(Q, float) * np.sqrt(np.shape(K)[1] / np.shape(K)[0]), K, V),
    ),
    Mistake(  # e.g. a softmax of Problem 1 that casts to float32, called here
        "float32",
        "Your weights are computed in single precision (float32), which keeps about 7 digits; the answer needs "
        "float64, NumPy's default: do not convert to np.float32 (in attention or in the softmax it calls).",
        lambda Q, K, V: _row_softmax(np.asarray(np.asarray(Q, float) @ np.asarray(K, float).T, np.float32)
                                     / np.float32(np.sqrt(np.shape(K)[1]))) @ np.asarray(V, float),
    ),
]

# -- the text's facts, tried when no catalogued mistake explains a wrong answer -----------------------

_rng = hidden_rng(SEED, "properties")
_Q, _K, _V = _rng.standard_normal((4, 3)), _rng.standard_normal((5, 3)), 4 * _rng.standard_normal((5, 2))
_UNIT_K = _K / np.linalg.norm(_K, axis=1, keepdims=True)


def _convex_weights(call):
    weights = one(call, _Q, _K, np.eye(5))  # with V = I the output is the weights themselves
    return weights.shape == (4, 5) and bool(np.all(weights >= -1e-12)) and close(weights.sum(axis=1), np.ones(4))


def _permute_queries(call):
    order = [2, 0, 3, 1]
    return close(one(call, _Q[order], _K, _V), one(call, _Q, _K, _V)[order])


def _permute_keys_and_values(call):
    order = [4, 2, 0, 1, 3]
    return close(one(call, _Q, _K[order], _V[order]), one(call, _Q, _K, _V))


def _identical_keys(call):
    return close(one(call, _Q, np.repeat(_K[:1], 5, axis=0), _V), np.repeat(_V.mean(axis=0, keepdims=True), 4, axis=0))


def _hard_lookup(call):
    return close(one(call, 100 * _UNIT_K[[3, 1]], _UNIT_K, _V), _V[[3, 1]], rtol=1e-4, atol=1e-6)


PROPERTIES = [
    Property("convex-combination", "Each output row is a convex combination of V's rows: the weights "
             "softmax(Q K^T / sqrt(d_k)) are non-negative and sum to 1 in each row, so with V the identity "
             "matrix the output is the weights themselves. Yours are not such weights.", _convex_weights),
    Property("permute-queries", "Each query gets its own output row: permuting the rows of Q permutes the "
             "output's rows the same way. Yours does not.", _permute_queries),
    Property("permute-keys-values", "Permuting the keys and the values together changes nothing: each value "
             "stays with its key. Yours changes.", _permute_keys_and_values),
    Property("identical-keys", "When every key is the same, every weight is 1/m and each output row is the "
             "mean of V's rows. Yours is not.", _identical_keys),
    Property("hard-lookup", "A query that points at one key, scaled up, puts almost all its weight on that key "
             "and returns that key's value (a soft lookup becomes a hard one). Yours does not.", _hard_lookup),
]

PROBES = [((_Q, _K, _V), {}), ((*(2 * _rng.standard_normal((2, 2, 7))), _V[:2]), {}),
          ((_Q[:3] * 3, _K[:3], _V[:3]), {})]
q = Question("attention", REF.attention, MISTAKES, properties=PROPERTIES, probes=PROBES)


# -- public cases: the text's worked examples ----------------------------------------------------------

TEXT_K3 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
TEXT_V3 = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])


@test_case(name="text_two_keys", points=1, hidden=False)
def text_two_keys(attention):
    Q = np.array([[1.0, 1.0]])
    K = np.array([[1.0, 1.0], [1.0, -1.0]])
    V = np.array([[10.0, 0.0], [0.0, 10.0]])
    q.check(attention, Q, K, V, label="the text's example with one query and two keys", public=True)


@test_case(name="text_three_keys", points=1, hidden=False)
def text_three_keys(attention):
    Q = np.array([[1.0, 0.0]])
    q.check(attention, Q, TEXT_K3, TEXT_V3, label="the text's example with one query and three keys", public=True)


@test_case(name="text_q_times_10", points=1, hidden=False)
def text_q_times_10(attention):
    Q = np.array([[10.0, 0.0]])
    q.check(attention, Q, TEXT_K3, TEXT_V3, label="the text's three-key example with Q times 10", public=True)


# -- hidden cases ------------------------------------------------------------------------------------------

@test_case(name="more_queries_than_keys", points=2, hidden=True)
def more_queries_than_keys(attention):
    rng = hidden_rng(SEED, "more_queries_than_keys")
    Q, K, V = rng.standard_normal((5, 3)), rng.standard_normal((2, 3)), rng.standard_normal((2, 4))
    q.check(attention, Q, K, V, label="hidden inputs with more queries than keys and d_k != d_v")


@test_case(name="identical_keys", points=1, hidden=True)
def identical_keys(attention):
    rng = hidden_rng(SEED, "identical_keys")
    K = np.repeat(rng.standard_normal((1, 4)), 5, axis=0)
    Q, V = rng.standard_normal((2, 4)), 3 * rng.standard_normal((5, 3))
    q.check(attention, Q, K, V, label="hidden identical keys (each output row should be the average of V's rows)")
    # the average of V's rows is right here only because the keys are identical: it must come from the weights
    q.check(attention, Q, K + rng.standard_normal(K.shape), V, label="the same queries and values with distinct keys")


@test_case(name="hard_lookup", points=1, hidden=True)
def hard_lookup(attention):
    rng = hidden_rng(SEED, "hard_lookup")
    K = rng.standard_normal((4, 3))
    K /= np.linalg.norm(K, axis=1, keepdims=True)
    V = rng.uniform(-5, 5, size=(4, 2))
    q.check(attention, 100 * K[[2, 0]], K, V, label="hidden queries times 100 (a hard lookup)")


@test_case(name="huge_scores", points=2, hidden=True)
def huge_scores(attention):
    rng = hidden_rng(SEED, "huge_scores")
    Q, K, V = 1000 * rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    q.check(attention, Q, K, V, label="hidden inputs with scores in the thousands")
    # two unit keys 0.045 rad apart, and queries of length 2000 along them: scores near 1000 that differ by about
    # one, the other keys' far below, whatever the seed; neither weight is near 0 or 1, so an answer that keeps
    # only single precision's 7 digits of the scores is off in the 5th digit of its output
    K /= np.linalg.norm(K, axis=1, keepdims=True)
    turn = rng.standard_normal(4)
    turn -= (turn @ K[0]) * K[0]
    K[1] = K[0] + 0.045 * turn / np.linalg.norm(turn)
    K[1] /= np.linalg.norm(K[1])
    q.check(attention, 2000 * K[:2], K, V, label="hidden inputs with two keys whose scores in the thousands are close")


@test_case(name="queries_of_different_scale", points=1, hidden=True)
def queries_of_different_scale(attention):
    rng = hidden_rng(SEED, "queries_of_different_scale")
    K = rng.standard_normal((4, 2))
    K /= np.linalg.norm(K, axis=1, keepdims=True)
    Q = np.vstack([1500 * K[1], 0.01 * rng.standard_normal(2), -900 * K[3] + 300 * K[0]])
    V = rng.standard_normal((4, 3))
    q.check(attention, Q, K, V, label="hidden queries of very different sizes")


@test_case(name="all_square", points=2, hidden=True)
def all_square(attention):
    rng = hidden_rng(SEED, "all_square")
    Q, K, V = (rng.standard_normal((3, 3)) for _ in range(3))
    q.check(attention, Q, K, V, label="hidden square inputs with n = m = d_k = d_v")


@test_case(name="within_range_of_values", points=1, hidden=True)
def within_range_of_values(attention):
    rng = hidden_rng(SEED, "within_range_of_values")
    Q, K, V = 2 * rng.standard_normal((6, 5)), rng.standard_normal((7, 5)), 10 * rng.standard_normal((7, 3))
    label = "hidden random inputs (each output is a weighted average of rows of V)"
    (out,) = q.call(attention, Q, K, V, label=label)
    q.check_property(out.shape == (6, 3), label=label,
                     message="the output should have one row per query and one column per column of V, (n, d_v).")
    low, high = V.min(axis=0), V.max(axis=0)
    slack = 1e-9 * (1 + np.abs(V).max())
    inside = bool(np.all(np.isfinite(out)) and np.all(out >= low - slack) and np.all(out <= high + slack))
    q.check_property(inside, label=label,
                     message="some outputs leave the range of V's columns, which a weighted average with "
                             "weights that are non-negative and sum to 1 in each row can never do.")
    q.check(attention, Q, K, V, label=label)  # any average stays in range: the points are for attention's


@test_case(name="integer_inputs", points=1, hidden=True)
def integer_inputs(attention):
    rng = hidden_rng(SEED, "integer_inputs")
    Q, K, V = rng.integers(-3, 4, (2, 3)), rng.integers(-3, 4, (4, 3)), rng.integers(-9, 10, (4, 2))
    q.check(attention, Q, K, V, label="hidden integer arrays")


@test_case(name="random_asymmetric", points=2, hidden=True)
def random_asymmetric(attention):
    rng = hidden_rng(SEED, "random_asymmetric")
    Q, K, V = 1.5 * rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), rng.standard_normal((3, 6))
    q.check(attention, Q, K, V, label="hidden random inputs with n, m, d_k and d_v all different")
