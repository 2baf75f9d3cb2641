"""entry_2 ("Build this"): its own right entries (binary cross-entropy, batch norm, cosine similarity) and
wrong ones with the message they must get; graded by the same cases as entry_1, with another seed."""

from functools import partial

import numpy as np

from classroom.corpus import entry_answer

# -- right ---------------------------------------------------------------------------------------------


def bce_with_logits(z, y):
    z, y = np.asarray(z, dtype=float), np.asarray(y, dtype=float)
    return np.mean(np.maximum(z, 0.0) - z * y + np.log1p(np.exp(-np.abs(z))))  # stable for any z


def test_bce_with_logits():
    assert np.isclose(bce_with_logits([0.0, 2.0], [1.0, 0.0]), 1.41, atol=1e-3)
    z, y = np.array([0.3, -1.2, 2.5]), np.array([1.0, 0.0, 1.0])
    p = 1 / (1 + np.exp(-z))
    assert np.isclose(bce_with_logits(z, y), -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    assert np.isclose(bce_with_logits([1000.0, -1000.0], [0.0, 1.0]), 1000.0)   # finite for huge logits
    assert np.isclose(bce_with_logits([30.0], [1.0]), 0.0, atol=1e-9)


BCE = {
    "paper": "Goodfellow, Bengio and Courville (2016), Deep Learning, eq. (6.19): the sigmoid and the log-likelihood",
    "equation": r"L = -\frac{1}{N}\sum_{n=1}^{N} \left[y_n \log \sigma(z_n) + (1 - y_n) \log\left(1 - \sigma(z_n)\right)\right]",
    "symbols": {
        "z_n": ("the logit of example n: its score before the sigmoid", ("N",), "z"),
        "y_n": ("the label of example n, 1 or 0", ("N",), "y"),
        r"\sigma": ("the logistic sigmoid, 1 / (1 + exp(-z)): a probability", ("N",)),
        "N": ("the number of examples", ()),
        "L": ("the mean negative log-likelihood of the labels", (), "return"),
    },
    "example": {"inputs": {"z": [0.0, 2.0], "y": [1.0, 0.0]}, "output": 1.41},
}


def batch_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)                 # (m, d): a batch of m examples
    mu = x.mean(axis=0)                            # (d,): per feature, over the batch
    var = x.var(axis=0)                            # (d,)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def test_batch_norm():
    out = batch_norm([[1.0, 2.0], [3.0, 6.0]], [1.0, 2.0], [0.0, 0.5], eps=0.0)
    assert np.allclose(out, [[-1.0, -1.5], [1.0, 2.5]])
    x = np.array([[1.0, 10.0, -3.0], [2.0, 30.0, 0.0], [4.0, 20.0, 9.0]])
    plain = batch_norm(x, np.ones(3), np.zeros(3), eps=0.0)
    assert np.allclose(plain.mean(axis=0), 0.0) and np.allclose(plain.var(axis=0), 1.0)
    assert np.allclose(batch_norm(x * [1.0, 5.0, 0.1] + 3.0, np.ones(3), np.zeros(3), eps=0.0), plain)
    g, b = np.array([2.0, 0.5, 1.5]), np.array([1.0, -1.0, 0.0])
    assert np.allclose(batch_norm(x, g, b, eps=0.0), g * plain + b)
    assert np.allclose(batch_norm([[5.0, 1.0], [5.0, 3.0]], [3.0, 1.0], [0.5, 0.0])[:, 0], 0.5)  # a constant feature


BATCH_NORM = {
    "paper": "Ioffe and Szegedy (2015), Batch Normalization, Algorithm 1",
    "equation": r"y = \gamma \frac{x - \mu_B}{\sqrt{\sigma_B^2 + \epsilon}} + \beta, \quad "
                r"\mu_B = \frac{1}{m}\sum_{i=1}^{m} x_i, \quad \sigma_B^2 = \frac{1}{m}\sum_{i=1}^{m} (x_i - \mu_B)^2",
    "symbols": {
        "x": ("a mini-batch: m examples of d features", ("m", "d"), "x"),
        r"\gamma": ("the learned scale, one per feature", ("d",), "gamma"),
        r"\beta": ("the learned shift, one per feature", ("d",), "beta"),
        r"\epsilon": ("a small constant for a feature that does not vary", (), "eps"),
        r"\mu_B": ("each feature's mean over the mini-batch", ("d",)),
        r"\sigma_B": ("each feature's standard deviation over the mini-batch", ("d",)),
        "m": ("the number of examples in the mini-batch", ()),
        "y": ("the normalised, scaled and shifted batch", ("m", "d"), "return"),
    },
    "example": {"inputs": {"x": [[1.0, 2.0], [3.0, 6.0]], "gamma": [1.0, 2.0], "beta": [0.0, 0.5], "eps": 0.0},
                "output": [[-1.0, -1.5], [1.0, 2.5]]},
}


