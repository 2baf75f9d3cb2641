"""entry_3 ("Build this"): its own right entries (Huber loss, label smoothing, a Gaussian log-likelihood) and
wrong ones with the message they must get; graded by the same cases as entry_1, with another seed."""

import math
from functools import partial

import numpy as np

from classroom.corpus import entry_answer

# -- right ---------------------------------------------------------------------------------------------


def huber(pred, target, delta=1.0):
    r = np.asarray(pred, dtype=float) - np.asarray(target, dtype=float)       # (N,) residuals
    small = np.abs(r) <= delta
    return np.mean(np.where(small, 0.5 * r**2, delta * (np.abs(r) - 0.5 * delta)))


def test_huber():
    assert np.isclose(huber([0.5, 3.0], [0.0, 0.0], 1.0), 1.3125)
    r = np.array([0.2, -0.4, 0.7])
    assert np.isclose(huber(r + 1.0, np.ones(3), 1.0), np.mean(0.5 * r**2))        # small: half the squared error
    assert np.isclose(huber([10.0, -6.0], [0.0, 0.0], 2.0), np.mean([2 * (10 - 1), 2 * (6 - 1)]))  # large: linear
    assert np.isclose(huber([2.0], [0.0], 2.0), 2.0)                                 # both pieces meet at delta
    assert np.isclose(huber([0.0, 5.0], [3.0, 1.0], 1.5), huber([3.0, 1.0], [0.0, 5.0], 1.5))


HUBER = {
    "paper": "Huber (1964), Robust Estimation of a Location Parameter; as the smooth L1 loss of Fast R-CNN",
    "equation": r"L = \frac{1}{N}\sum_{n=1}^{N} h(r_n), \quad h(r) = \begin{cases} \frac{1}{2} r^2 & |r| \le \delta \\ "
                r"\delta\,(|r| - \frac{1}{2}\delta) & \text{otherwise} \end{cases}, \quad r_n = \hat{y}_n - y_n",
    "symbols": {
        r"\hat{y}": ("the predictions", ("N",), "pred"),
        "y": ("the targets", ("N",), "target"),
        "r": ("the residuals, prediction minus target", ("N",)),
        r"\delta": ("where the loss turns from quadratic to linear", (), "delta"),
        "h": ("the Huber function of one residual", ("N",)),
        "N": ("the number of examples", ()),
        "L": ("the mean loss", (), "return"),
    },
    "example": {"inputs": {"pred": [0.5, 3.0], "target": [0.0, 0.0], "delta": 1.0}, "output": 1.3125},
}


def label_smoothing(y, alpha):
    y = np.asarray(y, dtype=float)                 # (N, K) one-hot rows
    return (1 - alpha) * y + alpha / y.shape[-1]


def test_label_smoothing():
    assert np.allclose(label_smoothing([[0.0, 1.0, 0.0]], 0.3), [[0.1, 0.8, 0.1]])
    y = np.eye(4)[[2, 0, 3]]
    assert np.allclose(label_smoothing(y, 0.0), y) and np.allclose(label_smoothing(y, 1.0), 0.25)
    assert np.allclose(label_smoothing(y, 0.2).sum(axis=-1), 1.0)
    assert np.allclose(label_smoothing(y, 0.2)[0], [0.05, 0.05, 0.85, 0.05])


LABEL_SMOOTHING = {
    "paper": "Szegedy et al. (2016), Rethinking the Inception Architecture, section 7",
    "equation": r"q_k = (1 - \alpha)\, y_k + \frac{\alpha}{K}",
    "symbols": {
        "y_k": ("the one-hot target: 1 for the true class, 0 elsewhere", ("N", "K"), "y"),
        r"\alpha": ("how much probability moves to the uniform distribution", (), "alpha"),
        "K": ("the number of classes", ()),
        "q_k": ("the smoothed target, still summing to 1", ("N", "K"), "return"),
    },
    "example": {"inputs": {"y": [[0.0, 1.0, 0.0]], "alpha": 0.3}, "output": [[0.1, 0.8, 0.1]]},
}


def gaussian_log_likelihood(x, mu, sigma):
    x, mu, sigma = (np.asarray(a, dtype=float) for a in (x, mu, sigma))
    return -0.5 * ((x - mu) ** 2 / sigma**2 + np.log(2 * np.pi * sigma**2))


def test_gaussian_log_likelihood():
    assert np.allclose(gaussian_log_likelihood([0.0, 1.0], 0.0, 1.0), [-0.9189, -1.4189], atol=1e-3)
    assert np.allclose(gaussian_log_likelihood([1.0, 3.0], 1.0, 2.0), [-1.6121, -2.1121], atol=1e-3)
    x = np.array([-1.5, 0.25, 2.0])
    assert np.allclose(gaussian_log_likelihood(x, 0.5, 0.7),
                       [math.log(math.exp(-((v - 0.5) ** 2) / (2 * 0.49)) / math.sqrt(2 * math.pi * 0.49)) for v in x])
    assert np.allclose(gaussian_log_likelihood(3.0 + x, 3.0, 0.7), gaussian_log_likelihood(x, 0.0, 0.7))


