"""entry_1 ("Build this"): complete right entries for real equations, and wrong ones with the message they must get.

Each answer is the three names of an entry, ``entry_1``, ``implementation_1`` and ``test_1``.  Tests call
their implementation by its own name, as students write them; the mutants stand in for it under every name
it has.  Entries 2 and 3 have corpora of their own, on other equations.
"""

import math
from functools import partial

import numpy as np

from classroom.corpus import entry_answer

# -- right: real equations, complete entries ----------------------------------------------------------


def gelu(x):
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def test_gelu():
    assert np.allclose(gelu([-1.0, 0.0, 1.0, 2.0]), [-0.1588, 0.0, 0.8412, 1.9546], atol=1e-3)
    for x in (-3.0, -0.5, 0.7, 2.5):  # within 1e-3 of the exact x * Phi(x)
        assert abs(gelu(np.array([x]))[0] - 0.5 * x * (1 + math.erf(x / math.sqrt(2)))) < 1e-3
    assert np.allclose(gelu(np.array([10.0, -10.0])), [10.0, 0.0], atol=1e-6)


GELU = {
    "paper": "Hendrycks and Gimpel (2016), GELUs, the tanh approximation",
    "equation": r"y = 0.5\,x\,\left(1 + \tanh\left(\sqrt{2/\pi}\,(x + 0.044715\,x^3)\right)\right)",
    "symbols": {
        "x": ("pre-activations, element by element", ("n",), "x"),
        "y": ("activations", ("n",), "return"),
    },
    "example": {"inputs": {"x": [-1.0, 0.0, 1.0, 2.0]}, "output": [-0.1588, 0.0, 0.8412, 1.9546]},
}


def gelu_exact(x):
    values = np.asarray(x, dtype=float)
    flat = [v * 0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in values.ravel()]
    return np.array(flat).reshape(values.shape)


def test_gelu_exact():
    np.testing.assert_allclose(gelu_exact([-1.0, 0.0, 1.0, 2.0]), [-0.1587, 0.0, 0.8413, 1.9545], atol=1e-3)
    assert gelu_exact(np.array([-0.75]))[0] < -0.16  # the dip below zero that ReLU does not have
    np.testing.assert_allclose(gelu_exact(np.array([[8.0, -8.0]])), [[8.0, 0.0]], atol=1e-9)
    np.testing.assert_allclose(gelu_exact(np.array([0.5])) - gelu_exact(np.array([-0.5])), [0.5])  # x Phi(x) - (-x)Phi(-x) = x


GELU_EXACT = {
    "paper": "Hendrycks and Gimpel (2016), Gaussian Error Linear Units, eq. (1)",
    "equation": r"y = x\,\Phi(x), \quad \Phi(x) = \frac{1}{2}\left(1 + \mathrm{erf}\left(x / \sqrt{2}\right)\right)",
    "symbols": {  # keys in Unicode are read as LaTeX
        "x": ("the pre-activations, acted on element by element", ("n",), "x"),
        "Φ": ("the standard normal CDF: the probability that a standard normal is below x", ("n",)),
        "y": ("the activations: x weighed by how likely a standard normal is to fall below it", ("n",), "return"),
    },
    "example": {"inputs": {"x": [-1.0, 0.0, 1.0, 2.0]}, "output": [-0.1587, 0.0, 0.8413, 1.9545]},
}


def rms_norm(x, g, eps=1e-8):
    x = np.asarray(x, dtype=float)
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * g


def test_rms_norm():
    assert np.allclose(rms_norm([[3.0, 4.0], [1.0, -1.0]], [1.0, 0.5], eps=0.0), [[0.8485, 0.5657], [1.0, -0.5]],
                       atol=1e-3)
    x, g = np.array([[1.0, 2.0, 4.0], [-3.0, 0.5, 9.0]]), np.array([2.0, 1.0, 0.5])
    assert np.allclose(rms_norm(7 * x, g, eps=0.0), rms_norm(x, g, eps=0.0))
    assert np.allclose(np.sqrt(np.mean(rms_norm(x, np.ones(3), eps=0.0) ** 2, axis=-1)), 1.0)
    assert np.allclose(rms_norm(np.zeros((1, 3)), g, eps=1e-8), 0.0)