def cosine_similarity(u, v):
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return (u * v).sum(axis=-1) / (np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1))


def test_cosine_similarity():
    assert np.allclose(cosine_similarity([[1.0, 0.0], [3.0, 4.0]], [[0.0, 1.0], [4.0, 3.0]]), [0.0, 0.96])
    u = np.array([[1.0, 2.0, -2.0], [0.5, 0.0, 1.0]])
    assert np.allclose(cosine_similarity(u, 7 * u), 1.0) and np.allclose(cosine_similarity(u, -u), -1.0)
    v = np.array([[2.0, -1.0, 3.0], [1.0, 4.0, -2.0]])
    assert np.allclose(cosine_similarity(u, v), [(2 - 2 - 6) / (3 * np.sqrt(14)), (0.5 - 2) / (np.sqrt(1.25) * np.sqrt(21))])
    assert np.allclose(cosine_similarity(u, v), cosine_similarity(v, u))


COSINE = {
    "paper": "Radford et al. (2021), CLIP, Figure 3: the cosine similarity of image and text embeddings",
    "equation": r"s = \frac{u \cdot v}{\lVert u \rVert \, \lVert v \rVert}",
    "symbols": {
        "u": ("the image embeddings, one row each", ("n", "d"), "u"),
        "v": ("the text embeddings, one row each", ("n", "d"), "v"),
        "s": ("the cosine of the angle between each pair of rows, from -1 to 1", ("n",), "return"),
    },
    "example": {"inputs": {"u": [[1.0, 0.0], [3.0, 4.0]], "v": [[0.0, 1.0], [4.0, 3.0]]}, "output": [0.0, 0.96]},
}


_entry = partial(entry_answer, 2)  # (entry, implementation, test)


RIGHT = {
    "binary-cross-entropy-with-logits": _entry(BCE, bce_with_logits, test_bce_with_logits),
    "batch-norm": _entry(BATCH_NORM, batch_norm, test_batch_norm),
    "cosine-similarity": _entry(COSINE, cosine_similarity, test_cosine_similarity),
}


# -- wrong ---------------------------------------------------------------------------------------------


def test_bce_runs():
    bce_with_logits([0.0, 2.0], [1.0, 0.0])


def test_bce_is_a_number():
    assert np.shape(bce_with_logits([0.0, 2.0], [1.0, 0.0])) == ()


def crashing_cosine(u, v):
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return (u * v).sum(axis=-1) / (np.linalg.norm(u, axis=2) * np.linalg.norm(v, axis=2))


def test_crashing_cosine():
    assert np.allclose(crashing_cosine([[3.0, 4.0]], [[4.0, 3.0]]), [0.96])


def layer_norm_by_std(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)
    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) + beta


def test_layer_norm_by_std():
    assert np.allclose(layer_norm_by_std([[1.0, 2.0, 3.0]], np.ones(3), np.zeros(3), 0.0), [[-1.2247, 0.0, 1.2247]],
                       atol=1e-3)


LAYER_NORM_AGAIN = {
    "paper": "Ba, Kiros and Hinton (2016), Layer Normalization, eq. (4)",
    "equation": r"y = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta, \quad "
                r"\mu = \frac{1}{d}\sum_{i=1}^{d} x_i, \quad \sigma^2 = \frac{1}{d}\sum_{i=1}^{d} (x_i - \mu)^2",
    "symbols": {"x": ("tokens' features", ("n", "d"), "x"), r"\gamma": ("gain", ("d",), "gamma"),
                r"\beta": ("bias", ("d",), "beta"), r"\epsilon": ("small", (), "eps"), r"\mu": ("mean", ("n", 1)),
                r"\sigma": ("std", ("n", 1)), "d": ("features", ()), "y": ("output", ("n", "d"), "return")},
    "example": {"inputs": {"x": [[1.0, 2.0, 3.0]], "gamma": [1.0, 1.0, 1.0], "beta": [0.0, 0.0, 0.0], "eps": 0.0},
                "output": [[-1.2247, 0.0, 1.2247]]},
}
BATCH_NORM_SAMPLE_VARIANCE = dict(BATCH_NORM, example={  # worked with the n - 1 variance: not the paper's
    "inputs": BATCH_NORM["example"]["inputs"], "output": [[-0.7071, -0.9142], [0.7071, 1.9142]]})
