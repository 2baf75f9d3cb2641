"""notation_dictionary: the companion section's small dictionary, one meaning (a letter) per symbol."""
OK_FORMAT = False
name = "notation_dictionary"


from reading_maths.kit import item_cases, reference
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


globals().update(item_cases(name, "dictionary", SPEC, parse_letter, KEY, TEACH, aliases=ALIASES))
