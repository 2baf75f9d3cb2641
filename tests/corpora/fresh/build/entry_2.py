"""Correct "Build this" entries graded as entry_2: Pegasos's SVM objective, batch norm, Swish."""
import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# D. Pegasos (Shalev-Shwartz et al. 2007), eq. (1): a norm, a max{0, .}, an inner product <w, x>
# ---------------------------------------------------------------------------------------------
ENTRY_SVM = {
    "paper": "Shalev-Shwartz, Singer and Srebro (2007), Pegasos: Primal Estimated sub-GrAdient SOlver for SVM, "
             "eq. (1): the regularised hinge-loss objective",
    "equation": r"f(w) = \frac{\lambda}{2}\lVert w \rVert^2 + \frac{1}{m}\sum_{i=1}^{m} \max\{0, 1 - y_i \langle w, x_i \rangle\}",
    "symbols": {
        "f": ("the SVM objective at w: regulariser plus the average hinge loss", (), "return"),
        "w": ("the weight vector of the linear classifier", ("d",), "w"),
        r"\lambda": ("the regularisation parameter", (), "lam"),
        "m": ("the number of training examples", ()),
        "y": ("the label of each example, +1 or -1", ("m",), "y"),
        "x": ("the training examples, one per row", ("m", "d"), "X"),
    },
    "example": {
        "inputs": {"w": [1.0, -1.0], "X": [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]], "y": [1, 1, -1], "lam": 0.1},
        "output": 1.1,
    },
}


def svm_objective(w, X, y, lam=0.01):
    w = np.asarray(w, dtype=float)                         # (d,)
    X = np.asarray(X, dtype=float)                         # (m, d)
    y = np.asarray(y, dtype=float)                         # (m,)
    margins = y * np.einsum("md,d->m", X, w)               # (m,): y_i <w, x_i>
    hinge = np.maximum(0.0, 1.0 - margins)                 # (m,)
    return lam / 2 * np.linalg.norm(w) ** 2 + hinge.mean()


def test_svm():
    # the hand-worked example: margins (1, -1, 0), hinge (0, 2, 1), mean 1, plus 0.05 * 2
    assert abs(svm_objective([1.0, -1.0], [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]], [1, 1, -1], 0.1) - 1.1) < 1e-12
    # a second case by hand: every example beyond the margin costs nothing, only the regulariser remains
    assert abs(svm_objective([2.0, 0.0], [[1.0, 5.0], [-1.0, 3.0]], [1, -1], 0.5) - 1.0) < 1e-12
    # w = 0: every hinge is exactly 1
    assert abs(svm_objective([0.0, 0.0, 0.0], [[1.0, 2.0, 3.0]], [-1], 3.0) - 1.0) < 1e-12
    # one example inside the margin by hand: 1 - 1*(0.25) = 0.75, plus 0.2/2 * 0.0625
    assert abs(svm_objective([0.25], [[1.0]], [1], 0.2) - (0.75 + 0.1 * 0.0625)) < 1e-12
    # random problems against a loop
    rng = np.random.default_rng(11)
    for m, d in ((5, 2), (4, 3)):
        X, w = rng.normal(size=(m, d)), rng.normal(size=d)
        y = rng.choice([-1.0, 1.0], size=m)
        lam = rng.uniform(0.1, 1.0)
        loss = sum(max(0.0, 1.0 - y[i] * sum(w[k] * X[i, k] for k in range(d))) for i in range(m)) / m
        assert abs(svm_objective(w, X, y, lam) - (lam / 2 * sum(v * v for v in w) + loss)) < 1e-10


