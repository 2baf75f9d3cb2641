"""Correct dpo_loss answers: guarded log1p, logaddexp, math loop, softplus, min/abs trick."""
import math

import numpy as np


def log_sigmoid_guarded(x):
    """log sigma(x) = -log1p(exp(-x)) for x >= 0, and x - log1p(exp(x)) for x < 0 (no overflow)."""
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = -np.log1p(np.exp(-x[pos]))
    out[~pos] = x[~pos] - np.log1p(np.exp(x[~pos]))
    return out


def dpo_loss_guarded(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = (np.asarray(a, dtype=float) for a in (pi_w, pi_l, ref_w, ref_l))
    margin = beta * (pi_w - ref_w) - beta * (pi_l - ref_l)
    return -np.mean(log_sigmoid_guarded(margin))


def dpo_loss_logaddexp(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    """Rearranged margin (pi_w - pi_l) - (ref_w - ref_l); the loss is mean softplus(-u) = mean logaddexp(0, -u)."""
    u = beta * ((np.asarray(pi_w, float) - np.asarray(pi_l, float)) - (np.asarray(ref_w, float) - np.asarray(ref_l, float)))
    return np.logaddexp(0.0, -u).mean()


def dpo_loss_math(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    """A Python loop with math, for lists or arrays."""
    total = 0.0
    count = 0
    for a, b, c, d in zip(pi_w, pi_l, ref_w, ref_l):
        u = beta * ((a - c) - (b - d))
        if u >= 0:
            log_sig = -math.log1p(math.exp(-u))
        else:
            log_sig = u - math.log1p(math.exp(u))
        total += log_sig
        count += 1
    return -total / count


def dpo_loss_minabs(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    """log sigma(u) = min(u, 0) - log1p(exp(-|u|)); np.average instead of mean."""
    chosen = np.subtract(pi_w, ref_w, dtype=np.float64)
    rejected = np.subtract(pi_l, ref_l, dtype=np.float64)
    u = beta * (chosen - rejected)
    log_sig = np.minimum(u, 0.0) - np.log1p(np.exp(-np.abs(u)))
    return float(-np.average(log_sig))


def dpo_loss_sum_over_n(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    """-np.logaddexp(0, -x) as the text says, the expectation as a sum over N."""
    x = beta * (np.array(pi_w, dtype=np.float64) - np.array(ref_w, dtype=np.float64)
                - (np.array(pi_l, dtype=np.float64) - np.array(ref_l, dtype=np.float64)))
    log_sigmoid = -np.logaddexp(0, -x)
    N = x.shape[0]
    return -(1 / N) * np.sum(log_sigmoid)


RIGHT = {
    "guarded -log1p(exp(-x)) with masks": {"dpo_loss": dpo_loss_guarded, "log_sigmoid_guarded": log_sigmoid_guarded,
                                           "np": np},
    "softplus via logaddexp, rearranged margin": {"dpo_loss": dpo_loss_logaddexp, "np": np},
    "math loop": {"dpo_loss": dpo_loss_math, "np": np, "math": math},
    "min(u,0) - log1p(exp(-|u|)), np.average": {"dpo_loss": dpo_loss_minabs, "np": np},
    "-logaddexp(0,-x), 1/N sum": {"dpo_loss": dpo_loss_sum_over_n, "np": np},
}
