"""matching_symbols: symbols to plain-English meanings, with distractors; scored pair by pair."""
OK_FORMAT = False
name = "matching_symbols"


from reading_maths.kit import item_cases, reference
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


globals().update(item_cases(name, "match_symbols", SPEC, parse_letter, KEY, TEACH,
                             explain=lambda given, _: DISTRACTORS.get(given, ""), one_to_one=True))
