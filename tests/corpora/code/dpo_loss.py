"""dpo_loss: differently written right answers, and wrong ones with the diagnosis they must get."""

import math

import numpy as np

from classroom.corpus import answers

# -- right ---------------------------------------------------------------------------------------------


def _text_style(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = (np.asarray(x, dtype=float) for x in (pi_w, pi_l, ref_w, ref_l))
    margin = beta * ((pi_w - ref_w) - (pi_l - ref_l))
    return -np.mean(-np.logaddexp(0, -margin))


def _log_ratios_first(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    chosen = np.subtract(pi_w, ref_w)
    rejected = np.subtract(pi_l, ref_l)
    return np.logaddexp(0.0, -beta * (chosen - rejected)).mean()


def _two_branch_softplus(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    u = beta * ((np.asarray(pi_w) - np.asarray(ref_w)) - (np.asarray(pi_l) - np.asarray(ref_l)))
    u = u.astype(float)
    log_sig = np.where(u >= 0, -np.log1p(np.exp(-np.abs(u))), u - np.log1p(np.exp(-np.abs(u))))
    return float(-log_sig.mean())


def _max_plus_log1p(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    u = beta * (np.array(pi_w, dtype=float) - np.array(ref_w, dtype=float)
                - np.array(pi_l, dtype=float) + np.array(ref_l, dtype=float))
    return np.mean(np.maximum(-u, 0.0) + np.log1p(np.exp(-np.abs(u))))


def _python_loop(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    total, count = 0.0, 0
    for a, b, c, d in zip(np.ravel(pi_w), np.ravel(pi_l), np.ravel(ref_w), np.ravel(ref_l)):
        u = beta * ((float(a) - float(c)) - (float(b) - float(d)))
        total += (-u + math.log1p(math.exp(u))) if u < 0 else math.log1p(math.exp(-u))
        count += 1
    return total / count


def _zero_d_array(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    stacked = np.stack([np.asarray(x, dtype=float) for x in (pi_w, pi_l, ref_w, ref_l)])
    margin = beta * (stacked[0] - stacked[2] - (stacked[1] - stacked[3]))
    return np.asarray(np.average(np.logaddexp(0, -margin)))


def _in_place_on_copies(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    w = np.array(pi_w, dtype=np.float64, copy=True)
    w -= np.asarray(ref_w, dtype=float)
    w -= np.asarray(pi_l, dtype=float) - np.asarray(ref_l, dtype=float)
    w *= -beta
    np.logaddexp(0.0, w, out=w)
    return w.sum() / w.size


def _log_sigmoid_helper(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    def log_sigmoid(x):
        return -np.logaddexp(0, -x)

    pi_logratios = np.asarray(pi_w, dtype=float) - np.asarray(pi_l, dtype=float)
    ref_logratios = np.asarray(ref_w, dtype=float) - np.asarray(ref_l, dtype=float)
    return -log_sigmoid(beta * (pi_logratios - ref_logratios)).mean()  # the DPO paper's own grouping


RIGHT = answers("dpo_loss", {
    "text-style": _text_style,
    "log-ratios-first": _log_ratios_first,
    "two-branch-softplus": _two_branch_softplus,
    "max-plus-log1p": _max_plus_log1p,
    "python-loop-math": _python_loop,
    "zero-d-array": _zero_d_array,
    "in-place-on-copies": _in_place_on_copies,
    "paper-grouping": _log_sigmoid_helper,
})


# -- wrong ---------------------------------------------------------------------------------------------


def _naive(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l))
    return -np.mean(np.log(1 / (1 + np.exp(-margin))))


def _clipped_sigmoid(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l))
    return -np.mean(np.log(np.clip(1 / (1 + np.exp(-margin)), 1e-12, 1.0)))


def _per_example(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l))
    return np.logaddexp(0, -margin)


def _mutates_input(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    if isinstance(pi_w, np.ndarray) and pi_w.dtype == float:
        pi_w -= ref_w
        pi_w -= np.asarray(pi_l, dtype=float) - ref_l
        pi_w *= beta
        return float(np.mean(np.logaddexp(0, -pi_w)))
    return _text_style(pi_w, pi_l, ref_w, ref_l, beta)


def _no_reference(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * (np.asarray(pi_w, dtype=float) - np.asarray(pi_l, dtype=float))
    return float(np.mean(np.logaddexp(0, -margin)))


def _beta_divides(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l)) / beta
    return float(np.mean(np.logaddexp(0, -margin)))


def _log_of_probabilities(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    # treats the log probabilities as probabilities and takes their logs again
    with np.errstate(all="ignore"):
        pw, pl, rw, rl = (np.log(np.abs(np.asarray(x, dtype=float))) for x in (pi_w, pi_l, ref_w, ref_l))
    return float(np.mean(np.logaddexp(0, -beta * ((pw - rw) - (pl - rl)))))


def _median(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l))
    return float(np.median(np.logaddexp(0, -margin)))


def _mean_too_early(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margin = beta * ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l))
    return float(np.logaddexp(0, -np.mean(margin)))  # the log-sigmoid of the mean margin is not the mean loss


def _sum_before_log_sigmoid(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margins = beta * ((np.asarray(pi_w, dtype=float) - ref_w) - (np.asarray(pi_l, dtype=float) - ref_l))
    return float(np.logaddexp(0, -margins.sum()))  # one log-sigmoid of the summed margins


def _reference_minus_policy(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    # log-ratios written reference over policy: the same numbers as swapping chosen and rejected
    margin = beta * ((np.asarray(ref_w, dtype=float) - pi_w) - (np.asarray(ref_l, dtype=float) - pi_l))
    return float(np.mean(np.logaddexp(0, -margin)))


WRONG = {
    "naive-log-sigmoid": ({"dpo_loss": _naive}, "unstable-log-sigmoid"),
    "clipped-sigmoid": ({"dpo_loss": _clipped_sigmoid}, "a hidden batch whose margins are far below zero"),
    "per-example-losses": ({"dpo_loss": _per_example}, "no-mean"),
    "mutates-input": ({"dpo_loss": _mutates_input}, "changed its input array in place"),
    "no-reference": ({"dpo_loss": _no_reference}, "the hand-worked batch of two"),
    "beta-divides": ({"dpo_loss": _beta_divides}, "has the wrong values"),
    "logs-of-logs": ({"dpo_loss": _log_of_probabilities}, None),
    "median-not-mean": ({"dpo_loss": _median}, "a hidden random batch"),
    "mean-too-early": ({"dpo_loss": _mean_too_early}, "log-sigmoid-of-mean"),
    "sum-before-log-sigmoid": ({"dpo_loss": _sum_before_log_sigmoid}, "log-sigmoid-of-sum"),
    "reference-minus-policy": ({"dpo_loss": _reference_minus_policy}, "chosen-rejected-swapped"),
    "not-a-function": ({"dpo_loss": 0.6456}, "should be a function"),
}


# -- more right answers, as students write them ---------------------------------------------------------


def _branching_log1p(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    """-log sigmoid(u) = log(1 + e^-u), written so that neither branch overflows."""
    total, count = 0.0, 0
    for a, b, c, d in zip(*(np.atleast_1d(np.asarray(x, dtype=float)) for x in (pi_w, pi_l, ref_w, ref_l))):
        u = beta * ((a - c) - (b - d))
        total += math.log1p(math.exp(-u)) if u >= 0 else -u + math.log1p(math.exp(u))
        count += 1
    return total / count


def _where_stable(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    u = beta * (np.subtract(pi_w, ref_w) - np.subtract(pi_l, ref_l))
    log_sig = np.where(u >= 0, -np.log1p(np.exp(-np.abs(u))), u - np.log1p(np.exp(-np.abs(u))))
    return -log_sig.mean()


def _comprehension(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    margins = [beta * ((w - rw) - (lo - rl)) for w, lo, rw, rl in zip(pi_w, pi_l, ref_w, ref_l)]
    return float(np.mean([np.logaddexp(0.0, -m) for m in margins]))


class _DPO:
    def __init__(self, beta=0.1):
        self.beta = beta

    def __call__(self, pi_w, pi_l, ref_w, ref_l, beta=None):
        beta = self.beta if beta is None else beta
        chosen = np.asarray(pi_w, float) - np.asarray(ref_w, float)
        rejected = np.asarray(pi_l, float) - np.asarray(ref_l, float)
        return np.mean(np.logaddexp(0, -beta * (chosen - rejected)))


RIGHT |= answers("dpo_loss", {
    "branching-log1p-math": _branching_log1p,
    "np-where-stable": _where_stable,
    "list-comprehension": _comprehension,
    "callable-class": _DPO(),
})


# -- right, from a fresh pair of eyes (each also graded in a real notebook: full marks) -----------------


def _fresh_python_loop(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    losses = []
    for a, b, c, d in zip(pi_w, pi_l, ref_w, ref_l):
        u = beta * ((a - c) - (b - d))
        losses.append(math.log1p(math.exp(-u)) if u >= 0 else -u + math.log1p(math.exp(u)))
    return sum(losses) / len(losses)


def _fresh_vectorized_softplus(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    softplus = np.vectorize(lambda x: max(x, 0.0) + math.log1p(math.exp(-abs(x))))
    u = beta * ((np.asarray(pi_w) - np.asarray(ref_w)) - (np.asarray(pi_l) - np.asarray(ref_l)))
    return float(np.mean(softplus(-u)))


def _fresh_logratios_item(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    policy = np.asarray(pi_w, dtype=float) - np.asarray(pi_l, dtype=float)
    reference = np.asarray(ref_w, dtype=float) - np.asarray(ref_l, dtype=float)
    return (np.logaddexp(0.0, -beta * (policy - reference))).mean().item()


def _fresh_where_two_branches(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pw, pl, rw, rl = (np.asarray(a, dtype=np.float64) for a in (pi_w, pi_l, ref_w, ref_l))
    x = beta * (pw - rw - pl + rl)
    tail = np.log1p(np.exp(-np.abs(x)))
    return np.mean(np.where(x > 0, tail, -x + tail))


def _fresh_sum_over_len(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    diff = beta * (np.asarray(pi_w) - np.asarray(ref_w) - (np.asarray(pi_l) - np.asarray(ref_l)))
    return np.sum(np.logaddexp(0, -diff)) / len(diff)


RIGHT |= answers("dpo_loss", {
    "fresh-python-loop-two-branches": _fresh_python_loop,
    "fresh-np-vectorize-softplus": _fresh_vectorized_softplus,
    "fresh-logratios-item": _fresh_logratios_item,
    "fresh-where-two-branches": _fresh_where_two_branches,
    "fresh-sum-over-len": _fresh_sum_over_len,
})


def _fresh_maximum_softplus(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    pi_w, pi_l, ref_w, ref_l = map(np.asarray, (pi_w, pi_l, ref_w, ref_l))
    logits = beta * ((pi_w - pi_l) - (ref_w - ref_l))
    return float(np.mean(np.maximum(-logits, 0) + np.log1p(np.exp(-np.abs(logits)))))


RIGHT["fresh-maximum-softplus"] = {"dpo_loss": _fresh_maximum_softplus}


# -- wrong, held out: each now catalogued -------------------------------------------------------------------


def _naive_sigmoid_loop(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    losses = []
    for a, b, c, d in zip(pi_w, pi_l, ref_w, ref_l):
        u = beta * ((a - c) - (b - d))
        sigmoid = 1 / (1 + math.exp(-u))
        losses.append(-math.log(sigmoid))
    return np.mean(losses)


def _naive_sigmoid_helper(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    def sigmoid(x):
        return 1.0 / (1.0 + math.exp(-x))

    margins = beta * ((np.asarray(pi_w) - np.asarray(ref_w)) - (np.asarray(pi_l) - np.asarray(ref_l)))
    return -sum(math.log(sigmoid(float(u))) for u in margins) / len(margins)


WRONG |= {
    "naive-sigmoid-math-exp": ({"dpo_loss": _naive_sigmoid_loop}, "math-exp-overflow"),
    "naive-sigmoid-helper": ({"dpo_loss": _naive_sigmoid_helper}, "math-exp-overflow"),
}
