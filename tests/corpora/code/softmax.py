"""softmax: differently written right answers, and wrong ones with the diagnosis they must get."""

import math

import numpy as np

from classroom.corpus import answers

# -- right ---------------------------------------------------------------------------------------------


def _text_style(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    S = z - z.max(axis=-1, keepdims=True)
    return np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True)


def _logsumexp(z, T=1.0):
    z = np.array(z, dtype=float) / T
    mx = np.max(z, axis=-1, keepdims=True)
    lse = mx + np.log(np.sum(np.exp(z - mx), axis=-1, keepdims=True))
    return np.exp(z - lse)


def _python_rows(z, T=1.0):
    arr = np.asarray(z, dtype=float)
    flat = arr.reshape(-1, arr.shape[-1])
    rows = []
    for row in flat:
        top = max(row)
        exps = [math.exp((x - top) / T) for x in row]
        total = sum(exps)
        rows.append([e / total for e in exps])
    return np.array(rows).reshape(arr.shape)


def _apply_along_axis(z, T=1.0):
    def one(row):
        e = np.exp((row - row.max()) / T)
        return e / e.sum()

    return np.apply_along_axis(one, -1, np.asarray(z, dtype=float))


def _in_place_on_copy(z, T=1.0):
    out = np.array(z, dtype=np.float64, copy=True)
    out /= T
    out -= out.max(axis=-1, keepdims=True)
    np.exp(out, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


def _moveaxis_loop(z, T=1.0):
    z = np.asarray(z, dtype=float)
    out = np.empty_like(z)
    for index in np.ndindex(z.shape[:-1]):
        row = z[index] / T
        e = np.exp(row - np.max(row))
        out[index] = e / np.sum(e)
    return out


def _returns_list(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - z.max(axis=-1)[..., None])
    return (e / e.sum(axis=-1)[..., None]).tolist()


def _einsum_free_broadcast(z, T=1.0):
    z = np.asarray(z, dtype=float)
    shifted = (z - np.amax(z, axis=-1, keepdims=True)) * (1.0 / T)
    e = np.exp(shifted)
    return e * np.reciprocal(np.add.reduce(e, axis=-1, keepdims=True))


def _transposed(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z.T - z.T.max(axis=0))  # .T reverses the axes: axis 0 of z.T is z's last axis
    return (e / e.sum(axis=0)).T


def _nan_to_num(z, T=1.0):
    z = np.nan_to_num(np.asarray(z, dtype=float)) / T  # -inf becomes a huge negative number: weight 0
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


RIGHT = answers("softmax", {
    "text-style": _text_style,
    "logsumexp": _logsumexp,
    "python-rows-math-exp": _python_rows,
    "apply-along-axis": _apply_along_axis,
    "in-place-on-a-copy": _in_place_on_copy,
    "ndindex-loop": _moveaxis_loop,
    "returns-list": _returns_list,
    "reciprocal-broadcast": _einsum_free_broadcast,
    "transpose-trick": _transposed,
    "nan-to-num": _nan_to_num,
})


# -- wrong ---------------------------------------------------------------------------------------------


def _no_shift_rowwise(z, T=1.0):
    e = np.exp(np.asarray(z, dtype=float) / T)
    return e / e.sum(axis=-1, keepdims=True)


def _for_vectors_only(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def _axis_one(z, T=1.0):  # right on 2-D batches, wrong on vectors and 3-D batches
    z = np.atleast_2d(np.asarray(z, dtype=float)) / T
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _mutates_input(z, T=1.0):
    if isinstance(z, np.ndarray) and z.dtype == float:
        z /= T
        z -= z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)
    return _text_style(z, T)


def _in_place_int_fails(z, T=1.0):
    z = np.array(z)
    z = z - z.max(axis=-1, keepdims=True)
    z /= T  # in-place true division of an integer array raises
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _wrong_default_t(z, T=2.0):
    return _text_style(z, T)


def _multiplied_t(z, T=1.0):
    return _text_style(np.asarray(z, dtype=float) * T * T)


def _masks_to_zero(z, T=1.0):
    z = np.asarray(z, dtype=float)
    z = np.where(np.isinf(z), 0.0, z) / T  # a masked logit is not a logit of 0
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _squared_exponent(z, T=1.0):
    return _text_style(np.asarray(z, dtype=float), T**2)


def _float32(z, T=1.0):
    z = np.asarray(z, dtype=np.float32) / np.float32(T)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _clips_logits(z, T=1.0):
    z = np.clip(np.asarray(z, dtype=float), -50, 50) / T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _flattened(z, T=1.0):
    z = np.asarray(z, dtype=float).ravel() / T
    e = np.exp(z - z.max())
    return e / e.sum()


def _argmax_one_hot(z, T=1.0):
    z = np.asarray(z, dtype=float)
    return (z == z.max(axis=-1, keepdims=True)).astype(float)


def _probabilities_to_the_1_over_t(z, T=1.0):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) ** (1 / T)  # not renormalised


