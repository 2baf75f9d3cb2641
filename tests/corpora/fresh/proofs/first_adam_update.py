"""Correct first_adam_update answers."""
import math

import numpy as np


def first_adam_update_abs(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    # m_hat_1 = g and sqrt(v_hat_1) = |g| exactly, so the update is -alpha g / (|g| + eps)
    g = np.asarray(g, dtype=float)
    return -alpha * g / (np.abs(g) + eps)


def first_adam_update_math(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    out = []
    for gi in np.ravel(g):
        m1 = (1 - beta1) * gi
        v1 = (1 - beta2) * gi ** 2
        out.append(-alpha * (m1 / (1 - beta1 ** 1)) / (math.sqrt(v1 / (1 - beta2 ** 1)) + eps))
    return np.array(out).reshape(np.shape(g))


def first_adam_update_general(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    t = 1
    m = np.zeros(np.shape(g))
    v = np.zeros(np.shape(g))
    m = beta1 * m + (1 - beta1) * np.asarray(g)
    v = beta2 * v + (1 - beta2) * np.square(g)
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    theta0 = np.zeros(np.shape(g))
    theta1 = theta0 - alpha * m_hat / (np.sqrt(v_hat) + eps)
    return theta1 - theta0


RIGHT = {
    "closed form -alpha g/(|g|+eps)": {"first_adam_update": first_adam_update_abs, "np": np},
    "loop with math.sqrt": {"first_adam_update": first_adam_update_math, "np": np, "math": math},
    "general step with t = 1, theta1 - theta0": {"first_adam_update": first_adam_update_general, "np": np},
}