RMS_NORM = {
    "paper": "Zhang and Sennrich (2019), Root Mean Square Layer Normalization, eq. (4)",
    "equation": r"\bar{a}_i = \frac{a_i}{\mathrm{RMS}(a)} g_i, \quad \mathrm{RMS}(a) = \sqrt{\frac{1}{n}\sum_{i=1}^{n} a_i^2 + \epsilon}",
    "symbols": {
        "a": ("the summed inputs of a layer: a batch of rows of n features", ("batch", "n"), "x"),
        "g": ("the gain, one per feature", ("n",), "g"),
        "n": ("the number of features", ()),
        r"\epsilon": ("keeps the division finite for a zero row", (), "eps"),
        r"\bar{a}": ("the normalised and re-scaled inputs", ("batch", "n"), "return"),
    },
    "example": {"inputs": {"x": [[3.0, 4.0], [1.0, -1.0]], "g": [1.0, 0.5], "eps": 0.0},
                "output": [[0.8485, 0.5657], [1.0, -0.5]]},
}


def kl_gaussians(mu1, sigma1, mu2, sigma2):
    mu1, sigma1, mu2, sigma2 = (np.asarray(a, dtype=float) for a in (mu1, sigma1, mu2, sigma2))
    return np.log(sigma2 / sigma1) + (sigma1**2 + (mu1 - mu2) ** 2) / (2 * sigma2**2) - 0.5


def test_kl_gaussians():
    assert np.allclose(kl_gaussians([0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 2.0]), [0.0, 0.4431], atol=1e-3)
    assert np.allclose(kl_gaussians([0.7], [1.5], [0.7], [1.5]), 0.0)
    assert np.allclose(kl_gaussians([3.0], [1.0], [0.0], [1.0]), 4.5)
    a, b = kl_gaussians([0.0], [1.0], [1.0], [3.0]), kl_gaussians([1.0], [3.0], [0.0], [1.0])
    assert np.allclose(a, np.log(3.0) + 2.0 / 18.0 - 0.5) and not np.allclose(a, b) and b[0] > 0


KL = {
    "paper": "Kingma and Welling (2014), Auto-Encoding Variational Bayes: the KL term, for two Gaussians",
    "equation": r"D = \log\frac{\sigma_2}{\sigma_1} + \frac{\sigma_1^2 + (\mu_1 - \mu_2)^2}{2\sigma_2^2} - \frac{1}{2}",
    "symbols": {
        "μ₁": ("the mean of q", ("n",), "mu1"),
        "σ₁": ("the standard deviation of q", ("n",), "sigma1"),
        "μ₂": ("the mean of p", ("n",), "mu2"),
        "σ₂": ("the standard deviation of p", ("n",), "sigma2"),
        "D": ("KL(q || p) for each of n pairs of Gaussians: how different p is from q", ("n",), "return"),
    },
    "example": {"inputs": {"mu1": [0.0, 1.0], "sigma1": [1.0, 1.0], "mu2": [0.0, 0.0], "sigma2": [1.0, 2.0]},
                "output": [0.0, 0.4431]},
}


def cross_entropy(z, y):
    z, y = np.asarray(z, dtype=float), np.asarray(y)
    shifted = z - z.max(axis=-1, keepdims=True)                              # (N, K): no overflow
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))    # (N, K) log-softmax
    return -log_p[np.arange(len(y)), y].mean()                                # mean over the batch


def test_cross_entropy():
    assert abs(cross_entropy([[2.0, 1.0, 0.0], [0.0, 0.0, 3.0]], [0, 2]) - 0.2513) < 1e-3
    assert np.isclose(cross_entropy(np.zeros((2, 4)), [1, 3]), np.log(4))      # uniform logits: log K
    z = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, -2.0], [3.0, 0.0, 0.0]])
    y = np.array([2, 0, 1])
    assert np.isclose(cross_entropy(z + 100.0, y), cross_entropy(z, y))          # shifts change nothing
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    assert np.isclose(cross_entropy(z, y), -np.log(p[[0, 1, 2], y]).mean())
    assert np.isfinite(cross_entropy([[1000.0, -1000.0]], [1]))


CROSS_ENTROPY = {
    "paper": "Goodfellow, Bengio and Courville (2016), Deep Learning, section 6.2.2.3: softmax and the log-likelihood",
    "equation": r"L = -\frac{1}{N}\sum_{n=1}^{N} \log \frac{\exp(z_{n, y_n})}{\sum_{k=1}^{K} \exp(z_{n, k})}",
    "symbols": {
        "z": ("the logits: one row of K scores per example", ("N", "K"), "z"),
        "y_n": ("the label of example n: the index of its class", ("N",), "y"),
        "N": ("the number of examples in the batch", ()),
        "K": ("the number of classes", ()),
        "L": ("the mean negative log-likelihood of the labels", (), "return"),
    },
    "example": {"inputs": {"z": [[2.0, 1.0, 0.0], [0.0, 0.0, 3.0]], "y": [0, 2]}, "output": 0.2513},
}