def _normalised_by_max(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.max(axis=-1, keepdims=True)


def _adds_t(z, T=1.0):
    z = np.asarray(z, dtype=float) + T - 1
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


WRONG = {
    "probabilities-to-the-1-over-T": ({"softmax": _probabilities_to_the_1_over_t}, "sum to 1"),
    "normalised-by-max": ({"softmax": _normalised_by_max}, "sum to 1"),
    "adds-T": ({"softmax": _adds_t}, "temperature-ignored"),  # adding T - 1 to every logit is a shift
    "no-shift-rowwise": ({"softmax": _no_shift_rowwise}, "no-max-shift"),
    "written-for-vectors": ({"softmax": _for_vectors_only}, "global-sum"),
    "axis-one-only": ({"softmax": _axis_one}, "axis-one"),
    "mutates-input": ({"softmax": _mutates_input}, "changed its input"),
    "in-place-int-division": ({"softmax": _in_place_int_fails}, "integer-in-place"),
    "default-T-2": ({"softmax": _wrong_default_t}, None),
    "T-squared-multiplied": ({"softmax": _multiplied_t}, None),
    "masks-to-zero": ({"softmax": _masks_to_zero}, "-inf gets probability"),
    "T-squared": ({"softmax": _squared_exponent}, None),
    "float32": ({"softmax": _float32}, "float32"),
    "clips-logits": ({"softmax": _clips_logits}, "softmax(z + c) = softmax(z)"),
    "flattened": ({"softmax": _flattened}, "flattened"),
    "argmax-one-hot": ({"softmax": _argmax_one_hot}, "Lowering T sharpens"),
    "not-a-function": ({"softmax": np.array([0.84, 0.11, 0.04])}, "should be a function"),
}


# -- more right answers, as students write them ---------------------------------------------------------


def _hinted(z: np.ndarray, T: float = 1.0) -> np.ndarray:
    """Softmax along the last axis at temperature T (the text's max shift)."""
    scaled: np.ndarray = np.asarray(z, dtype=np.float64) / T
    print("softmax of shape", scaled.shape)  # students print while they debug
    shifted = scaled - np.max(scaled, axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return weights / np.sum(weights, axis=-1, keepdims=True)


def _along_axis(z, T=1.0):
    def one_row(row):
        row = row / T
        e = np.exp(row - row.max())
        return e / e.sum()

    return np.apply_along_axis(one_row, -1, np.asarray(z, dtype=float))


class _Softmax:
    """A callable object, as in a small library of layers."""

    def __init__(self, default_temperature=1.0):
        self.default_temperature = default_temperature

    def __call__(self, z, T=None):
        T = self.default_temperature if T is None else T
        logits = np.array(z, dtype=float) / T
        logits -= logits.max(axis=-1, keepdims=True)
        return np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)


def _log_sum_exp_by_hand(z, T=1.0):
    x = np.asarray(z, dtype=float) / T
    top = x.max(axis=-1, keepdims=True)
    lse = top + np.log(np.sum(np.exp(x - top), axis=-1, keepdims=True))
    return np.exp(x - lse)


def _math_ndindex(z, T=1.0):
    arr = np.asarray(z, dtype=float)
    out = np.empty_like(arr)
    for lead in np.ndindex(arr.shape[:-1]):
        row = [v / T for v in arr[lead]]
        biggest = max(row)
        exps = [math.exp(v - biggest) for v in row]
        total = math.fsum(exps)
        out[lead] = [e / total for e in exps]
    return out


def _einsum_normaliser(z, T=1.0):
    e = np.exp((np.asarray(z, dtype=float) - np.max(z, axis=-1, keepdims=True)) / T)
    return e / np.einsum("...k->...", e)[..., np.newaxis]


_LAMBDA = lambda z, T=1.0: (lambda x: np.exp(x - x.max(-1, keepdims=True))  # noqa: E731
                             / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True))(np.asarray(z, dtype=float) / T)

