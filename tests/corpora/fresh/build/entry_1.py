"""Correct "Build this" entries graded as entry_1: label smoothing, focal loss, ridge regression."""
import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# A. Label smoothing (Szegedy et al. 2016): Greek-named argument, helper defined inside, type hints
# ---------------------------------------------------------------------------------------------
ENTRY_LABEL_SMOOTHING = {
    "paper": "Szegedy, Vanhoucke, Ioffe, Shlens and Wojna (2016), Rethinking the Inception Architecture for "
             "Computer Vision, Section 7 (label-smoothing regularization)",
    "equation": r"H(q', p) = -\sum_{k=1}^{K} q'(k) \log p(k), \quad q'(k) = (1 - \epsilon)\,\delta_{k,y} + \frac{\epsilon}{K}",
    "symbols": {
        "H": ("the cross-entropy between the smoothed labels and the predictions, one per example", ("n",), "return"),
        "q'": ("the smoothed target distribution over the K classes, one row per example", ("n", "K")),
        "p": ("the model's predicted class probabilities, one row per example", ("n", "K"), "p"),
        "k": ("a class index, 1 to K", ()),
        "K": ("the number of classes", ()),
        r"\epsilon": ("the smoothing weight: the probability mass spread uniformly over the classes", (), "ε"),
        r"\delta_{k,y}": ("the Dirac delta: 1 when k is the true class y, else 0", ("n", "K")),
        "y": ("the true class label of each example", ("n",), "y"),
    },
    "example": {
        "inputs": {"p": [[0.7, 0.2, 0.1], [0.25, 0.5, 0.25]], "y": [0, 1], "ε": 0.3},
        "output": [0.6765, 0.8318],
    },
}


def label_smoothing_ce(p, y, ε: float = 0.1) -> np.ndarray:
    """Cross-entropy against the smoothed labels q' = (1 - ε) one_hot(y) + ε / K, one value per row."""
    p = np.asarray(p, dtype=float)                       # (n, K)
    y = np.asarray(y, dtype=int)                         # (n,)
    n, K = p.shape

    def smoothed_targets() -> np.ndarray:
        q = np.full((n, K), ε / K)                        # the uniform part
        q[np.arange(n), y] += 1.0 - ε                     # the delta part
        return q

    return -np.sum(smoothed_targets() * np.log(p), axis=1)   # (n,)


