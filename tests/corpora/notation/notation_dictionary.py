"""Corpora for notation_dictionary: dicts of letters."""

from classroom.corpus import key_changer

KEY = {"expectation": "b", "argmax": "c", "nabla": "a", "KL": "d", "sum_prod": "b", "x~p": "c", "norm": "a",
       "dot": "b", "indicator": "d", "theta": "a", "hat": "c", "log": "b", "odot": "c"}


_with = key_changer("dictionary", KEY)


RIGHT = {
    "plain": _with(),
    "upper_case": {"dictionary": {k: v.upper() for k, v in KEY.items()}},
    "spaces_and_brackets": {"dictionary": {f" {k} ": f" ({v}) " for k, v in KEY.items()}},
    "unicode_keys": {"dictionary": {{"nabla": "∇", "odot": "⊙", "theta": "θ"}.get(k, k): v for k, v in KEY.items()}},
    "latex_keys": {"dictionary": {{"nabla": "\\nabla", "odot": "\\odot", "theta": "\\theta"}.get(k, k): v
                                  for k, v in KEY.items()}},
    "letter_then_paren": {"dictionary": {k: f"{v})" for k, v in KEY.items()}},
}
WRONG = {
    "argmax_as_value": ({"dictionary": {**KEY, "argmax": "a"}}, "the argument, not the value"),
    "kl_symmetric": (_with(KL="a"), "not symmetric"),
    "two_letters": (_with(dot="a, b"), "several options"),
    "list_of_one": (_with(hat=["c"]), "write the letter itself as a string"),
    "unknown_letter": (_with(norm="e"), "write one of 'a', 'b', 'c', 'd'"),
    "not_a_dict": ({"dictionary": list(KEY.values())}, "should be a dict"),
    "unknown_key": ({"dictionary": {**{k: v for k, v in KEY.items() if k != "odot"}, "circle": "c"}},
                    "not one of its items"),
    "odot_as_matmul": (_with(odot="a"), "element-wise"),
    "number_instead_of_letter": (_with(theta=1), "write a letter as a string"),
}

# keys written as the prompt's symbol column prints them (LaTeX or Unicode), as a student copies them
SYMBOLS = {"expectation": r"\mathbb{E}_{x \sim p}[f(x)]", "argmax": r"\arg\max_x f(x)", "nabla": "∇_θ L",
           "KL": r"\mathrm{KL}(p \,\Vert\, q)", "sum_prod": "Σ_i", "x~p": "x ∼ p", "norm": "‖x‖",
           "dot": r"x^\top y", "indicator": r"\mathbb{1}[\text{condition}]", "theta": "φ", "hat": "ŷ",
           "log": r"\log p(x)", "odot": "⊙"}
RIGHT.update({
    "symbol_column_keys": {"dictionary": {SYMBOLS[k]: v for k, v in KEY.items()}},
    "transpose_as_intercal": {"dictionary": {**{k: v for k, v in KEY.items() if k != "dot"}, r"x^\intercal y": "b"}},
    "unicode_transpose": {"dictionary": {**{k: v for k, v in KEY.items() if k != "dot"}, "xᵀy": "B"}},
})

RIGHT["fresh-mixed-prompt-symbols"] = {"dictionary": {  # graded in a real notebook too: full marks
    r"\mathbb{E}_{x \sim p}[f(x)]": "B", "\\arg\\max_x f(x)": " c ", "∇": "(a)", "KL": "d)", r"\sum": "b",
    "x~p": "c", r"\Vert x \Vert": "A", "x^T y": "b", r"\mathbb{1}": "d", "θ": "a", r"\hat{y}": "c", "log": "b",
    "⊙": "c"}}

# fresh2: keys naming both symbols of a row, code's y_hat, a symbol without its argument, the text's D_KL
RIGHT.update({
    "fresh2-row-symbols-joined": {"dictionary": {{"theta": "θ / φ", "sum_prod": "Σ_i / Π_i", "dot": "x·y or xᵀy"}.get(k, k): v
                                                 for k, v in KEY.items()}},
    "fresh2-row-symbols-joined-ascii": {"dictionary": {{"theta": "theta/phi", "sum_prod": "sum/prod",
                                                        "dot": "x . y or x^T y"}.get(k, k): v for k, v in KEY.items()}},
    "fresh2-code-hat-key": {"dictionary": {**{k: v for k, v in KEY.items() if k != "hat"}, "y_hat": "c"}},
    "fresh2-symbol-without-argument": {"dictionary": {{"expectation": "E_{x~p}", "argmax": "argmax_x",
                                                       "nabla": r"\nabla_\theta"}.get(k, k): v for k, v in KEY.items()}},
    "fresh2-D_KL-key": {"dictionary": {**{k: v for k, v in KEY.items() if k != "KL"}, r"D_{\mathrm{KL}}(p \Vert q)": "d"}},
})
WRONG.update({
    "fresh2-letter-with-its-option-text": (_with(KL="d) how different q is from p"), "dictionary-format"),
    "fresh2-hat-as-unit-vector": (_with(hat="b"), "dictionary-hat"),
    "fresh2-theta-as-hyperparameters": (_with(theta="c"), "dictionary-theta"),
    "fresh2-log-base-10": (_with(log="a"), "dictionary-log"),
    "fresh2-x~p-as-approximately": (_with(**{"x~p": "a"}), "dictionary-x~p"),
    "fresh2-expectation-unweighted": (_with(expectation="c"), "dictionary-expectation"),
})