GAUSSIAN = {
    "paper": "Kingma and Welling (2014), Auto-Encoding Variational Bayes, Appendix C.2: a Gaussian decoder",
    "equation": r"\log p(x) = -\frac{1}{2}\left(\frac{(x - \mu)^2}{\sigma^2} + \log(2\pi\sigma^2)\right)",
    "symbols": {
        "x": ("the data points", ("n",), "x"),
        r"\mu": ("the Gaussian's mean", (), "mu"),
        r"\sigma": ("the Gaussian's standard deviation", (), "sigma"),
        r"\log p(x)": ("the log density of each point", ("n",), "return"),
    },
    "example": {"inputs": {"x": [0.0, 1.0], "mu": 0.0, "sigma": 1.0}, "output": [-0.9189, -1.4189]},
}


_entry = partial(entry_answer, 3)  # (entry, implementation, test)


RIGHT = {
    "huber-with-cases": _entry(HUBER, huber, test_huber),
    "label-smoothing": _entry(LABEL_SMOOTHING, label_smoothing, test_label_smoothing),
    "gaussian-log-likelihood": _entry(GAUSSIAN, gaussian_log_likelihood, test_gaussian_log_likelihood),
}


# -- wrong ---------------------------------------------------------------------------------------------


def test_huber_true():
    assert True


def test_smoothing_shape():
    assert label_smoothing([[0.0, 1.0, 0.0]], 0.3).shape == (1, 3)


def crashing_huber(pred, target, delta=1.0):
    r = np.asarray(pred, dtype=float) - target
    return np.mean(np.where(np.abs(r) <= delta, 0.5 * r**2, delta * (abs(r) - 0.5 * delta)), axis=1)


def test_crashing_huber():
    assert np.isclose(crashing_huber([0.5, 3.0], [0.0, 0.0], 1.0), 1.3125)


HUBER_NO_H = dict(HUBER, symbols={k: v for k, v in HUBER["symbols"].items() if k != "h"})
GAUSSIAN_NO_HALF = dict(GAUSSIAN, example={"inputs": GAUSSIAN["example"]["inputs"], "output": [-1.8379, -2.8379]})
GAUSSIAN_CONTRADICTING = dict(GAUSSIAN, symbols={**GAUSSIAN["symbols"], "x": ("the data points", ("n", 1), "x")})
SMOOTHING_LONG = dict(LABEL_SMOOTHING, example={"inputs": {"y": [[0.0, 1.0, 0.0]], "alpha": 0.3333},
                                                 "output": [[0.1111, 0.7778, 0.1111]]})

WRONG = {
    "huber-test-asserts-only-true": (_entry(HUBER, huber, test_huber_true), "only asserts a constant"),
    "huber-missing-symbol": (_entry(HUBER_NO_H, huber, test_huber), "the symbol table has no row for `h`"),
    "huber-implementation-crashes": (_entry(HUBER, crashing_huber, test_crashing_huber), "your implementation raised"),
    "smoothing-test-checks-only-the-shape": (_entry(LABEL_SMOOTHING, label_smoothing, test_smoothing_shape),
                                             "only checks the shape"),
    "smoothing-example-not-tiny": (_entry(SMOOTHING_LONG, label_smoothing, test_label_smoothing),
                                   "long numbers such as 0.3333"),
    "gaussian-example-without-the-half": (_entry(GAUSSIAN_NO_HALF, gaussian_log_likelihood,
                                                 test_gaussian_log_likelihood), "the output you worked by hand"),
    "gaussian-shapes-contradict": (_entry(GAUSSIAN_CONTRADICTING, gaussian_log_likelihood,
                                          test_gaussian_log_likelihood), "the shapes do not line up"),
}


# -- right, in more styles (each a new equation; the tests written the ways students write them) ------------


def focal_loss(p, y, alpha=0.25, gamma=2.0):
    p, y = np.asarray(p, dtype=float), np.asarray(y)
    p_t = np.where(y == 1, p, 1 - p)                    # (n,) the probability of the true class
    alpha_t = np.where(y == 1, alpha, 1 - alpha)        # (n,)
    return -alpha_t * (1 - p_t) ** gamma * np.log(p_t)  # (n,)


def test_focal_loss():
    np.testing.assert_allclose(focal_loss([0.9, 0.2], [1, 0]), [0.000263, 0.006694], rtol=2e-3)
    p, y = np.array([0.3, 0.6, 0.95]), np.array([1, 0, 1])
    ce = -np.log(np.where(y == 1, p, 1 - p))
    np.testing.assert_allclose(focal_loss(p, y, alpha=0.5, gamma=0.0), 0.5 * ce)       # gamma 0: weighted CE
    np.testing.assert_allclose(focal_loss(p, y, alpha=0.8, gamma=3.0),
                               np.where(y == 1, 0.8, 0.2) * (1 - np.where(y == 1, p, 1 - p)) ** 3 * ce)
    assert focal_loss([0.99], [1])[0] < 1e-5 < focal_loss([0.01], [1])[0]             # easy cases count little


