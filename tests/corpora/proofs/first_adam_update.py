"""first_adam_update: differently written right answers, and wrong ones with their diagnosis."""

import numpy as np

from classroom.corpus import answers


def _literal(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.array(g, dtype=float)
    m = 0.9 * 0 + (1 - beta1) * g
    v = 0 + (1 - beta2) * g * g
    return -alpha * (m / (1 - beta1**1)) / (np.sqrt(v / (1 - beta2**1)) + eps)


def _abs_form(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * g / (np.abs(g) + eps)


def _theta_difference(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    theta0 = np.ones_like(g)
    m_hat = ((1 - beta1) * g) / (1 - beta1)
    v_hat = ((1 - beta2) * g**2) / (1 - beta2)
    theta1 = theta0 - alpha * m_hat / (np.sqrt(v_hat) + eps)
    return theta1 - theta0


def _list_out(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return [-alpha * x / (abs(x) + eps) for x in np.asarray(g, dtype=float)]


def _power_form(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * g / ((g**2) ** 0.5 + eps)


def _no_hats(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * (1 - beta1) * g / (np.sqrt((1 - beta2) * g**2) + eps)


def _sign(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return alpha * g / (np.abs(g) + eps)


def _eps_in(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * g / np.sqrt(g**2 + eps)


def _exact_sign(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return -alpha * np.sign(np.asarray(g, dtype=float)) * 1.01


def _scalar(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    return -alpha


def _beta_swapped(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * ((1 - beta2) * g / (1 - beta1)) / (np.sqrt((1 - beta1) * g**2 / (1 - beta2)) + eps)


RIGHT = answers("first_adam_update", {
    "literal": _literal,
    "abs_form": _abs_form,
    "theta_difference": _theta_difference,
    "list_out": _list_out,
    "power_form": _power_form,
})

def _v_hat_missing(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    m_hat = (1 - beta1) * g / (1 - beta1)
    return -alpha * m_hat / (np.sqrt((1 - beta2) * g**2) + eps)


def _m_hat_times(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    m_hat = (1 - beta1) * g * (1 - beta1)
    return -alpha * m_hat / (np.sqrt((1 - beta2) * g**2 / (1 - beta2)) + eps)


def _no_eps(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -alpha * g / np.abs(g)


WRONG = {
    "v_not_bias_corrected": ({"first_adam_update": _v_hat_missing}, "v-not-corrected"),
    "m_hat_multiplied": ({"first_adam_update": _m_hat_times}, "m-hat-multiplied"),
    "no_eps": ({"first_adam_update": _no_eps}, "ε matters only"),
    "no_hats": ({"first_adam_update": _no_hats}, "no-bias-correction"),
    "plus_sign": ({"first_adam_update": _sign}, "wrong-sign"),
    "eps_inside": ({"first_adam_update": _eps_in}, "eps-inside-root"),
    "scaled_sign": ({"first_adam_update": _exact_sign}, "about α against the sign"),
    "scalar": ({"first_adam_update": _scalar}, "size-not-update"),
    "betas_swapped": ({"first_adam_update": _beta_swapped}, "about α against the sign"),
}


def _fresh_hats_with_power_half(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    m_hat = ((1 - beta1) * g) / (1 - beta1**1)
    v_hat = ((1 - beta2) * g * g) / (1 - beta2**1)
    return -(alpha * m_hat) / (v_hat**0.5 + eps)


RIGHT["fresh-hats-with-power-half"] = {"first_adam_update": _fresh_hats_with_power_half}


def _fresh2_default_alpha(g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    g = np.asarray(g, dtype=float)
    return -0.001 * g / (np.abs(g) + eps)


RIGHT["fresh2-simplified-first-step"] = {"first_adam_update": lambda g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8:
                                         -alpha * np.asarray(g) / (np.abs(g) + eps)}
WRONG.update({
    "fresh2-alpha-hard-coded": ({"first_adam_update": _fresh2_default_alpha}, "alpha-ignored"),
    "fresh2-no-square-root": ({"first_adam_update": lambda g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8:
                               -alpha * g / (g ** 2 + eps)}, "no-square-root"),
    "fresh2-returns-theta-from-one": ({"first_adam_update": lambda g, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8:
                                       1 - alpha * g / (np.abs(g) + eps)}, None),
})
