"""notation_numpy: one-line NumPy translations, called against the reference on hidden random inputs."""
OK_FORMAT = False
name = "notation_numpy"

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference
from reading_maths.kit.properties import Property, close, one

SEED = course_seed(3141)  # hidden: the number and the course's secret, never in release/
REF = reference("notation")


MISTAKES = {
    "dot": [Mistake("dot-elementwise", "x * y is the element-wise product, a vector; the dot product adds those "
                    "products up into one number.", lambda x, y: x * y)],
    "norm": [Mistake("norm-squared", "That is the squared length; ||x|| is its square root.",
                     lambda x: np.sum(x ** 2)),
             Mistake("norm-abs", "That is |x| entry by entry; ||x|| is one number, the vector's length.",
                     lambda x: np.abs(x))],
    "indicator": [],
    "accuracy": [Mistake("accuracy-count", "That counts the matches; the 1/N in front makes it their mean.",
                         lambda y_hat, y: np.sum(y_hat == y))],
    "mean_square": [Mistake("mean-square-of-mean", "That squares the mean; E[x²] averages the squares.",
                            lambda x: np.mean(x) ** 2)],
    "best_x": [Mistake("argmax-value", "argmax gives the argument, not the value: return the x from xs, "
                       "not f's largest value.", lambda xs, fx: np.max(fx)),
               Mistake("argmax-index", "np.argmax gives a position in the array; argmax_x f(x) is the x "
                       "itself, xs at that position.", lambda xs, fx: np.argmax(fx))],
    "log_prod": [Mistake("log10", "log with no base is the natural log, np.log, not np.log10.",
                         lambda p: np.sum(np.log10(p)))],
    "square": [Mistake("square-dot", "g @ g adds the squares into one number; g_t² is the element-wise square, "
                       "a vector.", lambda g: g @ g)],
    "reparam": [],
    "scores": [Mistake("scores-no-sqrt", "The √d_k is missing: the scores are divided by the square root of d_k.",
                       lambda Q, K: Q @ K.T),
               Mistake("scores-dk", "Divide by √d_k, not by d_k.", lambda Q, K: Q @ K.T / K.shape[1])],
    "kl": [Mistake("kl-swapped", "KL is not symmetric: KL(p || q) weights by p and divides by q; "
                   "you computed KL(q || p).", lambda p, q: np.sum(q * np.log(q / p)))],
    "m_hat": [Mistake("beta-not-power", "In 1 − β₁ᵗ the t is a power: use beta1 ** t, not beta1.",
                      lambda m, beta1, t: m / (1 - beta1)),
              Mistake("beta-times-t", "β₁ᵗ is β₁ to the power t, not β₁ times t.",
                      lambda m, beta1, t: m / (1 - beta1 * t))],
    "row_softmax": [Mistake("softmax-columns", "Softmax goes along each row (axis=1), one row per query: "
                            "each row should sum to 1.",
                            lambda S: np.exp(S) / np.exp(S).sum(axis=0, keepdims=True)),
                    Mistake("softmax-global", "That normalises the whole matrix at once; attention's softmax "
                            "normalises each row separately.", lambda S: np.exp(S) / np.exp(S).sum())],
}
# the other readings of the same notation: another norm order, log base, axis, statistic or dimension
ALTERNATIVE_READINGS = {
    "norm": [Mistake("norm-l1", "That is the L1 norm, the sum of |x_i|; ||x|| with no subscript is the L2 norm, "
                     "the square root of the sum of squares: np.linalg.norm(x).", lambda x: np.sum(np.abs(x))),
             Mistake("norm-max", "That is the max norm, the largest |x_i|; ||x|| is the L2 norm, "
                     "np.linalg.norm(x).", lambda x: np.max(np.abs(x)))],
    "mean_square": [Mistake("mean-square-variance", "np.var(x) is the variance E[(x - E[x])²], not E[x²]: it "
                            "subtracts the mean first. E[x²] is np.mean(x ** 2).", lambda x: np.var(x))],
    "log_prod": [Mistake("log-of-sum", "That is the log of a sum; log Π p_i is the log of a product, which is the "
                         "sum of the logs: np.sum(np.log(p)).", lambda p: np.log(np.sum(p))),
                 Mistake("log2", "log with no base is the natural log, np.log, not np.log2.",
                         lambda p: np.sum(np.log2(p)))],
    "scores": [Mistake("scores-sqrt-n", "You divide by the square root of the number of queries n (Q.shape[0]); "
                       "the scale is √d_k, the length of each query and key: Q.shape[1].",
                       lambda Q, K: Q @ K.T / np.sqrt(Q.shape[0])),
               Mistake("scores-sqrt-m", "You divide by the square root of the number of keys m (K.shape[0]); the "
                       "scale is √d_k, the length of each key: K.shape[1].",
                       lambda Q, K: Q @ K.T / np.sqrt(K.shape[0]))],
    "kl": [Mistake("kl-log2", "log with no base is the natural log: KL in nats uses np.log, not np.log2.",
                   lambda p, q: np.sum(p * np.log2(p / q))),
           Mistake("kl-log10", "log with no base is the natural log: KL uses np.log, not np.log10.",
                   lambda p, q: np.sum(p * np.log10(p / q)))],
    "m_hat": [Mistake("m-hat-multiplied", "The hat divides: m̂_t = m_t / (1 − β₁ᵗ), not m_t × (1 − β₁ᵗ).",
                      lambda m, beta1, t: m * (1 - beta1**t))],
    "reparam": [Mistake("reparam-matmul", "⊙ is the element-wise product, * in NumPy: mu + sigma * eps, not a "
                        "matrix product sigma @ eps.", lambda mu, sigma, eps: mu + sigma @ eps)],
    "row_softmax": [Mistake("softmax-no-exp", "Softmax exponentiates before normalising: exp(S) / the sum of "
                            "exp(S) along each row, not S / its row sum.",
                            lambda S: S / S.sum(axis=1, keepdims=True))],
}
MORE_SLIPS = {
    "indicator": [Mistake("indicator-non-strict", "1[x_i > 0] is 0 where x_i = 0: the condition is strict, x > 0, "
                          "not x >= 0.", lambda x: (np.asarray(x) >= 0).astype(float)),
                  Mistake("indicator-sign", "np.sign gives -1 for negative entries; the indicator is 1 where the "
                          "condition holds and 0 elsewhere: (x > 0).astype(float).", lambda x: np.sign(x)),
                  Mistake("indicator-relu", "np.maximum(x, 0) is the ReLU: it keeps the value of x. The indicator "
                          "is 1 where x_i > 0 and 0 elsewhere: (x > 0).astype(float).", lambda x: np.maximum(x, 0))],
    "reparam": [Mistake("reparam-variance", "σ is the standard deviation: z = μ + σ ⊙ ε uses sigma itself, not "
                        "sigma squared.", lambda mu, sigma, eps: mu + sigma**2 * eps),
                Mistake("reparam-no-mu", "The mean is missing: z = μ + σ ⊙ ε shifts the scaled noise by mu.",
                        lambda mu, sigma, eps: sigma * eps)],
    "log_prod": [Mistake("log-of-product", "np.log(np.prod(p)) underflows: the product of many probabilities "
                         "rounds to 0 and its log is -inf. Sum the logs instead: np.sum(np.log(p)).",
                         lambda p: np.log(np.prod(p))),
                 Mistake("log-prod-no-log", "That is the product itself; take its log, as a sum of logs: "
                         "np.sum(np.log(p)).", lambda p: np.prod(p))],
    "kl": [Mistake("kl-unweighted", "Each log-ratio log(p_i / q_i) is weighted by p_i before the sum: "
                   "sum(p * log(p / q)).", lambda p, q: np.sum(np.log(p / q)))],
    "accuracy": [Mistake("accuracy-error-rate", "That is the error rate, the share of mismatches: the indicator "
                         "counts y_hat_i = y_i, np.mean(y_hat == y).", lambda y_hat, y: np.mean(y_hat != y))],
    "mean_square": [Mistake("mean-square-sum", "That adds the squares up; an expectation estimated from samples is "
                            "their mean: np.mean(x ** 2).", lambda x: np.sum(x ** 2)),
                    Mistake("mean-square-root", "That is the root mean square; E[x²] has no square root: "
                            "np.mean(x ** 2).", lambda x: np.sqrt(np.mean(x ** 2)))],
    "best_x": [Mistake("argmax-argmin", "np.argmin finds the smallest f; argmax_x f(x) is the x that makes f "
                       "largest: xs[np.argmax(fx)].", lambda xs, fx: xs[np.argmin(fx)])],
    "square": [Mistake("square-doubled", "2 * g doubles the gradient; g_t² is g times itself, element-wise: "
                       "g ** 2.", lambda g: 2 * g)],
    "scores": [Mistake("scores-q-transposed", "QKᵀ pairs each query, a row of Q, with each key, a row of K: "
                       "Q @ K.T. Q.T @ K multiplies the feature axes together instead.",
                       lambda Q, K: Q.T @ K / np.sqrt(K.shape[1]))],
    "row_softmax": [Mistake("softmax-no-keepdims", "Each row is divided by its own sum only when the sums keep their "
                            "axis: np.exp(S).sum(axis=1, keepdims=True). Without it NumPy divides column j by row "
                            "j's sum, or fails when S is not square.", lambda S: np.exp(S) / np.exp(S).sum(axis=1))],
}
for _name, _readings in [*ALTERNATIVE_READINGS.items(), *MORE_SLIPS.items()]:
    MISTAKES[_name] = MISTAKES[_name] + _readings


