"""Corpora for matching_code: {item number: letter}."""

from classroom.corpus import key_changer

KEY = {1: "g", 2: "h", 3: "o", 4: "d", 5: "k", 6: "n", 7: "b", 8: "j", 9: "m", 10: "e"}


_with = key_changer("match_code", KEY)


RIGHT = {
    "int_keys": _with(),
    "str_keys": {"match_code": {str(k): v for k, v in KEY.items()}},
    "upper": {"match_code": {k: v.upper() for k, v in KEY.items()}},
    "dotted": {"match_code": {k: f"{v}." for k, v in KEY.items()}},
    "mixed_keys": {"match_code": {(k if k % 2 else str(k)): v for k, v in KEY.items()}},
}
WRONG = {
    "elementwise_for_dot": (_with({1: "c"}), "element-wise product, a vector"),
    "max_for_argmax": (_with({8: "a"}), "max, not argmax"),
    "g_at_g": (_with({6: "f"}), "adds the squares"),
    "wrong_transpose": (_with({7: "i"}), "transposes the wrong matrix"),
    "matmul_for_odot": (_with({10: "p"}), "element-wise"),
    "one_to_many": (_with({2: ("h", "l")}), "gives 2 options"),
    "letter_in_list": (_with({3: ["o"]}), "write the letter itself as a string"),
    "tuple_answer": ({"match_code": tuple(KEY.items())}, "should be a dict"),
    "none": ({"match_code": None}, None),
}

RIGHT.update({
    "letters_with_periods": {"match_code": {k: f"{v}." for k, v in KEY.items()}},
    "bracketed_upper_str_keys": {"match_code": {str(k): f"[{v.upper()}]" for k, v in KEY.items()}},
})

RIGHT["fresh-enumerate-of-split"] = {"match_code": dict(enumerate("g h o d k n b j m e".split(), start=1))}

WRONG.update({
    "fresh2-sum-and-prod-swapped": (_with({3: "d", 4: "o"}), None),
    "fresh2-g-at-g-for-dot": (_with({1: "f"}), "match_code-1"),
    "fresh2-len-for-norm": (_with({2: "l"}), "match_code-2"),
    "fresh2-item-left-out": ({"match_code": {k: v for k, v in KEY.items() if k != 10}}, "match_code-format"),
})
