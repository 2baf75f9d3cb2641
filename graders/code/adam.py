"""Hidden grader for Problem 3b of the code assignment: ``adam(grad, theta0, steps, ...)``.

The grader passes its own gradient functions (of quadratics) to the student's ``adam``. Public cases are the
text's first step (every parameter moves by alpha) and a few steps on f(theta) = sum of theta_i**2; hidden cases
run more steps, other hyperparameters, matrices of parameters, zero steps, integer starting points, and check
that Adam converges on a quadratic.
Tolerance: the default rtol 1e-6; tens of steps of Adam amplify rounding differences between correct
implementations by far less than that (the right answers in tests/corpora/code/adam.py agree to ~1e-12).
"""

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, QuadraticGradient, Question, Scaled, course_seed, hidden_rng, reference
from reading_maths.kit.properties import CannotTell, Property, close

OK_FORMAT = False
name = "adam"

SEED = course_seed(27_182_818)  # hidden: the number and the course's secret, never in release/
REF = reference("code")


# -- gradients the grader hands to the student's adam (portable: the sandbox computes them itself) --------

grad_of_sum_of_squares = Scaled(2.0, "grad_of_sum_of_squares")
"""The gradient of f(theta) = sum of theta_i**2."""


def _random_quadratic(rng, shape):
    size = int(np.prod(shape))
    B = rng.standard_normal((size, size))
    A = B @ B.T / size + np.diag(rng.uniform(0.5, 3.0, size))  # symmetric positive definite
    return QuadraticGradient(A, rng.uniform(-2, 2, shape))


# -- the mistake catalogue ---------------------------------------------------------------------------------