FOCAL = {
    "paper": "Lin et al. (2017), Focal Loss for Dense Object Detection, eq. (5)",
    "equation": r"L = -\alpha_t (1 - p_t)^{\gamma} \log(p_t), \quad p_t = y p + (1 - y)(1 - p), "
                r"\quad \alpha_t = y \alpha + (1 - y)(1 - \alpha)",
    "symbols": {
        "p": ("the predicted probability of class 1, one per anchor", ("n",), "p"),
        "y": ("the label, 1 or 0", ("n",), "y"),
        "p_t": ("the probability given to the true class", ("n",)),
        r"\alpha": ("the weight of class 1 (class 0 gets 1 - alpha)", (), "alpha"),
        r"\alpha_t": ("the weight of each anchor's true class", ("n",)),
        r"\gamma": ("the focusing exponent: how much easy anchors are discounted", (), "gamma"),
        "L": ("the loss of each anchor", ("n",), "return"),
    },
    "example": {"inputs": {"p": [0.9, 0.2], "y": [1, 0], "alpha": 0.25, "gamma": 2.0},
                "output": [0.000263, 0.006694]},
}


def elo_expected(r_a, r_b):
    return [1.0 / (1.0 + 10.0 ** ((b - a) / 400.0)) for a, b in zip(r_a, r_b)]


def test_elo_expected():
    got = elo_expected([1600, 1500], [1400, 1500])
    assert math.isclose(got[0], 0.7597, abs_tol=1e-4) and got[1] == 0.5
    for a, b in [(1200, 1800), (2000, 1990), (1500, 1100)]:
        forward, back = elo_expected([a], [b])[0], elo_expected([b], [a])[0]
        assert math.isclose(forward + back, 1.0)                       # the two expectations sum to one
        assert math.isclose(forward, 1 / (1 + 10 ** ((b - a) / 400)), rel_tol=1e-12)
    assert math.isclose(elo_expected([1900], [1500])[0], 10 / 11)        # 400 points: ten to one


ELO = {
    "paper": "Elo (1978), The Rating of Chessplayers, the expected score",
    "equation": r"E_A = \frac{1}{1 + 10^{(R_B - R_A)/400}}",
    "symbols": {
        "R_A": ("the rating of player A, one per game", ("n",), "r_a"),
        "R_B": ("the rating of player B", ("n",), "r_b"),
        "E_A": ("the score A is expected to make: the chance of a win, draws counting half", ("n",), "return"),
    },
    "example": {"inputs": {"r_a": [1600, 1500], "r_b": [1400, 1500]}, "output": [0.7597, 0.5]},
}


def logistic(X, w, b):
    z = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b   # (n,) the logits
    return 1.0 / (1.0 + np.exp(-z))


def check(actual, expected, tol=1e-6):
    assert np.shape(actual) == np.shape(expected), (np.shape(actual), np.shape(expected))
    assert np.max(np.abs(np.asarray(actual) - np.asarray(expected))) <= tol, (actual, expected)


def test_logistic():
    check(logistic([[1.0, 2.0], [0.0, -1.0]], [0.5, -0.25], 0.0), [0.5, 0.5622], tol=1e-4)
    X = np.array([[1.0, -1.0, 2.0], [0.5, 0.0, -3.0]])
    w = np.array([0.3, 1.2, -0.4])
    z = np.array([0.3 - 1.2 - 0.8 + 0.7, 0.15 + 1.2 + 0.7])
    check(logistic(X, w, 0.7), 1 / (1 + np.exp(-z)))
    check(logistic(X, w, 0.7) + logistic(-X, w, -0.7), [1.0, 1.0])    # sigma(-z) = 1 - sigma(z)


LOGISTIC = {
    "paper": "Bishop (2006), Pattern Recognition and Machine Learning, eq. (4.87): logistic regression",
    "equation": r"p = \sigma(w^T x + b), \quad \sigma(a) = \frac{1}{1 + e^{-a}}",
    "symbols": {
        "x": ("the features, one row per example", ("n", "d"), "X"),
        "w": ("the weights, one per feature", ("d",), "w"),
        "b": ("the bias", (), "b"),
        "a": ("the logit w^T x + b", ("n",)),
        r"\sigma": ("the logistic sigmoid", ("n",)),
        "p": ("the probability of class 1 for each example", ("n",), "return"),
    },
    "example": {"inputs": {"X": [[1.0, 2.0], [0.0, -1.0]], "w": [0.5, -0.25], "b": 0.0}, "output": [0.5, 0.5622]},
}


def silu(x, beta=1.0):
    x = np.asarray(x, dtype=float)
    return x / (1.0 + np.exp(-beta * x))


