"""Hidden grader for Problem 1 of the code assignment: ``softmax(z, T=1.0)``.

Public cases are the text's hand-worked numbers (z = (3, 1, 0) at T = 1, 0.5 and 5, and one small batch);
hidden cases are the edge cases of step 6 of the protocol and random rows from a seeded generator.
Tolerance: the default rtol 1e-6 (probabilities are well-conditioned once the max is subtracted).
"""

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference
from reading_maths.kit.properties import Property, close, one

OK_FORMAT = False
name = "softmax"

SEED = course_seed(90_417_233)  # hidden: the number and the course's secret, never in release/
REF = reference("code")


# -- the mistake catalogue: realistic wrong softmaxes, each with what to tell its author ---------------

def _logits(z, T):
    return np.asarray(z, dtype=np.float64) / T


def _no_max_shift(z, T=1.0):
    e = np.exp(_logits(z, T))
    return e / e.sum(axis=-1, keepdims=True)


def _global_max(z, T=1.0):
    z = _logits(z, T)
    e = np.exp(z - z.max())
    return e / e.sum(axis=-1, keepdims=True)


def _min_shift(z, T=1.0):
    z = _logits(z, T)
    e = np.exp(z - z.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _abs_max_shift(z, T=1.0):
    z = _logits(z, T)
    e = np.exp(z - np.abs(z).max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _axis_one(z, T=1.0):
    z = _logits(z, T)
    axis = 1 if z.ndim > 1 else -1
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _axis_zero(z, T=1.0):
    z = _logits(z, T)
    e = np.exp(z - np.max(z))
    return e / np.sum(e, axis=0, keepdims=True)


def _global_sum(z, T=1.0):
    z = _logits(z, T)
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def _no_keepdims(z, T=1.0):
    z = _logits(z, T)
    e = np.exp(z - z.max(axis=-1))
    return e / e.sum(axis=-1)


def _t_multiplied(z, T=1.0):
    z = np.asarray(z, dtype=np.float64) * T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _t_ignored(z, T=1.0):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _not_normalised(z, T=1.0):
    return np.exp(_logits(z, T))


def _log_softmax(z, T=1.0):
    z = _logits(z, T)
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


MISTAKES = [
    Mistake(
        "no-max-shift",
        "Your softmax overflows (or underflows) when the logits are large in size: np.exp(1000) is inf and "
        "inf / inf is nan. Subtract each row's maximum before exponentiating, z - z.max(axis=-1, keepdims=True); "
        "the shift proof says the answer does not change.",
        _no_max_shift,
    ),
    Mistake(
        "min-shift",
        "You subtract each row's minimum, not its maximum. Then the largest shifted logit is the row's whole range, "
        "which overflows np.exp when the logits are spread far apart (or T is small), and a -inf logit makes the "
        "shift -inf, so the row becomes nan. Subtract the maximum, z - z.max(axis=-1, keepdims=True): every "
        "shifted logit is then at most 0 and one of them is exactly 0.",
        _min_shift,
    ),
    Mistake(
        "abs-max-shift",
        "You subtract the largest absolute value of each row, np.abs(z).max(...), not the largest value. In a row "
        "of very negative logits that pushes every logit far below 0, np.exp underflows to 0 for all of them and "
        "0 / 0 is nan. Subtract the maximum itself, z - z.max(axis=-1, keepdims=True), so that one shifted logit "
        "is exactly 0.",
        _abs_max_shift,
    ),
    Mistake(
        "global-max",
        "You subtract one maximum for the whole batch. A row whose logits lie far below that maximum underflows to "
        "all zeros, and 0 / 0 is nan. Subtract each row's own maximum: z.max(axis=-1, keepdims=True).",
        _global_max,
    ),
    Mistake(
        "wrong-axis",
        "Your softmax normalises down the columns (axis 0) instead of along each row. Softmax acts on each row "
        "separately: sum along the last axis, e.sum(axis=-1, keepdims=True).",
        _axis_zero,
    ),
    Mistake(
        "axis-one",
        "Your softmax works along axis 1, which is the last axis only of a 2-D batch: with more batch axes the "
        "logits of each row are still on the last axis. Use axis=-1 (with keepdims=True).",
        _axis_one,
    ),
    Mistake(
        "global-sum",
        "You divide by the sum of the whole batch, so the whole array sums to 1 instead of each row. Sum along "
        "the last axis only: e.sum(axis=-1, keepdims=True).",
        _global_sum,
    ),
    Mistake(
        "no-keepdims",
        "Your row maxima or row sums lose their axis (no keepdims=True), so on a batch they broadcast against the "
        "wrong entries: row i's sum divides column i. Write z.max(axis=-1, keepdims=True) and "
        "e.sum(axis=-1, keepdims=True) so they line up with the rows.",
        _no_keepdims,
    ),
    Mistake(
        "temperature-multiplied",
        "You multiply the logits by the temperature. The formula divides: exp(z_i / T), so a small T sharpens "
        "the distribution and a large T flattens it.",
        _t_multiplied,
    ),
    Mistake(
        "temperature-ignored",
        "Your softmax ignores the temperature T. Divide the logits by T before exponentiating: exp(z_i / T).",
        _t_ignored,
    ),
    Mistake(
        "not-normalised",
        "You return the exponentials without dividing by their total, so the rows do not sum to 1. Divide by "
        "the sum of each row: e / e.sum(axis=-1, keepdims=True).",
        _not_normalised,
    ),
    Mistake(
        "log-softmax",
        "You return the log of the probabilities (log-softmax). Return the probabilities themselves: exponentiate "
        "the shifted logits and divide by each row's total.",
        _log_softmax,
    ),
]

def _integer_in_place(z, T=1.0):
    z = np.array(z)  # an integer z stays integer
    z = z - z.max(axis=-1, keepdims=True)
    z /= T  # and in-place true division cannot store the fractions: NumPy raises
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _flattened(z, T=1.0):
    z = _logits(z, T).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()


MISTAKES += [
    Mistake(
        "integer-in-place",
        "An integer z stays an integer array in your code, and an in-place division z /= T cannot store the "
        "fractions in it, so NumPy raises. Make a float array first, z = np.asarray(z, dtype=float) / T, or "
        "divide without the in-place operator.",
        _integer_in_place,
    ),
    Mistake(
        "flattened",
        "Your softmax flattens a batch into one long row (ravel, flatten or reshape(-1)), so the whole batch sums "
        "to 1 and the result loses its rows. Keep the shape of z and work along the last axis: "
        "z.max(axis=-1, keepdims=True) and e.sum(axis=-1, keepdims=True).",
        _flattened,
    ),
]


def _float32(z, T=1.0):
    z = np.asarray(z, dtype=np.float32) / np.float32(T)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


MISTAKES.append(Mistake(
    "float32",
    "You compute in single precision (float32), which keeps about 7 digits; the answer needs float64, "
    "NumPy's default: do not convert to np.float32.",
    _float32,
))


# -- the text's facts, tried when no catalogued mistake explains a wrong answer -----------------------

_Z = 3 * hidden_rng(SEED, "properties").standard_normal((4, 5))


def _rows_sum_to_one(call):
    rows = [one(call, _Z, T=T) for T in (1.0, 0.5)]
    return all(bool(np.all(p >= 0)) and close(p.sum(axis=-1), np.ones(4)) for p in rows)


def _shift_invariant(call):
    return close(one(call, _Z + 100.0), one(call, _Z)) and close(one(call, _Z - 700.0), one(call, _Z))


def _masked_get_zero(call):
    z = _Z.copy()
    z[:, 1] = -np.inf
    p = one(call, z)
    return close(p[:, 1], np.zeros(4)) and close(np.delete(p, 1, axis=1), one(call, np.delete(_Z, 1, axis=1)))


def _divides_by_t(call):
    return all(close(one(call, _Z, T=T), one(call, _Z / T, T=1.0)) for T in (0.5, 4.0)) \
        and close(one(call, _Z), one(call, _Z, T=1.0))


def _lower_t_sharpens(call):
    peaks = [one(call, _Z, T=T).max(axis=-1) for T in (0.25, 1.0, 4.0)]
    return bool(np.all(peaks[0] > peaks[1]) and np.all(peaks[1] > peaks[2]))


PROPERTIES = [
    Property("rows-sum-to-one", "Each row of a softmax is a probability distribution: positive entries that sum "
             "to 1. Your rows do not.", _rows_sum_to_one),
    Property("shift-invariance", "softmax(z + c) = softmax(z): adding the same number to every logit of a row "
             "changes nothing (the shift proof). Yours changes, so something other than the formula is applied "
             "to the logits.", _shift_invariant),
    Property("masked-logits", "A logit of -inf gets probability exp(-inf) = 0, and the other entries are the "
             "softmax of the rest of the row. Yours are not.", _masked_get_zero),
    Property("temperature-divides", "The temperature divides the logits: softmax(z, T) = softmax(z / T), and "
             "T = 1 by default. Yours does not do that.", _divides_by_t),
    Property("lower-t-sharpens", "Lowering T sharpens the distribution (the largest probability grows towards 1) "
             "and raising T flattens it towards uniform. Yours does not change that way with T.", _lower_t_sharpens),
]

_LOW_FIRST = _Z[:2] - 800.0 * (np.arange(5) == 0)  # one logit far below the rest: the shifts by the row's minimum
# and by its largest absolute value both fail on it, differently, while the unshifted softmax does not
PROBES = [((_Z,), {}), ((_Z,), {"T": 0.5}), ((_Z,), {"T": 3.0}), ((_Z[:1] + 900.0,), {}),
          ((_Z.reshape(2, 2, 5),), {}), ((_Z[:, :1],), {}),  # more than two axes; one-element rows
          ((_LOW_FIRST,), {})]
q = Question("softmax", REF.softmax, MISTAKES, properties=PROPERTIES, probes=PROBES)


# -- public cases: the text's numbers ------------------------------------------------------------------

@test_case(name="text_example", points=1, hidden=False)
def text_example(softmax):
    q.check(softmax, np.array([3.0, 1.0, 0.0]), label="the text's example z = (3, 1, 0)", public=True)


@test_case(name="text_temperatures", points=1, hidden=False)
def text_temperatures(softmax):
    z = np.array([3.0, 1.0, 0.0])
    q.check(softmax, z, T=0.5, label="z = (3, 1, 0) at the low temperature T = 0.5", public=True)
    q.check(softmax, z, T=5.0, label="z = (3, 1, 0) at the high temperature T = 5", public=True)


@test_case(name="batch_of_two_rows", points=1, hidden=False)
def batch_of_two_rows(softmax):
    z = np.array([[3.0, 1.0, 0.0], [-1.0, 0.0, 2.0]])
    q.check(softmax, z, label="a batch of two rows of logits", public=True)


# -- hidden cases: edge cases and random inputs -----------------------------------------------------------

@test_case(name="huge_logits", points=1, hidden=True)
def huge_logits(softmax):
    q.check(softmax, np.array([[1000.0, 998.5, 1003.0, 990.0]]), label="a hidden row of huge logits")
    # fixed, not drawn: single precision is 25 times the tolerance off here, whatever the course's secret
    q.check(softmax, np.array([[1000.1, 998.7, 1003.3, 990.2]]), label="a hidden row of huge logits with decimals")


@test_case(name="rows_of_different_scale", points=2, hidden=True)
def rows_of_different_scale(softmax):
    z = np.array([[1200.0, 1190.0, 1201.0], [1.5, -0.5, 0.25], [-800.0, -790.0, -805.0]])
    q.check(softmax, z, label="a hidden batch of rows of very different scale")


@test_case(name="very_negative_rows", points=1, hidden=True)
def very_negative_rows(softmax):
    z = np.array([[-1000.0, -1002.5, -999.0], [-2000.0, -1990.0, -1995.0]])
    q.check(softmax, z, label="a hidden batch of very negative rows")


@test_case(name="minus_inf_entries", points=1, hidden=True)
def minus_inf_entries(softmax):
    z = np.array([[0.5, -np.inf, 2.0, -1.0], [-np.inf, -np.inf, 3.0, -np.inf]])
    q.check(softmax, z, label="hidden rows with -inf entries")


@test_case(name="one_element_rows", points=1, hidden=True)
def one_element_rows(softmax):
    z = 10 * hidden_rng(SEED, "one_element_rows").standard_normal((5, 1))
    q.check(softmax, z, label="a hidden batch of one-element rows")


@test_case(name="batch_3d", points=2, hidden=True)
def batch_3d(softmax):
    z = 3 * hidden_rng(SEED, "batch_3d").standard_normal((2, 3, 4))
    q.check(softmax, z, label="a hidden 3-D batch (two leading batch axes)")


@test_case(name="small_temperature", points=1, hidden=True)
def small_temperature(softmax):
    z = 2 * hidden_rng(SEED, "small_temperature").standard_normal((3, 5))
    q.check(softmax, z, T=0.004, label="a hidden batch at a very small temperature")


@test_case(name="large_temperature", points=1, hidden=True)
def large_temperature(softmax):
    z = 10 * hidden_rng(SEED, "large_temperature").standard_normal((4, 3))
    q.check(softmax, z, T=50.0, label="a hidden batch at a large temperature")


@test_case(name="lists_and_ints", points=1, hidden=True)
def lists_and_ints(softmax):
    q.check(softmax, [[2, 0, 1], [5, 5, 4]], label="a hidden nested list of integers")
    q.check(softmax, np.array([4, 1, 1, 7]), label="a hidden integer array")
    q.check(softmax, [1, 2, 0], 2, label="a hidden list with an integer temperature given by position")


@test_case(name="square_batch", points=1, hidden=True)
def square_batch(softmax):
    z = 2 * hidden_rng(SEED, "square_batch").standard_normal((4, 4))
    q.check(softmax, z, label="a hidden square batch (as many rows as logits per row)")


@test_case(name="random_rows", points=2, hidden=True)
def random_rows(softmax):
    rng = hidden_rng(SEED, "random_rows")
    z = rng.standard_normal((6, 5)) * rng.uniform(0.5, 20.0, size=(6, 1)) + rng.uniform(-50, 50, size=(6, 1))
    q.check(softmax, z, T=0.7, label="a hidden batch of random rows")