# ---------------------------------------------------------------------------------------------
# E. Batch normalization (Ioffe and Szegedy 2015), Algorithm 1: statistics over the batch, axis 0
# ---------------------------------------------------------------------------------------------
ENTRY_BATCHNORM = {
    "paper": "Ioffe and Szegedy (2015), Batch Normalization: Accelerating Deep Network Training by Reducing "
             "Internal Covariate Shift, Algorithm 1 (training mode)",
    "equation": r"y_i = \gamma \hat{x}_i + \beta, \quad \hat{x}_i = \frac{x_i - \mu_B}{\sqrt{\sigma_B^2 + \epsilon}}, "
                r"\quad \mu_B = \frac{1}{m}\sum_{i=1}^{m} x_i, \quad \sigma_B^2 = \frac{1}{m}\sum_{i=1}^{m} (x_i - \mu_B)^2",
    "symbols": {
        "x": ("the mini-batch of activations: m examples, d features each", ("m", "d"), "x"),
        r"\hat{x}": ("the activations normalised per feature over the mini-batch", ("m", "d")),
        "y": ("the output: the normalised activations scaled by gamma and shifted by beta", ("m", "d"), "return"),
        r"\gamma": ("the learned scale, one per feature", ("d",), "gamma"),
        r"\beta": ("the learned shift, one per feature", ("d",), "beta"),
        r"\mu_B": ("the mini-batch mean of each feature", ("d",)),
        r"\sigma_B": ("the mini-batch standard deviation of each feature (sigma_B^2 is the variance)", ("d",)),
        r"\epsilon": ("a constant added to the variance for numerical stability", (), "eps"),
        "m": ("the mini-batch size", ()),
    },
    "example": {
        "inputs": {"x": [[1.0, 2.0], [3.0, 2.0], [5.0, 8.0]], "gamma": [1.0, 2.0], "beta": [0.0, 1.0], "eps": 0.0},
        "output": [[-1.2247, -0.4142], [0.0, -0.4142], [1.2247, 3.8284]],
    },
}


def batch_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=float)                          # (m, d)
    m = x.shape[0]
    mu = x.sum(axis=0) / m                                  # (d,)
    var = ((x - mu) ** 2).sum(axis=0) / m                   # (d,)
    x_hat = (x - mu) / np.sqrt(var + eps)                   # (m, d)
    return np.asarray(gamma) * x_hat + np.asarray(beta)    # (m, d)


def test_batchnorm():
    # the hand-worked example
    out = batch_norm([[1.0, 2.0], [3.0, 2.0], [5.0, 8.0]], [1.0, 2.0], [0.0, 1.0], eps=0.0)
    assert np.allclose(out, [[-1.2247, -0.4142], [0.0, -0.4142], [1.2247, 3.8284]], atol=1e-4), out
    # a second case by hand: two examples per feature normalise to -1 and +1
    out = batch_norm([[0.0, 10.0], [4.0, 30.0]], [3.0, 1.0], [1.0, -2.0], eps=0.0)
    assert np.allclose(out, [[-2.0, -3.0], [4.0, -1.0]]), out
    # a constant feature has variance 0: eps keeps it finite and the output is beta
    out = batch_norm([[2.0], [2.0], [2.0]], [5.0], [0.25], eps=1e-3)
    assert np.allclose(out, 0.25)
    # eps matters: variance 1 with eps = 3 divides by 2
    assert np.allclose(batch_norm([[-1.0], [1.0]], [1.0], [0.0], eps=3.0), [[-0.5], [0.5]])
    # statistics per column (over the batch), not per row: each column gets mean 0 and variance 1
    rng = np.random.default_rng(5)
    x = rng.normal(size=(6, 3)) * [1.0, 10.0, 0.1] + [0.0, 5.0, -3.0]
    out = batch_norm(x, np.ones(3), np.zeros(3), eps=0.0)
    assert np.allclose(out.mean(axis=0), 0.0) and np.allclose(out.var(axis=0), 1.0)
    # against a loop over features
    g, b = rng.normal(size=3), rng.normal(size=3)
    for j in range(3):
        col = x[:, j]
        mu = sum(col) / len(col)
        var = sum((c - mu) ** 2 for c in col) / len(col)
        expect = [g[j] * (c - mu) / math.sqrt(var + 0.01) + b[j] for c in col]
        assert np.allclose(batch_norm(x, g, b, eps=0.01)[:, j], expect)


# ---------------------------------------------------------------------------------------------
# F. Swish (Ramachandran, Zoph and Le 2017): a sigmoid helper inside, a default argument
# ---------------------------------------------------------------------------------------------
ENTRY_SWISH = {
    "paper": "Ramachandran, Zoph and Le (2017), Searching for Activation Functions, eq. (1): Swish",
    "equation": r"f(x) = x \cdot \sigma(\beta x), \quad \sigma(z) = (1 + \exp(-z))^{-1}",
    "symbols": {
        "x": ("the pre-activations, acted on entry by entry", ("n",), "x"),
        "f": ("the Swish activations", ("n",), "return"),
        r"\sigma": ("the logistic sigmoid function", ()),
        r"\beta": ("a constant or trainable parameter that sets how sharp the gate is", (), "beta"),
        "z": ("the argument of the sigmoid, here beta times x", ("n",)),
    },
    "example": {"inputs": {"x": [-1.0, 0.0, 1.0, 2.0], "beta": 0.5}, "output": [-0.3775, 0.0, 0.6225, 1.4621]},
}