def test_silu():
    assert np.allclose(silu([-1.0, 0.0, 2.0]), [-0.2689, 0.0, 1.7616], atol=1e-4)
    xs = np.linspace(-4, 4, 9)
    assert np.allclose(silu(xs, beta=2.5), xs * (1 / (1 + np.exp(-2.5 * xs))))
    assert np.allclose(silu(xs, beta=0.0), xs / 2)                   # beta 0: a linear function
    assert np.allclose(silu([30.0, -30.0], beta=1.0), [30.0, 0.0])   # ReLU far from zero


SILU = {
    "paper": "Ramachandran, Zoph and Le (2017), Searching for Activation Functions: Swish",
    "equation": r"f(x) = x \cdot \sigma(\beta x)",
    "symbols": {
        "x": ("the pre-activations", ("n",), "x"),
        r"\beta": ("a constant or learned slope; 1 gives the SiLU", (), "beta"),
        r"\sigma": ("the logistic sigmoid", ("n",)),
        "f": ("the activations", ("n",), "return"),
    },
    "example": {"inputs": {"x": [-1.0, 0.0, 2.0], "beta": 1.0}, "output": [-0.2689, 0.0, 1.7616]},
}


def hinge_loss(X, y, w):
    margins = np.asarray(y) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))   # (N,)
    return np.mean(np.maximum(0.0, 1.0 - margins))


def test_hinge_loss():
    assert abs(hinge_loss([[1.0, 0.0], [0.0, 2.0]], [1, -1], [0.5, 0.5]) - 1.25) < 1e-9
    X = np.array([[2.0, 1.0], [-1.0, 3.0], [0.5, -0.5]])
    assert hinge_loss(X, [1, 1, -1], [3.0, 0.0]) == (0 + 4.0 + 2.5) / 3   # one correct with margin, two not
    assert hinge_loss(X, [1, -1, 1], [0.0, 0.0]) == 1.0                    # w = 0: every margin is 0


HINGE = {
    "paper": "Cortes and Vapnik (1995), Support-Vector Networks: the hinge loss of a linear classifier",
    "equation": r"L = \frac{1}{N}\sum_{i=1}^{N} \max\left(0, 1 - y_i w^T x_i\right)",
    "symbols": {
        "x_i": ("the features of example i", ("N", "d"), "X"),
        "y_i": ("its label, +1 or -1", ("N",), "y"),
        "w": ("the weights of the linear classifier", ("d",), "w"),
        "N": ("the number of examples", ()),
        "L": ("the mean hinge loss", (), "return"),
    },
    "example": {"inputs": {"X": [[1.0, 0.0], [0.0, 2.0]], "y": [1, -1], "w": [0.5, 0.5]}, "output": 1.25},
}


def entropy(p):
    p = np.asarray(p, dtype=float)                                           # (n, K), rows sum to 1
    logs = np.log(np.where(p > 0, p, 1.0))                                   # 0 log 0 = 0
    return -np.sum(p * logs, axis=-1)


def test_entropy():
    out = entropy([[0.5, 0.5], [0.25, 0.75]])
    assert np.allclose(out, [0.6931, 0.5623], atol=1e-4), out
    assert np.allclose(entropy([[1.0, 0.0, 0.0]]), 0.0)                        # certain: no surprise
    assert np.isclose(entropy(np.full((1, 8), 1 / 8))[0], np.log(8))           # uniform: the most
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(4), size=3)
    assert np.allclose(entropy(p), [-sum(q * math.log(q) for q in row) for row in p])


ENTROPY = {
    "paper": "Shannon (1948), A Mathematical Theory of Communication, theorem 2",
    "equation": r"H(p) = -\sum_{k=1}^{K} p_k \log p_k",
    "symbols": {
        "p_k": ("the probability of outcome k; each row of p is a distribution", ("n", "K"), "p"),
        "K": ("the number of outcomes", ()),
        "H": ("the entropy of each distribution, in nats", ("n",), "return"),
    },
    "example": {"inputs": {"p": [[0.5, 0.5], [0.25, 0.75]]}, "output": [0.6931, 0.5623]},
}


def triplet_loss(a, p, n, alpha=0.2):
    a, p, n = (np.asarray(v, dtype=float) for v in (a, p, n))
    closer = np.sum((a - p) ** 2, axis=1)                  # (N,)
    farther = np.sum((a - n) ** 2, axis=1)                 # (N,)
    return np.maximum(closer - farther + alpha, 0.0)


