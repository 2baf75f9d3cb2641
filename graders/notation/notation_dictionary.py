"""notation_dictionary: the companion section's small dictionary, one meaning (a letter) per symbol."""
OK_FORMAT = False
name = "notation_dictionary"


from otter.test_files import test_case

from reading_maths.kit import Items, reference
from reading_maths.kit.answers import parse_letter, read_answers

REF = reference("notation")
SPEC = REF.DICTIONARY_OPTIONS
ALIASES = REF.DICTIONARY_ALIASES
KEY = read_answers(REF.dictionary, SPEC, parse_letter, "dictionary", ALIASES).values

TEACH = {
    "expectation": "E_{x~p}[f(x)] is an average of f(x) over x drawn from p, weighted by how likely each x is: "
                   "in code, a mean over samples.",
    "argmax": "argmax_x f(x) is the argument, not the value: the x that makes f largest, the best choice. "
              "The largest value itself is max_x f(x).",
    "nabla": "∇_θ L is the gradient of L with respect to the parameters θ, one partial derivative per parameter: "
             "what loss.backward() computes.",
    "KL": "KL(p || q) measures how different q is from p, and it is not symmetric: swapping p and q changes it, "
          "so it is not a distance and not a norm.",
    "sum_prod": "Σ_i and Π_i are a big sum and a big product: add up, or multiply together, the terms over i; "
                "in code a loop or an axis argument (not σ or π the letters).",
    "x~p": "x ~ p reads 'x is drawn from p': a sample from the distribution p, not 'approximately'.",
    "norm": "||x|| is the length of the vector x (np.linalg.norm), one number for the whole vector.",
    "dot": "x·y and xᵀy are the dot product, a single number: multiply entry by entry and add up, (x * y).sum().",
    "indicator": "1[condition] is 1 when the condition holds and 0 otherwise: a boolean used as a number.",
    "theta": "θ and φ name the parameters being learned: the weights.",
    "hat": "A hat marks an estimate: ŷ is the model's predicted value, not the true label y.",
    "log": "log p(x) is a log probability; with no base written it is the natural log, and logs are used "
           "to avoid underflow when probabilities multiply.",
    "odot": "⊙ is the element-wise (Hadamard) product, * in NumPy, not the matrix product @.",
}


DICTIONARY = Items("dictionary", SPEC, parse_letter, KEY, TEACH, aliases=ALIASES)


@test_case(name="notation_dictionary: expectation", points=1, hidden=True)
def case_expectation(dictionary):
    DICTIONARY.judge(dictionary, "expectation")


@test_case(name="notation_dictionary: argmax", points=1, hidden=True)
def case_argmax(dictionary):
    DICTIONARY.judge(dictionary, "argmax")


@test_case(name="notation_dictionary: nabla", points=1, hidden=True)
def case_nabla(dictionary):
    DICTIONARY.judge(dictionary, "nabla")


@test_case(name="notation_dictionary: KL", points=1, hidden=True)
def case_KL(dictionary):
    DICTIONARY.judge(dictionary, "KL")


@test_case(name="notation_dictionary: sum_prod", points=1, hidden=True)
def case_sum_prod(dictionary):
    DICTIONARY.judge(dictionary, "sum_prod")


@test_case(name="notation_dictionary: x~p", points=1, hidden=True)
def case_x_tilde_p(dictionary):
    DICTIONARY.judge(dictionary, "x~p")


@test_case(name="notation_dictionary: norm", points=1, hidden=True)
def case_norm(dictionary):
    DICTIONARY.judge(dictionary, "norm")


@test_case(name="notation_dictionary: dot", points=1, hidden=True)
def case_dot(dictionary):
    DICTIONARY.judge(dictionary, "dot")


@test_case(name="notation_dictionary: indicator", points=1, hidden=True)
def case_indicator(dictionary):
    DICTIONARY.judge(dictionary, "indicator")


@test_case(name="notation_dictionary: theta", points=1, hidden=True)
def case_theta(dictionary):
    DICTIONARY.judge(dictionary, "theta")


@test_case(name="notation_dictionary: hat", points=1, hidden=True)
def case_hat(dictionary):
    DICTIONARY.judge(dictionary, "hat")


@test_case(name="notation_dictionary: log", points=1, hidden=True)
def case_log(dictionary):
    DICTIONARY.judge(dictionary, "log")


@test_case(name="notation_dictionary: odot", points=1, hidden=True)
def case_odot(dictionary):
    DICTIONARY.judge(dictionary, "odot")
