"""Hidden grader for Problem 4 of the code assignment: ``dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1)``.

Public cases are the prompt's hand-worked batch of two (at beta = 0.1 and beta = 1); hidden cases are the
edges the text's stability remark points at (margins of thousands either way, where log(sigmoid(u)) gives
inf; a batch of one; lists and integers; beta given by position) and random batches from a seeded generator.
Tolerance: the default rtol 1e-6 (softplus is well-conditioned).
"""

import math

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference
from reading_maths.kit.properties import Property, close, one

OK_FORMAT = False
name = "dpo_loss"

SEED = course_seed(37_904_115)  # hidden: the number and the course's secret, never in release/
REF = reference("code")


# -- the mistake catalogue: realistic wrong DPO losses, each with what to tell its author -----------------

def _arrays(*xs):
    return [np.asarray(x, dtype=np.float64) for x in xs]


def _softplus_mean(u):
    return float(np.mean(np.logaddexp(0.0, -u)))  # -mean(log sigmoid(u))


def _margin_sign(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return _softplus_mean(beta * ((pi_w - ref_w) + (pi_l - ref_l)))


def _swapped(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return _softplus_mean(beta * ((pi_l - ref_l) - (pi_w - ref_w)))


def _reference_wrong_way(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return _softplus_mean(beta * (pi_w - ref_w - pi_l - ref_l))


def _beta_dropped(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return _softplus_mean((pi_w - ref_w) - (pi_l - ref_l))


def _beta_ignored(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return _softplus_mean(0.1 * ((pi_w - ref_w) - (pi_l - ref_l)))


def _sum_not_mean(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return float(np.sum(np.logaddexp(0.0, -beta * ((pi_w - ref_w) - (pi_l - ref_l)))))


def _loss_sign(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return -_softplus_mean(beta * ((pi_w - ref_w) - (pi_l - ref_l)))


def _unstable_log_sigmoid(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    margin = beta * ((pi_w - ref_w) - (pi_l - ref_l))
    return float(-np.mean(np.log(1.0 / (1.0 + np.exp(-margin)))))


def _math_exp_sigmoid(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    margins = beta * ((pi_w - ref_w) - (pi_l - ref_l))
    return sum(-math.log(1.0 / (1.0 + math.exp(-float(u)))) for u in margins.ravel()) / margins.size


def _no_mean(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return np.logaddexp(0.0, -beta * ((pi_w - ref_w) - (pi_l - ref_l)))


def _log_sigmoid_of_sum(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return float(np.logaddexp(0.0, -np.sum(beta * ((pi_w - ref_w) - (pi_l - ref_l)))))


def _log_sigmoid_of_mean(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    return float(np.logaddexp(0.0, -np.mean(beta * ((pi_w - ref_w) - (pi_l - ref_l)))))


def _no_log(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = _arrays(pi_w, pi_l, ref_w, ref_l)
    margin = beta * ((pi_w - ref_w) - (pi_l - ref_l))
    return float(-np.mean(1.0 / (1.0 + np.exp(-margin))))


MISTAKES = [
    Mistake(
        "margin-sign",
        "You add the two log-ratios. The margin is a difference: how much more the policy (relative to the "
        "reference) likes the chosen response minus the same for the rejected one, "
        "beta * ((pi_w - ref_w) - (pi_l - ref_l)).",
        _margin_sign,
    ),
    Mistake(
        "chosen-rejected-swapped",
        # (pi_l - ref_l) - (pi_w - ref_w) and (ref_w - pi_w) - (ref_l - pi_l) give the same numbers: say the effect
        "Your margin has the wrong sign, so the loss rewards preferring the rejected response. The margin is the "
        "chosen log-ratio minus the rejected one, each log-ratio policy minus reference: "
        "(pi_w - ref_w) - (pi_l - ref_l).",
        _swapped,
    ),
    Mistake(
        "reference-wrong-way",
        "The reference terms are subtracted the wrong way: without brackets, pi_w - ref_w - pi_l - ref_l "
        "subtracts ref_l instead of adding it. Each reference term belongs inside its own log-ratio: "
        "(pi_w - ref_w) - (pi_l - ref_l).",
        _reference_wrong_way,
    ),
    Mistake(
        "beta-dropped",
        "Your loss leaves out beta. The margin is scaled by beta before the log-sigmoid: "
        "beta * ((pi_w - ref_w) - (pi_l - ref_l)).",
        _beta_dropped,
    ),
    Mistake(
        "beta-ignored",
        "Your loss always uses the default beta, whatever beta it is given. Use the beta argument.",
        _beta_ignored,
    ),
    Mistake(
        "sum-not-mean",
        "You sum the losses of the batch. The expectation E[...] is an average over samples: take the mean, "
        "so the loss does not grow with the batch size.",
        _sum_not_mean,
    ),
    Mistake(
        "no-mean",
        "You return each example's loss, an array with one number per example. The loss of the batch is one "
        "number: the mean of those, np.mean(np.logaddexp(0, -margin)).",
        _no_mean,
    ),
    Mistake(
        "log-sigmoid-of-sum",
        "You sum the margins of the batch and take one log-sigmoid of the sum. The loss is a mean over examples of "
        "each example's own -log sigmoid(margin): take -log sigmoid of each margin first, then the mean.",
        _log_sigmoid_of_sum,
    ),
    Mistake(
        "log-sigmoid-of-mean",
        "You take the log-sigmoid of the mean margin. The loss is the mean of each example's -log sigmoid(margin): "
        "-log sigmoid is not linear, so take it of each margin first, then the mean.",
        _log_sigmoid_of_mean,
    ),
    Mistake(
        "loss-sign",
        "Your loss is negative: the minus in front of the expectation is missing. log sigmoid is never positive, "
        "so the loss, -mean(log sigmoid(margin)), is never negative.",
        _loss_sign,
    ),
    Mistake(
        "unstable-log-sigmoid",
        "Your log(sigmoid(u)) overflows for a margin far below zero: np.exp(-u) is inf, the sigmoid rounds to 0 "
        "and its log is -inf, although the true value is about u. Write log sigmoid(u) as -np.logaddexp(0, -u), "
        "which is exact and finite for any finite u.",
        _unstable_log_sigmoid,
    ),
    Mistake(
        "math-exp-overflow",
        "Your sigmoid 1 / (1 + math.exp(-u)) raises OverflowError for a margin far below zero: math.exp(-u) is "
        "larger than any float (from about u < -709), and math.exp raises where np.exp would give inf. Do not "
        "build the sigmoid at all: log sigmoid(u) = -np.logaddexp(0, -u), which is exact and finite for any "
        "finite u, so the loss is np.mean(np.logaddexp(0, -margin)).",
        _math_exp_sigmoid,
    ),
    Mistake(
        "no-log",
        "You average the sigmoid itself. The loss takes its log first: -mean(log sigmoid(margin)), "
        "with log sigmoid(u) = -np.logaddexp(0, -u).",
        _no_log,
    ),
]


# -- the text's facts, tried when no catalogued mistake explains a wrong answer -----------------------

_P = list(-np.abs(2 * hidden_rng(SEED, "properties").standard_normal((4, 6))) - 0.5)


def _log_ratios_only(call):
    """Only log(pi / pi_ref) enters: the same number added to a response's two log probabilities cancels."""
    pi_w, pi_l, ref_w, ref_l = _P
    base = one(call, pi_w, pi_l, ref_w, ref_l)
    return close(one(call, pi_w - 1.5, pi_l, ref_w - 1.5, ref_l), base) \
        and close(one(call, pi_w, pi_l - 2.5, ref_w, ref_l - 2.5), base)


def _beta_scales_the_margin(call):
    """beta multiplies the margin: scaling every log probability by k is the same as beta * k."""
    return all(close(one(call, *(k * x for x in _P), beta=0.2), one(call, *_P, beta=0.2 * k)) for k in (0.5, 3.0))


def _mean_of_the_examples(call):
    """The batch's loss is the mean of its examples' losses."""
    singles = [one(call, *(x[i:i + 1] for x in _P), beta=0.4) for i in range(len(_P[0]))]
    return close(one(call, *_P, beta=0.4), np.mean(singles))


def _zero_margin_is_log_two(call):
    """A margin of 0 (no preference learned yet) costs -log sigmoid(0) = log 2 per example."""
    pi_w, _, ref_w, _ = _P
    return close(one(call, pi_w, pi_w, ref_w, ref_w), np.log(2.0))


def _grows_without_bound(call):
    """For a very wrong preference (margin -u, u large) -log sigmoid(-u) is about u: the loss keeps growing."""
    pi_w, pi_l, ref_w, ref_l = (x[:1] for x in _P)
    losses = [float(one(call, pi_w - d, pi_l, ref_w, ref_l, beta=1.0)) for d in (200.0, 2000.0)]
    return losses[1] - losses[0] > 1000.0


PROPERTIES = [
    Property("log-ratios-only", "Only the log-ratios log(pi/pi_ref) enter the loss: adding the same number to "
             "log pi_w and log pi_ref_w (or to the rejected pair) changes nothing. Yours changes, so a response's "
             "reference log probability is not subtracted from its policy log probability, or the log "
             "probabilities are transformed first.", _log_ratios_only),
    Property("beta-multiplies", "beta multiplies the margin: beta * ((log pi_w - log ref_w) - (log pi_l - log "
             "ref_l)). Yours does not scale with beta that way (is beta dividing, or applied twice?).",
             _beta_scales_the_margin),
    Property("mean-of-examples", "The loss of a batch is the mean over its examples of -log sigmoid(margin): take "
             "-log sigmoid of each example's margin first, then the mean (not the median, not the log-sigmoid of "
             "the mean margin).", _mean_of_the_examples),
    Property("zero-margin-log-two", "With a margin of 0 each example costs -log sigmoid(0) = log 2. Yours does "
             "not.", _zero_margin_is_log_two),
    Property("grows-without-bound", "For a very wrong preference the loss grows like the margin itself "
             "(-log sigmoid(-u) is about u for large u). Yours levels off or overflows: compute log sigmoid(u) as "
             "-np.logaddexp(0, -u), with no clipping.", _grows_without_bound),
]

_R = hidden_rng(SEED, "probes")
_W = -np.abs(2 * _R.standard_normal((4, 5))) - 0.5  # ordinary batches, where the mistakes tell apart
PROBES = [(tuple(_W), {}), (tuple(_W[:, :3]), {"beta": 0.7}), (tuple(_W[:, :1]), {"beta": 2.0}),
          ((_W[0] - 40.0, *_W[1:]), {"beta": 1.0})]
q = Question("dpo_loss", REF.dpo_loss, MISTAKES, properties=PROPERTIES, probes=PROBES)

TEXT = {"pi_w": np.array([-1.0, -3.0]), "pi_l": np.array([-4.0, -2.0]),
        "ref_w": np.array([-2.0, -3.0]), "ref_l": np.array([-3.0, -2.0])}


def _batch(case: str, size: int, scale: float = 3.0) -> list[np.ndarray]:
    """Four hidden arrays of log probabilities (negative numbers) for one case."""
    rng = hidden_rng(SEED, case)
    return [-np.abs(scale * rng.standard_normal(size)) - rng.uniform(0.1, 5.0) for _ in range(4)]


# -- public cases: the prompt's hand-worked batch ---------------------------------------------------------

@test_case(name="hand_worked_example", points=1, hidden=False)
def hand_worked_example(dpo_loss):
    q.check(dpo_loss, *TEXT.values(), label="the hand-worked batch of two at beta = 0.1", public=True)


@test_case(name="hand_worked_beta_one", points=1, hidden=False)
def hand_worked_beta_one(dpo_loss):
    q.check(dpo_loss, *TEXT.values(), beta=1.0, label="the hand-worked batch of two at beta = 1", public=True)


# -- hidden cases: edges and random batches ------------------------------------------------------------------

@test_case(name="huge_negative_margins", points=2, hidden=True)
def huge_negative_margins(dpo_loss):
    pi_w, pi_l, ref_w, ref_l = _batch("huge_negative_margins", 3)
    q.check(dpo_loss, pi_w - 9000.0, pi_l, ref_w, ref_l, label="a hidden batch whose margins are far below zero")


@test_case(name="huge_positive_margins", points=1, hidden=True)
def huge_positive_margins(dpo_loss):
    pi_w, pi_l, ref_w, ref_l = _batch("huge_positive_margins", 3)
    q.check(dpo_loss, pi_w, pi_l - 9000.0, ref_w, ref_l, beta=0.5,
            label="a hidden batch whose margins are far above zero")


@test_case(name="batch_of_one", points=1, hidden=True)
def batch_of_one(dpo_loss):
    q.check(dpo_loss, *_batch("batch_of_one", 1), beta=0.3, label="a hidden batch of one")


@test_case(name="lists_and_ints", points=1, hidden=True)
def lists_and_ints(dpo_loss):
    q.check(dpo_loss, [-3, -1, -7], [-2, -6, -4], [-4, -2, -3], [-1, -5, -6], label="hidden lists of integers")


@test_case(name="beta_given", points=1, hidden=True)
def beta_given(dpo_loss):
    batch = _batch("beta_given", 5)
    q.check(dpo_loss, *batch, beta=2.5, label="a hidden batch with a large beta")
    q.check(dpo_loss, *batch, 0.02, label="a hidden batch with beta given by position")


@test_case(name="random_batches", points=2, hidden=True)
def random_batches(dpo_loss):
    q.check(dpo_loss, *_batch("random_batch_8", 8), label="a hidden random batch of 8")
    q.check(dpo_loss, *_batch("random_batch_64", 64, scale=20.0), beta=0.7, label="a hidden random batch of 64")