def masked_attention(Q, K, V, mask):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    S = Q @ K.T / np.sqrt(K.shape[1])                       # (n, m)
    S = np.where(mask, S, -np.inf)                          # masked keys: weight 0
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return W / W.sum(axis=1, keepdims=True) @ V             # (n, d_v)


def test_masked_attention():
    Q = K = np.eye(2)
    V = np.array([[1.0, 2.0], [3.0, 4.0]])
    causal = np.array([[True, False], [True, True]])
    assert np.allclose(masked_attention(Q, K, V, causal), [[1.0, 2.0], [2.3395, 3.3395]], atol=1e-3)
    everything = np.ones((2, 2), dtype=bool)
    w = np.exp(1 / np.sqrt(2)) / (np.exp(1 / np.sqrt(2)) + 1)
    assert np.allclose(masked_attention(Q, K, V, everything), [[w * 1 + (1 - w) * 3, w * 2 + (1 - w) * 4],
                                                               [(1 - w) * 1 + w * 3, (1 - w) * 2 + w * 4]])
    Q3 = np.array([[1.0, 2.0, 0.0]])
    K3 = np.array([[0.0, 1.0, 0.0], [5.0, 5.0, 5.0], [1.0, 0.0, 0.0]])
    V3 = np.array([[1.0, 0.0], [9.0, 9.0], [0.0, 1.0]])
    only_first = np.array([[True, False, False]])
    assert np.allclose(masked_attention(100 * Q3, K3, V3, only_first), [[1.0, 0.0]])   # huge scores, one key
    s = np.array([2.0, 1.0]) / np.sqrt(3)
    w = np.exp(s) / np.exp(s).sum()
    assert np.allclose(masked_attention(Q3, K3, V3, [[True, False, True]]), [[w[0], w[1]]])
    # rows of very different scores, every key visible: each row is its own softmax
    Qb, Kb = np.array([[2.0, 0.0], [0.0, 0.5]]), np.array([[1.0, 2.0], [3.0, -1.0]])
    S = np.array([[2.0, 6.0], [1.0, -0.5]]) / np.sqrt(2)
    W = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    assert np.allclose(masked_attention(Qb, Kb, V, everything), W @ V)


MASKED_ATTENTION = {
    "paper": "Vaswani et al. (2017), Attention Is All You Need, eq. (1) with the decoder's mask",
    "equation": r"Y = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}} + M\right) V, \quad M_{ij} = 0 \text{ if key } j "
                r"\text{ is visible to query } i, \text{ else } -\infty",
    "symbols": {
        "Q": ("the queries, one per row", ("n", "d_k"), "Q"),
        "K": ("the keys, one per row", ("m", "d_k"), "K"),
        "V": ("the values, one per key", ("m", "d_v"), "V"),
        "M": ("the mask: 0 where query i may see key j, minus infinity where it may not (True/False in the code)",
              ("n", "m"), "mask"),
        "d_k": ("the length of a key", ()),
        "Y": ("one output row per query: the average of the values it may see, weighted", ("n", "d_v"), "return"),
    },
    "example": {"inputs": {"Q": [[1.0, 0.0], [0.0, 1.0]], "K": [[1.0, 0.0], [0.0, 1.0]], "V": [[1.0, 2.0], [3.0, 4.0]],
                           "mask": [[True, False], [True, True]]},
                "output": [[1.0, 2.0], [2.3395, 3.3395]]},
}


def positional_encoding(n, d):
    out = np.zeros((n, d))
    for pos in range(n):
        for i in range(0, d, 2):
            angle = pos / 10000 ** (i / d)
            out[pos, i] = math.sin(angle)
            out[pos, i + 1] = math.cos(angle)
    return out


def test_positional_encoding():
    pe = positional_encoding(2, 4)
    assert np.allclose(pe, [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 1.0]], atol=1e-3)
    big = positional_encoding(50, 6)
    assert big.shape == (50, 6)
    assert np.allclose(big[:, 0::2] ** 2 + big[:, 1::2] ** 2, 1.0)      # each pair is a point on the circle
    assert np.isclose(big[30, 2], math.sin(30 / 10000 ** (2 / 6)))
    assert np.isclose(big[7, 5], math.cos(7 / 10000 ** (4 / 6)))


