"""adam_step: differently written right answers, and wrong ones with the diagnosis they must get."""

import math

import numpy as np

from classroom.corpus import answers

# -- right ---------------------------------------------------------------------------------------------


def _line_by_line(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g**2
    m_hat = m / (1 - beta1**t)
    v_hat = v / (1 - beta2**t)
    theta = theta - alpha * m_hat / (np.sqrt(v_hat) + eps)
    return theta, m, v


def _copies_then_in_place(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, m, v = (np.array(x, dtype=float) for x in (theta, m, v))
    g = np.asarray(g, dtype=float)
    m *= beta1
    m += (1 - beta1) * g
    v *= beta2
    v += (1 - beta2) * g * g
    theta -= alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    return theta, m, v


def _math_pow_list(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    c1, c2 = 1 - math.pow(beta1, t), 1 - math.pow(beta2, t)
    m_t = np.multiply(beta1, m) + np.multiply(1 - beta1, g)
    v_t = np.multiply(beta2, v) + np.multiply(1 - beta2, np.square(g))
    step = alpha * (m_t / c1) / (np.sqrt(v_t / c2) + eps)
    return [np.subtract(theta, step), m_t, v_t]  # a list instead of a tuple


def _elementwise_loop(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(x, dtype=float) for x in (theta, g, m, v))
    out_theta, out_m, out_v = np.empty_like(theta), np.empty_like(theta), np.empty_like(theta)
    for i in np.ndindex(theta.shape):
        mi = beta1 * m[i] + (1 - beta1) * g[i]
        vi = beta2 * v[i] + (1 - beta2) * g[i] * g[i]
        out_theta[i] = theta[i] - alpha * (mi / (1 - beta1**t)) / (math.sqrt(vi / (1 - beta2**t)) + eps)
        out_m[i], out_v[i] = mi, vi
    return out_theta, out_m, out_v


def _stacked_array(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    m_t = m + (1 - beta1) * (g - m)  # the same moving average, written as a correction
    v_t = v + (1 - beta2) * (g**2 - v)
    theta_t = theta - alpha * (m_t / (1 - beta1**t)) / (np.sqrt(v_t) / np.sqrt(1 - beta2**t) + eps)
    return np.stack([theta_t, m_t, v_t])  # one array holding the three


def _hats_by_power(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    m_t = beta1 * np.asarray(m) + (1 - beta1) * g
    v_t = beta2 * np.asarray(v) + (1 - beta2) * g**2
    m_hat = m_t * (1 - beta1**t) ** -1
    v_hat = v_t * (1 - beta2**t) ** -1
    return np.asarray(theta) - alpha * m_hat / (v_hat**0.5 + eps), m_t, v_t


RIGHT = answers("adam_step", {
    "line-by-line": _line_by_line,
    "copies-then-in-place": _copies_then_in_place,
    "math-pow-returns-list": _math_pow_list,
    "element-wise-loop": _elementwise_loop,
    "stacked-array": _stacked_array,
    "hats-by-power": _hats_by_power,
})


# -- wrong ---------------------------------------------------------------------------------------------


def _in_place_on_inputs(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m *= beta1  # changes the caller's m and v
    m += (1 - beta1) * g
    v *= beta2
    v += (1 - beta2) * g**2
    return theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v


def _hard_coded_hyperparameters(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return _line_by_line(theta, g, m, v, t)


def _returns_theta_only(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return _line_by_line(theta, g, m, v, t, alpha, beta1, beta2, eps)[0]


def _wrong_order(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta_t, m_t, v_t = _line_by_line(theta, g, m, v, t, alpha, beta1, beta2, eps)
    return m_t, v_t, theta_t


def _betas_swapped(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return _line_by_line(theta, g, m, v, t, alpha, beta2, beta1, eps)


def _abs_instead_of_sqrt(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * g**2
    return theta - alpha * (m_t / (1 - beta1**t)) / (v_t / (1 - beta2**t) + eps), m_t, v_t


def _t_squared_correction(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return _line_by_line(theta, g, m, v, t * t, alpha, beta1, beta2, eps)


def _update_uses_g(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * g**2
    return theta - alpha * g / (np.sqrt(v_t / (1 - beta2**t)) + eps), m_t, v_t


def _integer_in_place(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta)  # keeps an integer dtype, so the in-place float update raises
    theta_t, m_t, v_t = _line_by_line(np.asarray(theta, dtype=float), g, m, v, t, alpha, beta1, beta2, eps)
    theta -= theta - theta_t
    return theta, m_t, v_t


def _m_squared_in_v(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * m_t**2
    return theta - alpha * (m_t / (1 - beta1**t)) / (np.sqrt(v_t / (1 - beta2**t)) + eps), m_t, v_t


def _moments_from_one(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m, v = (np.ones_like(np.asarray(x, dtype=float)) if t == 1 else x for x in (m, v))
    return _line_by_line(theta, g, m, v, t, alpha, beta1, beta2, eps)


def _plain_sgd(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    _, m_t, v_t = _line_by_line(theta, g, m, v, t, alpha, beta1, beta2, eps)
    return theta - alpha * g, m_t, v_t


WRONG = {
    "m-squared-in-v": ({"adam_step": _m_squared_in_v}, "v_t is the moving average of the squared gradients"),
    "moments-started-at-one": ({"adam_step": _moments_from_one}, "first step"),
    "plain-sgd-update": ({"adam_step": _plain_sgd}, "first step"),
    # changes its inputs (every float case says so) and so raises on integer ones: named by the raise
    "in-place-on-inputs": ({"adam_step": _in_place_on_inputs}, "integer-in-place"),
    "hard-coded-hyperparameters": ({"adam_step": _hard_coded_hyperparameters}, "with the β₁ it is given"),
    "returns-theta-only": ({"adam_step": _returns_theta_only}, "should return 3 arrays"),
    "wrong-order": ({"adam_step": _wrong_order}, "outputs-in-wrong-order"),
    "betas-swapped": ({"adam_step": _betas_swapped}, "m_t is the moving average"),
    "no-square-root": ({"adam_step": _abs_instead_of_sqrt}, "first step"),
    "t-squared": ({"adam_step": _t_squared_correction}, "does not follow from your own m_t and v_t"),
    "update-uses-g": ({"adam_step": _update_uses_g}, "does not follow from your own m_t and v_t"),
    "integer-in-place": ({"adam_step": _integer_in_place}, "integer-in-place"),
    "no-bias-correction": (
        {"adam_step": lambda theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8: _line_by_line(
            theta, g, m, v, 10**9, alpha, beta1, beta2, eps)},
        "no-bias-correction",
    ),
}


# -- more right answers, as students write them ---------------------------------------------------------


def _state_dict(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam's loop body with the state in a dict, as an optimiser keeps it."""
    state = {"m": np.asarray(m, dtype=float), "v": np.asarray(v, dtype=float)}
    grad = np.asarray(g, dtype=float)
    state["m"] = beta1 * state["m"] + (1.0 - beta1) * grad
    state["v"] = beta2 * state["v"] + (1.0 - beta2) * np.power(grad, 2)
    m_hat, v_hat = state["m"] / (1.0 - beta1 ** t), state["v"] / (1.0 - beta2 ** t)
    return np.asarray(theta, dtype=float) - alpha * m_hat / (np.sqrt(v_hat) + eps), state["m"], state["v"]


def _flat_lists(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    shape = np.shape(theta)
    cols = zip(*(np.asarray(x, dtype=float).ravel().tolist() for x in (theta, g, m, v)))
    new = []
    for th, gi, mi, vi in cols:
        mi = beta1 * mi + (1 - beta1) * gi
        vi = beta2 * vi + (1 - beta2) * gi * gi
        new.append((th - alpha * (mi / (1 - beta1 ** t)) / (math.sqrt(vi / (1 - beta2 ** t)) + eps), mi, vi))
    return tuple(np.array([n[j] for n in new]).reshape(shape) for j in range(3))


def _typed(theta: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, t: int, alpha: float = 0.001,
           beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m_t = np.add(np.multiply(beta1, m), np.multiply(1 - beta1, g))
    v_t = np.add(np.multiply(beta2, v), np.multiply(1 - beta2, np.multiply(g, g)))
    bias1, bias2 = 1 - np.float_power(beta1, t), 1 - np.float_power(beta2, t)
    step = np.divide(alpha * np.divide(m_t, bias1), np.add(np.sqrt(np.divide(v_t, bias2)), eps))
    return np.subtract(theta, step), m_t, v_t


RIGHT |= answers("adam_step", {
    "state-dict": _state_dict,
    "flat-python-lists": _flat_lists,
    "ufuncs-type-hints": _typed,
})


# -- right, from a fresh pair of eyes (each also graded in a real notebook: full marks) -----------------


def _fresh_math_pow(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g = np.array(theta, dtype=float), np.array(g, dtype=float)
    m = beta1 * np.array(m, dtype=float) + (1 - beta1) * g
    v = beta2 * np.array(v, dtype=float) + (1 - beta2) * g * g
    theta -= alpha * (m / (1 - math.pow(beta1, t))) / (np.sqrt(v / (1 - math.pow(beta2, t))) + eps)
    return theta, m, v


class _FreshAdamState:
    def __init__(self, alpha, beta1, beta2, eps):
        self.alpha, self.beta1, self.beta2, self.eps = alpha, beta1, beta2, eps

    def update(self, theta, g, m, v, t):
        m_new = self.beta1 * m + (1.0 - self.beta1) * g
        v_new = self.beta2 * v + (1.0 - self.beta2) * np.square(g)
        m_hat, v_hat = m_new / (1.0 - self.beta1**t), v_new / (1.0 - self.beta2**t)
        return theta - self.alpha * m_hat / (np.sqrt(v_hat) + self.eps), m_new, v_new


def _fresh_class(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    arrays = [np.asarray(a, dtype=float) for a in (theta, g, m, v)]
    return _FreshAdamState(alpha, beta1, beta2, eps).update(*arrays, t)


def _fresh_torch_names(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    p, grad = np.array(theta, dtype=np.float64), np.asarray(g, dtype=np.float64)
    exp_avg, exp_avg_sq = np.array(m, dtype=np.float64), np.array(v, dtype=np.float64)
    exp_avg *= beta1
    exp_avg += (1 - beta1) * grad
    exp_avg_sq *= beta2
    exp_avg_sq += (1 - beta2) * grad * grad
    denom = np.sqrt(exp_avg_sq / (1 - beta2**t)) + eps
    p -= alpha * (exp_avg / (1 - beta1**t)) / denom
    return p, exp_avg, exp_avg_sq


def _fresh_ufuncs(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    new_m = np.add(np.multiply(beta1, m), np.multiply(1 - beta1, g))
    new_v = np.add(np.multiply(beta2, v), np.multiply(1 - beta2, np.power(g, 2)))
    m_hat, v_hat = new_m / (1 - np.power(beta1, t)), new_v / (1 - np.power(beta2, t))
    return np.subtract(theta, alpha * m_hat / (np.sqrt(v_hat) + eps)), new_m, new_v


RIGHT |= answers("adam_step", {
    "fresh-math-pow-in-place": _fresh_math_pow,
    "fresh-state-class": _fresh_class,
    "fresh-torch-names-in-place": _fresh_torch_names,
    "fresh-numpy-ufuncs": _fresh_ufuncs,
})


def _fresh_returns_list(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    m = beta1 * np.asarray(m, dtype=float) + (1 - beta1) * g
    v = beta2 * np.asarray(v, dtype=float) + (1 - beta2) * g**2
    return [np.asarray(theta, dtype=float) - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v]


RIGHT["fresh-returns-a-list"] = {"adam_step": _fresh_returns_list}