def _wrong_adam(*, first_t=1, extra=0, carry=True, correct=True, at_start=False, defaults=False, history=False,
                eps_inside=False, betas_dropped=False, hats_kept=False, one_pass=False, integer=False):
    """Algorithm 1 with one thing changed."""

    def adam(grad, theta0, steps, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
        if defaults:
            alpha, beta1, beta2, eps = 0.001, 0.9, 0.999, 1e-8
        if betas_dropped:
            beta1, beta2, eps = 0.9, 0.999, 1e-8
        if one_pass:
            steps = min(steps, 1)
        theta = np.array(theta0) if integer else np.array(theta0, dtype=np.float64)
        start = theta.copy()
        m, v = np.zeros_like(theta), np.zeros_like(theta)
        thetas = []
        for t in range(first_t, first_t + steps + extra):
            g = np.asarray(grad(start if at_start else theta), dtype=np.float64)
            m_t = beta1 * m + (1 - beta1) * g
            v_t = beta2 * v + (1 - beta2) * g**2
            m_hat = m_t / (1 - beta1**t) if correct else m_t
            v_hat = v_t / (1 - beta2**t) if correct else v_t
            step = alpha * m_hat / (np.sqrt(v_hat + eps) if eps_inside else np.sqrt(v_hat) + eps)
            if integer:
                theta -= step  # an integer theta cannot hold the result: NumPy raises
            else:
                theta = theta - step
            if carry:
                m, v = (m_hat, v_hat) if hats_kept else (m_t, v_t)
            thetas.append(theta)
        return thetas if history else theta

    return adam


MISTAKES = [
    Mistake(
        "t-from-zero",
        "Your step counter starts at 0, so the first bias correction divides by 1 - beta**0 = 0. In Algorithm 1 "
        "t starts at 0 but is increased to 1 before the first step: use t = 1, 2, ..., steps.",
        _wrong_adam(first_t=0),
    ),
    Mistake(
        "returns-history",
        "You return the list of every step's parameters. Return only the final theta, the shape of theta0.",
        _wrong_adam(history=True),
    ),
    Mistake(
        "one-step-too-many",
        "You run one step more than asked: `steps` passes of the loop, t = 1, ..., steps "
        "(for t in range(1, steps + 1)).",
        _wrong_adam(extra=+1),
    ),
    Mistake(
        "one-step-too-few",
        "You run one step fewer than asked: `steps` passes of the loop, t = 1, ..., steps "
        "(for t in range(1, steps + 1), not range(1, steps)).",
        _wrong_adam(extra=-1),
    ),
    Mistake(
        "no-bias-correction",
        "Your update uses m_t and v_t without the bias correction. Divide them by 1 - beta1**t and 1 - beta2**t "
        "(m-hat and v-hat) before the update.",
        _wrong_adam(correct=False),
    ),
    Mistake(
        "state-not-carried",
        "Your m and v start again from 0 at every step. Carry them from one step to the next: each step's m_t and "
        "v_t are the next step's m_{t-1} and v_{t-1} (keep what adam_step returns).",
        _wrong_adam(carry=False),
    ),
    Mistake(
        "gradient-at-start",
        "You evaluate the gradient at theta0 on every step. Each step needs the gradient at the current "
        "parameters, g_t = grad(theta_{t-1}).",
        _wrong_adam(at_start=True),
    ),
    Mistake(
        "hyperparameters-dropped",
        "Your adam ignores the alpha, beta1, beta2 and eps it is given (the defaults are used instead). Pass them "
        "on to every step: adam_step(theta, g, m, v, t, alpha, beta1, beta2, eps).",
        _wrong_adam(defaults=True),
    ),
    Mistake(
        "betas-eps-dropped",
        "Your adam passes alpha on to each step but not beta1, beta2 and eps, so every step uses their defaults "
        "whatever adam is given. Pass all four: adam_step(theta, g, m, v, t, alpha, beta1, beta2, eps).",
        _wrong_adam(betas_dropped=True),
    ),
    Mistake(
        "hats-as-state",
        "Your loop keeps the bias-corrected m-hat and v-hat as its m and v. The correction is only for the update: "
        "carry the uncorrected m_t and v_t to the next step (what adam_step returns) and compute m-hat and v-hat "
        "afresh from them at each step, as Algorithm 1 does.",
        _wrong_adam(hats_kept=True),
    ),
    Mistake(
        "returns-inside-loop",
        "Your adam returns after its first step: the return statement is inside the loop. Indent it out of the "
        "loop, so that the loop runs all `steps` steps before theta is returned.",
        _wrong_adam(one_pass=True),
    ),
    Mistake(
        "integer-theta-in-place",
        "An integer theta0 stays an integer array in your code, and the in-place update theta -= ... cannot store "
        "a fractional step in it, so NumPy raises. Start from a float copy: theta = np.array(theta0, dtype=float).",
        _wrong_adam(integer=True),
    ),
    Mistake(
        "eps-inside-sqrt",
        "You put epsilon inside the square root. Algorithm 1 adds it after the root: m-hat / (np.sqrt(v-hat) + eps). "
        "The difference shows when the gradients are tiny or eps is not the default.",
        _wrong_adam(eps_inside=True),
    ),
]

# -- the text's facts, tried when no catalogued mistake explains a wrong answer ------------------------------

_rng = hidden_rng(SEED, "properties")
_THETA0 = _rng.uniform(-2, 2, 4)
_GRAD = _random_quadratic(_rng, (4,))


def _scaled(c):
    return lambda theta: c * _GRAD(theta)


def _theta(call, *args, **kwargs):
    out = call(*args, **kwargs)[0]
    if out.shape != _THETA0.shape or not np.all(np.isfinite(out)):
        raise CannotTell
    return out


def _no_steps(call):
    return close(_theta(call, _GRAD, _THETA0, 0), _THETA0)


def _first_step(call):
    return close(_theta(call, _GRAD, _THETA0, 1, alpha=0.01) - _THETA0, -0.01 * np.sign(_GRAD(_THETA0)), rtol=1e-4)


def _scale_invariant(call):
    base = _theta(call, _GRAD, _THETA0, 6, alpha=0.05)
    return close(_theta(call, _scaled(1000.0), _THETA0, 6, alpha=0.05), base, rtol=1e-5)


def _follows_adam_step(call):
    theta = _THETA0.copy()
    m, v = np.zeros(4), np.zeros(4)
    for t in (1, 2, 3):
        g = _GRAD(theta)
        m, v = 0.8 * m + 0.2 * g, 0.95 * v + 0.05 * g**2
        theta = theta - 0.05 * (m / (1 - 0.8**t)) / (np.sqrt(v / (1 - 0.95**t)) + 1e-8)
    return close(_theta(call, _GRAD, _THETA0, 3, alpha=0.05, beta1=0.8, beta2=0.95), theta)


PROPERTIES = [
    Property("zero-steps", "With zero steps Adam has not moved: theta0 comes back.", _no_steps),
    Property("first-step", "Adam's first step moves each coordinate by about α against the sign of its gradient "
             "(m̂_1 / √v̂_1 = g_1 / |g_1|). Yours does not.", _first_step),
    Property("scale-invariance", "Adam is invariant to scaling the gradient: multiplying every gradient by 1000 "
             "leaves its steps unchanged. Yours changes.", _scale_invariant),
    Property("algorithm-1", "Each step is Algorithm 1's loop body, with the gradient at the current theta and m, "
             "v carried from step to step. A few steps of yours do not give that.", _follows_adam_step),
]

PROBES = [((_GRAD, _THETA0, 1), {"alpha": 0.01}), ((_GRAD, _THETA0, 30), {"alpha": 0.5}),
          ((_GRAD, _THETA0, 5), {"alpha": 0.05, "beta1": 0.8, "beta2": 0.95})]
q = Question("adam", REF.adam, MISTAKES, properties=PROPERTIES, probes=PROBES)


# -- public cases ------------------------------------------------------------------------------------------

@test_case(name="text_first_step", points=1, hidden=False)
def text_first_step(adam):
    q.check(adam, grad_of_sum_of_squares, np.array([1.0, -2.0, 0.5]), 1,
            label="one step on f(theta) = sum of theta_i**2", public=True)


@test_case(name="three_steps", points=1, hidden=False)
def three_steps(adam):
    q.check(adam, grad_of_sum_of_squares, np.array([1.0, -2.0, 0.5]), 3, alpha=0.1,
            label="three steps with alpha = 0.1 on f(theta) = sum of theta_i**2", public=True)


# -- hidden cases ------------------------------------------------------------------------------------------

@test_case(name="several_steps", points=2, hidden=True)
def several_steps(adam):
    rng = hidden_rng(SEED, "several_steps")
    q.check(adam, _random_quadratic(rng, (4,)), rng.standard_normal(4), 25, alpha=0.05,
            label="25 steps on a hidden quadratic")


@test_case(name="custom_hyperparameters", points=2, hidden=True)
def custom_hyperparameters(adam):
    rng = hidden_rng(SEED, "custom_hyperparameters")
    q.check(adam, _random_quadratic(rng, (3,)), rng.standard_normal(3), 15,
            alpha=0.02, beta1=0.85, beta2=0.95, eps=1e-3, label="hidden hyperparameters other than the defaults")


@test_case(name="converges_on_quadratic", points=2, hidden=True)
def converges_on_quadratic(adam):
    rng = hidden_rng(SEED, "converges_on_quadratic")
    grad = _random_quadratic(rng, (5,))
    label = "a hidden quadratic, run for many steps"
    (theta,) = q.call(adam, grad, rng.uniform(-3, 3, 5), 300, alpha=0.1, label=label)
    q.check_property(theta.shape == (5,), label=label, message="the result should have the shape of theta0.")
    q.check_property(bool(np.all(np.abs(theta - grad.c) < 1e-2)), label=label,
                     message="it did not end near the minimum, which Adam reaches easily here.")
    # ending at the minimum is Adam's only if Adam got it there: its first step must be Algorithm 1's
    q.check(adam, grad, rng.uniform(-3, 3, 5), 1, alpha=0.1, label="the first step on the same hidden quadratic")


@test_case(name="matrix_parameters", points=1, hidden=True)
def matrix_parameters(adam):
    rng = hidden_rng(SEED, "matrix_parameters")
    q.check(adam, _random_quadratic(rng, (2, 3)), rng.standard_normal((2, 3)), 10, alpha=0.01,
            label="a hidden matrix of parameters")


@test_case(name="no_steps", points=1, hidden=True)
def no_steps(adam):
    q.check(adam, grad_of_sum_of_squares, np.array([0.3, -0.7]), 0, label="zero steps (theta0 should come back)")


@test_case(name="integer_theta0", points=1, hidden=True)
def integer_theta0(adam):
    rng = hidden_rng(SEED, "integer_theta0")
    q.check(adam, grad_of_sum_of_squares, rng.integers(-4, 5, 4), 5, alpha=0.1, label="a hidden integer theta0")


@test_case(name="random_asymmetric", points=1, hidden=True)
def random_asymmetric(adam):
    rng = hidden_rng(SEED, "random_asymmetric")
    q.check(adam, _random_quadratic(rng, (6,)), 3 * rng.standard_normal(6), 40, alpha=0.03, beta2=0.99,
            label="a hidden random quadratic")
