"""Hidden grader for Problem 3a of the code assignment: ``adam_step(theta, g, m, v, t, ...)``.

Public cases are the text's first step (every parameter moves by alpha) and the step after it; hidden cases
are later steps (t > 1, where beta**t matters), gradients near epsilon, hyperparameters other than the
defaults, matrices of parameters, integer inputs and random asymmetric inputs.
Tolerance: the default rtol 1e-6 on each of theta_t, m_t and v_t.
"""

import numpy as np
from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference
from reading_maths.kit.properties import CannotTell, Property, close

OK_FORMAT = False
name = "adam_step"

SEED = course_seed(31_415_877)  # hidden: the number and the course's secret, never in release/
REF = reference("code")


# -- the mistake catalogue: one wrong line of Algorithm 1 each ------------------------------------------

def _wrong_step(*, m_power=True, v_power=True, shift=0, g_squared=True, eps_inside=False, eps_squared=False,
                correct_m=True, correct_v=True, sign=-1.0, return_hats=False, efficient=False):
    """A version of Algorithm 1's loop body with one line changed."""

    def step(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
        theta, g, m, v = (np.asarray(x, dtype=np.float64) for x in (theta, g, m, v))
        m_t = beta1 * m + (1 - beta1) * g
        v_t = beta2 * v + (1 - beta2) * (g**2 if g_squared else g)
        tt = t + shift
        m_hat = m_t / (1 - (beta1**tt if m_power else beta1)) if correct_m else m_t
        v_hat = v_t / (1 - (beta2**tt if v_power else beta2)) if correct_v else v_t
        if efficient:  # the paper's "more efficient" ordering, with epsilon moved outside the correction
            alpha_t = alpha * np.sqrt(1 - beta2**tt) / (1 - beta1**tt)
            theta_t = theta - alpha_t * m_t / (np.sqrt(v_t) + eps)
        elif eps_inside:
            theta_t = theta + sign * alpha * m_hat / np.sqrt(v_hat + eps)
        elif eps_squared:
            theta_t = theta + sign * alpha * m_hat / np.sqrt(v_hat + eps**2)
        else:
            theta_t = theta + sign * alpha * m_hat / (np.sqrt(v_hat) + eps)
        return (theta_t, m_hat, v_hat) if return_hats else (theta_t, m_t, v_t)

    return step


MISTAKES = [
    Mistake(
        "no-bias-correction",
        "Your update uses m_t and v_t without the bias correction. Divide them by 1 - beta1**t and "
        "1 - beta2**t (m-hat and v-hat) before the update; on the first step m-hat is exactly g.",
        _wrong_step(correct_m=False, correct_v=False),
    ),
    Mistake(
        "beta-not-power",
        "Your bias correction divides by 1 - beta1 (and 1 - beta2) instead of 1 - beta1**t: the t on beta is a "
        "power, beta to the power t, so the correction fades as t grows. It agrees only at t = 1.",
        _wrong_step(m_power=False, v_power=False),
    ),
    Mistake(
        "t-from-zero",
        "Your bias correction is one step behind: it uses beta**(t - 1), as if t counted from 0. The step number t "
        "is 1 on the first step, and the correction divides by 1 - beta1**t with that t.",
        _wrong_step(shift=-1),
    ),
    Mistake(
        "t-plus-one",
        "Your bias correction is one step ahead: it uses beta**(t + 1). The step you are given is already t "
        "(t = 1 on the first step); divide by 1 - beta1**t and 1 - beta2**t.",
        _wrong_step(shift=+1),
    ),
    Mistake(
        "eps-inside-sqrt",
        "You put epsilon inside the square root. Algorithm 1 adds it after the root: "
        "m-hat / (np.sqrt(v-hat) + eps). The difference shows when the gradients are tiny.",
        _wrong_step(eps_inside=True),
    ),
    Mistake(
        "eps-squared-inside-sqrt",
        "You add epsilon squared inside the square root: np.sqrt(v-hat + eps**2) is not np.sqrt(v-hat) + eps, and "
        "it differs when v-hat is near epsilon squared (gradients about the size of epsilon). Algorithm 1 adds "
        "epsilon after the root: m-hat / (np.sqrt(v-hat) + eps).",
        _wrong_step(eps_squared=True),
    ),
    Mistake(
        "efficient-form",
        "You use the paper's rearranged update, alpha_t = alpha * sqrt(1 - beta2**t) / (1 - beta1**t), which moves "
        "epsilon and so differs when the gradients are tiny. Follow Algorithm 1's lines: "
        "theta - alpha * m-hat / (np.sqrt(v-hat) + eps).",
        _wrong_step(efficient=True),
    ),
    Mistake(
        "g-not-squared",
        "Your v uses the gradient g instead of its element-wise square g**2: v_t = beta2 * v + (1 - beta2) * g**2.",
        _wrong_step(g_squared=False),
    ),
    Mistake(
        "m-not-corrected",
        "You correct v but not m: the update must use m-hat = m_t / (1 - beta1**t), not m_t.",
        _wrong_step(correct_m=False),
    ),
    Mistake(
        "v-not-corrected",
        "You correct m but not v: the update must use v-hat = v_t / (1 - beta2**t), not v_t.",
        _wrong_step(correct_v=False),
    ),
    Mistake(
        "plus-sign",
        "Your update goes uphill: theta_t = theta - alpha * m-hat / (sqrt(v-hat) + eps), with a minus sign.",
        _wrong_step(sign=+1.0),
    ),
    Mistake(
        "returns-hats",
        "You return the corrected m-hat and v-hat. Return the uncorrected m_t and v_t: the next step builds on "
        "them, and the hats are only used inside the update.",
        _wrong_step(return_hats=True),
    ),
]

def _integer_in_place(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta_t, m_t, v_t = REF.adam_step(theta, g, m, v, t, alpha, beta1, beta2, eps)
    theta = np.array(theta)  # an integer theta stays integer
    theta -= theta - theta_t  # and the in-place update cannot store the fractional step: NumPy raises
    return theta, m_t, v_t


MISTAKES.append(Mistake(
    "integer-in-place",
    "Your code updates an integer array in place (theta -= ..., m *= beta1, ...), and an integer array cannot "
    "store the fractions, so NumPy raises on integer inputs. Compute new float arrays instead, "
    "m_t = beta1 * m + (1 - beta1) * g and theta - alpha * ..., and leave the inputs as they are.",
    _integer_in_place,
))


def _wrong_order(theta, g, m, v, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    theta_t, m_t, v_t = REF.adam_step(theta, g, m, v, t, alpha, beta1, beta2, eps)
    return m_t, v_t, theta_t


MISTAKES.append(Mistake("outputs-in-wrong-order", "Your three results are right but in the wrong order: return "
                        "(theta_t, m_t, v_t), in that order.", _wrong_order))


# -- the text's facts, tried when no catalogued mistake explains a wrong answer: m_t, then v_t, then theta_t

_rng = hidden_rng(SEED, "properties")
_THETA, _G = _rng.standard_normal(4), _rng.standard_normal(4) * np.array([1.0, 10.0, 0.1, 3.0])
_M, _V = 0.3 * _rng.standard_normal(4), _rng.uniform(0.1, 2.0, 4) ** 2
_HYPER = {"alpha": 0.05, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6}


def _outputs(call, *args, **kwargs):
    out = call(*args, **kwargs)
    if len(out) != 3 or not all(np.all(np.isfinite(o)) for o in out):
        raise CannotTell
    return out


def _m_update(call):
    runs = [(_outputs(call, _THETA, _G, _M, _V, 3), 0.9), (_outputs(call, _THETA, _G, _M, _V, 3, **_HYPER), 0.8)]
    return all(close(out[1], b1 * _M + (1 - b1) * _G) for out, b1 in runs)


def _v_update(call):
    runs = [(_outputs(call, _THETA, _G, _M, _V, 3), 0.999), (_outputs(call, _THETA, _G, _M, _V, 3, **_HYPER), 0.99)]
    return all(close(out[2], b2 * _V + (1 - b2) * _G**2) for out, b2 in runs)


def _first_step(call):
    zeros = np.zeros(4)
    theta_1 = _outputs(call, _THETA, _G, zeros, zeros.copy(), 1, alpha=0.01)[0]
    return close(theta_1 - _THETA, -0.01 * np.sign(_G), rtol=1e-4)


def _theta_from_moments(call):
    for t, hyper in ((3, {}), (7, _HYPER)):
        theta_t, m_t, v_t = _outputs(call, _THETA, _G, _M, _V, t, **hyper)
        alpha, b1, b2, eps = (hyper.get(k, d) for k, d in (("alpha", 0.001), ("beta1", 0.9), ("beta2", 0.999),
                                                            ("eps", 1e-8)))
        if not close(theta_t, _THETA - alpha * (m_t / (1 - b1**t)) / (np.sqrt(v_t / (1 - b2**t)) + eps)):
            return False
    return True


def _scale_invariant(call):
    base = _outputs(call, _THETA, _G, _M, _V, 4)[0]
    return close(_outputs(call, _THETA, 1e3 * _G, 1e3 * _M, 1e6 * _V, 4)[0], base, rtol=1e-5)


PROPERTIES = [
    Property("m-update", "m_t is the moving average of the gradients: m_t = β₁ m_(t-1) + (1 - β₁) g_t, with the "
             "β₁ it is given. Your m_t is not.", _m_update),
    Property("v-update", "v_t is the moving average of the squared gradients: v_t = β₂ v_(t-1) + (1 - β₂) g_t², "
             "element-wise, with the β₂ it is given. Your v_t is not.", _v_update),
    Property("first-step", "Adam's first step (t = 1, from m = v = 0) moves each coordinate by about α against "
             "the sign of its gradient: m̂_1 / √v̂_1 = g / |g|. Yours does not.", _first_step),
    Property("theta-from-moments", "θ_t = θ_(t-1) - α m̂_t / (√v̂_t + ε), with m̂_t = m_t / (1 - β₁^t) and "
             "v̂_t = v_t / (1 - β₂^t): your θ_t does not follow from your own m_t and v_t.", _theta_from_moments),
    Property("scale-invariance", "Adam is invariant to scaling the gradient: multiplying g (and so m by the same "
             "factor and v by its square) leaves the step unchanged. Yours changes.", _scale_invariant),
]

_ZERO = np.zeros(4)  # theta = 0 on the probes: theta_t is then the step itself, compared at its own scale
PROBES = [((_ZERO, 1e-8 * _G, _ZERO, _ZERO, 1), {}), ((_ZERO, _G, _M, _V, 3), {}), ((_ZERO, _G, _M, _V, 5), _HYPER)]
q = Question("adam_step", REF.adam_step, MISTAKES, outputs=("theta_t", "m_t", "v_t"), properties=PROPERTIES,
             probes=PROBES)


# -- public cases: the text's first step, and the one after ------------------------------------------------

@test_case(name="text_first_step", points=1, hidden=False)
def text_first_step(adam_step):
    theta, g, zeros = np.array([0.5, -1.5, 2.0]), np.array([0.2, -3.0, 0.001]), np.zeros(3)
    q.check(adam_step, theta, g, zeros, zeros.copy(), 1, label="the first step (t = 1) from m = v = 0",
            public=True)


@test_case(name="second_step", points=1, hidden=False)
def second_step(adam_step):
    theta, m, v = np.array([0.499, -1.499, 1.999]), np.array([0.02, -0.3, 1e-4]), np.array([4e-5, 9e-3, 1e-9])
    q.check(adam_step, theta, np.array([0.1, -2.0, 0.002]), m, v, 2, label="the second step (t = 2)", public=True)


# -- hidden cases ------------------------------------------------------------------------------------------

def _state(rng, shape, t, scale=1.0):
    """A consistent-looking state: theta, g, and moments with v >= 0."""
    theta = rng.standard_normal(shape)
    g = scale * rng.standard_normal(shape)
    m = scale * 0.5 * rng.standard_normal(shape) * (1 - 0.9**(t - 1))
    v = (scale * rng.uniform(0.2, 2.0, shape)) ** 2 * (1 - 0.999**(t - 1))
    return theta, g, m, v


@test_case(name="later_steps", points=2, hidden=True)
def later_steps(adam_step):
    rng = hidden_rng(SEED, "later_steps")
    for t in (7, 25):
        q.check(adam_step, *_state(rng, (4,), t), t, label="hidden later steps (t > 1)")


@test_case(name="tiny_gradients", points=1, hidden=True)
def tiny_gradients(adam_step):
    rng = hidden_rng(SEED, "tiny_gradients")
    theta, g = rng.standard_normal(3), 1e-8 * rng.standard_normal(3)
    q.check(adam_step, theta, g, np.zeros(3), np.zeros(3), 1, label="hidden gradients about the size of epsilon")
    q.check(adam_step, *_state(rng, (3,), 4, scale=1e-8), 4, label="hidden gradients about the size of epsilon")


@test_case(name="custom_hyperparameters", points=2, hidden=True)
def custom_hyperparameters(adam_step):
    rng = hidden_rng(SEED, "custom_hyperparameters")
    label = "hidden inputs with hyperparameters other than the defaults"
    q.check(adam_step, *_state(rng, (3,), 3), 3, alpha=0.05, beta1=0.8, beta2=0.99, eps=1e-6, label=label)
    q.check(adam_step, *_state(rng, (2,), 1), 1, 0.2, 0.5, 0.9, 1e-4, label=label)


@test_case(name="matrix_parameters", points=1, hidden=True)
def matrix_parameters(adam_step):
    rng = hidden_rng(SEED, "matrix_parameters")
    q.check(adam_step, *_state(rng, (3, 2), 3), 3, label="a hidden matrix of parameters")


@test_case(name="integer_inputs", points=1, hidden=True)
def integer_inputs(adam_step):
    rng = hidden_rng(SEED, "integer_inputs")
    theta, g = rng.integers(-5, 6, 4), rng.integers(-3, 4, 4)
    zeros = np.zeros(4, dtype=int)
    q.check(adam_step, theta, g, zeros, zeros.copy(), 1, label="hidden integer arrays")


@test_case(name="very_late_step", points=1, hidden=True)
def very_late_step(adam_step):
    rng = hidden_rng(SEED, "very_late_step")
    q.check(adam_step, *_state(rng, (3,), 5000), 5000, label="a hidden step late in training (large t)")


@test_case(name="random_asymmetric", points=2, hidden=True)
def random_asymmetric(adam_step):
    rng = hidden_rng(SEED, "random_asymmetric")
    for _ in range(3):
        t = int(rng.integers(2, 60))
        q.check(adam_step, *_state(rng, (5,), t, scale=float(rng.uniform(0.01, 10))), t,
                label="hidden random states")
