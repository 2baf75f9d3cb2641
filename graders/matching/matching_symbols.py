"""matching_symbols: symbols to plain-English meanings, with distractors; scored pair by pair."""
OK_FORMAT = False
name = "matching_symbols"

from otter.test_files import test_case

from reading_maths.answers import parse_letter, read_answers
from reading_maths.graderkit import reference

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


def _check(match_symbols, item):
    reading = read_answers(match_symbols, SPEC, parse_letter, "match_symbols")
    given = reading.require(item)
    if given == KEY[item]:
        return
    shared = [k for k, v in reading.values.items() if v == given and k != item]
    lines = [f"match_symbols[{item}]: {TEACH[item]}", DISTRACTORS.get(given, "")]
    if shared:
        lines.append(f"You also chose ({given}) for item {', '.join(shared)}; each option fits one item at most.")
    raise AssertionError(" ".join(filter(None, lines)))


def _case(item):
    def case(match_symbols):
        _check(match_symbols, item)
    return case


for _item in SPEC:
    globals()[f"pair_{_item}"] = test_case(name=f"{name}: item {_item}", points=1, hidden=True)(_case(_item))