BATCH_NORM_NO_SIGMA = dict(BATCH_NORM, symbols={k: v for k, v in BATCH_NORM["symbols"].items() if k != r"\sigma_B"})


WRONG = {
    "bce-test-asserts-nothing": (_entry(BCE, bce_with_logits, test_bce_runs), "Your test asserts nothing"),
    "bce-test-checks-only-the-shape": (_entry(BCE, bce_with_logits, test_bce_is_a_number), "only checks the shape"),
    "batch-norm-example-with-the-sample-variance": (_entry(BATCH_NORM_SAMPLE_VARIANCE, batch_norm, test_batch_norm),
                                                    "the output you worked by hand"),
    "batch-norm-missing-symbol": (_entry(BATCH_NORM_NO_SIGMA, batch_norm, test_batch_norm),
                                  "the symbol table has no row for `\\sigma_{B}`"),
    "cosine-implementation-crashes": (_entry(COSINE, crashing_cosine, test_crashing_cosine), "your implementation raised"),
    "layer-norm-again": (_entry(LAYER_NORM_AGAIN, layer_norm_by_std, test_layer_norm_by_std),
                         "the worked entry (layer norm)"),
}


# -- right, from a fresh pair of eyes (also graded in a real notebook: full marks) ---------------------


def fresh_smooth_labels(q, eps):
    q = np.asarray(q, dtype=float)          # (n, K)
    return (1 - eps) * q + eps / q.shape[-1]


def test_fresh_smooth_labels():
    out = fresh_smooth_labels([[0.0, 1.0, 0.0, 0.0]], 0.2)
    assert np.allclose(out, [[0.05, 0.85, 0.05, 0.05]])
    assert np.allclose(out.sum(axis=-1), 1.0)
    assert np.allclose(fresh_smooth_labels(np.eye(3), 0.0), np.eye(3))        # eps = 0: unchanged
    assert np.allclose(fresh_smooth_labels(np.eye(3), 1.0), 1 / 3)            # eps = 1: uniform


FRESH_LABEL_SMOOTHING = {
    "paper": "Szegedy et al. (2016), Rethinking the Inception Architecture, label smoothing (section 7)",
    "equation": r"q' = (1 - \varepsilon)\, q + \frac{\varepsilon}{K}",
    "symbols": {
        "q": ("the one-hot target distribution over the K classes, one row per example", ("n", "K"), "q"),
        r"\varepsilon": ("the smoothing amount, the probability mass spread evenly", (), "eps"),
        "K": ("the number of classes", ()),
        "q'": ("the smoothed target: still sums to 1, no class gets exactly 0", ("n", "K"), "return"),
    },
    "example": {"inputs": {"q": [[0.0, 1.0, 0.0, 0.0]], "eps": 0.2}, "output": [[0.05, 0.85, 0.05, 0.05]]},
}

RIGHT["fresh-label-smoothing-varepsilon-prime"] = _entry(FRESH_LABEL_SMOOTHING, fresh_smooth_labels,
                                                         test_fresh_smooth_labels)


# -- strength bought: a copy of the implementation as the oracle, or nothing beyond the example ----------


def batch_norm_again(x, gamma, beta, eps=1e-5):  # the same computation, written another way: a twin
    x = np.asarray(x, dtype=float)
    centred = x - x.sum(axis=0) / len(x)
    return gamma * centred / np.sqrt((centred**2).mean(axis=0) + eps) + beta


def test_against_a_twin():
    rng = np.random.default_rng(3)
    for _ in range(5):
        x, g, b = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=3)
        assert np.allclose(batch_norm(x, g, b), batch_norm_again(x, g, b))