RIGHT |= answers("softmax", {
    "type-hints-docstring-print": _hinted,
    "apply-along-axis": _along_axis,
    "callable-class": _Softmax(),
    "logsumexp-by-hand": _log_sum_exp_by_hand,
    "math-over-ndindex": _math_ndindex,
    "einsum-normaliser": _einsum_normaliser,
    "lambda": _LAMBDA,
})


# -- right, from a fresh pair of eyes (each also graded in a real notebook: full marks) -----------------


def _fresh_lse_helper(z, T=1.0):
    def lse(x):
        c = x.max(axis=-1, keepdims=True)
        return c + np.log(np.exp(x - c).sum(axis=-1, keepdims=True))

    x = np.asarray(z, dtype=np.float64) / T
    return np.exp(x - lse(x))


def _fresh_shift_then_divide(z, T=1.0):
    z = np.array(z, dtype=float, copy=True)
    e = np.exp((z - np.amax(z, axis=-1, keepdims=True)) / T)
    return e / np.sum(e, axis=-1, keepdims=True)


def _fresh_torch_like(z, T=1.0, dim=-1):
    logits = np.asarray(z, dtype=np.float64) / T
    p = np.exp(logits - logits.max(dim, keepdims=True))
    return p / p.sum(dim, keepdims=True)


def _fresh_rows_math(z, T=1.0):
    def row(r, T):
        mx = max(r)
        e = [math.exp((x - mx) / T) for x in r]
        s = sum(e)
        return np.array([x / s for x in e])

    return np.apply_along_axis(row, -1, np.asarray(z, dtype=float), T)


RIGHT |= answers("softmax", {
    "fresh-logsumexp-helper": _fresh_lse_helper,
    "fresh-shift-then-divide": _fresh_shift_then_divide,
    "fresh-torch-like-dim": _fresh_torch_like,
    "fresh-math-rows-with-T-argument": _fresh_rows_math,
})


def _fresh_squeeze_1d(z, T=1.0):
    z = np.asarray(z)
    one_row = z.ndim == 1
    z = (z[None, :] if one_row else z).astype(float) / T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    out = e / e.sum(axis=-1, keepdims=True)
    return out[0] if one_row else out


RIGHT["fresh-squeeze-a-single-row"] = {"softmax": _fresh_squeeze_1d}


# -- wrong, held out: each now catalogued -------------------------------------------------------------------


def _shift_by_min(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - z.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _shift_by_min_then_divide(z, T=1.0):
    z = np.asarray(z, dtype=float)
    e = np.exp((z - np.min(z, axis=-1, keepdims=True)) / T)
    return e / np.sum(e, axis=-1, keepdims=True)


def _shift_by_abs_max(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - np.max(np.abs(z), axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


WRONG |= {
    "shift-by-row-min": ({"softmax": _shift_by_min}, "min-shift"),
    "shift-by-row-min-then-divide": ({"softmax": _shift_by_min_then_divide}, "min-shift"),
    "shift-by-abs-max": ({"softmax": _shift_by_abs_max}, "abs-max-shift"),
}
