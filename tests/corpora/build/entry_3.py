"""entry_3 ("Build this"): its own right entries (Huber loss, label smoothing, a Gaussian log-likelihood) and
wrong ones with the message they must get; graded by the same cases as entry_1, with another seed."""

import math

import numpy as np

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


def _entry(entry, implementation, test):
    return {"entry_3": entry, "implementation_3": implementation, "test_3": test}


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