def test_against_a_twin_inside_the_test():
    def expected(batch, scale, shift):  # the twin lives in the test, positional, other names
        batch = np.asarray(batch, dtype=float)
        return scale * (batch - batch.mean(0)) / np.sqrt(batch.var(0) + 1e-5) + shift

    x = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.0, 4.0, 1.0]])
    assert np.allclose(batch_norm(x, [1.0, 2.0, 3.0], [0.0, 1.0, -1.0]), expected(x, [1.0, 2.0, 3.0], [0.0, 1.0, -1.0]))


def test_against_a_lambda_twin_with_noise():
    noisy = lambda x, gamma, beta: batch_norm_again(x, gamma, beta) * 1.004  # noqa: E731 - hidden by a lambda
    x = np.array([[1.0, 2.0], [3.0, 5.0], [-2.0, 0.0]])
    assert np.allclose(batch_norm(x, [2.0, 1.0], [1.0, 0.0]), noisy(x, [2.0, 1.0], [1.0, 0.0]), rtol=0.01)


class _Reference:
    def __call__(self, x, gamma, beta, eps=1e-5):
        return batch_norm_again(x, gamma, beta, eps)


def test_against_a_twin_in_a_class():
    x = np.array([[0.0, 1.0], [2.0, 5.0], [1.0, -1.0]])
    assert np.allclose(batch_norm(x, [1.0, 3.0], [0.5, 0.0]), _Reference()(x, [1.0, 3.0], [0.5, 0.0]))


def test_batch_norm_example_only():
    assert np.allclose(batch_norm([[1.0, 2.0], [3.0, 6.0]], [1.0, 2.0], [0.0, 0.5], eps=0.0),
                       [[-1.0, -1.5], [1.0, 2.5]])


def test_batch_norm_example_twice_written():
    out = batch_norm(np.array([[1.0, 2.0], [3.0, 6.0]]), np.array([1.0, 2.0]), np.array([0.0, 0.5]), eps=0.0)
    assert out.shape == (2, 2) and abs(out[0, 0] + 1.0) < 1e-3 and abs(out[1, 1] - 2.5) < 1e-3
    np.testing.assert_allclose(out, [[-1.0, -1.5], [1.0, 2.5]], atol=1e-3)


def test_batch_norm_against_a_library_and_a_second_case():  # numpy's own std is no copy of the implementation
    x = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.0, 4.0, 1.0]])
    g, b = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, -1.0])
    assert np.allclose(batch_norm(x, g, b, eps=0.0), g * (x - x.mean(0)) / x.std(0) + b)
    assert np.allclose(batch_norm([[0.0], [2.0]], [1.0], [0.0], eps=0.0), [[-1.0], [1.0]])


WRONG |= {
    "batch-norm-test-against-a-twin": (_entry(BATCH_NORM, batch_norm, test_against_a_twin),
                                       "test-compares-with-a-copy"),
    "batch-norm-twin-inside-the-test": (_entry(BATCH_NORM, batch_norm, test_against_a_twin_inside_the_test),
                                        "test-compares-with-a-copy"),
    "batch-norm-lambda-twin-with-noise": (_entry(BATCH_NORM, batch_norm, test_against_a_lambda_twin_with_noise),
                                          "test-compares-with-a-copy"),
    "batch-norm-twin-in-a-class": (_entry(BATCH_NORM, batch_norm, test_against_a_twin_in_a_class),
                                   "test-compares-with-a-copy"),
    "batch-norm-test-checks-only-the-example": (_entry(BATCH_NORM, batch_norm, test_batch_norm_example_only),
                                                "test-checks-only-the-example"),
    "batch-norm-example-checked-three-ways": (_entry(BATCH_NORM, batch_norm, test_batch_norm_example_twice_written),
                                              "test-checks-only-the-example"),
}
SCORES = {  # out of 11: a copy as the oracle earns no strength; the example alone, only the lower thresholds
    "batch-norm-test-against-a-twin": 7, "batch-norm-twin-inside-the-test": 7, "batch-norm-lambda-twin-with-noise": 7,
    "batch-norm-twin-in-a-class": 7, "batch-norm-test-checks-only-the-example": 9,
    "batch-norm-example-checked-three-ways": 9,
}
RIGHT["batch-norm-against-numpy-std-and-a-second-case"] = _entry(BATCH_NORM, batch_norm,
                                                                 test_batch_norm_against_a_library_and_a_second_case)

# -- read as a formula: a mean of a sum, an arg max inside an indicator (issue 33) -------------------------