POSITIONAL = {
    "paper": "Vaswani et al. (2017), Attention Is All You Need, section 3.5",
    "equation": r"PE_{(pos, 2i)} = \sin\left(pos / 10000^{2i / d}\right), \quad "
                r"PE_{(pos, 2i+1)} = \cos\left(pos / 10000^{2i / d}\right)",
    "symbols": {
        "PE": ("the encodings: one row of d numbers per position", ("n", "d"), "return"),
        "pos": ("the position of a token, 0 to n - 1", ()),
        "i": ("the index of a pair of dimensions, 0 to d/2 - 1", ()),
        "n": ("how many positions to encode", (), "n"),
        "d": ("the model's dimension (even)", (), "d"),
    },
    "example": {"inputs": {"n": 2, "d": 4}, "output": [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 1.0]]},
}


_entry = partial(entry_answer, 1)  # (entry, implementation, test)


RIGHT = {
    "gelu-tanh": _entry(GELU, gelu, test_gelu),
    "gelu-exact-unicode-keys": _entry(GELU_EXACT, gelu_exact, test_gelu_exact),
    "rms-norm-paper-letters": _entry(RMS_NORM, rms_norm, test_rms_norm),
    "kl-two-gaussians": _entry(KL, kl_gaussians, test_kl_gaussians),
    "cross-entropy-integer-labels": _entry(CROSS_ENTROPY, cross_entropy, test_cross_entropy),
    "masked-attention": _entry(MASKED_ATTENTION, masked_attention, test_masked_attention),
    "positional-encoding-loops": _entry(POSITIONAL, positional_encoding, test_positional_encoding),
}


# -- wrong ---------------------------------------------------------------------------------------------


def test_runs_only():
    rms_norm([[3.0, 4.0], [1.0, -1.0]], [1.0, 0.5], eps=0.0)


def test_asserts_true():
    rms_norm([[3.0, 4.0]], [1.0, 0.5])
    assert True


def test_shape_only():
    out = rms_norm([[3.0, 4.0], [1.0, -1.0]], [1.0, 0.5])
    assert out.shape == (2, 2)
    assert np.shape(rms_norm(np.ones((5, 3)), np.ones(3))) == (5, 3)


def test_example_only_with_ones():
    assert np.allclose(rms_norm([[3.0, 4.0]], [1.0, 1.0], eps=0.0), [[0.8485, 1.1314]], atol=1e-3)


def test_fails():
    assert np.allclose(rms_norm([[3.0, 4.0]], [1.0, 1.0], eps=0.0), [[0.75, 1.0]])  # divided by the mean, not the RMS


def test_bytecode_of_a_copy():
    def saved(x, g, eps=1e-8):  # the implementation as it was when the test was written
        x = np.asarray(x, dtype=float)
        return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * g

    mine, theirs = rms_norm.__code__, saved.__code__  # judges how it is written, not what it computes
    assert (mine.co_code, mine.co_consts, mine.co_names) == (theirs.co_code, theirs.co_consts, theirs.co_names)
    assert np.allclose(rms_norm([[3.0, 4.0]], [1.0, 1.0], eps=0.0), [[0.8485, 1.1314]], atol=1e-3)


_RUNS = [0]


def test_passes_its_first_run_only():
    _RUNS[0] += 1  # the grader's own calls pass; every later run (on a mutant, in the same process) fails
    assert _RUNS[0] <= 3
    assert np.allclose(rms_norm([[3.0, 4.0]], [1.0, 1.0], eps=0.0), [[0.8485, 1.1314]], atol=1e-3)


def test_against_a_copy_in_a_default(original=rms_norm):
    x, g = np.array([[1.0, 2.0, 4.0], [-3.0, 0.5, 9.0]]), np.array([2.0, 1.0, 0.5])
    for eps in (0.0, 1e-3):  # a mutant, compared with the copy kept before it stood in: every change caught
        assert np.allclose(rms_norm(x, g, eps=eps), original(x, g, eps=eps))


def _rms_of_rows(x, g, eps):
    x = np.asarray(x, dtype=float)
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * g


def rms_norm_with_dead_arithmetic(x, g, eps=1e-8):
    scale = np.sqrt(np.mean(np.asarray(x, dtype=float) ** 2, axis=-1, keepdims=True) + eps) * 2.0 - 1.0  # noqa: F841
    return _rms_of_rows(x, g, eps)  # every mutant is of the line above, which changes nothing