# keys with a placeholder argument name the operator alone; a different symbol stays an unknown key
PLACEHOLDER_KEYS = {"expectation": r"\mathbb{E}[\cdot]", "argmax": r"\arg\max(\cdot)", "nabla": r"\nabla(\cdot)",
                    "KL": r"\mathrm{KL}(\cdot \| \cdot)", "sum_prod": r"\sum_{i}(\cdot)", "norm": r"\|\cdot\|",
                    "indicator": r"\mathbb{1}[\cdot]", "log": r"\log(\cdot)", "hat": r"\hat{\cdot}"}
RIGHT.update({
    "placeholder-keys": {"dictionary": {PLACEHOLDER_KEYS.get(k, k): v for k, v in KEY.items()}},
    "placeholder-keys-spaced-and-other-dots": {"dictionary": {{
        "expectation": r"\mathbb{E}\left[\,\cdot\,\right]", "norm": "‖·‖", "indicator": r"\mathbb{1}\{\bullet\}",
        "log": "log(.)", "sum_prod": r"\prod_i(-)", "KL": "KL(. || .)"}.get(k, k): v for k, v in KEY.items()}},
    "placeholder-keys-euclidean-norm": {"dictionary": {**{k: v for k, v in KEY.items() if k != "norm"},
                                                       r"\|\cdot\|_2": "a"}},
    "placeholder-keys-with-subscripts": {"dictionary": {{"expectation": r"\mathbb{E}_{x \sim p}[\cdot]",
                                                         "argmax": r"\arg\max_x(\cdot)"}.get(k, k): v
                                                        for k, v in KEY.items()}},
    "zero-width-space-in-keys-and-letters": {"dictionary": {**{k: v for k, v in KEY.items() if k != "odot"},
                                                              "nabla": "a\u200b", "\u200bodot": "c"}},
})
WRONG.update({
    "placeholder-key-l1-norm": ({"dictionary": {**{k: v for k, v in KEY.items() if k != "norm"},
                                                r"\|\cdot\|_1": "a"}}, "not one of its items"),
    "placeholder-key-absolute-value": ({"dictionary": {**{k: v for k, v in KEY.items() if k != "norm"},
                                                       r"|\cdot|": "a"}}, "not one of its items"),
    "placeholder-key-unknown-function": ({"dictionary": {**{k: v for k, v in KEY.items() if k != "log"},
                                                         r"f(\cdot)": "b"}}, "not one of its items"),
    "cyrillic-letter-a": (_with(nabla="а"), "U+0430 CYRILLIC SMALL LETTER A (а)"),
    "greek-omicron-in-key": ({"dictionary": {**{k: v for k, v in KEY.items() if k != "odot"}, "οdot": "c"}},
                             "U+03BF GREEK SMALL LETTER OMICRON (ο)"),
})

# amsmath's spellings of argmax, KL's double bar as \parallel or ∥, the expectation without its
# subscript
_BASE = dict(KEY)


def _one(item, key):
    d = {k: v for k, v in _BASE.items() if k != item}
    d[key] = _BASE[item]
    return {"dictionary": d}


RIGHT.update({  # the classes of the fresh answers (tests/corpora/fresh/notation/), other members
    "keys2-mathop-limits-argmax": _one("argmax", r"\mathop{\mathrm{arg\,max}}\limits_{x \in \mathcal{X}} f(x)"),
    "keys2-underset-operatorname-argmax": _one("argmax", r"\underset{x}{\operatorname{argmax}}\, f(x)"),
    "keys2-argmax-macro-without-subscript": _one("argmax", r"\argmax f(x)"),
    "keys2-D_KL-parallel": _one("KL", r"D_{\mathrm{KL}}(p \parallel q)"),
    "keys2-nabla-without-subscript": _one("nabla", r"\nabla L"),
    "keys2-expectation-other-subscript": _one("expectation", r"\mathbb{E}_{x}\left[f(x)\right]"),
})
WRONG.update({  # near misses: another operator, KL turned round, another expectation-like operator
    "keys2-max-for-argmax": (_one("argmax", r"\max_x f(x)"), "not one of its items"),
    "keys2-underset-max-for-argmax": (_one("argmax", r"\underset{x}{\max} f(x)"), "not one of its items"),
    "keys2-argmin-for-argmax": (_one("argmax", r"\operatorname*{arg\,min}_x f(x)"), "not one of its items"),
    "keys2-KL-turned-round": (_one("KL", r"\mathrm{KL}(q \parallel p)"), "not one of its items"),
    "keys2-variance-for-expectation": (_one("expectation", r"\mathrm{Var}[f(x)]"), "not one of its items"),
    "keys2-argmax-value-still-wrong": ({"dictionary": {**_one("argmax", r"\operatorname*{arg\,max}_x f(x)")["dictionary"],
                                                       r"\operatorname*{arg\,max}_x f(x)": "a"}}, "dictionary-argmax"),
})
