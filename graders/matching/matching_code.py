"""matching_code: expressions to the NumPy code that computes them, with distractors; scored pair by pair."""
OK_FORMAT = False
name = "matching_code"


from otter.test_files import test_case

from reading_maths.kit import Items, reference
from reading_maths.kit.answers import parse_letter, read_answers

REF = reference("matching")
SPEC = REF.CODE_ITEMS
KEY = read_answers(REF.match_code, SPEC, parse_letter, "match_code").values

TEACH = {
    "1": "xᵀy is one number: multiply entry by entry and add up.",
    "2": "||x|| is the vector's length, NumPy's norm.",
    "3": "Σ_i adds up over i: a sum.",
    "4": "Π_i multiplies together over i: a product.",
    "5": "1[x_i > 0] is a boolean used as a number, entry by entry.",
    "6": "Adam's g_t² is the element-wise square: a vector, like g.",
    "7": "QKᵀ: [n, d_k] @ [d_k, m], so the transpose is on K.",
    "8": "argmax_x f(x) is the best x from the grid, not the best value.",
    "9": "An expectation is estimated by a mean over samples.",
    "10": "⊙ is the element-wise product, * in NumPy.",
}
DISTRACTORS = {
    "a": "Option (a) returns f's largest value, which is max, not argmax.",
    "c": "Option (c), x * y, is the element-wise product, a vector, not the dot product.",
    "f": "Option (f), g @ g, adds the squares into one number; the element-wise square stays a vector.",
    "i": "Option (i), Q.T @ K, transposes the wrong matrix: its shapes do not even line up when n ≠ m.",
    "l": "Option (l), len(x), counts entries; it is not a length in the norm's sense.",
    "p": "Option (p) uses @, a matrix (dot) product, where ⊙ is element-wise.",
}


MATCH_CODE = Items("match_code", SPEC, parse_letter, KEY, TEACH,
                    explain=lambda given, _: DISTRACTORS.get(given, ""), one_to_one=True)


@test_case(name="matching_code: 1", points=1, hidden=True)
def case_1(match_code):
    MATCH_CODE.judge(match_code, "1")


@test_case(name="matching_code: 2", points=1, hidden=True)
def case_2(match_code):
    MATCH_CODE.judge(match_code, "2")


@test_case(name="matching_code: 3", points=1, hidden=True)
def case_3(match_code):
    MATCH_CODE.judge(match_code, "3")


@test_case(name="matching_code: 4", points=1, hidden=True)
def case_4(match_code):
    MATCH_CODE.judge(match_code, "4")


@test_case(name="matching_code: 5", points=1, hidden=True)
def case_5(match_code):
    MATCH_CODE.judge(match_code, "5")


@test_case(name="matching_code: 6", points=1, hidden=True)
def case_6(match_code):
    MATCH_CODE.judge(match_code, "6")


@test_case(name="matching_code: 7", points=1, hidden=True)
def case_7(match_code):
    MATCH_CODE.judge(match_code, "7")


@test_case(name="matching_code: 8", points=1, hidden=True)
def case_8(match_code):
    MATCH_CODE.judge(match_code, "8")


@test_case(name="matching_code: 9", points=1, hidden=True)
def case_9(match_code):
    MATCH_CODE.judge(match_code, "9")


@test_case(name="matching_code: 10", points=1, hidden=True)
def case_10(match_code):
    MATCH_CODE.judge(match_code, "10")
