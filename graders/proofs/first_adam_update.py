"""first_adam_update(g, ...): Adam's first update, which the text says is ±alpha for every parameter."""

OK_FORMAT = False
name = "first_adam_update"

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, hidden_rng, reference

SEED = 5521
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
q = Question("first_adam_update", REF.first_adam_update, MISTAKES, rtol=1e-6, atol=1e-12)


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
