"""Correct adam_step answers in several student styles."""
import math

import numpy as np


def adam_step_math_loop(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """Element by element with the math module (works for any shape through ravel/reshape)."""
    theta_a = np.asarray(theta, dtype=float)
    shape = theta_a.shape
    th, gg, mm, vv = (np.asarray(a, dtype=float).ravel() for a in (theta, g, m, v))
    new_theta, new_m, new_v = [], [], []
    for i in range(th.size):
        mi = beta1 * mm[i] + (1 - beta1) * gg[i]
        vi = beta2 * vv[i] + (1 - beta2) * gg[i] * gg[i]
        m_hat = mi / (1 - math.pow(beta1, t))
        v_hat = vi / (1 - math.pow(beta2, t))
        new_theta.append(th[i] - alpha * m_hat / (math.sqrt(v_hat) + eps))
        new_m.append(mi)
        new_v.append(vi)
    return (np.array(new_theta).reshape(shape), np.array(new_m).reshape(shape), np.array(new_v).reshape(shape))


def adam_step_folded(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """The paper's "more efficient" order (Section 2): the corrections folded into the step size.

    alpha_t = alpha sqrt(1 - beta2^t) / (1 - beta1^t) and eps_hat = eps sqrt(1 - beta2^t) give exactly
    alpha m_hat / (sqrt(v_hat) + eps).
    """
    theta, g, m, v = (np.asarray(a, dtype=np.float64) for a in (theta, g, m, v))
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * np.square(g)
    c2 = np.sqrt(1 - beta2 ** t)
    alpha_t = alpha * c2 / (1 - beta1 ** t)
    return theta - alpha_t * m_t / (np.sqrt(v_t) + eps * c2), m_t, v_t


def adam_step_inplace_copies(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """In-place updates on copies of the caller's arrays."""
    g = np.asarray(g, dtype=float)
    m_new = np.array(m, dtype=float, copy=True)
    v_new = np.array(v, dtype=float, copy=True)
    th = np.array(theta, dtype=float, copy=True)
    m_new *= beta1
    m_new += (1 - beta1) * g
    v_new *= beta2
    v_new += (1 - beta2) * g ** 2
    m_hat = m_new / (1 - beta1 ** t)
    v_hat = v_new / (1 - beta2 ** t)
    th -= alpha * m_hat / (np.sqrt(v_hat) + eps)
    return th, m_new, v_new


def adam_step_interp(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """Moving averages as interpolations: m + (1 - beta1)(g - m); a list returned instead of a tuple."""
    theta, g, m, v = (np.array(a, dtype=np.float64) for a in (theta, g, m, v))
    m_t = m + (1 - beta1) * (g - m)
    v_t = v + (1 - beta2) * (g * g - v)
    step = alpha * (m_t / (1 - beta1 ** t)) / (np.sqrt(v_t / (1 - beta2 ** t)) + eps)
    return [theta - step, m_t, v_t]


RIGHT = {
    "math loop, element by element": {"adam_step": adam_step_math_loop, "np": np, "math": math},
    "corrections folded into alpha_t and eps_hat": {"adam_step": adam_step_folded, "np": np},
    "in-place updates on copies": {"adam_step": adam_step_inplace_copies, "np": np},
    "interpolation form, list returned": {"adam_step": adam_step_interp, "np": np},
}


def adam_step_stacked(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    """Returns the three results stacked in one array: a 3-sequence (result[0], result[1], result[2])."""
    theta, g, m, v = (np.asarray(a, dtype=np.float64) for a in (theta, g, m, v))
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * g ** 2
    theta_t = theta - alpha * (m_t / (1 - beta1 ** t)) / (np.sqrt(v_t / (1 - beta2 ** t)) + eps)
    return np.stack([theta_t, m_t, v_t])


from collections import namedtuple  # noqa: E402

AdamResult = namedtuple("AdamResult", ["theta", "m", "v"])


def adam_step_namedtuple(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(a, dtype=np.float64) for a in (theta, g, m, v))
    m_t = beta1 * m + (1 - beta1) * g
    v_t = beta2 * v + (1 - beta2) * g ** 2
    theta_t = theta - alpha * (m_t / (1 - beta1 ** t)) / (np.sqrt(v_t / (1 - beta2 ** t)) + eps)
    return AdamResult(theta_t, m_t, v_t)


RIGHT["a stacked array as the 3-sequence"] = {"adam_step": adam_step_stacked, "np": np}
RIGHT["a namedtuple"] = {"adam_step": adam_step_namedtuple, "AdamResult": AdamResult, "np": np}