def test_label_smoothing():
    # the hand-worked example
    out = label_smoothing_ce([[0.7, 0.2, 0.1], [0.25, 0.5, 0.25]], [0, 1], ε=0.3)
    assert np.allclose(out, [0.6765, 0.8318], atol=1e-4), out
    # a second case by hand: eps = 0 is the plain cross-entropy -log p_y
    assert np.allclose(label_smoothing_ce([[0.5, 0.25, 0.25]], [0], ε=0.0), [math.log(2)])
    assert np.allclose(label_smoothing_ce([[0.5, 0.25, 0.25]], [2], ε=0.0), [math.log(4)])
    # eps = 1: the target is uniform, H is minus the mean log-probability of the row
    p = np.array([[0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    assert np.allclose(label_smoothing_ce(p, [1, 2], ε=1.0), -np.log(p).mean(axis=1))
    # random rows against a plain double loop over examples and classes
    rng = np.random.default_rng(1)
    for K in (2, 4, 5):
        p = rng.uniform(0.05, 1.0, size=(3, K))
        p /= p.sum(axis=1, keepdims=True)
        y = rng.integers(0, K, size=3)
        eps = 0.17
        expected = []
        for i in range(3):
            h = 0.0
            for k in range(K):
                q = (1 - eps) * (1.0 if k == y[i] else 0.0) + eps / K
                h -= q * math.log(p[i, k])
            expected.append(h)
        assert np.allclose(label_smoothing_ce(p, y, ε=eps), expected, rtol=1e-9)


# ---------------------------------------------------------------------------------------------
# B. Focal loss (Lin et al. 2017): mean over N, powers with a Greek argument, keyword defaults
# ---------------------------------------------------------------------------------------------
ENTRY_FOCAL = {
    "paper": "Lin, Goyal, Girshick, He and Dollár (2017), Focal Loss for Dense Object Detection, eq. (5), "
             "binary case averaged over the examples",
    "equation": r"L = -\frac{1}{N}\sum_{i=1}^{N} \left[ y_i\, \alpha\, (1 - p_i)^{\gamma} \log p_i "
                r"+ (1 - y_i)(1 - \alpha)\, p_i^{\gamma} \log(1 - p_i) \right]",
    "symbols": {
        "L": ("the focal loss, averaged over the examples", (), "return"),
        "N": ("the number of examples", ()),
        "y": ("the label of each example: 1 for the positive class, 0 for the negative", ("N",), "y"),
        "p": ("the model's estimated probability of the positive class for each example", ("N",), "p"),
        r"\alpha": ("the weight of the positive class (1 - alpha for the negative class)", (), "alpha"),
        r"\gamma": ("the focusing parameter: how strongly easy examples are down-weighted", (), "γ"),
    },
    "example": {
        "inputs": {"p": [0.9, 0.2, 0.6], "y": [1, 0, 0], "alpha": 0.25, "γ": 2.0},
        "output": 0.08479,
    },
}


def focal_loss(p, y, alpha: float = 0.25, γ: float = 2.0) -> float:
    """Binary focal loss, a mean over the examples; y in {0, 1}."""
    p = np.asarray(p, dtype=float)                        # (N,)
    y = np.asarray(y, dtype=float)                        # (N,)
    positive = y * alpha * (1.0 - p) ** γ * np.log(p)
    negative = (1.0 - y) * (1.0 - alpha) * p ** γ * np.log(1.0 - p)
    return float(-np.mean(positive + negative))


def test_focal():
    # the hand-worked example
    assert abs(focal_loss([0.9, 0.2, 0.6], [1, 0, 0], alpha=0.25, γ=2.0) - 0.08479) < 1e-5
    # gamma = 0 and alpha = 0.5: half the binary cross-entropy
    assert abs(focal_loss([0.8], [1], alpha=0.5, γ=0.0) - 0.5 * -math.log(0.8)) < 1e-12
    assert abs(focal_loss([0.8], [0], alpha=0.5, γ=0.0) - 0.5 * -math.log(0.2)) < 1e-12
    # one example by hand with gamma = 1: -alpha (1 - p) log p
    assert abs(focal_loss([0.5], [1], alpha=0.4, γ=1.0) - 0.4 * 0.5 * math.log(2)) < 1e-12
    assert abs(focal_loss([0.5], [0], alpha=0.4, γ=3.0) - 0.6 * 0.125 * math.log(2)) < 1e-12
    # random batches against a loop over the examples
    rng = np.random.default_rng(7)
    for _ in range(3):
        p = rng.uniform(0.05, 0.95, size=6)
        y = rng.integers(0, 2, size=6)
        a, g = rng.uniform(0.1, 0.9), rng.uniform(0.5, 3.0)
        terms = [a * (1 - pi) ** g * math.log(pi) if yi == 1 else (1 - a) * pi ** g * math.log(1 - pi)
                 for pi, yi in zip(p, y)]
        assert abs(focal_loss(p, y, alpha=a, γ=g) - (-sum(terms) / len(terms))) < 1e-10


# ---------------------------------------------------------------------------------------------
# C. Ridge regression (Hastie, Tibshirani and Friedman): nested sums, lambda, loops in the code
# ---------------------------------------------------------------------------------------------
ENTRY_RIDGE = {
    "paper": "Hastie, Tibshirani and Friedman (2009), The Elements of Statistical Learning, eq. (3.41) without "
             "the intercept: the penalized residual sum of squares of ridge regression",
    "equation": r"R = \sum_{i=1}^{N} \left( y_i - \sum_{j=1}^{p} x_{ij} \beta_j \right)^2 + \lambda \sum_{j=1}^{p} \beta_j^2",
    "symbols": {
        "R": ("the penalized residual sum of squares, the objective ridge regression minimises", (), "return"),
        "N": ("the number of observations", ()),
        "p": ("the number of input variables", ()),
        "y": ("the response of each observation", ("N",), "y"),
        "x": ("the inputs: one row per observation, one column per variable", ("N", "p"), "X"),
        r"\beta": ("the coefficients, one per variable", ("p",), "β"),
        r"\lambda": ("the complexity parameter: how much large coefficients are penalised", (), "λ"),
    },
    "example": {
        "inputs": {"X": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], "y": [1.0, 3.0, 2.0], "β": [1.0, 2.0], "λ": 0.5},
        "output": 4.5,
    },
}


def ridge_objective(X, y, β, λ=1.0):
    X = np.asarray(X, dtype=float)                        # (N, p)
    y = np.asarray(y, dtype=float)                        # (N,)
    β = np.asarray(β, dtype=float)                        # (p,)
    rss = 0.0
    for i in range(X.shape[0]):
        fitted = 0.0
        for j in range(X.shape[1]):
            fitted += X[i, j] * β[j]
        rss += (y[i] - fitted) ** 2
    penalty = λ * float(β @ β)
    return rss + penalty


def test_ridge():
    # the hand-worked example: fitted (1, 2, 3), residuals (0, 1, -1), RSS 2, penalty 0.5 * 5
    assert abs(ridge_objective([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [1.0, 3.0, 2.0], [1.0, 2.0], 0.5) - 4.5) < 1e-12
    # a second case by hand: one observation, one variable: (3 - 2*1.5)^2 + 2 * 1.5^2 = 4.5
    assert abs(ridge_objective([[2.0]], [3.0], [1.5], 2.0) - 4.5) < 1e-12
    assert abs(ridge_objective([[2.0]], [4.0], [1.5], 0.0) - 1.0) < 1e-12
    # beta = 0: the objective is the sum of squares of y, whatever lambda
    assert abs(ridge_objective([[1.0, 2.0], [3.0, 4.0]], [1.0, -2.0], [0.0, 0.0], 9.0) - 5.0) < 1e-12
    # random problems against the matrix form ||y - X beta||^2 + lambda ||beta||^2
    rng = np.random.default_rng(3)
    for N, p in ((4, 2), (5, 3), (3, 1)):
        X, y, b = rng.normal(size=(N, p)), rng.normal(size=N), rng.normal(size=p)
        lam = rng.uniform(0.1, 2.0)
        r = y - X @ b
        assert abs(ridge_objective(X, y, b, lam) - (r @ r + lam * b @ b)) < 1e-9


RIGHT = {
    "label smoothing, Greek ε argument, helper inside": {
        "entry_1": ENTRY_LABEL_SMOOTHING, "implementation_1": label_smoothing_ce, "test_1": test_label_smoothing,
        "np": np, "math": math},
    "focal loss, 1/N mean, γ argument": {
        "entry_1": ENTRY_FOCAL, "implementation_1": focal_loss, "test_1": test_focal, "np": np, "math": math},
    "ridge objective, nested sums as loops, λ and β arguments": {
        "entry_1": ENTRY_RIDGE, "implementation_1": ridge_objective, "test_1": test_ridge, "np": np, "math": math},
}


# ---------------------------------------------------------------------------------------------
# The same three entries with ASCII argument names (eps, gamma, beta, lam), to see past the
# format check that refuses the Greek names above.
# ---------------------------------------------------------------------------------------------
def _ascii(entry, renames):
    out = {k: v for k, v in entry.items()}
    out["symbols"] = {s: (row[:2] + (renames.get(row[2], row[2]),) if len(row) == 3 else row)
                      for s, row in entry["symbols"].items()}
    out["example"] = {"inputs": {renames.get(k, k): v for k, v in entry["example"]["inputs"].items()},
                      "output": entry["example"]["output"]}
    return out


def label_smoothing_ce_ascii(p, y, eps: float = 0.1) -> np.ndarray:
    """Cross-entropy against the smoothed labels q' = (1 - eps) one_hot(y) + eps / K, one value per row."""
    p = np.asarray(p, dtype=float)                       # (n, K)
    y = np.asarray(y, dtype=int)                         # (n,)
    n, K = p.shape

    def smoothed_targets() -> np.ndarray:
        q = np.full((n, K), eps / K)                      # the uniform part
        q[np.arange(n), y] += 1.0 - eps                   # the delta part
        return q

    return -np.sum(smoothed_targets() * np.log(p), axis=1)   # (n,)


def test_label_smoothing_ascii():
    f = label_smoothing_ce_ascii
    out = f([[0.7, 0.2, 0.1], [0.25, 0.5, 0.25]], [0, 1], eps=0.3)
    assert np.allclose(out, [0.6765, 0.8318], atol=1e-4), out
    assert np.allclose(f([[0.5, 0.25, 0.25]], [0], eps=0.0), [math.log(2)])
    assert np.allclose(f([[0.5, 0.25, 0.25]], [2], eps=0.0), [math.log(4)])
    p = np.array([[0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    assert np.allclose(f(p, [1, 2], eps=1.0), -np.log(p).mean(axis=1))
    rng = np.random.default_rng(1)
    for K in (2, 4, 5):
        p = rng.uniform(0.05, 1.0, size=(3, K))
        p /= p.sum(axis=1, keepdims=True)
        y = rng.integers(0, K, size=3)
        e = 0.17
        expected = [-sum(((1 - e) * (k == y[i]) + e / K) * math.log(p[i, k]) for k in range(K)) for i in range(3)]
        assert np.allclose(f(p, y, eps=e), expected, rtol=1e-9)


def focal_loss_ascii(p, y, alpha: float = 0.25, gamma: float = 2.0) -> float:
    """Binary focal loss, a mean over the examples; y in {0, 1}."""
    p = np.asarray(p, dtype=float)                        # (N,)
    y = np.asarray(y, dtype=float)                        # (N,)
    positive = y * alpha * (1.0 - p) ** gamma * np.log(p)
    negative = (1.0 - y) * (1.0 - alpha) * p ** gamma * np.log(1.0 - p)
    return float(-np.mean(positive + negative))


def test_focal_ascii():
    f = focal_loss_ascii
    assert abs(f([0.9, 0.2, 0.6], [1, 0, 0], alpha=0.25, gamma=2.0) - 0.08479) < 1e-5
    assert abs(f([0.8], [1], alpha=0.5, gamma=0.0) - 0.5 * -math.log(0.8)) < 1e-12
    assert abs(f([0.8], [0], alpha=0.5, gamma=0.0) - 0.5 * -math.log(0.2)) < 1e-12
    assert abs(f([0.5], [1], alpha=0.4, gamma=1.0) - 0.4 * 0.5 * math.log(2)) < 1e-12
    assert abs(f([0.5], [0], alpha=0.4, gamma=3.0) - 0.6 * 0.125 * math.log(2)) < 1e-12
    rng = np.random.default_rng(7)
    for _ in range(3):
        p = rng.uniform(0.05, 0.95, size=6)
        y = rng.integers(0, 2, size=6)
        a, g = rng.uniform(0.1, 0.9), rng.uniform(0.5, 3.0)
        terms = [a * (1 - pi) ** g * math.log(pi) if yi == 1 else (1 - a) * pi ** g * math.log(1 - pi)
                 for pi, yi in zip(p, y)]
        assert abs(f(p, y, alpha=a, gamma=g) - (-sum(terms) / len(terms))) < 1e-10


def ridge_objective_ascii(X, y, beta, lam=1.0):
    X = np.asarray(X, dtype=float)                        # (N, p)
    y = np.asarray(y, dtype=float)                        # (N,)
    beta = np.asarray(beta, dtype=float)                  # (p,)
    rss = 0.0
    for i in range(X.shape[0]):
        fitted = 0.0
        for j in range(X.shape[1]):
            fitted += X[i, j] * beta[j]
        rss += (y[i] - fitted) ** 2
    penalty = lam * float(beta @ beta)
    return rss + penalty


def test_ridge_ascii():
    f = ridge_objective_ascii
    assert abs(f([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [1.0, 3.0, 2.0], [1.0, 2.0], 0.5) - 4.5) < 1e-12
    assert abs(f([[2.0]], [3.0], [1.5], 2.0) - 4.5) < 1e-12
    assert abs(f([[2.0]], [4.0], [1.5], 0.0) - 1.0) < 1e-12
    assert abs(f([[1.0, 2.0], [3.0, 4.0]], [1.0, -2.0], [0.0, 0.0], 9.0) - 5.0) < 1e-12
    rng = np.random.default_rng(3)
    for N, p in ((4, 2), (5, 3), (3, 1)):
        X, y, b = rng.normal(size=(N, p)), rng.normal(size=N), rng.normal(size=p)
        lam = rng.uniform(0.1, 2.0)
        r = y - X @ b
        assert abs(f(X, y, b, lam) - (r @ r + lam * b @ b)) < 1e-9


RIGHT["label smoothing, ASCII eps"] = {
    "entry_1": _ascii(ENTRY_LABEL_SMOOTHING, {"ε": "eps"}), "implementation_1": label_smoothing_ce_ascii,
    "test_1": test_label_smoothing_ascii, "np": np, "math": math}
RIGHT["focal loss, ASCII gamma"] = {
    "entry_1": _ascii(ENTRY_FOCAL, {"γ": "gamma"}), "implementation_1": focal_loss_ascii,
    "test_1": test_focal_ascii, "np": np, "math": math}
RIGHT["ridge objective, ASCII beta and lam"] = {
    "entry_1": _ascii(ENTRY_RIDGE, {"β": "beta", "λ": "lam"}), "implementation_1": ridge_objective_ascii,
    "test_1": test_ridge_ascii, "np": np, "math": math}


# The ridge entry again, as a student who copies symbols from the paper writes it: Unicode keys,
# keys with their subscripts (y_i, x_{ij}, β_j), a bold beta in the equation.
ENTRY_RIDGE_UNICODE = {
    "paper": ENTRY_RIDGE["paper"],
    "equation": r"\mathrm{PRSS}(\boldsymbol{\beta}) = \sum_{i=1}^{N} \left( y_i - \sum_{j=1}^{p} x_{ij} \beta_j \right)^2 "
                r"+ \lambda \sum_{j=1}^{p} \beta_j^2",
    "symbols": {
        "PRSS": ("the penalized residual sum of squares, the objective ridge regression minimises", (), "return"),
        "N": ("the number of observations", ()),
        "p": ("the number of input variables", ()),
        "y_i": ("the response of observation i", ("N",), "y"),
        "x_{ij}": ("the value of variable j for observation i", ("N", "p"), "X"),
        "β_j": ("the coefficient of variable j", ("p",), "beta"),
        "λ": ("the complexity parameter: how much large coefficients are penalised", (), "lam"),
    },
    "example": {
        "inputs": {"X": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], "y": [1.0, 3.0, 2.0], "beta": [1.0, 2.0], "lam": 0.5},
        "output": 4.5,
    },
}
RIGHT["ridge, Unicode keys with subscripts, \\boldsymbol"] = {
    "entry_1": ENTRY_RIDGE_UNICODE, "implementation_1": ridge_objective_ascii, "test_1": test_ridge_ascii,
    "np": np, "math": math}


# ---------------------------------------------------------------------------------------------
# M. Huber loss (Huber 1964), written as the notebook allows: `def my_name` then `implementation_1 = my_name`,
# a test that calls implementation_1 and reads entry_1's example (as entry_0's test does), np.testing,
# input validation, a raw docstring holding LaTeX.
# ---------------------------------------------------------------------------------------------
entry_1 = {
    "paper": "Huber (1964), Robust Estimation of a Location Parameter, the loss rho of Section 4 (as used for "
             "regression: the mean Huber loss of the residuals)",
    "equation": r"L = \frac{1}{N}\sum_{i=1}^{N} \rho_\delta(y_i - \hat{y}_i), \quad \rho_\delta(a) = "
                r"\begin{cases} \frac{1}{2} a^2 & \text{if } |a| \le \delta \\ \delta \left(|a| - \frac{1}{2}\delta\right) "
                r"& \text{otherwise} \end{cases}",
    "symbols": {
        "L": ("the mean Huber loss over the examples", (), "return"),
        "N": ("the number of examples", ()),
        "y": ("the targets", ("N",), "y"),
        r"\hat{y}": ("the predictions", ("N",), "y_hat"),
        r"\delta": ("the threshold where the loss turns from quadratic to linear", (), "delta"),
        r"\rho": ("the Huber function of one residual", ()),
        "a": ("one residual y_i - y_hat_i", ()),
    },
    "example": {"inputs": {"y": [1.0, 2.0, 5.0], "y_hat": [1.5, 2.0, 1.0], "delta": 1.0}, "output": 1.2083},
}


def huber(y, y_hat, delta=1.0):
    r"""Mean Huber loss, $\frac{1}{N}\sum_i \rho_\delta(y_i - \hat{y}_i)$."""
    if delta <= 0:
        raise ValueError("delta must be positive")
    a = np.asarray(y, dtype=float) - np.asarray(y_hat, dtype=float)     # (N,)
    quadratic = 0.5 * a ** 2
    linear = delta * (np.abs(a) - 0.5 * delta)
    return float(np.mean(np.where(np.abs(a) <= delta, quadratic, linear)))


implementation_1 = huber


def test_1():
    # the hand-worked example, read from the entry as entry_0's test does
    np.testing.assert_allclose(implementation_1(**entry_1["example"]["inputs"]), entry_1["example"]["output"],
                               atol=1e-4)
    # a second case by hand: residual 3 with delta 2 costs 2 * (3 - 1) = 4; residual 0.5 costs 0.125
    np.testing.assert_allclose(implementation_1([3.0, 0.5], [0.0, 0.0], delta=2.0), (4.0 + 0.125) / 2)
    # symmetric in the sign of the residual, continuous at |a| = delta
    np.testing.assert_allclose(implementation_1([-3.0], [0.0], delta=2.0), 4.0)
    np.testing.assert_allclose(implementation_1([2.0], [0.0], delta=2.0), 2.0)
    # a large delta is half the mean squared error; a small one is about delta * mean |a|
    rng = np.random.default_rng(21)
    y, y_hat = rng.normal(size=6), rng.normal(size=6)
    np.testing.assert_allclose(implementation_1(y, y_hat, delta=100.0), 0.5 * np.mean((y - y_hat) ** 2))
    for d in (0.3, 0.8, 1.5):
        expect = np.mean([0.5 * r * r if abs(r) <= d else d * (abs(r) - d / 2) for r in y - y_hat])
        np.testing.assert_allclose(implementation_1(y, y_hat, delta=d), expect)
    # delta must be positive
    try:
        implementation_1([1.0], [0.0], delta=0.0)
    except ValueError:
        pass
    else:
        raise AssertionError("delta = 0 should be refused")


RIGHT["Huber: alias implementation_1 = huber, test reads entry_1, np.testing, validation"] = {
    "entry_1": entry_1, "implementation_1": implementation_1, "test_1": test_1, "np": np, "math": math}


def test_label_smoothing_ascii_loop():
    """The same test as test_label_smoothing_ascii, with the oracle written as for-loops, not a comprehension."""
    f = label_smoothing_ce_ascii
    out = f([[0.7, 0.2, 0.1], [0.25, 0.5, 0.25]], [0, 1], eps=0.3)
    assert np.allclose(out, [0.6765, 0.8318], atol=1e-4), out
    assert np.allclose(f([[0.5, 0.25, 0.25]], [0], eps=0.0), [math.log(2)])
    assert np.allclose(f([[0.5, 0.25, 0.25]], [2], eps=0.0), [math.log(4)])
    p = np.array([[0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    assert np.allclose(f(p, [1, 2], eps=1.0), -np.log(p).mean(axis=1))
    rng = np.random.default_rng(1)
    for K in (2, 4, 5):
        p = rng.uniform(0.05, 1.0, size=(3, K))
        p /= p.sum(axis=1, keepdims=True)
        y = rng.integers(0, K, size=3)
        e = 0.17
        expected = []
        for i in range(3):
            h = 0.0
            for k in range(K):
                h -= ((1 - e) * (k == y[i]) + e / K) * math.log(p[i, k])
            expected.append(h)
        assert np.allclose(f(p, y, eps=e), expected, rtol=1e-9)


RIGHT["label smoothing, ASCII eps, oracle as for-loops"] = {
    "entry_1": _ascii(ENTRY_LABEL_SMOOTHING, {"ε": "eps"}), "implementation_1": label_smoothing_ce_ascii,
    "test_1": test_label_smoothing_ascii_loop, "np": np, "math": math}


# Other LaTeX spellings of the focal and Huber entries (same implementations and tests).
_F = RIGHT["focal loss, ASCII gamma"]["entry_1"]
RIGHT["focal: \\mathcal{L}, \\sum\\limits, \\dfrac, \\ln"] = {
    "entry_1": dict(_F, equation=r"\mathcal{L} = -\dfrac{1}{N}\sum\limits_{i=1}^{N} \left[ y_i \alpha (1 - p_i)^{\gamma} "
                                 r"\ln p_i + (1 - y_i)(1 - \alpha) p_i^{\gamma} \ln(1 - p_i) \right]",
                    symbols={(r"\mathcal{L}" if k == "L" else k): v for k, v in _F["symbols"].items()}),
    "implementation_1": focal_loss_ascii, "test_1": test_focal_ascii, "np": np, "math": math}
RIGHT["focal: Unicode symbol keys α, γ"] = {
    "entry_1": dict(_F, symbols={({"\\alpha": "α", "\\gamma": "γ"}.get(k, k)): v for k, v in _F["symbols"].items()}),
    "implementation_1": focal_loss_ascii, "test_1": test_focal_ascii, "np": np, "math": math}
RIGHT["focal: \\cdot and \\times for products"] = {
    "entry_1": dict(_F, equation=r"L = -\frac{1}{N}\sum_{i=1}^{N} \left[ y_i \cdot \alpha \cdot (1 - p_i)^{\gamma} \times "
                                 r"\log p_i + (1 - y_i) \cdot (1 - \alpha) \cdot p_i^{\gamma} \times \log(1 - p_i) \right]"),
    "implementation_1": focal_loss_ascii, "test_1": test_focal_ascii, "np": np, "math": math}
RIGHT["Huber: key ŷ in Unicode"] = {
    "entry_1": dict(entry_1, symbols={("ŷ" if k == r"\hat{y}" else k): v for k, v in entry_1["symbols"].items()}),
    "implementation_1": implementation_1, "test_1": test_1, "np": np, "math": math}
RIGHT["Huber: \\hat y, \\tfrac, \\lvert, \\text{else}"] = {
    "entry_1": dict(entry_1, equation=r"L = \tfrac{1}{N}\sum_{i=1}^{N} \rho_\delta(y_i - \hat y_i), \quad \rho_\delta(a) = "
                                      r"\begin{cases} \tfrac{1}{2} a^2 & \lvert a \rvert \le \delta \\ \delta (\lvert a \rvert "
                                      r"- \tfrac{1}{2}\delta) & \text{else} \end{cases}"),
    "implementation_1": implementation_1, "test_1": test_1, "np": np, "math": math}
RIGHT["Huber: bold \\mathbf{y} in the equation, key y"] = {
    "entry_1": dict(entry_1, equation=entry_1["equation"].replace("y_i - \\hat{y}_i", "\\mathbf{y}_i - \\hat{\\mathbf{y}}_i")),
    "implementation_1": implementation_1, "test_1": test_1, "np": np, "math": math}
