"""matching_symbols: symbols to plain-English meanings, with distractors; scored pair by pair."""
OK_FORMAT = False
name = "matching_symbols"


from otter.test_files import test_case

from reading_maths.kit import Items, reference
from reading_maths.kit.answers import parse_letter, read_answers

REF = reference("matching")
SPEC = REF.SYMBOL_ITEMS
KEY = read_answers(REF.match_symbols, SPEC, parse_letter, "match_symbols").values

TEACH = {
    "1": "An expectation E_{x~p}[f(x)] averages f(x) over samples of x from p.",
    "2": "argmax is the argument, not the value: it names the best x.",
    "3": "∇_θ L collects the partial derivatives of L, one per parameter.",
    "4": "KL(p || q) says how different q is from p, and it is not symmetric.",
    "5": "x ~ p reads 'x is drawn from p'.",
    "6": "1[·] turns a condition into a number, 1 or 0.",
    "7": "A hat marks an estimate: the model's output.",
    "8": "||x|| is the vector's length.",
    "9": "Π is the capital pi of 'product'.",
}
DISTRACTORS = {  # options that fit no item, and the misreading each one is
    "a": "Option (a), the largest value, is max_x f(x), not argmax: a distractor.",
    "d": "Option (d) reads ~ as 'approximately'; between a variable and a distribution it means 'drawn from'.",
    "g": "Option (g), the true label, is y itself; the hat marks the prediction.",
    "j": "Option (j) describes a symmetric distance, and KL is not symmetric.",
    "m": "Option (m) is len(x), or |S| for a set; the double bar is a length.",
}


MATCH_SYMBOLS = Items("match_symbols", SPEC, parse_letter, KEY, TEACH,
                       explain=lambda given, _: DISTRACTORS.get(given, ""), one_to_one=True)


@test_case(name="matching_symbols: 1", points=1, hidden=True)
def case_1(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "1")


@test_case(name="matching_symbols: 2", points=1, hidden=True)
def case_2(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "2")


@test_case(name="matching_symbols: 3", points=1, hidden=True)
def case_3(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "3")


@test_case(name="matching_symbols: 4", points=1, hidden=True)
def case_4(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "4")


@test_case(name="matching_symbols: 5", points=1, hidden=True)
def case_5(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "5")


@test_case(name="matching_symbols: 6", points=1, hidden=True)
def case_6(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "6")


@test_case(name="matching_symbols: 7", points=1, hidden=True)
def case_7(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "7")


@test_case(name="matching_symbols: 8", points=1, hidden=True)
def case_8(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "8")


@test_case(name="matching_symbols: 9", points=1, hidden=True)
def case_9(match_symbols):
    MATCH_SYMBOLS.judge(match_symbols, "9")