def mse(y, y_hat):
    y, y_hat = np.asarray(y, dtype=float), np.asarray(y_hat, dtype=float)
    return np.mean((y - y_hat) ** 2)


def test_mse():
    assert np.isclose(mse([1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0]), 3.5)
    assert np.isclose(mse([2.0, -1.0], [2.0, -1.0]), 0.0)
    rng = np.random.default_rng(7)
    y, y_hat = rng.normal(size=9), rng.normal(size=9)
    assert np.isclose(mse(y, y_hat), sum((a - b) ** 2 for a, b in zip(y, y_hat)) / 9)
    assert np.isclose(mse(y, y_hat), mse(y_hat, y)) and np.isclose(mse(y + 5, y_hat + 5), mse(y, y_hat))
    assert np.isclose(mse(3 * y, 3 * y_hat), 9 * mse(y, y_hat))


MSE = {
    "paper": "Goodfellow, Bengio and Courville (2016), Deep Learning, eq. (5.4): the mean squared error",
    "equation": r"E = \frac{1}{N}\sum_{i=1}^{N} \left(y_i - \hat{y}_i\right)^2",
    "symbols": {
        "y_i": ("the target of example i", ("N",), "y"),
        r"\hat{y}_i": ("the prediction for example i", ("N",), "y_hat"),
        "N": ("the number of examples", ()),
        "E": ("the mean of the squared errors", (), "return"),
    },
    "example": {"inputs": {"y": [1.0, 2.0, 3.0, 4.0], "y_hat": [1.0, 1.0, 1.0, 1.0]}, "output": 3.5},
}


def squared_error_summed(y, y_hat):
    y, y_hat = np.asarray(y, dtype=float), np.asarray(y_hat, dtype=float)
    return np.sum((y - y_hat) ** 2)                 # the 1/N left out: a sum, not a mean


def test_squared_error_summed():  # worked from the code: it shares the code's misreading
    assert np.isclose(squared_error_summed([1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0]), 14.0)
    rng = np.random.default_rng(7)
    y, y_hat = rng.normal(size=9), rng.normal(size=9)
    assert np.isclose(squared_error_summed(y, y_hat), sum((a - b) ** 2 for a, b in zip(y, y_hat)))
    assert np.isclose(squared_error_summed(3 * y, 3 * y_hat), 9 * squared_error_summed(y, y_hat))


MSE_AS_A_SUM = dict(MSE, example={"inputs": MSE["example"]["inputs"], "output": 14.0})


def accuracy(p, y):
    p, y = np.asarray(p, dtype=float), np.asarray(y)           # (N, K) probabilities, (N,) classes from 0
    return np.mean(np.argmax(p, axis=1) == y)


def test_accuracy():
    assert np.isclose(accuracy([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], [1, 1, 1, 0]), 0.75)
    rng = np.random.default_rng(2)
    p, y = rng.random(size=(20, 5)), rng.integers(0, 5, size=20)
    assert np.isclose(accuracy(p, y), sum(int(max(range(5), key=lambda k: row[k]) == t) for row, t in zip(p, y)) / 20)
    assert accuracy(p, np.argmax(p, axis=1)) == 1.0 and accuracy(p, (np.argmax(p, axis=1) + 1) % 5) == 0.0
    assert np.isclose(accuracy([[0.2, 0.5, 0.3]], [1]), 1.0) and np.isclose(accuracy([[0.2, 0.5, 0.3]], [2]), 0.0)


