"""Corpora for notation_numpy: whole environments of the 13 functions, written differently."""
import math

import numpy as np


def dot(x, y): return x @ y
def norm(x): return np.linalg.norm(x)
def indicator(x): return (x > 0).astype(float)
def accuracy(y_hat, y): return np.mean(y_hat == y)
def mean_square(x): return np.mean(x ** 2)
def best_x(xs, fx): return xs[np.argmax(fx)]
def log_prod(p): return np.sum(np.log(p))
def square(g): return g ** 2
def reparam(mu, sigma, eps): return mu + sigma * eps
def scores(Q, K): return Q @ K.T / np.sqrt(K.shape[1])
def kl(p, q): return np.sum(p * np.log(p / q))
def m_hat(m, beta1, t): return m / (1 - beta1 ** t)
def row_softmax(S): return np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)


BASE = {f.__name__: f for f in (dot, norm, indicator, accuracy, mean_square, best_x, log_prod, square, reparam,
                                scores, kl, m_hat, row_softmax)}


def _with(**changes):
    return {**BASE, **changes}


RIGHT = {
    "matmul": dict(BASE),
    "np_dot_and_friends": _with(
        dot=lambda x, y: np.dot(x, y), norm=lambda x: np.sqrt(np.dot(x, x)), indicator=lambda x: x > 0,
        accuracy=lambda y_hat, y: (y_hat == y).sum() / len(y), mean_square=lambda x: (x * x).mean(),
        scores=lambda Q, K: np.dot(Q, K.T) / K.shape[-1] ** 0.5),
    "sums": _with(
        dot=lambda x, y: (x * y).sum(), norm=lambda x: np.sqrt((x ** 2).sum()), log_prod=lambda p: np.log(p).sum(),
        kl=lambda p, q: (p * (np.log(p) - np.log(q))).sum(), square=lambda g: g * g,
        reparam=lambda mu, sigma, eps: np.add(mu, np.multiply(sigma, eps))),
    "einsum": _with(
        dot=lambda x, y: np.einsum("i,i->", x, y), scores=lambda Q, K: np.einsum("nd,md->nm", Q, K) / np.sqrt(Q.shape[1]),
        indicator=lambda x: np.where(x > 0, 1, 0), best_x=lambda xs, fx: xs[fx == fx.max()][0],
        row_softmax=lambda S: np.exp(S - S.max(-1, keepdims=True)) / np.exp(S - S.max(-1, keepdims=True)).sum(-1)[:, None]),
    "loops": _with(
        dot=lambda x, y: sum(a * b for a, b in zip(x, y)), log_prod=lambda p: float(sum(np.log(v) for v in p)),
        m_hat=lambda m, beta1, t: m / (1 - np.power(beta1, t)), square=lambda g: np.square(g),
        accuracy=lambda y_hat, y: np.count_nonzero(y_hat == y) / y.size, mean_square=lambda x: np.var(x) + np.mean(x) ** 2),
    "tensordot_0d": _with(dot=lambda x, y: np.tensordot(x, y, axes=1), norm=lambda x: np.linalg.norm(x, keepdims=True)[0],
                          mean_square=lambda x: np.mean(np.square(x), keepdims=True).reshape(())),
    "lists_out": _with(indicator=lambda x: [1.0 if v > 0 else 0.0 for v in x], square=lambda g: list(g ** 2)),
}
WRONG = {
    "dot_elementwise": (_with(dot=lambda x, y: x * y), "dot-elementwise"),
    "argmax_value": (_with(best_x=lambda xs, fx: np.max(fx)), "argmax-value"),
    "argmax_index": (_with(best_x=lambda xs, fx: np.argmax(fx)), "argmax-index"),
    "kl_swapped": (_with(kl=lambda p, q: np.sum(q * np.log(q / p))), "kl-swapped"),
    "beta_not_power": (_with(m_hat=lambda m, beta1, t: m / (1 - beta1)), "beta-not-power"),
    "softmax_columns": (_with(row_softmax=lambda S: np.exp(S) / np.exp(S).sum(axis=0, keepdims=True)), "softmax-columns"),
    "no_sqrt": (_with(scores=lambda Q, K: Q @ K.T), "scores-no-sqrt"),
    "log10": (_with(log_prod=lambda p: np.sum(np.log10(p))), "log10"),
    "square_dot": (_with(square=lambda g: g @ g), "square-dot"),
    "reparam_matmul": (_with(reparam=lambda mu, sigma, eps: mu + sigma @ eps), "reparam-matmul"),
    "norm_l1": (_with(norm=lambda x: np.linalg.norm(x, ord=1)), "norm-l1"),
    "norm_inf": (_with(norm=lambda x: np.linalg.norm(x, ord=np.inf)), "norm-max"),
    "var_for_mean_square": (_with(mean_square=lambda x: np.var(x)), "mean-square-variance"),
    "log_of_sum": (_with(log_prod=lambda p: np.log(p.sum())), "log-of-sum"),
    "log2_prod": (_with(log_prod=lambda p: np.log2(p).sum()), "log2"),
    "scores_sqrt_n": (_with(scores=lambda Q, K: Q @ K.T / np.sqrt(len(Q))), "scores-sqrt-n"),
    "kl_log2": (_with(kl=lambda p, q: (p * np.log2(p / q)).sum()), "kl-log2"),
    "m_hat_multiplied": (_with(m_hat=lambda m, beta1, t: m * (1 - beta1**t)), "m-hat-multiplied"),
    "softmax_no_exp": (_with(row_softmax=lambda S: S / S.sum(1, keepdims=True)), "softmax-no-exp"),
    "returns_none": (_with(norm=lambda x: None), "not an array of numbers"),
    "raises": (_with(accuracy=lambda y_hat, y: 1 / 0), "ZeroDivisionError"),
    "mutates": (_with(square=lambda g: np.square(g, out=g)), "changed its input"),
    "not_a_function": (_with(dot=3.0), "should be a function"),
    "indicator_non_strict": (_with(indicator=lambda x: (x >= 0) * 1.0), "indicator-non-strict"),
    "indicator_sign": (_with(indicator=lambda x: np.sign(x)), "indicator-sign"),
    "reparam_variance": (_with(reparam=lambda mu, sigma, eps: mu + sigma * sigma * eps), "reparam-variance"),
    "reparam_no_mu": (_with(reparam=lambda mu, sigma, eps: np.multiply(sigma, eps)), "reparam-no-mu"),
    "log_of_product": (_with(log_prod=lambda p: float(np.log(np.prod(p)))), "log-of-product"),
    "kl_unweighted": (_with(kl=lambda p, q: np.log(p / q).sum()), "kl-unweighted"),
    "softmax_over_max": (_with(row_softmax=lambda S: np.exp(S) / np.exp(S).max(axis=1, keepdims=True)),
                         "Each row of a softmax sums to 1"),
    "norm_cube_root": (_with(norm=lambda x: np.sum(x ** 2) ** (1 / 3)), "A length scales with the vector"),
    "kl_negative": (_with(kl=lambda p, q: np.sum(p * np.log(q / p))), "KL(p || p) = 0"),
}