def _symmetric(call):
    """x^T y = y^T x, and (2x)^T y = 2 x^T y."""
    x, y = _PROBE[:5], _PROBE[5:10]
    return close(one(call, x, y), one(call, y, x)) and close(one(call, 2 * x, y), 2 * one(call, x, y))


def _norm_scales(call):
    """||c x|| = |c| ||x||, and ||x|| >= 0."""
    x = _PROBE[:7]
    base = one(call, x)
    return close(one(call, -3 * x), 3 * base) and bool(np.all(base >= 0))


def _rows_sum_to_one(call):
    """Each row of a softmax sums to 1 and adding a number to a row changes nothing."""
    S = _PROBE[:12].reshape(3, 4)
    W = one(call, S)
    return close(W.sum(axis=1), np.ones(3)) and close(one(call, S + 5.0), W)


def _kl_of_itself(call):
    """KL(p || p) = 0, and KL(p || q) >= 0."""
    p = np.abs(_PROBE[:5]) + 0.1
    p, q = p / p.sum(), np.full(5, 0.2)
    return close(one(call, p, p), 0.0, atol=1e-12) and bool(one(call, p, q) >= 0)


_PROBE = hidden_rng(SEED, "properties").normal(size=12)
PROPERTIES = {
    "dot": [Property("dot-symmetric", "The dot product is symmetric and linear: x^T y = y^T x, and doubling x "
                     "doubles it. Yours is not: add up x_i * y_i, (x * y).sum().", _symmetric)],
    "norm": [Property("norm-scales", "A length scales with the vector: ||c x|| = |c| ||x||, never negative. Yours "
                      "does not: np.sqrt((x ** 2).sum()).", _norm_scales)],
    "row_softmax": [Property("rows-sum-to-one", "Each row of a softmax sums to 1 and does not change when a number "
                             "is added to the whole row. Yours does not: exp of each row, over its own sum.",
                             _rows_sum_to_one)],
    "kl": [Property("kl-zero-on-itself", "KL(p || p) = 0 and KL(p || q) >= 0 (Gibbs' inequality). Yours is not: "
                    "sum(p * log(p / q)).", _kl_of_itself)],
}
Q = {n: Question(n, getattr(REF, n), MISTAKES[n], properties=PROPERTIES.get(n, ())) for n in MISTAKES}