def test_triplet_loss():
    got = triplet_loss([[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [2.0, 0.0]], [[0.0, 2.0], [1.0, 0.0]], alpha=0.5)
    assert got.tolist() == [0.0, 3.5]
    a, p, n = np.array([[1.0, 2.0, 0.0]]), np.array([[1.5, 1.0, 1.0]]), np.array([[1.0, 2.5, 0.5]])
    assert np.allclose(triplet_loss(a, p, n, alpha=0.3), (0.25 + 1 + 1) - (0.25 + 0.25) + 0.3)
    assert np.allclose(triplet_loss(a, n, p, alpha=0.3), 0.0)          # the right way round: no loss


TRIPLET = {
    "paper": "Schroff, Kalenichenko and Philbin (2015), FaceNet, eq. (1)",
    "equation": r"L = \max\left(\lVert a - p \rVert_2^2 - \lVert a - n \rVert_2^2 + \alpha, 0\right)",
    "symbols": {
        "a": ("the anchor's embedding, one row per triplet", ("N", "d"), "a"),
        "p": ("the positive: an embedding of the same identity", ("N", "d"), "p"),
        "n": ("the negative: an embedding of another identity", ("N", "d"), "n"),
        r"\alpha": ("the margin the negative must be farther by", (), "alpha"),
        "L": ("the loss of each triplet", ("N",), "return"),
    },
    "example": {"inputs": {"a": [[0.0, 0.0], [0.0, 0.0]], "p": [[1.0, 0.0], [2.0, 0.0]],
                           "n": [[0.0, 2.0], [1.0, 0.0]], "alpha": 0.5},
                "output": [0.0, 3.5]},
}


def softplus(x):
    x = np.asarray(x, dtype=float)
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))   # log(1 + e^x), stable for large |x|


def test_softplus():
    x = np.array([-1.0, 0.0, 2.0])
    assert np.allclose(softplus(x), [0.3133, 0.6931, 2.1269], atol=1e-4)
    assert np.allclose(softplus(x) - softplus(-x), x)                      # log(1+e^x) - log(1+e^-x) = x
    assert np.allclose(softplus([800.0, -800.0]), [800.0, 0.0])             # no overflow


SOFTPLUS = {
    "paper": "Dugas et al. (2001), Incorporating Second-Order Functional Knowledge: the softplus",
    "equation": r"\zeta(x) = \log\left(1 + e^{x}\right)",
    "symbols": {
        "x": ("the inputs", ("n",), "x"),
        r"\zeta": ("the softplus of each input: a smooth ReLU", ("n",), "return"),
    },
    "example": {"inputs": {"x": [-1.0, 0.0, 2.0]}, "output": [0.3133, 0.6931, 2.1269]},
}


def half_squared_error(y_hat, y):
    diff = np.asarray(y_hat, dtype=float) - np.asarray(y, dtype=float)
    return 0.5 * diff ** 2


def test_half_squared_error():
    assert np.allclose(half_squared_error([0.1, 3.0], [0.0, 1.0]), [0.005, 2.0])
    assert np.allclose(half_squared_error([-2.0, 1.5], [1.0, 1.5]), [4.5, 0.0])


HALF_SQUARED = {
    "paper": "Bishop (2006), Pattern Recognition and Machine Learning, eq. (1.2): the sum-of-squares error",
    "equation": r"E = \frac{1}{2}\left(\hat{y} - y\right)^2",
    "symbols": {
        r"\hat{y}": ("the predictions", ("n",), "y_hat"),
        "y": ("the targets", ("n",), "y"),
        "E": ("the error of each prediction", ("n",), "return"),
    },
    "example": {"inputs": {"y_hat": [0.1, 3.0], "y": [0.0, 1.0]}, "output": [0.005, 2.0]},  # 0.005, as worked
}


def kl_discrete(p, q):
    total = []
    for row_p, row_q in zip(np.asarray(p, dtype=float), np.asarray(q, dtype=float)):
        total.append(sum(a * math.log(a / b) for a, b in zip(row_p, row_q) if a > 0))
    return np.array(total)


def test_kl_discrete():
    assert np.allclose(kl_discrete([[0.5, 0.5], [0.25, 0.75]], [[0.5, 0.5], [0.5, 0.5]]), [0.0, 0.1308], atol=1e-4)
    p, q = np.array([[0.1, 0.6, 0.3]]), np.array([[0.3, 0.3, 0.4]])
    assert np.isclose(kl_discrete(p, q)[0], 0.1 * math.log(1 / 3) + 0.6 * math.log(2) + 0.3 * math.log(0.75))
    assert kl_discrete(p, q)[0] != kl_discrete(q, p)[0]                     # not symmetric
    assert np.isclose(kl_discrete([[1.0, 0.0]], [[0.5, 0.5]])[0], math.log(2))  # 0 log 0 = 0


KL_DISCRETE = {
    "paper": "Kullback and Leibler (1951), On Information and Sufficiency: the divergence of two distributions",
    "equation": r"D_{KL}(P \| Q) = \sum_{k} P(k) \log \frac{P(k)}{Q(k)}",
    "symbols": {
        "P": ("the first distribution, one row per pair", ("n", "K"), "p"),
        "Q": ("the second distribution", ("n", "K"), "q"),
        "D_{KL}": ("how much P differs from Q, for each pair", ("n",), "return"),
    },
    "example": {"inputs": {"p": [[0.5, 0.5], [0.25, 0.75]], "q": [[0.5, 0.5], [0.5, 0.5]]}, "output": [0.0, 0.1308]},
}

