"""Corpora for notation_powers_indices: one word per key."""

from classroom.corpus import key_changer

KEY = {"beta1^t": "power", "m_t": "index", "g_t^2": "power", "K^T": "transpose", "d_k": "label",
       "x^(i)": "index", "y^(l)": "index", "ỹ^l": "index", "beta1^(t-i)": "power", "theta_(t-1)": "index",
       "10^-8": "power", "d_v": "label", "sigma^2": "power"}
UNICODE = {"beta1^t": "β₁ᵗ", "g_t^2": "g_t²", "K^T": "Kᵀ", "beta1^(t-i)": "β₁^{t−i}", "theta_(t-1)": "θ_{t−1}",
           "sigma^2": "σ²", "x^(i)": "x^{(i)}"}
LATEX = {"beta1^t": "\\beta_1^t", "g_t^2": "g_t^{2}", "beta1^(t-i)": "\\beta_1^{t-i}", "theta_(t-1)": "\\theta_{t-1}",
         "sigma^2": "\\sigma^2", "x^(i)": "\\mathbf{x}^{(i)}", "ỹ^l": "\\tilde{y}^l"}


_with = key_changer("powers", KEY)


RIGHT = {
    "plain": _with(),
    "shouting": {"powers": {k: v.upper() for k, v in KEY.items()}},
    "padded_capitalised": {"powers": {k: f" {v.capitalize()} " for k, v in KEY.items()}},
    "unicode_keys": {"powers": {UNICODE.get(k, k): v for k, v in KEY.items()}},
    "latex_keys": {"powers": {LATEX.get(k, k): v for k, v in KEY.items()}},
    "articles_and_synonyms": {"powers": {**KEY, "beta1^t": "a power", "10^-8": "exponent", "m_t": "an index."}},
    "ascii_tilde": {"powers": {**{k: v for k, v in KEY.items() if k != "ỹ^l"}, "ytilde^l": "index"}},
}
WRONG = {
    "beta_power_as_index": (_with(**{"beta1^t": "index"}), "Adam's caption"),
    "m_t_as_power": (_with(m_t="power"), "moving average at step t"),
    "transpose_as_power": (_with(**{"K^T": "power"}), "transpose"),
    "loose_index_as_power": (_with(**{"ỹ^l": "power"}), "loose index"),
    "label_as_index": (_with(d_k="index"), "d with a label"),
    "two_words": (_with(**{"g_t^2": "power or index"}), "several answers"),
    "misspelt": (_with(**{"sigma^2": "pwr"}), "write one of"),
    "still_none": ({"powers": None}, None),
    "string_not_dict": ({"powers": "power"}, "should be a dict"),
}

RIGHT.update({
    "transpose_spellings": {"powers": {**{k: v for k, v in KEY.items() if k != "K^T"}, r"K^{\top}": "Transpose"}},
    "prompt_latex_keys": {"powers": {**{k: v for k, v in KEY.items() if k not in ("ỹ^l", "10^-8", "y^(l)")},
                                     r"\widetilde{\mathbf{y}}^{l}": "index", "10^{-8}": "power",
                                     r"\mathbf{y}^{(l)}": "index"}},
})

RIGHT["fresh-unicode-key-and-articles"] = {"powers": {  # graded in a real notebook too: full marks
    "β₁ᵗ": "Power", "m_t": "index ", "g_t^2": "exponent", "K^T": "TRANSPOSE", "d_k": "a label", "x^(i)": "an index",
    "y^(l)": "index", "ytilde^l": "index", "beta1^(t-i)": "power", "theta_(t-1)": "index", "10^-8": "power",
    "d_v": "label", "sigma^2": "power"}}

# fresh2: stacked articles, other forms of the words, Python's ** in a key, superscript characters
RIGHT.update({
    "fresh2-its-a-word": {"powers": {k: ("it's an " if v == "index" else "it's a ") + v for k, v in KEY.items()}},
    "fresh2-word-forms": {"powers": {**KEY, "K^T": "transposition", "beta1^t": "exponents", "10^-8": "powers"}},
    "fresh2-python-power-keys": {"powers": {{"beta1^t": "beta1**t", "g_t^2": "g_t**2", "sigma^2": "sigma**2"}.get(k, k): v
                                            for k, v in KEY.items()}},
    "fresh2-superscript-characters": {"powers": {{"x^(i)": "𝐱⁽ⁱ⁾", "ỹ^l": "ỹˡ", "10^-8": "10⁻⁸", "m_t": "mₜ"}.get(k, k): v
                                                 for k, v in KEY.items()}},
    "fresh2-y_tilde-key": {"powers": {**{k: v for k, v in KEY.items() if k != "ỹ^l"}, "y_tilde^l": "index"}},
})
WRONG.update({
    "fresh2-subscript-is-not-a-kind": (_with(m_t="subscript"), "powers-format"),
    "fresh2-T-as-temperature": (_with(**{"K^T": "temperature"}), "powers-format"),
    "fresh2-theta-index-as-power": (_with(**{"theta_(t-1)": "power"}), "powers-theta_(t-1)"),
    "fresh2-epsilon-power-as-label": (_with(**{"10^-8": "label"}), "powers-10^-8"),
    "fresh2-bracketed-index-as-power": (_with(**{"x^(i)": "power"}), "powers-x^(i)"),
})

WRONG.update({  # a placeholder in a power or an index is no placeholder: the superscript is what the item is about
    "placeholder-in-an-index": ({"powers": {**{k: v for k, v in KEY.items() if k != "x^(i)"}, r"x^{(\cdot)}": "index"}},
                                "not one of its items"),
    "placeholder-argument-for-an-index": ({"powers": {**{k: v for k, v in KEY.items() if k != "theta_(t-1)"},
                                                      r"\theta(\cdot)": "index"}}, "not one of its items"),
})

# keys as LaTeX typesets them (scripts in either order) and the epsilon row keyed as the table prints it: the
# classes of the fresh answers (tests/corpora/fresh/notation/), other members
RIGHT.update({  # the same classes, other members
    "keys2-unicode-superscript-first": {"powers": {{"beta1^t": "βᵗ₁", "beta1^(t-i)": "β^{t-i}₁"}.get(k, k): v
                                                   for k, v in KEY.items()}},
    "keys2-ascii-superscript-first": {"powers": {{"beta1^t": "beta^t_1", "g_t^2": "g^{2}_{t}",
                                                  "beta1^(t-i)": "beta^(t-i)_1"}.get(k, k): v for k, v in KEY.items()}},
    "keys2-table-formula-unicode": {"powers": {{"10^-8": "ε = 10⁻⁸"}.get(k, k): v for k, v in KEY.items()}},
})
WRONG.update({  # near misses: another subscript, the scripts of another symbol, a formula naming two items
    "keys2-beta2-superscript-first": ({"powers": {{"beta1^t": r"\beta^t_2"}.get(k, k): v for k, v in KEY.items()}},
                                      "not one of its items"),
    "keys2-g-scripts-swapped": ({"powers": {{"g_t^2": r"g^t_2"}.get(k, k): v for k, v in KEY.items()}},
                                "not one of its items"),
    "keys2-formula-naming-two-items": ({"powers": {{"10^-8": r"\sigma^2 = 10^{-8}"}.get(k, k): v
                                                   for k, v in KEY.items()}}, "not one of its items"),
    "keys2-superscript-first-still-judged": ({"powers": {**{k: v for k, v in KEY.items() if k != "beta1^t"},
                                                         r"\beta^t_1": "index"}}, "powers-beta1^t"),
})
