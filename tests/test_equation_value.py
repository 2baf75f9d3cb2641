"""The equation of a "Build this" entry evaluated on its example: real paper equations against NumPy, and the
forms it refuses to read rather than guess."""

import math

import numpy as np
import pytest

from reading_maths.kit.entries import read_entry
from reading_maths.kit.equation_value import equation_value


def _value(equation, symbols, inputs):
    entry = read_entry({"paper": "p", "equation": equation, "symbols": symbols,
                        "example": {"inputs": inputs, "output": 0.0}})
    return equation_value(entry)


Z = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 0.0]])
Y = np.array([2, 0])
U, V = np.array([1.0, 2.0, -2.0]), np.array([3.0, 0.0, 4.0])
Q, K, VV = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([[1.0, 2.0], [0.5, -1.0]]), \
    np.array([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _hinge(s, y, delta):
    margins = np.maximum(0, s - s[np.arange(len(y)), y][:, None] + delta)
    margins[np.arange(len(y)), y] = 0
    return margins.sum(axis=1)


def _huber(a, d):
    return np.where(np.abs(a) <= d, 0.5 * a ** 2, d * (np.abs(a) - 0.5 * d))


READ = {
    "softmax with e and bounds": (
        r"p_k = \frac{e^{z_k}}{\sum_{j=1}^{K} e^{z_j}}",
        {"z_k": ("logits", ("K",), "z"), "K": ("classes", ()), "p_k": ("probabilities", ("K",), "return")},
        {"z": Z[0]}, _softmax(Z[0])),
    "cross-entropy with a sum over k": (
        r"L = -\sum_{k=1}^{K} y_k \log p_k",
        {"y_k": ("one-hot target", ("K",), "y"), "p_k": ("predicted", ("K",), "p"), "K": ("classes", ()),
         "L": ("loss", (), "return")},
        {"y": [0.0, 1.0, 0.0], "p": [0.2, 0.7, 0.1]}, -np.log(0.7)),
    "cross-entropy of integer labels, row by row": (
        r"L = -\frac{1}{N}\sum_{n=1}^{N} \log \frac{\exp(z_{n, y_n})}{\sum_{k=1}^{K} \exp(z_{n, k})}",
        {"z": ("logits", ("N", "K"), "z"), "y_n": ("labels", ("N",), "y"), "N": ("examples", ()),
         "K": ("classes", ()), "L": ("loss", (), "return")},
        {"z": Z, "y": Y}, -np.mean(np.log(_softmax(Z)[[0, 1], Y]))),
    "multiclass hinge leaving the true class out": (
        r"L_i = \sum_{j \neq y_i} \max(0, s_j - s_{y_i} + \Delta)",
        {"s": ("scores", ("N", "C"), "s"), "y_i": ("labels", ("N",), "y"), r"\Delta": ("margin", (), "delta"),
         "L_i": ("loss per example", ("N",), "return")},
        {"s": Z, "y": Y, "delta": 1.0}, _hinge(Z, Y, 1.0)),
    "multiclass hinge of one example": (
        r"L = \sum_{j \ne y} \max\left(0, s_j - s_y + 1\right)",
        {"s": ("scores", ("C",), "s"), "y": ("label", (), "y"), "L": ("loss", (), "return")},
        {"s": Z[1], "y": 1}, _hinge(Z[1:], np.array([1]), 1.0)[0]),
    "the mean multiclass hinge, the rows of s indexed by the sum's i": (
        r"L = \frac{1}{N}\sum_{i=1}^{N} \sum_{j \neq y_i} \max(0, s_j - s_{y_i} + 1)",
        {"s": ("scores", ("N", "C"), "s"), "y_i": ("labels", ("N",), "y"), "N": ("examples", ()),
         "L": ("mean loss", (), "return")},
        {"s": Z, "y": Y}, np.mean(_hinge(Z, Y, 1.0))),
    "L2 regularisation": (
        r"R = \lambda \sum_j w_j^2",
        {"w": ("weights", ("d",), "w"), r"\lambda": ("strength", (), "lam"), "R": ("penalty", (), "return")},
        {"w": U, "lam": 0.1}, 0.1 * np.sum(U ** 2)),
    "cosine similarity with norms": (
        r"s = \frac{u^\top v}{\|u\|_2 \, \|v\|_2}",
        {"u": ("a", ("d",), "u"), "v": ("b", ("d",), "v"), "s": ("cosine", (), "return")},
        {"u": U, "v": V}, U @ V / np.linalg.norm(U) / np.linalg.norm(V)),
    "cosine similarity with lVert": (
        r"s = \frac{\sum_i u_i v_i}{\lVert u \rVert \, \lVert v \rVert}",
        {"u": ("a", ("d",), "u"), "v": ("b", ("d",), "v"), "s": ("cosine", (), "return")},
        {"u": U, "v": V}, U @ V / np.linalg.norm(U) / np.linalg.norm(V)),
    "attention": (
        r"Y = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right) V",
        {"Q": ("queries", ("n", "d_k"), "q"), "K": ("keys", ("m", "d_k"), "k"), "V": ("values", ("m", "d_v"), "v"),
         "d_k": ("key size", ()), "Y": ("output", ("n", "d_v"), "return")},
        {"q": Q, "k": K, "v": VV}, _softmax(Q @ K.T / np.sqrt(2)) @ VV),
    "log-sum-exp": (
        r"m = \log \sum_{k=1}^{K} \exp(z_k)",
        {"z": ("logits", ("K",), "z"), "K": ("classes", ()), "m": ("log-sum-exp", (), "return")},
        {"z": Z[0]}, np.log(np.sum(np.exp(Z[0])))),
    "ReLU as a max": (
        r"y = \max(0, x)",
        {"x": ("pre-activations", ("n",), "x"), "y": ("activations", ("n",), "return")},
        {"x": V - 2}, np.maximum(0, V - 2)),
    "accuracy with argmax and an indicator": (
        r"A = \frac{1}{N}\sum_{i=1}^{N} \mathbb{1}\left[\arg\max_k p_{i,k} = y_i\right]",
        {"p": ("probabilities", ("N", "K"), "p"), "y_i": ("labels", ("N",), "y"), "N": ("examples", ()),
         "A": ("accuracy", (), "return")},
        {"p": Z, "y": [1, 1]}, 0.5),
    "MSE": (
        r"E = \frac{1}{N}\sum_{i=1}^{N} (y_i - \hat{y}_i)^2",
        {"y_i": ("targets", ("N",), "y"), r"\hat{y}_i": ("predictions", ("N",), "yhat"), "N": ("examples", ()),
         "E": ("error", (), "return")},
        {"y": U, "yhat": V}, np.mean((U - V) ** 2)),
    "Huber loss by cases": (
        r"L = \begin{cases} \frac{1}{2} a^2 & \text{if } |a| \le \delta, \\ \delta\left(|a| - \frac{1}{2}\delta\right)"
        r" & \text{otherwise} \end{cases}",
        {"a": ("residuals", ("n",), "a"), r"\delta": ("threshold", (), "d"), "L": ("losses", ("n",), "return")},
        {"a": U, "d": 1.5}, _huber(U, 1.5)),
    "cases with commas, a max inside and a full stop": (
        r"y = \begin{cases} \max(x, 1), & \text{if } x \geq 0, \\ -x, & \text{otherwise.} \end{cases}",
        {"x": ("inputs", ("n",), "x"), "y": ("outputs", ("n",), "return")},
        {"x": V - 2}, np.where(V - 2 >= 0, np.maximum(V - 2, 1), 2 - V)),
    "a quadratic form over i and j": (
        r"c = \sum_{i,j} W_{ij} x_i x_j",
        {"W": ("matrix", ("d", "d"), "w"), "x": ("vector", ("d",), "x"), "c": ("form", (), "return")},
        {"w": np.outer(U, V), "x": V}, V @ np.outer(U, V) @ V),
    "a linear layer": (
        r"y = W x + b",
        {"W": ("weights", ("m", "d"), "w"), "x": ("input", ("d",), "x"), "b": ("bias", ("m",), "b"),
         "y": ("output", ("m",), "return")},
        {"w": VV.T, "x": [1.0, -1.0], "b": U}, VV.T @ [1.0, -1.0] + U),
    "a margin over examples with a transposed vector": (
        r"L = \frac{1}{N}\sum_{i=1}^{N} \max\left(0, 1 - y_i w^\top x_i\right)",
        {"x_i": ("inputs", ("N", "d"), "x"), "y_i": ("labels", ("N",), "y"), "w": ("weights", ("d",), "w"),
         "N": ("examples", ()), "L": ("loss", (), "return")},
        {"x": Q, "y": [1.0, -1.0, 1.0], "w": [0.5, -1.0]}, np.mean(np.maximum(0, 1 - np.array([1, -1, 1]) *
                                                                             (Q @ [0.5, -1.0])))),
    "a free index along the last dimension": (
        r"\bar{a}_i = \frac{a_i}{\sqrt{\frac{1}{d}\sum_{j=1}^{d} a_j^2}} g_i",
        {"a": ("rows", ("n", "d"), "a"), "g": ("gain", ("d",), "g"), "d": ("features", ()),
         r"\bar{a}_i": ("output", ("n", "d"), "return")},
        {"a": Z, "g": U}, Z / np.sqrt(np.mean(Z ** 2, axis=1, keepdims=True)) * U),
    "absolute values and an L1 norm": (
        r"D = \|x\|_1 + |c|",
        {"x": ("vector", ("d",), "x"), "c": ("number", (), "c"), "D": ("sum", (), "return")},
        {"x": U, "c": -3.0}, np.abs(U).sum() + 3.0),
    "a masked value with an indicator in braces": (
        r"z = \mathbb{I}\{y = 1\} x",
        {"x": ("values", ("n",), "x"), "y": ("labels", ("n",), "y"), "z": ("kept", ("n",), "return")},
        {"x": U, "y": [1, 0, 1]}, U * [1, 0, 1]),
    "a product and a minimum over an index": (
        r"P = \prod_{i=1}^{n} x_i + \min_i x_i",
        {"x": ("values", ("n",), "x"), "n": ("count", ()), "P": ("result", (), "return")},
        {"x": V + 1}, np.prod(V + 1) + np.min(V + 1)),
    "a sum from 0 to one less than the dimension": (
        r"S = \sum_{t=0}^{T-1} \gamma^{2} r_t",
        {"r_t": ("rewards", ("T",), "r"), r"\gamma": ("discount", (), "g"), "T": ("steps", ()),
         "S": ("return", (), "return")},
        {"r": U, "g": 0.5}, 0.25 * U.sum()),
    "a per-feature gain before the rows it scales (batch norm)": (
        r"y = \gamma \frac{x - \mu_B}{\sqrt{\sigma_B^2 + \epsilon}} + \beta, \quad "
        r"\mu_B = \frac{1}{m}\sum_{i=1}^{m} x_i, \quad \sigma_B^2 = \frac{1}{m}\sum_{i=1}^{m} (x_i - \mu_B)^2",
        {"x": ("batch", ("m", "d"), "x"), r"\gamma": ("gain", ("d",), "g"), r"\beta": ("shift", ("d",), "b"),
         r"\epsilon": ("small", (), "eps"), r"\mu_B": ("means", ("d",)), r"\sigma_B": ("deviations", ("d",)),
         "m": ("examples", ()), "y": ("output", ("m", "d"), "return")},
        {"x": Z, "g": U, "b": V, "eps": 0.0}, U * (Z - Z.mean(axis=0)) / Z.std(axis=0) + V),
    "an element-wise (Hadamard) product": (
        r"y = \gamma \odot x + \beta",
        {"x": ("rows", ("n", "d"), "x"), r"\gamma": ("gain", ("d",), "g"), r"\beta": ("bias", ("d",), "b"),
         "y": ("output", ("n", "d"), "return")},
        {"x": Z, "g": U, "b": V}, U * Z + V),
    "a definition after the formula": (
        r"y = x - \mu, \quad \mu = 1", {"x": ("x", ("n",), "x"), r"\mu": ("m", ()), "y": ("y", ("n",), "return")},
        {"x": U}, U - 1),
    "a scale defined by its square, kept as a column": (
        r"y = \frac{x}{\sigma}, \quad \sigma^2 = \frac{1}{d}\sum_{i=1}^{d} x_i^2",
        {"x": ("rows", ("n", "d"), "x"), r"\sigma": ("row scales", ("n", 1)), "d": ("features", ()),
         "y": ("output", ("n", "d"), "return")},
        {"x": Z}, Z / np.sqrt(np.mean(Z ** 2, axis=1, keepdims=True))),
    "focal loss with its p_t defined": (
        r"L = -(1 - p_t)^{\gamma} \log(p_t), \quad p_t = y p + (1 - y)(1 - p)",
        {"p": ("probabilities", ("n",), "p"), "y": ("labels", ("n",), "y"), "p_t": ("of the true class", ("n",)),
         r"\gamma": ("focus", (), "g"), "L": ("losses", ("n",), "return")},
        {"p": [0.9, 0.2], "y": [1, 0], "g": 2.0}, -np.array([0.1, 0.2]) ** 2 * np.log([0.9, 0.8])),
    "Huber with a function defined by cases, and its residual defined per example": (
        r"L = \frac{1}{N}\sum_{n=1}^{N} h(r_n), \quad h(r) = \begin{cases} \frac{1}{2} r^2 & |r| \le \delta \\ "
        r"\delta\,(|r| - \frac{1}{2}\delta) & \text{otherwise} \end{cases}, \quad r_n = \hat{y}_n - y_n",
        {r"\hat{y}": ("predictions", ("N",), "p"), "y": ("targets", ("N",), "y"), "r": ("residuals", ("N",)),
         "h": ("Huber", ("N",)), r"\delta": ("threshold", (), "d"), "N": ("examples", ()), "L": ("loss", (), "return")},
        {"p": U, "y": V, "d": 1.5}, np.mean(_huber(U - V, 1.5))),
    "RMS norm with the RMS a function of a matrix": (
        r"\bar{a}_i = \frac{a_i}{\mathrm{RMS}(a)} g_i, \quad \mathrm{RMS}(a) = \sqrt{\frac{1}{n}\sum_{i=1}^{n} a_i^2}",
        {"a": ("rows", ("b", "n"), "a"), "g": ("gain", ("n",), "g"), "n": ("features", ()),
         r"\bar{a}": ("output", ("b", "n"), "return")},
        {"a": Z, "g": U}, Z / np.sqrt(np.mean(Z ** 2, axis=1, keepdims=True)) * U),
    "exact GELU with erf": (
        r"y = x\,\Phi(x), \quad \Phi(x) = \frac{1}{2}\left(1 + \mathrm{erf}\left(x / \sqrt{2}\right)\right)",
        {"x": ("inputs", ("n",), "x"), r"\Phi": ("normal CDF", ("n",)), "y": ("outputs", ("n",), "return")},
        {"x": U}, U * 0.5 * (1 + np.vectorize(math.erf)(U / np.sqrt(2)))),
}


@pytest.mark.parametrize("case", READ)
def test_a_paper_equation_evaluates_to_numpy_value(case):
    equation, symbols, inputs, expected = READ[case]
    value, why = _value(equation, symbols, {k: np.asarray(v).tolist() for k, v in inputs.items()})
    assert value is not None, why
    assert np.allclose(value, expected) and value.shape == np.shape(expected), (value, expected)


NOT_READ = {
    "a matrix juxtaposed with a matrix it cannot multiply": (
        r"y = W x", {"x": ("rows", ("n", "d"), "x"), "W": ("weights", ("n", "d"), "w"),
                     "y": ("out", ("n", "d"), "return")}, {"x": Z, "w": Z}, "matrix product or element"),
    "a dot between two vectors": (
        r"s = u \cdot v", {"u": ("a", ("d",), "u"), "v": ("b", ("d",), "v"), "s": ("s", ("d",), "return")},
        {"u": U, "v": V}, "dot product"),
    "a sum that does not use its index": (
        r"s = \sum_{i=1}^{d} c", {"c": ("c", (), "c"), "d": ("d", ()), "u": ("u", ("d",), "u"),
                                   "s": ("s", (), "return")}, {"c": 1.0, "u": U}, "does not use i"),
    "arithmetic on an index": (
        r"s = \sum_{i=1}^{d} i u_i", {"u": ("u", ("d",), "u"), "d": ("d", ()), "s": ("s", (), "return")},
        {"u": U}, "computes with an index"),
    "cases that do not cover every element": (
        r"y = \begin{cases} x & x > 0 \\ 0 & x < 0 \end{cases}", {"x": ("x", ("n",), "x"),
                                                                  "y": ("y", ("n",), "return")},
        {"x": [1.0, 0.0]}, "none of its cases"),
    "a max of one value": (
        r"m = \max(x)", {"x": ("x", ("n",), "x"), "m": ("m", (), "return")}, {"x": U}, "one value"),
    "the norm of a matrix": (
        r"m = \|x\|", {"x": ("x", ("n", "d"), "x"), "m": ("m", (), "return")}, {"x": Z}, "norm of a matrix"),
    "a matrix power": (
        r"m = x^2", {"x": ("x", ("n", "d"), "x"), "m": ("m", ("n", "d"), "return")}, {"x": Z}, "matrix power"),
    "a row mean not kept as a column": (
        r"y = x - \frac{1}{d}\sum_{i=1}^{d} x_i", {"x": ("x", ("n", "d"), "x"), "d": ("d", ()),
                                                   "y": ("y", ("n", "d"), "return")}, {"x": Z}, "do not line up"),
    "a result of another shape": (
        r"y = x", {"x": ("x", ("n",), "x"), "y": ("y", (), "return")}, {"x": U}, "dimension the result"),
    "an unknown function": (
        r"y = \sigma(x)", {"x": ("x", ("n",), "x"), "y": ("y", ("n",), "return")}, {"x": U}, "sigma"),
    "a huge power": (r"y = x^{10^{10^{10^{10}}}}", {"x": ("x", ("n",), "x"), "y": ("y", ("n",), "return")},
                     {"x": V + 2}, "finite"),
    "a row mean kept as a column beside a row sum that is not": (
        r"y = \frac{x - \mu}{\sigma}, \quad \sigma^2 = \frac{1}{d}\sum_{i=1}^{d} x_i^2 - \mu^2, \quad "
        r"\mu = \frac{1}{d}\sum_{i=1}^{d} x_i",
        {"x": ("rows", ("n", "d"), "x"), r"\mu": ("row means", ("n", 1)), r"\sigma": ("row spreads", ("n", 1)),
         "d": ("features", ()), "y": ("output", ("n", "d"), "return")}, {"x": Z}, "lines up with two others"),
    "a division by a product without parentheses": (
        r"y = x / 2c", {"x": ("x", ("n",), "x"), "c": ("c", (), "c"), "y": ("y", ("n",), "return")},
        {"x": U, "c": 2.0}, "a/(bc) or (a/b)c"),
    "a term after the sum that uses its index": (
        r"y = \sum_{i=1}^{n} x_i + z_i", {"x_i": ("x", ("n",), "x"), "z_i": ("z", ("n",), "z"), "n": ("n", ()),
                                         "y": ("y", (), "return")}, {"x": U, "z": V}, "after the sum"),
    "subscripts in another order than the axes they name": (
        r"Y_{ij} = Q_{ji}", {"Q": ("Q", ("n", "d"), "q"), "Y": ("Y", ("n", "d"), "return")}, {"q": Z},
        "do not name its axes"),
    "an index compared with a written number": (
        r"y = \sum_{j \neq 1} x_j", {"x": ("x", ("n",), "x"), "y": ("y", (), "return")}, {"x": U},
        "compares an index with a number"),
    "definitions in a circle": (
        r"y = x - \mu, \quad \mu = \nu, \quad \nu = \mu",
        {"x": ("x", ("n",), "x"), r"\mu": ("m", ()), r"\nu": ("n", ()), "y": ("y", ("n",), "return")}, {"x": U},
        "circle"),
    "a definition of a symbol without a row": (
        r"y = x - \mu, \quad \mu = 1", {"x": ("x", ("n",), "x"), "y": ("y", ("n",), "return")}, {"x": U},
        "no row in the table"),
    "a function called with two arguments": (
        r"y = h(x, x), \quad h(r) = r^2", {"x": ("x", ("n",), "x"), "h": ("h", ("n",)), "y": ("y", ("n",), "return")},
        {"x": U},
        "other arguments"),
}


@pytest.mark.parametrize("case", NOT_READ)
def test_what_could_be_read_two_ways_is_not_read_and_says_why(case):
    equation, symbols, inputs, why = NOT_READ[case]
    value, message = _value(equation, symbols, {k: np.asarray(v).tolist() for k, v in inputs.items()})
    assert value is None and why in message, (value, message)
