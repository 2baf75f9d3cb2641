"""Corpora for matching_symbols: {item number: letter}."""

from classroom.corpus import key_changer

KEY = {1: "e", 2: "i", 3: "l", 4: "b", 5: "n", 6: "h", 7: "k", 8: "c", 9: "f"}


_with = key_changer("match_symbols", KEY)


RIGHT = {
    "int_keys": _with(),
    "str_keys": {"match_symbols": {str(k): v for k, v in KEY.items()}},
    "upper_letters": {"match_symbols": {k: v.upper() for k, v in KEY.items()}},
    "bracketed": {"match_symbols": {k: f"({v})" for k, v in KEY.items()}},
    "padded_str_keys": {"match_symbols": {f" {k} ": f" {v} " for k, v in KEY.items()}},
}
WRONG = {
    "argmax_value_distractor": (_with({2: "a"}), "max_x f(x), not argmax"),
    "kl_distance_distractor": (_with({4: "j"}), "KL is not symmetric"),
    "approx_distractor": (_with({5: "d"}), "drawn from"),
    "true_label_distractor": (_with({7: "g"}), "marks the prediction"),
    "one_to_many": (_with({1: ["e", "a"]}), "gives 2 options"),
    "one_to_many_string": (_with({3: "l/m"}), "several options"),
    "option_reused": (_with({8: "e"}), "each option fits one item at most"),
    "unknown_letter": (_with({9: "z"}), "write one of"),
    "unknown_item": ({"match_symbols": {**{k: v for k, v in KEY.items() if k != 9}, "nine": "f"}},
                     "not one of its items"),
    "a_list": ({"match_symbols": list(KEY.values())}, "should be a dict"),
}

RIGHT.update({
    "letters_with_periods": {"match_symbols": {k: f"{v}." for k, v in KEY.items()}},
    "quoted_letters_str_keys": {"match_symbols": {f"{k}": f"'{v.upper()}'" for k, v in KEY.items()}},
})

RIGHT["fresh-string-keys-mixed-case-brackets"] = {  # graded in a real notebook too: full marks
    "match_symbols": {"1": "E", "2": "(i)", 3: " l ", 4: "b", 5: "n", 6: "h", 7: "k", 8: "c", 9: "f"}}

RIGHT.update({
    "fresh2-bracketed-item-numbers": {"match_symbols": {f"({k})": v for k, v in KEY.items()}},
    "fresh2-letter-then-paren": {"match_symbols": {k: f"{v})" for k, v in KEY.items()}},
})
WRONG.update({
    "fresh2-zero-based-keys": ({"match_symbols": {k - 1: v for k, v in KEY.items()}}, "match_symbols-format"),
    "fresh2-two-items-swapped": (_with({1: "i", 2: "e"}), None),
    "fresh2-norm-as-count": (_with({8: "m"}), "match_symbols-8"),
})
