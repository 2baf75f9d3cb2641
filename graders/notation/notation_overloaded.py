"""notation_overloaded: what an overloaded symbol means in its context (a letter per use)."""
OK_FORMAT = False
name = "notation_overloaded"


from reading_maths.kit import item_cases, reference
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


globals().update(item_cases(name, "overloaded", SPEC, parse_letter, KEY, TEACH))