RIGHT |= {
    "focal-loss-exponent-gamma": _entry(FOCAL, focal_loss, test_focal_loss),
    "elo-ratings-in-a-power-math-module": _entry(ELO, elo_expected, test_elo_expected),
    "logistic-regression-own-check-helper": _entry(LOGISTIC, logistic, test_logistic),
    "silu-linspace-properties": _entry(SILU, silu, test_silu),
    "hinge-loss-exact-equalities": _entry(HINGE, hinge_loss, test_hinge_loss),
    "entropy-random-distributions": _entry(ENTROPY, entropy, test_entropy),
    "triplet-loss-tolist": _entry(TRIPLET, triplet_loss, test_triplet_loss),
    "softplus-stable-form": _entry(SOFTPLUS, softplus, test_softplus),
    "half-squared-error-small-output-as-worked": _entry(HALF_SQUARED, half_squared_error, test_half_squared_error),
    "kl-discrete-loops": _entry(KL_DISCRETE, kl_discrete, test_kl_discrete),
}


# -- wrong: the course's equations renamed, symbols only in exponents missed, a small output misread -----------


def renamed_layer_norm(v, g, b, e=1e-5):
    v = np.asarray(v, dtype=float)
    m = v.mean(axis=-1, keepdims=True)
    s = np.sqrt(((v - m) ** 2).mean(axis=-1, keepdims=True) + e)
    return g * (v - m) / s + b


def test_renamed_layer_norm():
    assert np.allclose(renamed_layer_norm([[1.0, 2.0, 3.0]], [1.0, 2.0, 1.0], [0.0, 0.0, 1.0], e=0.0),
                       [[-1.2247, 0.0, 2.2247]], atol=1e-4)
    v = np.array([[1.0, 2.0, 4.0], [-3.0, 0.5, 9.0]])
    g, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.0, -0.5])
    want = g * (v - v.mean(1, keepdims=True)) / np.sqrt(v.var(1, keepdims=True) + 0.1) + b
    assert np.allclose(renamed_layer_norm(v, g, b, e=0.1), want)


LAYER_NORM_RENAMED = {  # just the first line of the worked entry, with other letters
    "paper": "A normalisation layer",
    "equation": r"z = g \odot \frac{v - m}{\sqrt{s^2 + e}} + b",
    "symbols": {
        "v": ("the input rows", ("n", "d"), "v"), "g": ("the gain", ("d",), "g"), "b": ("the bias", ("d",), "b"),
        "e": ("a small number", (), "e"), "m": ("each row's mean", ("n", 1)), "s": ("each row's spread", ("n", 1)),
        "z": ("the output", ("n", "d"), "return"),
    },
    "example": {"inputs": {"v": [[1.0, 2.0, 3.0]], "g": [1.0, 2.0, 1.0], "b": [0.0, 0.0, 1.0], "e": 0.0},
                "output": [[-1.2247, 0.0, 2.2247]]},
}


def gibbs(a, tau):
    a = np.asarray(a, dtype=float) / tau
    w = np.exp(a - a.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True)


def test_gibbs():
    assert np.allclose(gibbs([[0.0, 0.0], [1.0, 0.0]], 1.0), [[0.5, 0.5], [0.7311, 0.2689]], atol=1e-4)
    a = np.array([[1.0, 2.0, -1.0], [0.5, 0.5, 3.0]])
    assert np.allclose(gibbs(a, 0.5), np.exp(2 * a) / np.exp(2 * a).sum(axis=1, keepdims=True))
    assert np.allclose(gibbs(a * 1000, 1.0).sum(axis=1), 1.0)


GIBBS_RENAMED = {  # the course's softmax with a temperature, other letters
    "paper": "Sutton and Barto (2018), the Gibbs (Boltzmann) policy",
    "equation": r"p_k = \frac{\exp(a_k / \tau)}{\sum_j \exp(a_j / \tau)}",
    "symbols": {"a_k": ("the preference of action k", ("n", "K"), "a"), r"\tau": ("the temperature", (), "tau"),
                "p_k": ("the probability of action k", ("n", "K"), "return")},
    "example": {"inputs": {"a": [[0.0, 0.0], [1.0, 0.0]], "tau": 1.0}, "output": [[0.5, 0.5], [0.7311, 0.2689]]},
}
GIBBS_LOG_FORM = dict(GIBBS_RENAMED, equation=r"\pi(k) = \exp\left(a_k / \tau - \log \sum_j \exp(a_j / \tau)\right)",
                      symbols={**GIBBS_RENAMED["symbols"], r"\pi": ("the policy", ("n", "K"), "return")})
del GIBBS_LOG_FORM["symbols"]["p_k"]


