"""notation_powers_indices: is a superscript or subscript a power, an index, a label or a transpose?"""
OK_FORMAT = False
name = "notation_powers_indices"


from otter.test_files import test_case

from reading_maths.kit import Items, reference
from reading_maths.kit.answers import parse_word, read_answers

REF = reference("notation")
SPEC = REF.POWER_ITEMS
ALIASES = REF.POWER_ITEMS_ALIASES
KEY = read_answers(REF.powers, SPEC, parse_word, "powers", ALIASES).values

TEACH = {
    "beta1^t": "In β₁ᵗ the t is a power: Adam's caption says β₁ᵗ means 'β₁ to the power t', which is why "
               "1 − β₁ᵗ grows towards 1 as t grows; m_t's t is an index.",
    "m_t": "The t on m_t is an index: m_t is the moving average at step t, one of m_0, m_1, m_2, …; "
           "the update m_t ← β₁ m_{t−1} + (1 − β₁) g_t steps from one to the next.",
    "g_t^2": "Adam's caption says g_t² 'indicates the elementwise square': the 2 is a power, applied entry by entry.",
    "K^T": "An upright T on a matrix is a transpose (Chamber 6), not a power and not a temperature.",
    "d_k": "d_k is a d with a label: the k says which dimension (the keys'), it counts nothing.",
    "x^(i)": "The bracketed (i) in x^(i) is an index: the i-th data point, bracketed so it is not read as a power.",
    "y^(l)": "The bracketed (l) in y^(l) is an index: the layer l of the network.",
    "ỹ^l": "The dropout paper writes ỹ^l in one line where it means ỹ^(l): a loose index, the layer, not a power.",
    "beta1^(t-i)": "In the unrolled m_t = (1 − β₁) Σ β₁^{t−i} g_i the t − i is a power: older gradients are "
                   "multiplied by β₁ more times.",
    "theta_(t-1)": "The t − 1 on θ_{t−1} is an index: the parameters after the previous step.",
    "10^-8": "ε = 10⁻⁸ is ten to the power −8: a power.",
    "d_v": "d_v is a d with a label: the v says it is the values' dimension.",
    "sigma^2": "σ² is the variance, the standard deviation squared: a power.",
}


POWERS = Items("powers", SPEC, parse_word, KEY, TEACH, aliases=ALIASES)


@test_case(name="notation_powers_indices: beta1^t", points=1, hidden=True)
def case_beta1_t(powers):
    POWERS.judge(powers, "beta1^t")


@test_case(name="notation_powers_indices: m_t", points=1, hidden=True)
def case_m_t(powers):
    POWERS.judge(powers, "m_t")


@test_case(name="notation_powers_indices: g_t^2", points=1, hidden=True)
def case_g_t_2(powers):
    POWERS.judge(powers, "g_t^2")


@test_case(name="notation_powers_indices: K^T", points=1, hidden=True)
def case_K_T(powers):
    POWERS.judge(powers, "K^T")


@test_case(name="notation_powers_indices: d_k", points=1, hidden=True)
def case_d_k(powers):
    POWERS.judge(powers, "d_k")


@test_case(name="notation_powers_indices: x^(i)", points=1, hidden=True)
def case_x_i(powers):
    POWERS.judge(powers, "x^(i)")


@test_case(name="notation_powers_indices: y^(l)", points=1, hidden=True)
def case_y_l(powers):
    POWERS.judge(powers, "y^(l)")


@test_case(name="notation_powers_indices: ỹ^l", points=1, hidden=True)
def case_y_tilde_l(powers):
    POWERS.judge(powers, "ỹ^l")


@test_case(name="notation_powers_indices: beta1^(t-i)", points=1, hidden=True)
def case_beta1_t_i(powers):
    POWERS.judge(powers, "beta1^(t-i)")


@test_case(name="notation_powers_indices: theta_(t-1)", points=1, hidden=True)
def case_theta_t_1(powers):
    POWERS.judge(powers, "theta_(t-1)")


@test_case(name="notation_powers_indices: 10^-8", points=1, hidden=True)
def case_10_8(powers):
    POWERS.judge(powers, "10^-8")


@test_case(name="notation_powers_indices: d_v", points=1, hidden=True)
def case_d_v(powers):
    POWERS.judge(powers, "d_v")


@test_case(name="notation_powers_indices: sigma^2", points=1, hidden=True)
def case_sigma_2(powers):
    POWERS.judge(powers, "sigma^2")
