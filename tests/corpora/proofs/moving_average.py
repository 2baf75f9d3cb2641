"""moving_average: differently written right answers, and wrong ones with their diagnosis."""

import numpy as np

from classroom.corpus import answers


def _closed_form(g, beta1, t):
    return np.asarray(g, dtype=float) * (1 - beta1**t)


def _loop_list(g, beta1, t):
    m = 0
    for _ in range(t):
        m = beta1 * m + (1 - beta1) * np.asarray(g, dtype=float)
    return m


def _sum_formula(g, beta1, t):
    return (1 - beta1) * sum(beta1 ** (t - i) for i in range(1, t + 1)) * np.asarray(g, dtype=float)


def _recursive(g, beta1, t):
    return np.zeros_like(np.asarray(g, dtype=float)) if t == 0 else beta1 * _recursive(g, beta1, t - 1) + (1 - beta1) * np.asarray(g, dtype=float)


def _lerp(g, beta1, t):
    m = np.zeros_like(np.asarray(g, dtype=float))
    for _ in range(t):
        m = m + (1 - beta1) * (np.asarray(g, dtype=float) - m)
    return m


def _returns_g(g, beta1, t):
    return np.asarray(g, dtype=float)


def _no_factor(g, beta1, t):
    m = 0.0
    for _ in range(t):
        m = beta1 * m + np.asarray(g, dtype=float)
    return m


def _range_off(g, beta1, t):
    m = 0.0
    for _ in range(1, t):
        m = beta1 * m + (1 - beta1) * np.asarray(g, dtype=float)
    return m + 0 * np.asarray(g, dtype=float)


def _beta_sq(g, beta1, t):
    return np.asarray(g, dtype=float) * (1 - beta1**2)


def _returns_none(g, beta1, t):
    m = 0.0
    for _ in range(t):
        m = beta1 * m + (1 - beta1) * g


def _plus(g, beta1, t):
    return np.asarray(g, dtype=float) * (1 + beta1**t)


def _in_place_accumulator(g, beta1, t):
    m = np.zeros(np.shape(g))  # 0-d when g is a number: must stay 0-d through the sandbox (issue 10)
    for _ in range(t):
        m *= beta1
        m += (1 - beta1) * np.asarray(g, dtype=float)
    return m


RIGHT = answers("moving_average", {
    "in_place_0d_accumulator": _in_place_accumulator,
    "closed_form": _closed_form,
    "loop_from_int_zero": _loop_list,
    "sum_formula": _sum_formula,
    "recursive": _recursive,
    "lerp_form": _lerp,
})

def _weights_swapped(g, beta1, t):
    m = 0.0
    for _ in range(t):
        m = (1 - beta1) * m + beta1 * np.asarray(g, dtype=float)  # issue 10: was told "returns g itself"
    return m


WRONG = {
    "weights_swapped": ({"moving_average": _weights_swapped}, "the new gradient enters with weight (1 - β₁)"),
    "returns_g": ({"moving_average": _returns_g}, "bias-corrected"),
    "no_one_minus_beta": ({"moving_average": _no_factor}, "no-one-minus-beta"),
    "range_from_one": ({"moving_average": _range_off}, "t-minus-1-steps"),
    "beta_squared": ({"moving_average": _beta_sq}, "the new gradient enters with weight (1 - β₁)"),
    "returns_none": ({"moving_average": _returns_none}, "not an array of numbers"),
    "plus_sign": ({"moving_average": _plus}, "the new gradient enters with weight (1 - β₁)"),
}


def _geometric_series_math(g, beta1: float, t: int) -> np.ndarray:
    """(1 - beta1) * (1 + beta1 + ... + beta1^(t-1)) * g, the sum written with the geometric series."""
    factor = (1 - beta1) * sum(beta1 ** j for j in range(t))
    return factor * np.asarray(g, dtype=float)


def _while_counter(g, beta1, t):
    g = np.array(g, dtype=float)
    m, step = np.zeros(g.shape), 0
    while step < t:
        step += 1
        m = np.add(np.multiply(beta1, m), np.multiply(1 - beta1, g))
    return m


RIGHT |= answers("moving_average", {
    "geometric_series_hints": _geometric_series_math,
    "while_counter": _while_counter,
})


def _fresh_while_counter(g, beta1, t):
    m, done = 0.0 * np.asarray(g, dtype=float), 0
    while done < t:
        m = beta1 * m + (1 - beta1) * np.asarray(g, dtype=float)
        done += 1
    return m


RIGHT["fresh-while-counter"] = {"moving_average": _fresh_while_counter}


def _fresh2_int_accumulator_one_short(g, beta1, t):
    m = 0  # at t = 1 the loop does not run: a plain 0 for an array g
    for _ in range(t - 1):
        m = beta1 * m + (1 - beta1) * g
    return m


def _fresh2_mutates_g(g, beta1, t):
    m = g * (1 - beta1 ** t)
    if isinstance(g, np.ndarray):
        g[...] = m
    return m


RIGHT.update({
    "fresh2-numpy-power-closed-form": {"moving_average": lambda g, beta1, t: np.multiply(g, 1 - np.power(beta1, t))},
    "fresh2-unrolled-sum-comprehension": {"moving_average": lambda g, beta1, t: (1 - beta1) * sum(
        beta1 ** (t - i) * g for i in range(1, t + 1))},
})
WRONG.update({
    "fresh2-int-accumulator-one-step-short": ({"moving_average": _fresh2_int_accumulator_one_short}, "t-minus-1-steps"),
    "fresh2-closed-form-beta-power-alone": ({"moving_average": lambda g, beta1, t: g * beta1 ** t}, None),
    "fresh2-returns-the-history": ({"moving_average": lambda g, beta1, t: [g * (1 - beta1 ** s) for s in range(1, t + 1)]},
                                   "wrong-shape"),
    "fresh2-writes-into-g": ({"moving_average": _fresh2_mutates_g}, "changed-input"),
})