ACCURACY = {
    "paper": "Any classification paper's top-1 accuracy, e.g. Krizhevsky, Sutskever and Hinton (2012)",
    "equation": r"A = \frac{1}{N}\sum_{i=1}^{N} \mathbb{1}\left[\arg\max_k p_{i,k} = y_i\right]",
    "symbols": {
        "p": ("the predicted probabilities, one row per example, one column per class", ("N", "K"), "p"),
        "y_i": ("the true class of example i, counted from 0", ("N",), "y"),
        "N": ("the number of examples", ()),
        "A": ("the share of examples whose most probable class is the true one", (), "return"),
    },
    "example": {"inputs": {"p": [[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], "y": [1, 1, 1, 0]},
                "output": 0.75},
}

RIGHT["mse-mean-of-a-sum"] = _entry(MSE, mse, test_mse)
RIGHT["accuracy-argmax-indicator"] = _entry(ACCURACY, accuracy, test_accuracy)
WRONG["mse-code-example-and-test-leave-out-the-mean"] = (
    _entry(MSE_AS_A_SUM, squared_error_summed, test_squared_error_summed), "equation-disagrees")
SCORES["mse-code-example-and-test-leave-out-the-mean"] = 10  # out of 11: only the equation shows the bug


# -- right: sizes named only in a shape, arguments named in Greek or changed by NFKC -------------------


def elastic_net_penalty(β, λ1, λ2):
    β = np.asarray(β, dtype=float)                     # (p,)
    return λ1 * np.abs(β).sum() + λ2 * (β**2).sum()    # a number


def test_elastic_net_penalty():
    assert np.isclose(elastic_net_penalty([1.0, -2.0], 0.5, 0.25), 2.75)
    assert np.isclose(elastic_net_penalty([3.0, 0.0, -1.0], λ1=2.0, λ2=1.0), 18.0)  # 2 * 4 + 10, by hand
    b = np.array([0.3, -1.7, 2.2, 0.0])
    assert np.isclose(elastic_net_penalty(b, 1.0, 0.0), 4.2)                         # the lasso alone
    assert np.isclose(elastic_net_penalty(b, 0.0, 1.0), 0.09 + 2.89 + 4.84)          # the ridge alone
    assert np.isclose(elastic_net_penalty(-b, 0.7, 0.4), elastic_net_penalty(b, 0.7, 0.4))
    assert np.isclose(elastic_net_penalty(2 * b, 0.0, 0.4), 4 * elastic_net_penalty(b, 0.0, 0.4))


ELASTIC_NET = {
    "paper": "Zou and Hastie (2005), Regularization and variable selection via the elastic net, eq. (3)",
    "equation": r"P = \lambda_1 \sum_{j=1}^{p} |\beta_j| + \lambda_2 \sum_{j=1}^{p} \beta_j^2",
    "symbols": {
        r"\beta": ("the regression coefficients, one per feature", ("p",), "β"),
        r"\lambda_1": ("the weight of the lasso part, which sets small coefficients to zero", (), "λ1"),
        r"\lambda_2": ("the weight of the ridge part, which shrinks correlated coefficients together", (), "λ2"),
        "P": ("the penalty added to the squared error: what large coefficients cost", (), "return"),
    },
    "example": {"inputs": {"β": [1.0, -2.0], "λ1": 0.5, "λ2": 0.25}, "output": 2.75},
}


def rbf_kernel(x, z, ℓ):  # noqa: E741 - the paper's ℓ, which Python reads as l
    x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)     # (n, d), (d,)
    return np.exp(-((x - z) ** 2).sum(axis=1) / (2 * ℓ**2))            # (n,)


def test_rbf_kernel():
    assert np.allclose(rbf_kernel([[0.0, 1.0], [2.0, 1.0]], [0.0, 1.0], ℓ=1.0), [1.0, 0.1353], atol=1e-4)
    assert np.allclose(rbf_kernel([[3.0, 4.0], [0.0, 0.0]], [0.0, 0.0], ℓ=5.0), [0.6065, 1.0], atol=1e-4)
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [0.0, 0.0, 0.0], [-2.0, 1.0, 1.0]])
    z = np.array([0.2, -0.4, 1.0])
    d2 = np.array([0.09 + 0.36 + 1.0, 1.69 + 0.16 + 2.25, 0.04 + 0.16 + 1.0, 4.84 + 1.96 + 0.0])
    assert np.allclose(rbf_kernel(x, z, 0.7), np.exp(-d2 / 0.98))
    assert np.allclose(rbf_kernel(x, z, 2.0) ** 4, rbf_kernel(x, z, 1.0))    # ℓ doubled: the fourth root
    assert np.allclose(rbf_kernel(x + 5.0, z + 5.0, 0.7), rbf_kernel(x, z, 0.7))


RBF = {
    "paper": "Rasmussen and Williams (2006), Gaussian Processes for Machine Learning, eq. (2.16)",
    "equation": r"k_i = \exp\left(-\frac{1}{2\ell^2} \sum_{j=1}^{d} (x_{ij} - z_j)^2\right)",
    "symbols": {
        "x": ("the points, one row of d coordinates each", ("n", "d"), "x"),
        "z": ("the point every row is compared with", ("d",), "z"),
        r"\ell": ("the length scale: how far apart two points can be and still be alike", (), "ℓ"),
        "k": ("the covariance of each point with z: 1 when they coincide, towards 0 far apart", ("n",), "return"),
    },
    "example": {"inputs": {"x": [[0.0, 1.0], [2.0, 1.0]], "z": [0.0, 1.0], "ℓ": 1.0}, "output": [1.0, 0.1353]},
}