def momentum_free_step(w, a, b, eta=0.001, delta=1e-8):
    w, a, b = (np.asarray(x, dtype=float) for x in (w, a, b))
    return w - eta * a / (np.sqrt(b) + delta)


def test_momentum_free_step():
    assert np.allclose(momentum_free_step([1.0, 2.0], [0.5, -0.5], [0.25, 0.25], eta=0.1, delta=0.0), [0.9, 2.1])
    w, a, b = np.array([0.3, -1.0]), np.array([2.0, 1.0]), np.array([4.0, 9.0])
    assert np.allclose(momentum_free_step(w, a, b, eta=0.5, delta=1.0), w - 0.5 * a / (np.sqrt(b) + 1.0))


ADAM_RENAMED = {  # Adam's update with other letters
    "paper": "An optimiser",
    "equation": r"w_k = w_{k-1} - \eta \hat{a}_k / (\sqrt{\hat{b}_k} + \delta)",
    "symbols": {"w": ("the weights", ("d",), "w"), r"\hat{a}": ("a mean", ("d",), "a"),
                r"\hat{b}": ("a mean square", ("d",), "b"), r"\eta": ("the step size", (), "eta"),
                r"\delta": ("keeps it finite", (), "delta"), "w_k": ("the new weights", ("d",), "return")},
    "example": {"inputs": {"w": [1.0, 2.0], "a": [0.5, -0.5], "b": [0.25, 0.25], "eta": 0.1, "delta": 0.0},
                "output": [0.9, 2.1]},
}
FOCAL_NO_GAMMA = dict(FOCAL, symbols={k: v for k, v in FOCAL["symbols"].items() if k != r"\gamma"} | {
    "gamma": ("the focusing exponent", (), "gamma")})  # a word, not the exponent's symbol
ELO_NO_R_B = dict(ELO, symbols={"r_a": ("the rating of player A", ("n",), "r_a"),  # the code's names: the
                                "r_b": ("the rating of player B", ("n",), "r_b"),  # ratings in the power unread
                                "E_A": ELO["symbols"]["E_A"]})
HALF_SQUARED_ROUNDED_UP = dict(HALF_SQUARED, example={"inputs": HALF_SQUARED["example"]["inputs"],
                                                      "output": [0.01, 2.0]})  # 0.01 for a true 0.005


def elo_with_e(r_a, r_b):  # the bug: e where the equation has 10; its example and its test were worked from it
    return [1.0 / (1.0 + math.exp((b - a) / 400.0)) for a, b in zip(r_a, r_b)]


def test_elo_with_e():
    got = elo_with_e([1600, 1500], [1400, 1500])
    assert math.isclose(got[0], 0.6225, abs_tol=1e-4) and got[1] == 0.5
    for a, b in [(1200, 1800), (2000, 1990), (1500, 1100)]:
        forward, back = elo_with_e([a], [b])[0], elo_with_e([b], [a])[0]
        assert math.isclose(forward + back, 1.0)
        assert math.isclose(forward, 1 / (1 + math.exp((b - a) / 400)), rel_tol=1e-12)
    assert math.isclose(elo_with_e([1900], [1500])[0], 0.7311, abs_tol=1e-4)


ELO_WITH_E = dict(ELO, example={"inputs": ELO["example"]["inputs"], "output": [0.6225, 0.5]})

WRONG |= {
    "elo-code-test-and-example-share-a-bug": (_entry(ELO_WITH_E, elo_with_e, test_elo_with_e),
                                              "your equation, read as a formula and evaluated"),
    "layer-norm-first-line-renamed": (_entry(LAYER_NORM_RENAMED, renamed_layer_norm, test_renamed_layer_norm),
                                      "the same as the worked entry (layer norm)'s, or a piece of it"),
    "softmax-renamed": (_entry(GIBBS_RENAMED, gibbs, test_gibbs), "the same as softmax with a temperature's"),
    "softmax-in-another-form": (_entry(GIBBS_LOG_FORM, gibbs, test_gibbs), "computes the course's softmax"),
    "adam-update-renamed": (_entry(ADAM_RENAMED, momentum_free_step, test_momentum_free_step),
                            "the same as Adam's update's"),
    "focal-gamma-only-in-an-exponent-missing": (_entry(FOCAL_NO_GAMMA, focal_loss, test_focal_loss),
                                                "the symbol table has no row for `\\gamma`"),
    "elo-rating-only-in-a-power-missing": (_entry(ELO_NO_R_B, elo_expected, test_elo_expected),
                                           "the symbol table has no row for `R_{B}`"),
    "example-0.01-for-a-true-0.005": (_entry(HALF_SQUARED_ROUNDED_UP, half_squared_error, test_half_squared_error),
                                      "the output you worked by hand"),
}

