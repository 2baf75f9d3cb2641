"""Orderings of the second-moment puzzle (E[v_t]): valid proofs keep full marks, broken ones lose points."""

RIGHT = {
    "reference": {"puzzle_v": ["E", "G", "B", "L", "J", "C", "I"]},
    "stationarity_first": {"puzzle_v": ["B", "E", "G", "L", "J", "C", "I"]},
    "geometric_series_first": {"puzzle_v": ["J", "B", "E", "G", "L", "C", "I"]},
    "stationarity_between": {"puzzle_v": ["E", "B", "G", "J", "L", "C", "I"]},
    "geometric_series_second": {"puzzle_v": ["E", "J", "G", "B", "L", "C", "I"]},
    "lowercase_tuple": {"puzzle_v": ("e", "g ", "b", "l", "j", "c", "i")},
}

WRONG = {
    "square_of_the_sum": ({"puzzle_v": ["E", "D", "B", "L", "J", "C", "I"]}, "not the square of a sum"),
    "beta1_unrolled": ({"puzzle_v": ["F", "G", "B", "L", "J", "C", "I"]}, "Step F does not belong"),
    "square_of_the_mean": ({"puzzle_v": ["E", "G", "A", "L", "J", "C", "I"]}, "the square of the mean"),
    "off_by_one_power": ({"puzzle_v": ["E", "G", "B", "L", "J", "H", "I"]}, "Step H does not belong"),
    "no_power_in_the_hat": ({"puzzle_v": ["E", "G", "B", "L", "J", "C", "K"]}, "Step K does not belong"),
    "square_root_through_E": ({"puzzle_v": ["E", "G", "B", "L", "J", "C", "M"]}, "Step M does not belong"),
    "the_m_answer": ({"puzzle_v": ["C", "F", "A", "J", "H", "D", "G"]}, "Step C does not follow"),
    "expectation_before_unrolled": ({"puzzle_v": ["G", "E", "B", "L", "J", "C", "I"]}, "Step G does not follow"),
    "no_stationarity": ({"puzzle_v": ["E", "G", "L", "J", "C", "I"]}, "it uses that every E[g_i²] equals E[g_t²]"),
    "conclusion_before_series": ({"puzzle_v": ["E", "G", "B", "L", "C", "J", "I"]}, "Step C does not follow"),
    "no_hat": ({"puzzle_v": ["E", "G", "B", "L", "J", "C"]}, "The proof is incomplete"),
    "repeated": ({"puzzle_v": ["E", "G", "B", "L", "J", "J", "C", "I"]}, "Step J appears twice"),
    "a_string": ({"puzzle_v": "EGBLJCI"}, "is a string"),
    "unknown_label": ({"puzzle_v": ["E", "G", "B", "L", "J", "C", "Z"]}, "not one of the step labels"),
}

RIGHT["fresh-list-of-a-string"] = {"puzzle_v": list("EGBLJCI")}

WRONG.update({
    "fresh2-square-root-step-appended": ({"puzzle_v": ["E", "G", "B", "L", "J", "C", "I", "M"]}, "distractor-M"),
    "fresh2-no-geometric-series": ({"puzzle_v": ["E", "G", "B", "L", "C", "I"]}, "C-too-early"),
})