def _inputs(fname, rng):
    """Random asymmetric inputs for one function: odd sizes, n ≠ m ≠ d_k, so shape slips show."""
    def v(k):
        return rng.normal(size=k)
    if fname in ("dot", "reparam"):
        k = int(rng.integers(3, 9))
        return (v(k), v(k)) if fname == "dot" else (v(k), np.abs(v(k)) + 0.1, v(k))
    if fname == "indicator":  # with zeros, where x > 0 and x >= 0 part
        return (np.concatenate([v(int(rng.integers(3, 9))), [0.0, 0.0]]),)
    if fname in ("norm", "mean_square", "square"):
        return (v(int(rng.integers(3, 9))),)
    if fname == "accuracy":
        k = int(rng.integers(5, 12))
        return rng.integers(0, 3, size=k), rng.integers(0, 3, size=k)
    if fname == "best_x":
        xs = np.sort(rng.uniform(-3, 3, size=9))
        return xs, rng.normal(size=9) + 2.0
    if fname == "log_prod":  # long enough that the product underflows
        return (rng.uniform(0.01, 0.3, size=int(rng.integers(3, 9)) * 150),)
    if fname == "scores":
        return rng.normal(size=(2, 5)), rng.normal(size=(3, 5))
    if fname == "kl":
        p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
        return p, q
    if fname == "m_hat":
        return v(4), float(rng.uniform(0.5, 0.95)), int(rng.integers(2, 9))
    if fname == "row_softmax":
        return (rng.normal(size=(3, 4)),)
    raise KeyError(fname)


def _check(fname, student):
    rng = hidden_rng(SEED, fname)
    for trial in range(3):
        Q[fname].check(student, *_inputs(fname, rng), label=f"hidden random input {trial + 1}")


@test_case(points=1, hidden=True)
def case_dot(dot):
    _check("dot", dot)

@test_case(points=1, hidden=True)
def case_norm(norm):
    _check("norm", norm)

@test_case(points=1, hidden=True)
def case_indicator(indicator):
    _check("indicator", indicator)

@test_case(points=1, hidden=True)
def case_accuracy(accuracy):
    _check("accuracy", accuracy)

@test_case(points=1, hidden=True)
def case_mean_square(mean_square):
    _check("mean_square", mean_square)

@test_case(points=1, hidden=True)
def case_best_x(best_x):
    _check("best_x", best_x)

@test_case(points=1, hidden=True)
def case_log_prod(log_prod):
    _check("log_prod", log_prod)

@test_case(points=1, hidden=True)
def case_square(square):
    _check("square", square)

@test_case(points=1, hidden=True)
def case_reparam(reparam):
    _check("reparam", reparam)

@test_case(points=1, hidden=True)
def case_scores(scores):
    _check("scores", scores)

@test_case(points=1, hidden=True)
def case_kl(kl):
    _check("kl", kl)

@test_case(points=1, hidden=True)
def case_m_hat(m_hat):
    _check("m_hat", m_hat)

@test_case(points=1, hidden=True)
def case_row_softmax(row_softmax):
    _check("row_softmax", row_softmax)


CATALOGUE = [m for found in MISTAKES.values() for m in found]
"""every catalogued mistake, at module level so drivers can name the one a feedback line diagnoses"""
