"""The induction proving m_t = (1 - beta1) Sum_{i=1}^{t} beta1^(t-i) g_i, as three formulas.

Each formula is compared with the notebook's reference by reading_maths.kit.symbolic.compare:
whitelisted parsing in a time-limited child process, symbolic equivalence, then a numeric check at
random points (beta1 in (0, 1), k = 1..9, random gradients).  A wrong formula that matches a
catalogued mistake (a :class:`Mistake` whose ``impl`` is the wrong formula) gets that mistake's message and id;
any other wrong formula is the mistake ``<name>-wrong``, an unreadable one ``<name>-unreadable``.
"""

OK_FORMAT = False
name = "induction"

from otter.test_files import test_case

from reading_maths.kit import Failed, Mistake, course_seed, hidden_rng, reference
from reading_maths.kit.formula_parts import which_part_differs
from reading_maths.kit.symbolic import compare

REF = reference("proofs")
SEED = int(hidden_rng(course_seed(20240611), "points").integers(2**31))  # the course's own random points

HYPOTHESIS_MISTAKES = [  # (id, what to tell the student, the wrong formula)
    Mistake("hypothesis-no-factor",
            "The factor (1 - β₁) in front of the sum is missing: every gradient enters m_t multiplied by "
            "(1 - β₁).",
            "Sum(beta1**(k - i)*g(i), (i, 1, k))"),
    Mistake("hypothesis-power-too-high",
            "The power of β₁ is one too high: the newest gradient g_k gets β₁^0 = 1, so the power is k - i.",
            "(1 - beta1)*Sum(beta1**(k - i + 1)*g(i), (i, 1, k))"),
    Mistake("hypothesis-power-too-low",
            "The power of β₁ is one too low: the newest gradient g_k gets β₁^0 = 1, so the power is k - i.",
            "(1 - beta1)*Sum(beta1**(k - i - 1)*g(i), (i, 1, k))"),
    Mistake("hypothesis-from-g0",
            "The sum starts at i = 0, but there is no g_0: Adam's first gradient is g_1 (and m_0 = 0).",
            "(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 0, k))"),
    Mistake("hypothesis-powers-reversed",
            "The powers run the wrong way: the oldest gradient g_1 has been shrunk the most, by β₁^(k-1).",
            "(1 - beta1)*Sum(beta1**i*g(i), (i, 1, k))"),
]
STEP_MISTAKES = [  # (id, what to tell the student, the wrong formula)
    Mistake("step-old-average-not-decayed",
            "The recursion multiplies the old average by β₁: m_(k+1) = β₁ m_k + (1 - β₁) g_(k+1).",
            "(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k + 1)"),
    Mistake("step-new-gradient-unweighted",
            "The new gradient enters with the factor (1 - β₁): m_(k+1) = β₁ m_k + (1 - β₁) g_(k+1).",
            "beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + g(k + 1)"),
    Mistake("step-old-gradient",
            "The new gradient at step k + 1 is g_(k+1), not g_k.",
            "beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k)"),
    Mistake("step-hypothesis-factor-dropped",
            "Putting the hypothesis in for m_k brings its factor (1 - β₁) along: "
            "β₁ m_k = β₁ (1 - β₁) Σ β₁^(k-i) g_i.",
            "beta1*Sum(beta1**(k - i)*g(i), (i, 1, k)) + (1 - beta1)*g(k + 1)"),
    Mistake("step-is-the-hypothesis",
            "That is m_k, the hypothesis itself; the step is m_(k+1) = β₁ m_k + (1 - β₁) g_(k+1), with the "
            "hypothesis put in for m_k.",
            "(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))"),
    Mistake("step-new-gradient-missing",
            "That is β₁ m_k alone: the recursion also adds the new gradient, (1 - β₁) g_(k+1).",
            "beta1*(1 - beta1)*Sum(beta1**(k - i)*g(i), (i, 1, k))"),
]
BASE_MISTAKES = [  # (id, what to tell the student, the wrong formula)
    Mistake("base-m0-is-g0",
            "Adam starts from m_0 = 0, not m_0 = g_0: the base case has no g_0 in it.",
            "beta1*g(0) + (1 - beta1)*g(1)"),
    Mistake("base-unweighted",
            "m_1 = β₁ m_0 + (1 - β₁) g_1: the new gradient enters with the factor (1 - β₁).",
            "g(1)"),
    Mistake("base-weighted-by-beta1",
            "m_1 = β₁ m_0 + (1 - β₁) g_1: the new gradient is weighted by (1 - β₁), not β₁.",
            "beta1*g(1)"),
    Mistake("base-g0",
            "Adam's first gradient is g_1; there is no g_0.",
            "(1 - beta1)*g(0)"),
    Mistake("base-no-gradient",
            "Your m_1 has no gradient in it: the factor (1 - β₁) multiplies the first gradient, m_1 = β₁ m_0 + "
            "(1 - β₁) g_1 = (1 - β₁) g_1, so write g(1) in it.",
            "1 - beta1"),
    Mistake("base-zero",
            "m_1 is not 0: m_0 = 0, but the first step adds the first gradient, m_1 = (1 - β₁) g_1.",
            "0"),
]
FORMULA_FAILURES = [
    *(Mistake(f"{n}-unreadable", f"`{n}` could not be read as a formula.") for n in (
        "base_case", "hypothesis", "inductive_step")),
    *(Mistake(f"{n}-wrong", f"`{n}` is not the right formula, and no catalogued mistake explains it.") for n in (
        "base_case", "hypothesis", "inductive_step")),
]


def _check(value, name: str, expected: str, variables: tuple, what: str, mistakes: list[Mistake]) -> None:
    if value is None:
        raise Failed(f"`{name}` is not defined: set it to a formula in a string.", "not-defined")
    verdict = compare(value, expected, variables=variables, seed=SEED)
    if verdict.ok:
        return
    if verdict.status in ("malformed", "timeout"):
        raise Failed(f"`{name}` could not be graded: {verdict.message}.", f"{name}-unreadable")
    for mistake in mistakes:
        if compare(value, mistake.impl, variables=variables, seed=SEED).ok:
            raise Failed(f"`{name}` is not {what}. {mistake.message}", mistake.name)
    detail = f" ({verdict.message})" if verdict.message else ""
    part = which_part_differs(value, expected, variables=variables, seed=SEED) if not detail else None
    raise Failed(f"`{name}` is not {what}{detail}." + (f" {part}" if part else ""), f"{name}-wrong")


@test_case(points=1, hidden=False)
def base_case_is_m_1(base_case):
    _check(base_case, "base_case", REF.base_case, ("beta1",), "m_1 (apply the recursion once to m_0 = 0)",
           BASE_MISTAKES)


@test_case(points=1, hidden=False)
def hypothesis_is_the_formula_for_m_k(hypothesis):
    _check(hypothesis, "hypothesis", REF.hypothesis, ("beta1", "k"), "the claimed formula for m_k",
           HYPOTHESIS_MISTAKES)


@test_case(points=2, hidden=False)
def inductive_step_gives_m_k_plus_1(inductive_step):
    _check(inductive_step, "inductive_step", REF.inductive_step, ("beta1", "k"),
           "β₁ m_k + (1 - β₁) g_(k+1) with the hypothesis put in for m_k", STEP_MISTAKES)