def swish(x, beta=1.0):
    """Swish: x times the sigmoid of beta x, entry by entry."""

    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    x = np.asarray(x, dtype=float)                          # (n,)
    return x * sigmoid(beta * x)                            # (n,)


def test_swish():
    # the hand-worked example
    assert np.allclose(swish([-1.0, 0.0, 1.0, 2.0], 0.5), [-0.3775, 0.0, 0.6225, 1.4621], atol=1e-4)
    # beta = 1 by hand: 1 * sigma(1) = 0.7311, -1 * sigma(-1) = -0.2689
    assert np.allclose(swish([1.0, -1.0], 1.0), [0.7311, -0.2689], atol=1e-4)
    # beta = 0 is the linear function x / 2
    assert np.allclose(swish([-3.0, 0.5, 4.0], 0.0), [-1.5, 0.25, 2.0])
    # a large beta approaches ReLU
    assert np.allclose(swish([-2.0, 3.0], 50.0), [0.0, 3.0], atol=1e-6)
    # random inputs against math
    rng = np.random.default_rng(2)
    xs, b = rng.normal(size=5) * 3, rng.uniform(0.2, 3.0)
    assert np.allclose(swish(xs, b), [v / (1 + math.exp(-b * v)) for v in xs], rtol=1e-12)


RIGHT = {
    "Pegasos SVM objective: norm, max{0, .}, <w, x>": {
        "entry_2": ENTRY_SVM, "implementation_2": svm_objective, "test_2": test_svm, "np": np, "math": math},
    "batch norm, statistics over the batch axis": {
        "entry_2": ENTRY_BATCHNORM, "implementation_2": batch_norm, "test_2": test_batchnorm, "np": np, "math": math},
    "Swish with a sigmoid helper inside": {
        "entry_2": ENTRY_SWISH, "implementation_2": swish, "test_2": test_swish, "np": np, "math": math},
}


# ---------------------------------------------------------------------------------------------
# K. Cosine similarity (Chen et al. 2020, SimCLR): pure Python, returns a list, \top and norms
# ---------------------------------------------------------------------------------------------
ENTRY_COSINE = {
    "paper": "Chen, Kornblith, Norouzi and Hinton (2020), A Simple Framework for Contrastive Learning of Visual "
             "Representations (SimCLR), the similarity sim(u, v) of Section 2.1, row by row",
    "equation": r"s_i = \frac{u_i^\top v_i}{\lVert u_i \rVert \, \lVert v_i \rVert}",
    "symbols": {
        "s": ("the cosine similarity of each pair of rows", ("n",), "return"),
        "u": ("the first representations, one per row", ("n", "d"), "u"),
        "v": ("the second representations, one per row", ("n", "d"), "v"),
    },
    "example": {"inputs": {"u": [[1.0, 0.0], [3.0, 4.0]], "v": [[1.0, 1.0], [4.0, 3.0]]}, "output": [0.7071, 0.96]},
}


def cosine_rows(u, v):
    """Cosine similarity of matching rows, with nothing but the math module."""
    out = []
    for a, b in zip(u, v):
        dot = sum(x * y for x, y in zip(a, b))
        out.append(dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))))
    return out


def test_cosine():
    # the hand-worked example: 1/sqrt(2) and 24/25
    assert np.allclose(cosine_rows([[1.0, 0.0], [3.0, 4.0]], [[1.0, 1.0], [4.0, 3.0]]), [0.7071, 0.96], atol=1e-4)
    # a second case by hand: parallel, opposite, orthogonal
    assert np.allclose(cosine_rows([[2.0, 0.0], [1.0, 2.0], [1.0, 0.0]], [[5.0, 0.0], [-2.0, -4.0], [0.0, 3.0]]),
                       [1.0, -1.0, 0.0])
    # unequal lengths: (1*2 + 2*0) / (sqrt(5) * 2)
    assert np.allclose(cosine_rows([[1.0, 2.0]], [[2.0, 0.0]]), [1 / math.sqrt(5)])
    # random rows: invariant to positive scaling, symmetric, against NumPy
    rng = np.random.default_rng(12)
    U, V = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    expect = (U * V).sum(1) / (np.linalg.norm(U, axis=1) * np.linalg.norm(V, axis=1))
    assert np.allclose(cosine_rows(U, V), expect)
    assert np.allclose(cosine_rows(3 * U, 0.5 * V), expect)
    assert np.allclose(cosine_rows(V, U), expect)


