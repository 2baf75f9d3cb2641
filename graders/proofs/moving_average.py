"""moving_average(g, beta1, t): m_t for a constant gradient, which the proof says is g (1 - beta1^t)."""

OK_FORMAT = False
name = "moving_average"

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference
from reading_maths.kit.properties import Property, close, one

SEED = course_seed(7310)  # hidden: the number and the course's secret, never in release/
REF = reference("proofs")


def _no_one_minus_beta(g, beta1, t):
    m = np.zeros_like(np.asarray(g, dtype=float))
    for _ in range(t):
        m = beta1 * m + np.asarray(g, dtype=float)
    return m


def _one_step_short(g, beta1, t):
    return np.asarray(g, dtype=float) * (1 - beta1 ** (t - 1))


def _one_step_extra(g, beta1, t):
    return np.asarray(g, dtype=float) * (1 - beta1 ** (t + 1))


def _bias_corrected(g, beta1, t):
    return np.asarray(g, dtype=float) * 1.0


def _beta_not_power(g, beta1, t):
    return np.asarray(g, dtype=float) * (1 - beta1 * t) if t > 1 else np.asarray(g, dtype=float) * (1 - beta1)


MISTAKES = [
    Mistake("bias-corrected", "This returns g itself, the bias-corrected m̂_t (or m_0 = g was used as the start): "
            "the question asks for m_t from m_0 = 0, before the hat divides by 1 - β₁^t.", _bias_corrected),
    Mistake("no-one-minus-beta", "Each step adds (1 - β₁) g, not g: m ← β₁ m + (1 - β₁) g.", _no_one_minus_beta),
    Mistake("t-minus-1-steps", "The loop runs one step too few: apply the update exactly t times.", _one_step_short),
    Mistake("t-plus-1-steps", "The loop runs one step too many: apply the update exactly t times.", _one_step_extra),
    Mistake("beta-times-t", "β₁ to the power t is not β₁ times t; simulate the loop rather than a formula.",
            _beta_not_power),
]
# -- the text's facts, tried when no catalogued mistake explains a wrong answer -------------------------

_G = np.array([1.5, -4.0, 0.25])


def _first_step(call):
    return close(one(call, _G, 0.7, 1), 0.3 * _G) and close(one(call, _G, 0.95, 1), 0.05 * _G)


def _beta_zero(call):
    return close(one(call, _G, 0.0, 4), _G)


def _from_zero(call):
    return bool(np.all(np.abs(one(call, _G, 0.8, 0)) <= 1e-12))  # a plain 0 is fine too


def _recursion(call):
    return all(close(one(call, _G, 0.6, t + 1), 0.6 * one(call, _G, 0.6, t) + 0.4 * _G) for t in (1, 2, 5))


PROPERTIES = [
    Property("first-step", "After one step from m_0 = 0, m_1 = (1 - β₁) g: the new gradient enters with weight "
             "(1 - β₁), the old average with β₁. Yours does not give that.", _first_step),
    Property("beta-zero", "With β₁ = 0 there is no memory: m_t = g at every step. Yours is not.", _beta_zero),
    Property("recursion", "Each step is m_t = β₁ m_(t-1) + (1 - β₁) g: one more step of yours does not follow "
             "from the one before.", _recursion),
    Property("starts-at-zero", "m_0 = 0: with t = 0 no step has been taken and the average is 0.", _from_zero),
]
PROBES = [((_G, 0.7, 1), {}), ((_G, 0.5, 2), {}), ((_G, 0.9, 30), {}), ((2.0, 0.3, 4), {})]
q = Question("moving_average", REF.moving_average, MISTAKES, properties=PROPERTIES, probes=PROBES)


@test_case(points=1, hidden=False)
def text_example(moving_average):
    q.check(moving_average, 2.0, 0.9, 1, label="g = 2.0, beta1 = 0.9, t = 1", public=True)
    q.check(moving_average, 2.0, 0.9, 2, label="g = 2.0, beta1 = 0.9, t = 2", public=True)


@test_case(points=1, hidden=True)
def random_arrays(moving_average):
    rng = hidden_rng(SEED, "random_arrays")
    for _ in range(4):
        g = rng.normal(0, 3, size=rng.integers(2, 6))
        beta1, t = float(rng.uniform(0.5, 0.99)), int(rng.integers(3, 25))
        q.check(moving_average, g, beta1, t, label="a hidden array of gradients")


@test_case(points=1, hidden=True)
def equals_g_times_one_minus_beta_power(moving_average):
    rng = hidden_rng(SEED, "formula")
    for t in (1, 5, 40):
        g, beta1 = float(rng.normal(0, 5)), float(rng.uniform(0.8, 0.999))
        (m,) = q.call(moving_average, g, beta1, t, label="a hidden scalar gradient")
        q.check_property(m.shape == () and abs(float(m) - g * (1 - beta1**t)) <= 1e-9 + 1e-7 * abs(g),
                         label="a hidden scalar gradient", message="the result is not g (1 - β₁^t).")
