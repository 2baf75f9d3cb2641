"""first_adam_update(g, ...): Adam's first update, which the text says is ±alpha for every parameter."""

OK_FORMAT = False
name = "first_adam_update"

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference
from reading_maths.kit.properties import Property, close, one

SEED = course_seed(5521)  # hidden: the number and the course's secret, never in release/
REF = reference("proofs")


def _no_bias_correction(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * (1 - beta1) * g / (np.sqrt((1 - beta2) * g**2) + eps)


def _plus_sign(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return alpha * g / (np.sqrt(g**2) + eps)


def _eps_inside(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * g / np.sqrt(g**2 + eps)


def _no_sqrt(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * g / (g**2 + eps)


def _m_not_m_hat(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * (1 - beta1) * g / (np.sqrt(g**2) + eps)


MISTAKES = [
    Mistake("no-bias-correction", "Without the hats, m_1 = (1 - β₁) g_1 and v_1 = (1 - β₂) g_1² are far too "
            "small; divide by 1 - β₁^t and 1 - β₂^t before the update.", _no_bias_correction),
    Mistake("wrong-sign", "Adam steps against the gradient: θ_t = θ_(t-1) - α m̂_t / (√v̂_t + ε).", _plus_sign),
    Mistake("eps-inside-root", "ε is added after the square root: √v̂_t + ε, not √(v̂_t + ε).", _eps_inside),
    Mistake("no-square-root", "The denominator is the square root of v̂_t (plus ε).", _no_sqrt),
    Mistake("m-not-m-hat", "The update uses m̂_t, the bias-corrected m_t, in the numerator.", _m_not_m_hat),
]

def _v_not_corrected(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * g / (np.sqrt((1 - beta2) * g**2) + eps)


def _m_hat_multiplied(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * (1 - beta1) ** 2 * g / (np.sqrt(g**2) + eps)


def _alpha_ignored(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -0.001 * g / (np.sqrt(g**2) + eps)


MISTAKES += [
    Mistake("alpha-ignored", "The step size is the alpha you are given, not the default 0.001: use the argument "
            "alpha.", _alpha_ignored),
    Mistake("v-not-corrected", "v̂_1 is v_1 / (1 - β₂): without it the denominator √v_1 = √(1 - β₂) |g_1| is far "
            "too small and the step far too big.", _v_not_corrected),
    Mistake("m-hat-multiplied", "m̂_t divides m_t by (1 - β₁^t); multiplying by it shrinks the step instead.",
            _m_hat_multiplied),
    Mistake("size-not-update", "α is the size of the first step; the update itself is one step per parameter, "
            "-α m̂_1 / (√v̂_1 + ε), an array of g's shape (about -α sign(g) element by element).",
            lambda g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8: -alpha),
]

# -- the text's facts, tried when no catalogued mistake explains a wrong answer -------------------------

_G = np.array([0.8, -2.5, 40.0, -0.03])


def _step_is_alpha(call):
    return close(one(call, _G, alpha=0.01), -0.01 * np.sign(_G), rtol=1e-4)


def _scale_invariant(call):
    return close(one(call, 1000 * _G, alpha=0.01), one(call, _G, alpha=0.01), rtol=1e-5)


def _tiny_gradients_move_less(call):
    small = np.abs(one(call, 1e-10 * np.sign(_G), alpha=0.01))
    return bool(np.all(small < 0.01 * 0.05))


PROPERTIES = [
    Property("first-step-is-alpha", "On the first step m̂_1 = g_1 and v̂_1 = g_1², so every parameter moves by "
             "about α against the sign of its gradient. Yours does not.", _step_is_alpha),
    Property("scale-invariance", "Adam is invariant to scaling the gradient: multiplying g by 1000 leaves the "
             "first update unchanged. Yours changes.", _scale_invariant),
    Property("eps-for-tiny-gradients", "ε matters only for gradients near its size: a gradient far below ε "
             "moves its parameter by much less than α. Yours does not.", _tiny_gradients_move_less),
]
PROBES = [((_G,), {"alpha": 0.01}), ((1e-7 * _G,), {"alpha": 0.01}),
          ((_G,), {"alpha": 0.05, "beta1": 0.7, "beta2": 0.9})]
q = Question("first_adam_update", REF.first_adam_update, MISTAKES, rtol=1e-6, atol=1e-12, properties=PROPERTIES,
             probes=PROBES)


@test_case(points=1, hidden=False)
def text_example(first_adam_update):
    q.check(first_adam_update, np.array([0.5, -3.0, 1000.0]), alpha=0.001,
            label="g = [0.5, -3.0, 1000.0], alpha = 0.001", public=True)


@test_case(points=1, hidden=True)
def random_scales_and_settings(first_adam_update):
    rng = hidden_rng(SEED, "random")
    for _ in range(4):
        g = rng.normal(0, 1, size=5) * 10.0 ** rng.integers(-3, 4, size=5)
        q.check(first_adam_update, g, alpha=float(rng.uniform(1e-4, 0.1)), beta1=float(rng.uniform(0.5, 0.95)),
                beta2=float(rng.uniform(0.9, 0.9999)), label="a hidden gradient vector with its settings")


@test_case(points=1, hidden=True)
def tiny_gradients(first_adam_update):
    rng = hidden_rng(SEED, "tiny")
    g = rng.choice([-1.0, 1.0], size=4) * 10.0 ** rng.uniform(-7, -5, size=4)
    q.check(first_adam_update, g, alpha=0.01, label="hidden gradients close to ε in size")
