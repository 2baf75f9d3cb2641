"""Correct moving_average answers: recursion, closed form, lists of floats, math."""
import math

import numpy as np


def moving_average_recursive(g, beta1, t):
    if t == 0:
        return 0.0 * np.asarray(g, dtype=float)
    return beta1 * moving_average_recursive(g, beta1, t - 1) + (1 - beta1) * np.asarray(g, dtype=float)


def moving_average_closed(g, beta1, t):
    # the proof's result, m_t = g (1 - beta1^t), instead of the simulation
    return np.asarray(g, dtype=float) * (1 - beta1 ** t)


def moving_average_inplace(g, beta1, t):
    g = np.array(g, dtype=float)
    m = np.zeros_like(g)
    for _ in range(t):
        m *= beta1
        m += (1 - beta1) * g
    return m


def moving_average_elementwise(g, beta1, t):
    arr = np.asarray(g, dtype=float)
    out = []
    for value in arr.ravel():
        m = 0.0
        for _step in range(1, t + 1):
            m = beta1 * m + (1.0 - beta1) * value
        out.append(m)
    return np.array(out).reshape(arr.shape)


RIGHT = {
    "recursion": {"moving_average": moving_average_recursive, "np": np},
    "closed form g(1 - beta1^t)": {"moving_average": moving_average_closed, "np": np},
    "in-place updates on a new array": {"moving_average": moving_average_inplace, "np": np},
    "element by element with floats": {"moving_average": moving_average_elementwise, "np": np, "math": math},
}


def moving_average_simplest(g, beta1, t):
    """What most students write: start from the number 0 and let NumPy broadcast."""
    m = 0
    for _ in range(t):
        m = beta1 * m + (1 - beta1) * g
    return m


RIGHT["simplest: m = 0, no conversion"] = {"moving_average": moving_average_simplest, "np": np}
