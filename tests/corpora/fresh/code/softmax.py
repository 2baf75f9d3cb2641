"""Correct softmax answers in several student styles."""
import math

import numpy as np


def softmax_recursive(z, T=1.0):
    """Recursion over the leading axes, math.exp on each row."""
    arr = np.asarray(z, dtype=float)
    if arr.ndim == 0:
        return np.array(1.0)
    if arr.ndim > 1:
        return np.array([softmax_recursive(row, T) for row in arr]).reshape(arr.shape)
    scaled = [float(v) / T for v in arr]
    top = max(scaled)
    exps = [math.exp(s - top) for s in scaled]
    total = math.fsum(exps)
    return np.array([e / total for e in exps])


def softmax_lse(z, T=1.0):
    """log-softmax by hand: z/T - logsumexp(z/T), then exp."""
    x = np.array(z, dtype=np.float64) / T
    mx = np.amax(x, axis=-1, keepdims=True)
    lse = mx + np.log(np.exp(x - mx).sum(axis=-1, keepdims=True))
    return np.exp(x - lse)


def softmax_reshape(z, T=1.0):
    """Flatten the batch axes to (rows, K), use reshape(-1, 1) instead of keepdims."""
    x = np.asarray(z, dtype=float)
    shape = x.shape
    rows = x.reshape(-1, shape[-1]) / T
    rows = rows - rows.max(axis=1).reshape(-1, 1)
    e = np.exp(rows)
    return (e / e.sum(axis=1).reshape(-1, 1)).reshape(shape)


def _stable_row(row, T):
    e = np.exp((row - np.max(row)) / T)
    return e / np.sum(e)


def softmax_apply_along_axis(z, T=1.0):
    """np.apply_along_axis with a helper; shifts by the max before dividing by T (same thing, T > 0)."""
    return np.apply_along_axis(_stable_row, -1, np.asarray(z, dtype=np.float64), T)


def softmax_inplace_copy(z, T=1.0):
    """In-place updates, but on a copy."""
    out = np.array(z, dtype=np.float64, copy=True)
    out /= T
    out -= out.max(axis=-1)[..., np.newaxis]
    np.exp(out, out=out)
    out /= out.sum(axis=-1)[..., np.newaxis]
    return out


def softmax_swapaxes_sum(z, T=1.0):
    """einsum for the row sums, np.divide with T written as a multiplication by 1/T."""
    x = np.asarray(z, dtype=np.float64) * (1.0 / T)
    e = np.exp(x - x.max(-1, keepdims=True))
    denom = np.einsum("...k->...", e)
    return e / denom[..., None]


RIGHT = {
    "recursion + math.exp": {"softmax": softmax_recursive, "np": np, "math": math},
    "logsumexp by hand, keepdims": {"softmax": softmax_lse, "np": np},
    "reshape(-1, K) and reshape(-1, 1)": {"softmax": softmax_reshape, "np": np},
    "apply_along_axis with a helper": {"softmax": softmax_apply_along_axis, "_stable_row": _stable_row, "np": np},
    "in-place on a copy, [..., np.newaxis]": {"softmax": softmax_inplace_copy, "np": np},
    "einsum row sums, multiply by 1/T": {"softmax": softmax_swapaxes_sum, "np": np},
}
