"""Correct answers to notation_numpy: loops and math, np.dot/einsum, stable softmax variants."""
import math

import numpy as np


# -- style 1: loops and the math module ---------------------------------------------------
def dot_loop(x, y):
    total = 0.0
    for a, b in zip(x, y):
        total += a * b
    return total


def norm_loop(x):
    return math.sqrt(sum(v * v for v in np.ravel(x)))


def indicator_loop(x):
    x = np.asarray(x)
    return np.array([1.0 if v > 0 else 0.0 for v in x.ravel()]).reshape(x.shape)


def accuracy_loop(y_hat, y):
    hits = 0
    for a, b in zip(y_hat, y):
        hits += int(a == b)
    return hits / len(y)


def mean_square_loop(x):
    xs = np.ravel(x)
    return sum(v ** 2 for v in xs) / len(xs)


def best_x_loop(xs, fx):
    best = 0
    for i in range(1, len(fx)):
        if fx[i] > fx[best]:
            best = i
    return xs[best]


def log_prod_loop(p):
    return math.fsum(math.log(v) for v in p)


def square_loop(g):
    return np.array([v * v for v in np.ravel(g)]).reshape(np.shape(g))


def reparam_loop(mu, sigma, eps):
    return np.array([m + s * e for m, s, e in zip(mu, sigma, eps)])


def scores_loop(Q, K):
    n, d_k = Q.shape
    m = K.shape[0]
    S = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            S[i, j] = sum(Q[i, a] * K[j, a] for a in range(d_k)) / math.sqrt(d_k)
    return S


def kl_loop(p, q):
    return sum(pi * math.log(pi / qi) for pi, qi in zip(p, q))


def m_hat_math(m, beta1, t):
    return m / (1 - math.pow(beta1, t))


def row_softmax_loop(S):
    rows = []
    for row in S:
        shifted = [s - max(row) for s in row]
        exps = [math.exp(s) for s in shifted]
        total = sum(exps)
        rows.append([e / total for e in exps])
    return np.array(rows)


# -- style 2: np.dot, einsum, matmul, ufuncs ------------------------------------------------
def dot_np(x, y):
    return np.dot(x, y)


def norm_np(x):
    return np.sqrt(np.einsum("i,i->", x, x))


def indicator_np(x):
    return np.where(x > 0, 1, 0)


def accuracy_np(y_hat, y):
    return np.count_nonzero(np.equal(y_hat, y)) / y.size


def mean_square_np(x):
    return np.square(x).mean()


def best_x_np(xs, fx):
    return xs[fx.argmax()]


def log_prod_np(p):
    return np.log(p).sum()


def square_np(g):
    return np.power(g, 2)


def reparam_np(mu, sigma, eps):
    return np.add(mu, np.multiply(sigma, eps))


def scores_einsum(Q, K):
    return np.einsum("nd,md->nm", Q, K) / math.sqrt(Q.shape[1])


def kl_np(p, q):
    return np.dot(p, np.log(p) - np.log(q))


def m_hat_np(m, beta1, t):
    return m * (1.0 / (1.0 - np.power(beta1, t)))


def row_softmax_stable(S):
    E = np.exp(S - S.max(axis=1)[:, None])
    return E / E.sum(axis=1).reshape(-1, 1)


# -- style 3: matmul, transpose(), logsumexp by hand, float32-safe ---------------------------
def dot_matmul(x, y):
    return np.matmul(x, y)


def norm_pow(x):
    return (x ** 2).sum() ** 0.5


def indicator_bool(x):
    return (x > 0) * 1.0


def accuracy_mean(y_hat, y):
    return (np.asarray(y_hat) == np.asarray(y)).astype(np.float64).mean()


def mean_square_dot(x):
    x = np.ravel(x)
    return x @ x / len(x)


def best_x_max(xs, fx):
    return max(zip(fx, xs))[1]


def log_prod_vdot(p):
    return float(np.sum(np.log(np.asarray(p, dtype=float))))


def square_mul(g):
    return g * g


def reparam_plus(mu, sigma, eps):
    z = np.array(mu, dtype=float, copy=True)
    z += sigma * eps
    return z


def scores_matmul(Q, K):
    return np.matmul(Q, K.transpose()) / K.shape[-1] ** 0.5