SCORES = {  # out of 11: each loses only what it got wrong
    "layer-norm-first-line-renamed": 10, "softmax-renamed": 10, "softmax-in-another-form": 10,
    "adam-update-renamed": 10, "focal-gamma-only-in-an-exponent-missing": 10,
    "elo-rating-only-in-a-power-missing": 10, "example-0.01-for-a-true-0.005": 9,
    "elo-code-test-and-example-share-a-bug": 10,  # only the equation, read as a formula, shows the bug
}


# -- right, from a fresh pair of eyes (also graded in a real notebook: full marks) ---------------------


def fresh_huber(y, y_hat, delta=1.0):
    a = np.asarray(y, dtype=float) - np.asarray(y_hat, dtype=float)   # (n,)
    return np.where(np.abs(a) <= delta, 0.5 * a**2, delta * (np.abs(a) - 0.5 * delta))


def test_fresh_huber():
    assert np.allclose(fresh_huber([0.0, 0.0, 0.0], [0.5, -2.0, 3.0], 1.0), [0.125, 1.5, 2.5])
    assert np.isclose(fresh_huber([0.0], [3.0], 2.0)[0], 4.0)      # 2 * (3 - 1): the linear branch at delta = 2
    d = 0.7
    assert np.isclose(fresh_huber([d], [0.0], d)[0], 0.5 * d * d)  # continuous at |a| = delta
    assert np.allclose(fresh_huber([1.0, -1.0], [3.0, -3.0]), fresh_huber([3.0, -3.0], [1.0, -1.0]))


FRESH_HUBER_CASES = {
    "paper": "Huber (1964), Robust Estimation of a Location Parameter: the Huber loss",
    "equation": r"L = \begin{cases} \frac{1}{2} a^2 & |a| \le \delta \\ \delta \left(|a| - \frac{1}{2}\delta\right)"
                r" & \text{otherwise} \end{cases}, \quad a = y - \hat{y}",
    "symbols": {
        "y": ("the targets", ("n",), "y"),
        r"\hat{y}": ("the predictions", ("n",), "y_hat"),
        "a": ("the residuals y - y_hat", ("n",)),
        r"\delta": ("the threshold where the loss turns from quadratic to linear", (), "delta"),
        "L": ("the loss of each example: squared for small residuals, absolute for large ones", ("n",), "return"),
    },
    "example": {"inputs": {"y": [0.0, 0.0, 0.0], "y_hat": [0.5, -2.0, 3.0], "delta": 1.0},
                "output": [0.125, 1.5, 2.5]},
}

RIGHT["fresh-huber-cases-environment"] = _entry(FRESH_HUBER_CASES, fresh_huber, test_fresh_huber)


# -- read as a formula: a norm (issue 33) ---------------------------------------------------------------


def euclidean(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return np.sqrt(np.sum((x - y) ** 2))


def test_euclidean():
    assert np.isclose(euclidean([3.0, 0.0], [0.0, 4.0]), 5.0)
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=6), rng.normal(size=6)
    assert np.isclose(euclidean(x, y), math.sqrt(sum((a - b) ** 2 for a, b in zip(x, y))))
    assert np.isclose(euclidean(x, y), euclidean(y, x)) and np.isclose(euclidean(x, x), 0.0)
    assert np.isclose(euclidean(4 * x, 4 * y), 4 * euclidean(x, y))                # a norm scales linearly
    assert euclidean(x, y) <= euclidean(x, np.zeros(6)) + euclidean(np.zeros(6), y) + 1e-12


EUCLIDEAN = {
    "paper": "Cover and Hart (1967), Nearest Neighbor Pattern Classification: the Euclidean distance",
    "equation": r"r = \lVert x - y \rVert_2",
    "symbols": {
        "x": ("one point", ("d",), "x"),
        "y": ("the other point", ("d",), "y"),
        "r": ("the straight-line distance between them", (), "return"),
    },
    "example": {"inputs": {"x": [3.0, 0.0], "y": [0.0, 4.0]}, "output": 5.0},
}


def distance_without_the_root(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return np.sum((x - y) ** 2)                    # the square of the norm, not the norm


def test_distance_without_the_root():  # worked from the code: it shares the code's misreading
    assert np.isclose(distance_without_the_root([3.0, 0.0], [0.0, 4.0]), 25.0)
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=6), rng.normal(size=6)
    assert np.isclose(distance_without_the_root(x, y), sum((a - b) ** 2 for a, b in zip(x, y)))
    assert np.isclose(distance_without_the_root(x, y), distance_without_the_root(y, x))


EUCLIDEAN_SQUARED = dict(EUCLIDEAN, example={"inputs": EUCLIDEAN["example"]["inputs"], "output": 25.0})

RIGHT["euclidean-distance-norm"] = _entry(EUCLIDEAN, euclidean, test_euclidean)
WRONG["distance-code-example-and-test-forget-the-square-root"] = (
    _entry(EUCLIDEAN_SQUARED, distance_without_the_root, test_distance_without_the_root),
    "does not compute what the equation says")
SCORES["distance-code-example-and-test-forget-the-square-root"] = 10  # only the equation shows the bug
