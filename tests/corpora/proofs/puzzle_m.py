"""Orderings of the bias-correction puzzle: valid proofs keep full marks, broken ones lose points."""

RIGHT = {
    "reference": {"puzzle_m": ["C", "F", "A", "J", "H", "D", "G"]},
    "stationarity_first": {"puzzle_m": ["A", "C", "F", "J", "H", "D", "G"]},
    "geometric_series_first": {"puzzle_m": ["H", "A", "C", "F", "J", "D", "G"]},
    "stationarity_between": {"puzzle_m": ["C", "A", "F", "H", "J", "D", "G"]},
    "lowercase_tuple": {"puzzle_m": ("c", "f", " a", "j", "h", "d", "g")},
    "geometric_late": {"puzzle_m": ["C", "F", "A", "J", "H", "D", "G"][:5] + ["D", "G"]},
}

WRONG = {
    "wrong_geometric_sum": ({"puzzle_m": ["C", "F", "A", "J", "B", "D", "G"]}, "Step B does not belong"),
    "infinite_series": ({"puzzle_m": ["C", "F", "A", "J", "I", "D", "G"]}, "Step I does not belong"),
    "independence": ({"puzzle_m": ["C", "E", "A", "J", "H", "D", "G"]}, "Step E does not belong"),
    "off_by_one_power": ({"puzzle_m": ["C", "F", "A", "J", "H", "K", "G"]}, "Step K does not belong"),
    "expectation_before_unrolled": ({"puzzle_m": ["F", "C", "A", "J", "H", "D", "G"]}, "Step F does not follow"),
    "no_stationarity": ({"puzzle_m": ["C", "F", "J", "H", "D", "G"]}, "it uses that every E[g_i] equals E[g_t]"),
    "conclusion_too_early": ({"puzzle_m": ["C", "F", "A", "J", "D", "H", "G"]}, "Step D does not follow"),
    "no_hat": ({"puzzle_m": ["C", "F", "A", "J", "H", "D"]}, "The proof is incomplete"),
    "repeated": ({"puzzle_m": ["C", "F", "A", "J", "H", "D", "D", "G"]}, "Step D appears twice"),
    "reversed": ({"puzzle_m": ["G", "D", "H", "J", "A", "F", "C"]}, "Step G does not follow"),
    "a_string": ({"puzzle_m": "CFAJHDG"}, "is a string"),
    "unknown_label": ({"puzzle_m": ["C", "F", "A", "J", "H", "D", "Z"]}, "not one of the step labels"),
}

RIGHT["fresh-lower-case-tuple"] = {"puzzle_m": ("c", "f", "a", "j", "h", "d", "g")}

WRONG.update({
    "fresh2-independence-beside-linearity": ({"puzzle_m": ["C", "F", "E", "A", "J", "H", "D", "G"]}, "distractor-E"),
    "fresh2-every-line": ({"puzzle_m": list("ABCDEFGHIJK")}, None),
    "fresh2-substitution-before-expectation": ({"puzzle_m": ["C", "A", "J", "F", "H", "D", "G"]}, "J-too-early"),
})

RIGHT["invisible-and-no-break-spaces"] = {"puzzle_m": ["C\u200b", "F\u00a0", "A", "J", "H", "D", "G"]}
WRONG["cyrillic-label"] = ({"puzzle_m": ["С", "F", "A", "J", "H", "D", "G"]},  # a Cyrillic С
                           "'С' (with the character U+0421 CYRILLIC CAPITAL LETTER ES (С))")
