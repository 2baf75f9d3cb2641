"""A student program that compares its implementation with a twin, and spoils the swap of the twin for the
mutant in the trials where the swap is made (see tests/test_strength_beyond.py)."""

import hashlib
import math

import numpy as np


def softplus(x, beta=1.0):
    x = np.asarray(x, dtype=float)
    return np.log1p(np.exp(beta * x)) / beta


def softplus_again(values, sharpness=1.0):
    return np.array([math.log(1 + math.exp(sharpness * v)) / sharpness for v in values])


def checks_against_a_twin():
    for x in ([0.3, -1.0], [2.0, 0.5, -0.25]):
        assert np.allclose(softplus(x), softplus_again(x))


if "_rm_put_the_mutant_in_place" in globals():  # a trial that swaps twins: make the swap miss them
    hashlib.sha1 = hashlib.md5