def _math_dot(x, y):
    """The dot product with the math module: an exactly rounded sum of products."""
    return math.fsum(a * b for a, b in zip(x, y))


def _typed_kl(p: np.ndarray, q: np.ndarray) -> float:
    return float(np.sum(p * (np.log(p) - np.log(q))))


RIGHT.update({
    "math_module": _with(dot=_math_dot, norm=lambda x: math.sqrt(sum(v * v for v in x)),
                         log_prod=lambda p: math.fsum(math.log(v) for v in p),
                         m_hat=lambda m, beta1, t: m / (1 - math.pow(beta1, t))),
    "type_hints_and_loops": _with(kl=_typed_kl, indicator=lambda x: np.array([float(v > 0) for v in x]),
                                  accuracy=lambda y_hat, y: sum(int(a == b) for a, b in zip(y_hat, y)) / len(y),
                                  best_x=lambda xs, fx: max(zip(fx, xs))[1]),
    "stable_row_softmax_and_heaviside": _with(
        row_softmax=lambda S: np.exp(S - S.max(1, keepdims=True)) / np.exp(S - S.max(1, keepdims=True)).sum(1, keepdims=True),
        indicator=lambda x: np.heaviside(x, 0.0), reparam=lambda mu, sigma, eps: np.asarray(mu) + np.asarray(sigma) * eps,
        scores=lambda Q, K: (Q @ K.T) * (1 / math.sqrt(Q.shape[-1]))),
})


# -- right, from a fresh pair of eyes: the whole set graded in a real notebook too, full marks -----------