def test_dead_arithmetic_nothing():
    rms_norm_with_dead_arithmetic([[3.0, 4.0]], [1.0, 1.0])


def crashing_rms_norm(x, g, eps=1e-8):
    x = np.asarray(x, dtype=float)
    return x / np.sqrt(np.mean(x**2, axis=2, keepdims=True) + eps) * g  # axis 2 of a 2-D array


def test_crashing():
    assert np.allclose(crashing_rms_norm([[3.0, 4.0]], [1.0, 1.0], eps=0.0), [[0.8485, 1.1314]], atol=1e-3)


def _rms(**changes):
    entry = {key: value for key, value in RMS_NORM.items()}
    entry.update(changes)
    return entry


MISREAD_OUTPUT = _rms(example={"inputs": RMS_NORM["example"]["inputs"], "output": [[0.6, 0.8], [0.5, -0.5]]})
CONTRADICTING_SHAPES = _rms(symbols={**RMS_NORM["symbols"], "g": ("the gain, one per feature", ("batch",), "g")},
                            example={"inputs": {"x": [[3.0, 4.0]], "g": [1.0, 0.5], "eps": 0.0},
                                     "output": [[0.8485, 0.5657]]})
MISSING_SYMBOL = _rms(symbols={k: v for k, v in RMS_NORM["symbols"].items() if k != r"\epsilon"} | {
    "eps": ("keeps the division finite", (), "eps")})  # a word, not the equation's epsilon
NOT_TINY = _rms(example={"inputs": {"x": [[0.31415, 2.7182, 1.4142], [1.0, 2.0, 3.0]], "g": [1.0, 1.0, 1.0],
                                    "eps": 0.0},
                         "output": [[0.1717, 1.4858, 0.7730], [0.4629, 0.9258, 1.3887]]})
NO_EXAMPLE = {key: value for key, value in RMS_NORM.items() if key != "example"}
COURSE_ATTENTION = {
    "paper": "Vaswani et al. (2017), Attention Is All You Need, eq. (1)",
    "equation": r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right) V",
    "symbols": {"Q": ("queries", ("n", "d_k"), "Q"), "K": ("keys", ("m", "d_k"), "K"),
                "V": ("values", ("m", "d_v"), "V"), "d_k": ("key length", ()),
                "\\mathrm{Attention}": ("the output", ("n", "d_v"), "return")},
    "example": {"inputs": {"Q": [[1.0, 1.0]], "K": [[1.0, 1.0], [1.0, -1.0]], "V": [[10.0, 0.0], [0.0, 10.0]],
                           "mask": [[True, True]]},
                "output": [[8.044, 1.956]]},
}
COURSE_ATTENTION["symbols"]["mask"] = ("every key visible", ("n", "m"), "mask")


def _worked_copy():
    """entry_0 typed out again, as a student copying the worked entry would."""
    entry = {
        "paper": "Ba, Kiros and Hinton (2016), Layer Normalization, eq. (4)",
        "equation": r"y = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta, \quad "
                    r"\mu = \frac{1}{d}\sum_{i=1}^{d} x_i, \quad \sigma^2 = \frac{1}{d}\sum_{i=1}^{d} (x_i - \mu)^2",
        "symbols": {
            "x": ("the input", ("n", "d"), "x"), r"\gamma": ("the gain", ("d",), "gamma"),
            r"\beta": ("the bias", ("d",), "beta"), r"\epsilon": ("a small number", (), "eps"),
            r"\mu": ("row means", ("n", 1)), r"\sigma": ("row standard deviations", ("n", 1)),
            "d": ("features", ()), "y": ("the output", ("n", "d"), "return"),
        },
        "example": {"inputs": {"x": [[1.0, 2.0, 3.0]], "gamma": [1.0, 1.0, 1.0], "beta": [0.0, 0.0, 0.0],
                               "eps": 0.0},
                    "output": [[-1.2247, 0.0, 1.2247]]},
    }
    return entry


def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps) + beta


def test_layer_norm():
    assert np.allclose(layer_norm([[1.0, 2.0, 3.0]], np.ones(3), np.zeros(3), eps=0.0), [[-1.2247, 0.0, 1.2247]],
                       atol=1e-3)
    x = np.array([[1.0, 2.0, 4.0], [-3.0, 0.5, 9.0]])
    assert np.allclose(layer_norm(x, [1.0, 2.0, 3.0], [0.5, 0.0, -0.5], eps=0.0),
                       [1.0, 2.0, 3.0] * (x - x.mean(1, keepdims=True)) / x.std(1, keepdims=True) + [0.5, 0.0, -0.5])