# ---------------------------------------------------------------------------------------------
# L. The discounted return (Sutton and Barto), computed by recursion G_t = R_{t+1} + gamma G_{t+1}
# ---------------------------------------------------------------------------------------------
ENTRY_RETURN = {
    "paper": "Sutton and Barto (2018), Reinforcement Learning: An Introduction, 2nd ed., eq. (3.8): the "
             "discounted return, for every step of a finite episode",
    "equation": r"G_t = \sum_{k=0}^{T-t-1} \gamma^{k} R_{t+k+1}",
    "symbols": {
        "G": ("the discounted return from each time step t of the episode", ("T",), "return"),
        "R": ("the reward received at each step, R_1 to R_T", ("T",), "rewards"),
        r"\gamma": ("the discount rate, between 0 and 1", (), "gamma"),
        "T": ("the final time step of the episode", ()),
        "t": ("a time step, 0 to T - 1", ()),
    },
    "example": {"inputs": {"rewards": [1.0, 0.0, 2.0], "gamma": 0.5}, "output": [1.5, 1.0, 2.0]},
}


def discounted_returns(rewards, gamma=0.99):
    rewards = [float(r) for r in rewards]

    def G(t):
        # G_t = R_{t+1} + gamma * G_{t+1}, with G_T = 0 (rewards[t] is R_{t+1})
        if t == len(rewards):
            return 0.0
        return rewards[t] + gamma * G(t + 1)

    return np.array([G(t) for t in range(len(rewards))])


def test_return():
    # the hand-worked example: G_0 = 1 + 0.5 * 0 + 0.25 * 2
    assert np.allclose(discounted_returns([1.0, 0.0, 2.0], 0.5), [1.5, 1.0, 2.0])
    # a second case by hand: gamma = 0 gives the next reward, gamma = 1 the sum of what is left
    assert np.allclose(discounted_returns([3.0, -1.0, 4.0], 0.0), [3.0, -1.0, 4.0])
    assert np.allclose(discounted_returns([3.0, -1.0, 4.0], 1.0), [6.0, 3.0, 4.0])
    # constant reward 1 forever-ish: the geometric series (1 - gamma^n) / (1 - gamma)
    out = discounted_returns([1.0] * 6, 0.8)
    assert np.allclose(out, [(1 - 0.8 ** n) / 0.2 for n in range(6, 0, -1)])
    # random episodes against the sum of the equation, term by term
    rng = np.random.default_rng(13)
    for _ in range(3):
        r, g = rng.normal(size=5), rng.uniform(0.1, 0.95)
        T = len(r)
        expect = [sum(g ** k * r[t + k] for k in range(T - t)) for t in range(T)]
        assert np.allclose(discounted_returns(r, g), expect)


RIGHT["cosine similarity, pure Python returning a list"] = {
    "entry_2": ENTRY_COSINE, "implementation_2": cosine_rows, "test_2": test_cosine, "np": np, "math": math}
RIGHT["discounted return by recursion"] = {
    "entry_2": ENTRY_RETURN, "implementation_2": discounted_returns, "test_2": test_return, "np": np, "math": math}


# The same equations in other LaTeX spellings students copy from papers.
ENTRY_SVM_ALT = dict(ENTRY_SVM, equation=r"f(\mathbf{w}) = \frac{\lambda}{2}\|\mathbf{w}\|_2^2 + \frac{1}{m}\sum_{i=1}^{m} "
                                        r"\max\left(0,\ 1 - y_i\, \mathbf{w}^\top \mathbf{x}_i\right)")
ENTRY_SWISH_ALT = dict(ENTRY_SWISH, equation=r"f(x) = \frac{x}{1 + e^{-\beta x}}",
                       symbols={k: v for k, v in ENTRY_SWISH["symbols"].items() if k not in (r"\sigma", "z")})
RIGHT["Pegasos in \\| \\|_2^2, \\max\\left(, w^\\top x_i, bold letters"] = {
    "entry_2": ENTRY_SVM_ALT, "implementation_2": svm_objective, "test_2": test_svm, "np": np, "math": math}
RIGHT["Swish as x / (1 + e^{-beta x})"] = {
    "entry_2": ENTRY_SWISH_ALT, "implementation_2": swish, "test_2": test_swish, "np": np, "math": math}
