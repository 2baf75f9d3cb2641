"""notation_overloaded: what an overloaded symbol means in its context (a letter per use)."""
OK_FORMAT = False
name = "notation_overloaded"


from otter.test_files import test_case

from reading_maths.kit import Items, reference
from reading_maths.kit.answers import parse_letter, read_answers

REF = reference("notation")
SPEC = REF.OVERLOADED_OPTIONS
KEY = read_answers(REF.overloaded, SPEC, parse_letter, "overloaded").values

TEACH = {
    "sigma_dpo": "Inside log σ(·) of a loss, applied to a margin, σ is a function squashing a number into (0, 1): "
                 "the same σ that F.logsigmoid computes in the text's code.",
    "sigma_vae": "In z = μ + σ ⊙ ε, σ scales noise entry by entry: it is a spread, one per dimension of z, "
                 "not a function.",
    "T_transpose": "A T on a matrix in QKᵀ turns K's rows into columns so the dot products line up.",
    "T_temperature": "Dividing logits by T in the distillation softmax: T is the knob 'normally set to 1' that "
                     "sharpens or flattens the distribution.",
    "T_steps": "As the upper end of a loop over t, T counts the steps.",
    "p_pytorch": "PyTorch's nn.Dropout(p=0.5) uses p the opposite way from the dropout paper.",
    "p_dropout_paper": "The dropout paper's p is the opposite of PyTorch's p.",
    "p_theta": "p_θ(x | z) is one letter for a whole conditional distribution, with parameters θ.",
    "abs": "On a number (here each entry of g₁), single bars are an absolute value: that is why the first "
           "Adam step is ±α.",
    "set_size": "On a set, single bars count its elements (Chamber 2).",
    "norm_bars": "Around a vector, the double bar is its norm: its length.",
    "kl_bars": "Inside D_KL(p || q) the double bar only separates the two distributions; no norm is taken.",
    "hat_m": "The hat is overloaded too: on ŷ it marks a prediction, on Adam's m̂_t the bias-corrected "
             "estimate m_t / (1 − β₁ᵗ).",
}


OVERLOADED = Items("overloaded", SPEC, parse_letter, KEY, TEACH)


@test_case(name="notation_overloaded: sigma_dpo", points=1, hidden=True)
def case_sigma_dpo(overloaded):
    OVERLOADED.judge(overloaded, "sigma_dpo")


@test_case(name="notation_overloaded: sigma_vae", points=1, hidden=True)
def case_sigma_vae(overloaded):
    OVERLOADED.judge(overloaded, "sigma_vae")


@test_case(name="notation_overloaded: T_transpose", points=1, hidden=True)
def case_T_transpose(overloaded):
    OVERLOADED.judge(overloaded, "T_transpose")


@test_case(name="notation_overloaded: T_temperature", points=1, hidden=True)
def case_T_temperature(overloaded):
    OVERLOADED.judge(overloaded, "T_temperature")


@test_case(name="notation_overloaded: T_steps", points=1, hidden=True)
def case_T_steps(overloaded):
    OVERLOADED.judge(overloaded, "T_steps")


@test_case(name="notation_overloaded: p_pytorch", points=1, hidden=True)
def case_p_pytorch(overloaded):
    OVERLOADED.judge(overloaded, "p_pytorch")


@test_case(name="notation_overloaded: p_dropout_paper", points=1, hidden=True)
def case_p_dropout_paper(overloaded):
    OVERLOADED.judge(overloaded, "p_dropout_paper")


@test_case(name="notation_overloaded: p_theta", points=1, hidden=True)
def case_p_theta(overloaded):
    OVERLOADED.judge(overloaded, "p_theta")


@test_case(name="notation_overloaded: abs", points=1, hidden=True)
def case_abs(overloaded):
    OVERLOADED.judge(overloaded, "abs")


@test_case(name="notation_overloaded: set_size", points=1, hidden=True)
def case_set_size(overloaded):
    OVERLOADED.judge(overloaded, "set_size")


@test_case(name="notation_overloaded: norm_bars", points=1, hidden=True)
def case_norm_bars(overloaded):
    OVERLOADED.judge(overloaded, "norm_bars")


@test_case(name="notation_overloaded: kl_bars", points=1, hidden=True)
def case_kl_bars(overloaded):
    OVERLOADED.judge(overloaded, "kl_bars")


@test_case(name="notation_overloaded: hat_m", points=1, hidden=True)
def case_hat_m(overloaded):
    OVERLOADED.judge(overloaded, "hat_m")