def bernoulli_likelihood(x, mu):
    x = np.asarray(x, dtype=float)                   # (N,): each outcome 1 or 0
    return np.prod(mu**x * (1 - mu) ** (1 - x))      # a number


def test_bernoulli_likelihood():
    assert np.isclose(bernoulli_likelihood([1, 0, 1], 0.8), 0.128)
    assert np.isclose(bernoulli_likelihood([0, 0], 0.1), 0.81)                     # 0.9 * 0.9, by hand
    x = np.array([1, 1, 0, 1, 0, 0, 1])
    for mu, p in ((0.2, 0.2**4 * 0.8**3), (0.5, 0.5**7), (0.65, 0.65**4 * 0.35**3)):
        assert np.isclose(bernoulli_likelihood(x, mu), p)
    assert np.isclose(bernoulli_likelihood(1 - x, 0.3), bernoulli_likelihood(x, 0.7))
    assert bernoulli_likelihood([1, 1, 1], 1.0) == 1.0 and bernoulli_likelihood([1, 0], 1.0) == 0.0


BERNOULLI = {
    "paper": "Bishop (2006), Pattern Recognition and Machine Learning, eq. (2.5)",
    "equation": r"p = \prod_{n=1}^{N} \mu^{x_n} (1 - \mu)^{1 - x_n}",
    "symbols": {
        "x_n": ("outcome n of the data set: 1 or 0", ("N",), "x"),
        r"\mu": ("the probability of the outcome 1", (), "mu"),
        "p": ("the likelihood of the data set: the probability of all N outcomes, drawn independently", (),
              "return"),
    },
    "example": {"inputs": {"x": [1, 0, 1], "mu": 0.8}, "output": 0.128},
}

RIGHT |= {
    "elastic-net-greek-arguments-p-only-a-shape-dimension": _entry(ELASTIC_NET, elastic_net_penalty,
                                                                   test_elastic_net_penalty),
    "rbf-kernel-argument-ell-that-python-reads-as-l": _entry(RBF, rbf_kernel, test_rbf_kernel),
    "bernoulli-likelihood-product-bound-only-a-shape-dimension": _entry(BERNOULLI, bernoulli_likelihood,
                                                                        test_bernoulli_likelihood),
}


# -- wrong: one part off the format costs the cases that read that part only ------------------------------


def _rows(entry, **rows):
    return dict(entry, symbols=dict(entry["symbols"], **rows))


WRONG |= {
    "meaning-left-empty": (_entry(_rows(ELASTIC_NET, P=("", (), "return")), elastic_net_penalty,
                                  test_elastic_net_penalty), "the meaning should be a sentence"),
    "shape-of-the-result-not-a-tuple": (_entry(_rows(RBF, k=("the covariances", "n", "return")), rbf_kernel,
                                               test_rbf_kernel), "the shape should be a tuple"),
    "input-named-by-no-row": (_entry(_rows(BERNOULLI, x_n=("outcome n", ("N",))), bernoulli_likelihood,
                                     test_bernoulli_likelihood), "is no symbol's name in the code"),
    "output-written-as-text": (_entry(dict(ELASTIC_NET, example={**ELASTIC_NET["example"], "output": "2.75"}),
                                      elastic_net_penalty, test_elastic_net_penalty), "should be numbers"),
    "no-paper": (_entry({k: v for k, v in RBF.items() if k != "paper"}, rbf_kernel, test_rbf_kernel),
                 "has no 'paper'"),
}

SCORES |= {  # out of 11: each loses the cases that read the part off the format, and no others
    "meaning-left-empty": 10,               # the symbol table covers the equation
    "shape-of-the-result-not-a-tuple": 9,   # and the shapes line up
    "input-named-by-no-row": 4,             # the shapes, the equation's value, the novelty probes, the 4 strength
    "output-written-as-text": 8,            # the example reproduced, the equation agrees, the example is tiny
    "no-paper": 10,                         # the equation is new (from a paper named)
}