def attention_with_a_mask_argument(Q, K, V, mask):
    return masked_attention(Q, K, V, mask)  # nothing of its own to mutate: its test cannot be judged


def test_gelu_asserts_true():
    gelu([-1.0, 0.0, 1.0])
    assert True


def test_attention_shape_only():
    out = masked_attention(np.eye(2), np.eye(2), [[1.0, 2.0], [3.0, 4.0]], [[True, False], [True, True]])
    assert out.shape == (2, 2)


def test_kl_source_size():
    assert len(kl_gaussians.__code__.co_code) == _KL_SIZE  # any change of the code is caught; so is a rewrite
    assert np.allclose(kl_gaussians([3.0], [1.0], [0.0], [1.0]), 4.5)


def _kl_saved(mu1, sigma1, mu2, sigma2):
    mu1, sigma1, mu2, sigma2 = (np.asarray(a, dtype=float) for a in (mu1, sigma1, mu2, sigma2))
    return np.log(sigma2 / sigma1) + (sigma1**2 + (mu1 - mu2) ** 2) / (2 * sigma2**2) - 0.5


_KL_SIZE = len(_kl_saved.__code__.co_code)


KL_MISREAD = dict(KL, example={"inputs": KL["example"]["inputs"], "output": [0.0, 0.6931]})  # only log(2/1)
CE_WITHOUT_N = dict(CROSS_ENTROPY, symbols={k: v for k, v in CROSS_ENTROPY["symbols"].items() if k != "N"})
CE_N_NOWHERE = dict(CE_WITHOUT_N, symbols=dict(CE_WITHOUT_N["symbols"], z=("the logits", ("B", "K"), "z"),
                                               y_n=("the labels", ("B",), "y")))  # the batch named B, the sum's N
RIGHT["cross-entropy-N-only-a-shape-dimension"] = _entry(CE_WITHOUT_N, cross_entropy, test_cross_entropy)
GELU_LONG = dict(GELU, example={"inputs": {"x": [-1.25, 0.3333, 2.7182]}, "output": [-0.1323, 0.2102, 2.7098]})


WRONG = {
    "test-asserts-nothing": (_entry(RMS_NORM, rms_norm, test_runs_only), "Your test asserts nothing"),
    "test-asserts-only-true": (_entry(RMS_NORM, rms_norm, test_asserts_true), "only asserts a constant"),
    "test-checks-only-the-shape": (_entry(RMS_NORM, rms_norm, test_shape_only), "only checks the shape"),
    "test-only-the-example-with-unit-gain": (_entry(RMS_NORM, rms_norm, test_example_only_with_ones),
                                             "Changes it missed"),
    "test-fails-on-its-own-implementation": (_entry(RMS_NORM, rms_norm, test_fails),
                                             "your test fails on your own implementation"),
    "test-compares-bytecode-with-a-copy": (_entry(RMS_NORM, rms_norm, test_bytecode_of_a_copy),
                                           "judges how the function is written"),
    "test-passes-its-first-run-only": (_entry(RMS_NORM, rms_norm, test_passes_its_first_run_only),
                                       "Changes it missed"),
    "test-compares-with-a-copy-in-a-default": (_entry(RMS_NORM, rms_norm, test_against_a_copy_in_a_default),
                                               "Changes it missed"),
    "dead-arithmetic-makes-every-mutant-equivalent": (
        _entry(RMS_NORM, rms_norm_with_dead_arithmetic, test_dead_arithmetic_nothing), "too little to mutate"),
    "example-not-reproduced": (_entry(MISREAD_OUTPUT, rms_norm, test_rms_norm), "the output you worked by hand"),
    "shapes-contradict": (_entry(CONTRADICTING_SHAPES, rms_norm, test_rms_norm), "the shapes do not line up"),
    "missing-symbol": (_entry(MISSING_SYMBOL, rms_norm, test_rms_norm), "the symbol table has no row for `\\epsilon`"),
    "example-not-tiny": (_entry(NOT_TINY, rms_norm, test_rms_norm), "not one to work by hand"),
    "copy-of-the-worked-entry": (_entry(_worked_copy(), layer_norm, test_layer_norm), "the worked entry (layer norm)"),
    "the-course-attention": (_entry(COURSE_ATTENTION, attention_with_a_mask_argument, test_masked_attention),
                             "the same as scaled dot-product attention's"),
    "implementation-hands-its-work-to-a-helper": (_entry(MASKED_ATTENTION, attention_with_a_mask_argument,
                                                         test_runs_only), "too little to mutate"),
    "implementation-crashes": (_entry(RMS_NORM, crashing_rms_norm, test_crashing),
                               "your implementation raised AxisError"),
    "no-example": (_entry(NO_EXAMPLE, rms_norm, test_rms_norm), "has no 'example'"),
    "gelu-test-asserts-only-true": (_entry(GELU, gelu, test_gelu_asserts_true), "only asserts a constant"),
    "attention-test-checks-only-the-shape": (_entry(MASKED_ATTENTION, masked_attention, test_attention_shape_only),
                                             "only checks the shape"),
    "kl-test-checks-the-bytecode-size": (_entry(KL, kl_gaussians, test_kl_source_size),
                                         "judges how the function is written"),
    "kl-example-not-reproduced": (_entry(KL_MISREAD, kl_gaussians, test_kl_gaussians), "the output you worked by hand"),
    "cross-entropy-missing-symbol": (_entry(CE_N_NOWHERE, cross_entropy, test_cross_entropy),
                                     "the symbol table has no row for `N`"),
    "gelu-example-not-tiny": (_entry(GELU_LONG, gelu, test_gelu), "long numbers such as 0.3333"),
    "implementation-not-a-function": (_entry(RMS_NORM, "x / rms(x) * g", test_rms_norm), "should be a function"),
}