def kl_where(p, q):
    return float((p * np.log(p / q)).sum())


def m_hat_div(m, beta1, t):
    return np.divide(m, 1 - beta1 ** t)


def row_softmax_lse(S):
    mx = np.max(S, axis=-1, keepdims=True)
    lse = mx + np.log(np.sum(np.exp(S - mx), axis=-1, keepdims=True))
    return np.exp(S - lse)


NAMES = ["dot", "norm", "indicator", "accuracy", "mean_square", "best_x", "log_prod", "square", "reparam",
         "scores", "kl", "m_hat", "row_softmax"]


def _env(*fns):
    return dict(zip(NAMES, fns), np=np, math=math)


RIGHT = {
    "loops and math": _env(dot_loop, norm_loop, indicator_loop, accuracy_loop, mean_square_loop, best_x_loop,
                           log_prod_loop, square_loop, reparam_loop, scores_loop, kl_loop, m_hat_math,
                           row_softmax_loop),
    "np.dot / einsum / [:, None]": _env(dot_np, norm_np, indicator_np, accuracy_np, mean_square_np, best_x_np,
                                        log_prod_np, square_np, reparam_np, scores_einsum, kl_np, m_hat_np,
                                        row_softmax_stable),
    "matmul / logsumexp / in-place on a copy": _env(dot_matmul, norm_pow, indicator_bool, accuracy_mean,
                                                    mean_square_dot, best_x_max, log_prod_vdot, square_mul,
                                                    reparam_plus, scores_matmul, kl_where, m_hat_div,
                                                    row_softmax_lse),
}


# -- style 4: equivalent formulas ------------------------------------------------------------
def dot_inner(x, y):
    return np.inner(x, y)


def norm_hypot(x):
    return np.hypot.reduce(x)


def indicator_heaviside(x):
    return np.heaviside(x, 0.0)      # 1 where x > 0, 0 where x < 0, and 0 at x == 0


def accuracy_average(y_hat, y):
    return np.average(np.asarray(y_hat) == np.asarray(y))


def mean_square_var(x):
    return np.var(x) + np.mean(x) ** 2      # E[x^2] = Var[x] + E[x]^2


def best_x_index(xs, fx):
    fx = list(fx)
    return xs[fx.index(max(fx))]


def log_prod_entropy_style(p):
    return np.log(p).sum(axis=-1)


def square_abs(g):
    return np.abs(g) ** 2.0


def reparam_minus(mu, sigma, eps):
    return mu - (-sigma) * eps


def scores_broadcast(Q, K):
    return (Q[:, None, :] * K[None, :, :]).sum(axis=-1) / np.sqrt(K.shape[1])


def kl_cross_minus_entropy(p, q):
    return np.sum(p * np.log(p)) - np.sum(p * np.log(q))


def m_hat_expm1(m, beta1, t):
    return m / -np.expm1(t * np.log(beta1))      # 1 - beta1^t, computed accurately


def row_softmax_l1(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / np.linalg.norm(E, ord=1, axis=1, keepdims=True)


RIGHT["equivalent formulas: hypot, heaviside, var+mean^2, expm1, broadcasting, L1 norm"] = _env(
    dot_inner, norm_hypot, indicator_heaviside, accuracy_average, mean_square_var, best_x_index,
    log_prod_entropy_style, square_abs, reparam_minus, scores_broadcast, kl_cross_minus_entropy, m_hat_expm1,
    row_softmax_l1)


# -- probes: answers a student could defend --------------------------------------------------
def indicator_as_bool(x):
    return x > 0                      # a boolean array: the indicator "as a boolean used as a number"


def kl_zero_convention(p, q):
    # the convention 0 log 0 = 0: terms with p_i = 0 contribute nothing
    safe = np.where(p > 0, p, 1.0)
    return np.sum(np.where(p > 0, p * np.log(safe / q), 0.0))


RIGHT["indicator as a boolean array"] = dict(RIGHT["np.dot / einsum / [:, None]"], indicator=indicator_as_bool)
RIGHT["kl with the 0 log 0 = 0 convention"] = dict(RIGHT["np.dot / einsum / [:, None]"], kl=kl_zero_convention)
