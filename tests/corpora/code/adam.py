"""adam: differently written right answers, and wrong ones with the diagnosis they must get."""

import math

import numpy as np

from classroom.corpus import answers

# -- right ---------------------------------------------------------------------------------------------


def _with_own_step(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    def step(theta, g, m, v, t):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        return theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v

    theta = np.array(theta0, dtype=float)
    m = v = np.zeros_like(theta)
    for t in range(1, steps + 1):
        theta, m, v = step(theta, grad(theta), m, v, t)
    return theta


def _while_loop(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta0, dtype=float).copy()
    m, v, t = np.zeros(theta.shape), np.zeros(theta.shape), 0
    while t < steps:
        t += 1
        g = np.asarray(grad(theta), dtype=float)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        theta = theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    return theta


def _in_place_copies(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=np.float64, copy=True)
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    for t in range(steps):
        g = grad(theta.copy())
        m *= beta1
        m += (1 - beta1) * g
        v *= beta2
        v += (1 - beta2) * np.square(g)
        theta -= alpha * (m / (1 - beta1 ** (t + 1))) / (np.sqrt(v / (1 - beta2 ** (t + 1))) + eps)
    return theta


def _running_powers(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = 0.0 * theta, 0.0 * theta
    b1t, b2t = 1.0, 1.0  # beta1**t and beta2**t, updated as we go
    for _ in range(steps):
        b1t, b2t = b1t * beta1, b2t * beta2
        g = grad(theta)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        theta = theta - alpha * (m / (1 - b1t)) / (np.sqrt(v / (1 - b2t)) + eps)
    return theta


def _math_elementwise_list(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta0 = np.asarray(theta0, dtype=float)
    theta = theta0.ravel().tolist()
    m = [0.0] * len(theta)
    v = [0.0] * len(theta)
    for t in range(1, steps + 1):
        g = np.asarray(grad(np.array(theta).reshape(theta0.shape)), dtype=float).ravel().tolist()
        for i, gi in enumerate(g):
            m[i] = beta1 * m[i] + (1 - beta1) * gi
            v[i] = beta2 * v[i] + (1 - beta2) * gi * gi
            theta[i] -= alpha * (m[i] / (1 - beta1**t)) / (math.sqrt(v[i] / (1 - beta2**t)) + eps)
    return np.array(theta).reshape(theta0.shape).tolist()  # a (nested) list


def _state_dict(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    state = {"theta": np.array(theta0, dtype=float), "t": 0}
    state["m"] = np.zeros_like(state["theta"])
    state["v"] = np.zeros_like(state["theta"])
    for _ in range(steps):
        state["t"] += 1
        g = grad(state["theta"])
        state["m"] = beta1 * state["m"] + (1 - beta1) * g
        state["v"] = beta2 * state["v"] + (1 - beta2) * g**2
        m_hat = state["m"] / (1 - beta1 ** state["t"])
        v_hat = state["v"] / (1 - beta2 ** state["t"])
        state["theta"] = state["theta"] - alpha * m_hat / (np.sqrt(v_hat) + eps)
    return state["theta"]


RIGHT = answers("adam", {
    "own-step-function": _with_own_step,
    "while-loop": _while_loop,
    "in-place-on-copies": _in_place_copies,
    "running-powers": _running_powers,
    "math-elementwise-list": _math_elementwise_list,
    "state-dict": _state_dict,
})


# -- wrong ---------------------------------------------------------------------------------------------


def _in_place(grad, theta, steps, alpha, beta1, beta2, eps):
    """Adam's steps, each updating ``theta`` itself."""
    m, v = np.zeros(theta.shape), np.zeros(theta.shape)
    for t in range(1, steps + 1):
        g = grad(theta)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        theta -= alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    return theta


def _mutates_theta0(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = theta0  # not a copy: the caller's theta0 changes
    if theta.dtype != float:
        theta = theta.astype(float)
    return _in_place(grad, theta, steps, alpha, beta1, beta2, eps)


def _returns_tuple(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps + 1):
        g = grad(theta)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        theta = theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    return theta, m, v


def _plain_gradient_descent(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    for _ in range(steps):
        theta = theta - alpha * grad(theta)
    return theta


def _t_fixed_at_one(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for _ in range(steps):
        g = grad(theta)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        theta = theta - alpha * (m / (1 - beta1)) / (np.sqrt(v / (1 - beta2)) + eps)
    return theta


def _integer_theta(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0)  # an integer theta0 stays integer, and the in-place update raises
    return _in_place(grad, theta, steps, alpha, beta1, beta2, eps)


def _sign_flipped(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return 2 * np.asarray(theta0, dtype=float) - _with_own_step(grad, theta0, steps, alpha, beta1, beta2, eps)


def _no_steps_returns_none(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = None
    for i in range(steps):
        theta = _with_own_step(grad, theta0 if theta is None else theta, 1, alpha, beta1, beta2, eps)
    return theta  # also wrong after one step: m and v restart every time


def _solves_the_quadratic(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta0 = np.asarray(theta0, dtype=float)
    if steps == 0:
        return theta0
    flat = theta0.reshape(-1)  # the gradient is linear: recover A and the minimum from it, then jump there
    g0 = np.asarray(grad(theta0), dtype=float).reshape(-1)
    columns = [np.asarray(grad((flat + e).reshape(theta0.shape)), dtype=float).reshape(-1) - g0
               for e in np.eye(flat.size)]
    return (flat - np.linalg.solve(np.array(columns).T, g0)).reshape(theta0.shape)


def _moments_start_at_one(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = np.ones_like(theta), np.ones_like(theta)
    for t in range(1, steps + 1):
        g = np.asarray(grad(theta), dtype=float)
        m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g**2
        theta = theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    return theta


def _m_squared_in_v(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps + 1):
        g = np.asarray(grad(theta), dtype=float)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * m**2
        theta = theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    return theta


WRONG = {
    "solves-the-quadratic-directly": ({"adam": _solves_the_quadratic}, "first step"),
    "moments-started-at-one": ({"adam": _moments_start_at_one}, "first step"),
    "m-squared-in-v": ({"adam": _m_squared_in_v}, "first step"),
    "mutates-theta0": ({"adam": _mutates_theta0}, "changed its input"),
    "returns-theta-m-v": ({"adam": _returns_tuple}, None),
    "plain-gradient-descent": ({"adam": _plain_gradient_descent}, "first step"),
    "t-fixed-at-one": ({"adam": _t_fixed_at_one}, "Algorithm 1's loop body"),
    "integer-theta-in-place": ({"adam": _integer_theta}, "integer-theta-in-place"),
    "sign-flipped": ({"adam": _sign_flipped}, "first step"),
    "restarts-every-step": ({"adam": _no_steps_returns_none}, "Algorithm 1's loop body"),  # sign descent
}


# -- more right answers, as students write them ---------------------------------------------------------


class _Adam:
    """An optimiser object holding its moments, stepped `steps` times."""

    def __init__(self, theta0, alpha, beta1, beta2, eps):
        self.theta = np.array(theta0, dtype=float)
        self.m, self.v, self.t = np.zeros_like(self.theta), np.zeros_like(self.theta), 0
        self.alpha, self.beta1, self.beta2, self.eps = alpha, beta1, beta2, eps

    def step(self, g):
        self.t += 1
        self.m = self.beta1 * self.m + (1 - self.beta1) * g
        self.v = self.beta2 * self.v + (1 - self.beta2) * g ** 2
        m_hat = self.m / (1 - self.beta1 ** self.t)
        v_hat = self.v / (1 - self.beta2 ** self.t)
        self.theta = self.theta - self.alpha * m_hat / (np.sqrt(v_hat) + self.eps)


def _optimiser_class(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    opt = _Adam(theta0, alpha, beta1, beta2, eps)
    for _ in range(steps):
        opt.step(np.asarray(grad(opt.theta), dtype=float))
    return opt.theta


def _generator(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    def trajectory():
        theta = np.asarray(theta0, dtype=float)
        m = v = 0.0
        t = 0
        while True:
            t += 1
            g = np.asarray(grad(theta), dtype=float)
            m = beta1 * m + (1 - beta1) * g
            v = beta2 * v + (1 - beta2) * g * g
            theta = theta - alpha * m / (1 - beta1 ** t) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
            yield theta

    theta = np.asarray(theta0, dtype=float)
    for theta, _ in zip(trajectory(), range(steps)):
        pass
    return theta


def _dict_of_hyperparameters(grad, theta0, steps, **hyper):
    h = {"alpha": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, **hyper}
    theta = np.array(theta0, dtype=float)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps + 1):
        g = grad(theta)
        m = h["beta1"] * m + (1 - h["beta1"]) * g
        v = h["beta2"] * v + (1 - h["beta2"]) * np.square(g)
        theta = theta - h["alpha"] * (m / (1 - h["beta1"] ** t)) / (np.sqrt(v / (1 - h["beta2"] ** t)) + h["eps"])
    return theta


RIGHT |= answers("adam", {
    "optimiser-class": _optimiser_class,
    "generator": _generator,
    "hyperparameters-as-kwargs": _dict_of_hyperparameters,
})


# -- right, from a fresh pair of eyes (each also graded in a real notebook: full marks) -----------------


def _fresh_step(theta, g, m, v, t, alpha, beta1, beta2, eps):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g**2
    return theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v


def _fresh_star_unpack(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    params = np.array(theta0, dtype=np.float64)
    state = (np.zeros_like(params), np.zeros_like(params))
    for t in range(1, int(steps) + 1):
        params, *state = _fresh_step(params, grad(params), *state, t, alpha, beta1, beta2, eps)
    return params


def _fresh_history(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta0, dtype=float)
    m, v = np.zeros(np.shape(theta)), np.zeros(np.shape(theta))
    history = []
    for t in range(1, steps + 1):
        theta, m, v = _fresh_step(theta, grad(theta), m, v, t, alpha, beta1, beta2, eps)
        history.append(theta)
    return history[-1] if history else theta.copy()


def _fresh_zero_times(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    th = np.asarray(theta0, dtype=float).copy()
    m = v = 0 * th
    for t in range(1, steps + 1):
        th, m, v = _fresh_step(th, np.asarray(grad(th), dtype=float), m, v, t, alpha, beta1, beta2, eps)
    return th


def _fresh_while_t(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.copy(np.asarray(theta0, dtype=float))
    m, v, t = np.zeros(theta.shape), np.zeros(theta.shape), 0
    while t < steps:
        t += 1
        theta, m, v = _fresh_step(theta, grad(theta), m, v, t, alpha=alpha, beta1=beta1, beta2=beta2, eps=eps)
    return theta


RIGHT |= answers("adam", {
    "fresh-star-unpacked-state": _fresh_star_unpack,
    "fresh-history-list": _fresh_history,
    "fresh-zero-times-theta": _fresh_zero_times,
    "fresh-while-counter": _fresh_while_t,
})


def _fresh_eps_inside_root(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m = v = np.zeros_like(theta)
    for t in range(1, steps + 1):
        g = grad(theta)
        m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g**2
        theta = theta - alpha * (m / (1 - beta1**t)) / np.sqrt(v / (1 - beta2**t) + eps)
    return theta


WRONG["fresh-eps-inside-root"] = ({"adam": _fresh_eps_inside_root}, "eps-inside-sqrt")


def _fresh_functools_reduce(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    from functools import reduce

    def body(state, t):
        theta, m, v = state
        return _fresh_step(theta, grad(theta), m, v, t, alpha, beta1, beta2, eps)

    theta = np.array(theta0, dtype=float)
    return reduce(body, range(1, steps + 1), (theta, np.zeros_like(theta), np.zeros_like(theta)))[0]


RIGHT["fresh-functools-reduce"] = {"adam": _fresh_functools_reduce}


# -- wrong, held out: each now catalogued -------------------------------------------------------------------


def _step(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """The notebook's adam_step, as a student's adam calls it."""
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g**2
    return theta - alpha * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v


def _hats_as_state(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps + 1):
        g = grad(theta)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        m = m / (1 - beta1**t)  # the corrected moments overwrite the state
        v = v / (1 - beta2**t)
        theta = theta - alpha * m / (np.sqrt(v) + eps)
    return theta


def _return_in_loop(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m = v = np.zeros_like(theta)
    for t in range(1, steps + 1):
        theta, m, v = _step(theta, grad(theta), m, v, t, alpha, beta1, beta2, eps)
        return theta  # indented one level too deep
    return theta


def _alpha_only(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.array(theta0, dtype=float)
    m = v = np.zeros_like(theta)
    for t in range(1, steps + 1):
        theta, m, v = _step(theta, grad(theta), m, v, t, alpha)  # beta1, beta2, eps: the step's defaults
    return theta


def _alpha_by_keyword(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta0, dtype=float).copy()
    m, v = np.zeros(theta.shape), np.zeros(theta.shape)
    for t in range(steps):
        theta, m, v = _step(theta, grad(theta), m, v, t + 1, alpha=alpha)
    return theta


WRONG |= {
    "hats-as-state": ({"adam": _hats_as_state}, "hats-as-state"),
    "return-inside-loop": ({"adam": _return_in_loop}, "returns-inside-loop"),
    "alpha-only-to-step": ({"adam": _alpha_only}, "betas-eps-dropped"),
    "alpha-by-keyword-only": ({"adam": _alpha_by_keyword}, "betas-eps-dropped"),
}