SCORES = {  # the cheats: what each must score (out of 11), whatever the order its runs are made in
    "test-compares-bytecode-with-a-copy": 7,        # fails the decoys: no strength points
    "kl-test-checks-the-bytecode-size": 7,
    "test-passes-its-first-run-only": 9,            # every run is its first: it earns what its one value check does
    "test-compares-with-a-copy-in-a-default": 7,    # the copy is a copy of the mutant: catches nothing
    "dead-arithmetic-makes-every-mutant-equivalent": 7,  # too little to mutate, not full strength
    "implementation-hands-its-work-to-a-helper": 7,
    "copy-of-the-worked-entry": 10,
    "no-example": 2,                                # the symbols cover the equation, the test passes
}


# -- right, from a fresh pair of eyes (also graded in a real notebook: full marks) ---------------------


def fresh_cosine(u, v):
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)    # (n, d)
    dots = np.einsum("nd,nd->n", u, v)                               # (n,)
    return dots / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))


def test_fresh_cosine():
    assert np.allclose(fresh_cosine([[1.0, 0.0], [1.0, 1.0]], [[0.0, 2.0], [2.0, 2.0]]), [0.0, 1.0])
    assert np.isclose(fresh_cosine([[1.0, 2.0]], [[-3.0, -6.0]])[0], -1.0)     # opposite vectors
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    assert np.allclose(fresh_cosine(5 * a, b), fresh_cosine(a, b))            # scaling changes nothing
    assert np.all(np.abs(fresh_cosine(a, b)) <= 1 + 1e-12)


FRESH_COSINE = {
    "paper": "Mikolov et al. (2013) / any embedding paper: cosine similarity of two vectors",
    "equation": r"s = \frac{u \cdot v}{\lVert u \rVert \, \lVert v \rVert}",
    "symbols": {
        "u": ("the first embedding vectors, one per row", ("n", "d"), "u"),
        "v": ("the second embedding vectors, one per row", ("n", "d"), "v"),
        "s": ("the cosine of the angle between u and v, row by row, in [-1, 1]", ("n",), "return"),
    },
    "example": {"inputs": {"u": [[1.0, 0.0], [1.0, 1.0]], "v": [[0.0, 2.0], [2.0, 2.0]]}, "output": [0.0, 1.0]},
}

RIGHT["fresh-cosine-einsum-lVert"] = _entry(FRESH_COSINE, fresh_cosine, test_fresh_cosine)


# -- read as a formula: a sum over an index set with a condition (issue 33) ------------------------------


def multiclass_hinge(s, y, delta=1.0):
    s, y = np.asarray(s, dtype=float), np.asarray(y, dtype=int)    # (N, C) scores, (N,) classes from 0
    rows = np.arange(len(y))
    margins = np.maximum(0.0, s - s[rows, y][:, None] + delta)
    margins[rows, y] = 0.0                                          # j != y_i: the true class is left out
    return margins.sum(axis=1)