def _fresh_norm(x): return math.sqrt(sum(float(v) ** 2 for v in x))
def _fresh_indicator(x): return np.where(np.asarray(x) > 0, 1.0, 0.0)
def _fresh_mean_square(x): return (np.asarray(x, dtype=float) ** 2).sum() / np.size(x)
def _fresh_best_x(xs, fx): return xs[max(range(len(fx)), key=lambda k: fx[k])]
def _fresh_log_prod(p): return float(sum(math.log(v) for v in p))
def _fresh_scores(Q, K): return np.einsum("nd,md->nm", Q, K) / math.sqrt(np.shape(Q)[1])
def _fresh_kl(p, q): return float(np.dot(p, np.log(p) - np.log(q)))
def _fresh_m_hat(m, beta1, t): return m / (1.0 - math.pow(beta1, t))


def _fresh_accuracy(y_hat, y):
    hits = [1 if a == b else 0 for a, b in zip(y_hat, y)]
    return sum(hits) / len(hits)


def _fresh_row_softmax(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


RIGHT["fresh-einsum-math-comprehensions"] = {
    "dot": lambda x, y: float(np.einsum("i,i->", x, y)), "norm": _fresh_norm, "indicator": _fresh_indicator,
    "accuracy": _fresh_accuracy, "mean_square": _fresh_mean_square, "best_x": _fresh_best_x,
    "log_prod": _fresh_log_prod, "square": lambda g: np.multiply(g, g),
    "reparam": lambda mu, sigma, eps: np.add(mu, np.multiply(sigma, eps)), "scores": _fresh_scores,
    "kl": _fresh_kl, "m_hat": _fresh_m_hat, "row_softmax": _fresh_row_softmax}


def _fresh2_m_hat_on_a_copy(m, beta1, t):
    out = m.copy()
    out /= 1 - beta1 ** t
    return out


def _fresh2_softmax_loop(S):
    out = np.empty_like(S, dtype=float)
    for i, row in enumerate(S):
        e = np.exp(row - max(row))
        out[i] = e / sum(e)
    return out


RIGHT["fresh2-more-idioms"] = _with(
    dot=lambda x, y: x.T @ y, norm=lambda x: (x @ x) ** 0.5, indicator=lambda x: 1 * (x > 0),
    mean_square=lambda x: np.average(np.square(x)), best_x=lambda xs, fx: xs[list(fx).index(max(fx))],
    kl=lambda p, q: -np.sum(p * np.log(q / p)), m_hat=_fresh2_m_hat_on_a_copy, row_softmax=_fresh2_softmax_loop,
    scores=lambda Q, K: Q @ np.transpose(K) * K.shape[1] ** -0.5, square=lambda g: np.power(g, 2))
RIGHT["fresh2-log-softmax-rows"] = _with(  # the prompt asks for no stability: a global max shift is fine too
    row_softmax=lambda S: np.exp(S - S.max() - np.log(np.exp(S - S.max()).sum(axis=1, keepdims=True))))
WRONG.update({
    "fresh2-indicator-as-relu": (_with(indicator=lambda x: np.maximum(x, 0)), "indicator-relu"),
    "fresh2-accuracy-as-error-rate": (_with(accuracy=lambda y_hat, y: np.mean(y_hat != y)), "accuracy-error-rate"),
    "fresh2-mean-square-summed": (_with(mean_square=lambda x: np.sum(x ** 2)), "mean-square-sum"),
    "fresh2-root-mean-square": (_with(mean_square=lambda x: np.sqrt(np.mean(x ** 2))), "mean-square-root"),
    "fresh2-argmin": (_with(best_x=lambda xs, fx: xs[np.argmin(fx)]), "argmax-argmin"),
    "fresh2-product-without-log": (_with(log_prod=lambda p: np.prod(p)), "log-prod-no-log"),
    "fresh2-square-doubled": (_with(square=lambda g: 2 * g), "square-doubled"),
    "fresh2-scores-sqrt-m": (_with(scores=lambda Q, K: Q @ K.T / np.sqrt(K.shape[0])), "scores-sqrt-m"),
    "fresh2-scores-Q-transposed": (_with(scores=lambda Q, K: Q.T @ K / np.sqrt(K.shape[1])), "scores-q-transposed"),
    "fresh2-softmax-without-keepdims": (_with(row_softmax=lambda S: np.exp(S) / np.exp(S).sum(axis=1)),
                                        "softmax-no-keepdims"),
})