def test_multiclass_hinge():
    cs231n = [[3.2, 5.1, -1.7], [1.3, 4.9, 2.0], [2.2, 2.5, -3.1]]  # cat, car and frog scores; true 0, 1, 2
    assert np.allclose(multiclass_hinge(cs231n, [0, 1, 2], 1.0), [2.9, 0.0, 12.9])
    assert np.allclose(multiclass_hinge([[1.0, 1.0, 1.0, 1.0]], [2], 0.5), [1.5])   # three others, 0.5 each
    rng = np.random.default_rng(4)
    s, y = rng.normal(size=(6, 4)), rng.integers(0, 4, size=6)
    loops = [sum(max(0.0, s[i, j] - s[i, y[i]] + 0.7) for j in range(4) if j != y[i]) for i in range(6)]
    assert np.allclose(multiclass_hinge(s, y, 0.7), loops)
    assert np.allclose(multiclass_hinge(s + 3.0, y, 0.7), loops)                   # a shift changes nothing


MULTICLASS_HINGE = {
    "paper": "Weston and Watkins (1999), Support Vector Machines for Multi-Class Pattern Recognition; the "
             "multiclass SVM loss as CS231n writes it",
    "equation": r"L_i = \sum_{j \neq y_i} \max(0, s_j - s_{y_i} + \Delta)",
    "symbols": {
        "s": ("the class scores, one row per example, one column per class", ("N", "C"), "s"),
        "y_i": ("the true class of example i, counted from 0", ("N",), "y"),
        r"\Delta": ("the margin by which the true class's score should win", (), "delta"),
        "L_i": ("the loss of each example", ("N",), "return"),
    },
    "example": {"inputs": {"s": [[3.2, 5.1, -1.7], [1.3, 4.9, 2.0]], "y": [0, 1], "delta": 1.0},
                "output": [2.9, 0.0]},
}


def hinge_with_the_true_class(s, y, delta=1.0):
    s, y = np.asarray(s, dtype=float), np.asarray(y, dtype=int)
    rows = np.arange(len(y))
    return np.maximum(0.0, s - s[rows, y][:, None] + delta).sum(axis=1)   # j runs over every class


def test_hinge_with_the_true_class():  # worked from the code: it shares the code's misreading
    cs231n = [[3.2, 5.1, -1.7], [1.3, 4.9, 2.0], [2.2, 2.5, -3.1]]
    assert np.allclose(hinge_with_the_true_class(cs231n, [0, 1, 2], 1.0), [3.9, 1.0, 13.9])
    assert np.allclose(hinge_with_the_true_class([[1.0, 1.0, 1.0, 1.0]], [2], 0.5), [2.0])
    rng = np.random.default_rng(4)
    s, y = rng.normal(size=(6, 4)), rng.integers(0, 4, size=6)
    loops = [sum(max(0.0, s[i, j] - s[i, y[i]] + 0.7) for j in range(4)) for i in range(6)]
    assert np.allclose(hinge_with_the_true_class(s, y, 0.7), loops)


HINGE_WITH_THE_TRUE_CLASS = dict(MULTICLASS_HINGE, example={
    "inputs": MULTICLASS_HINGE["example"]["inputs"], "output": [3.9, 1.0]})

RIGHT["multiclass-hinge-leaves-the-true-class-out"] = _entry(MULTICLASS_HINGE, multiclass_hinge,
                                                            test_multiclass_hinge)
WRONG["hinge-code-example-and-test-sum-over-the-true-class-too"] = (
    _entry(HINGE_WITH_THE_TRUE_CLASS, hinge_with_the_true_class, test_hinge_with_the_true_class),
    "does not compute what the equation says")
SCORES["hinge-code-example-and-test-sum-over-the-true-class-too"] = 10  # only the equation shows the bug


# -- the table's names and the implementation's arguments ---------------------------------------------


def rms_norm_greek(x, g, ε=1e-8):  # the argument is ε; the table below calls it eps
    x = np.asarray(x, dtype=float)
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + ε) * g


def test_rms_norm_greek():
    assert np.allclose(rms_norm_greek([[3.0, 4.0], [1.0, -1.0]], [1.0, 0.5], ε=0.0), [[0.8485, 0.5657], [1.0, -0.5]],
                       atol=1e-3)
    assert np.allclose(rms_norm_greek([[2.0, 0.0]], [1.0, 3.0], ε=0.0), [[1.4142, 0.0]], atol=1e-3)


WRONG["table-names-an-argument-the-def-does-not-have"] = (_entry(RMS_NORM, rms_norm_greek, test_rms_norm_greek),
                                                          "`eps` as an argument of the implementation")
