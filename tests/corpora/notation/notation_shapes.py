"""Corpora for notation_shapes: tuples of dimension names."""

from classroom.corpus import key_changer

KEY = {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v"), "K^T": ("d_k", "m"), "QK^T": ("n", "m"),
       "S": ("n", "m"), "W": ("n", "m"), "output": ("n", "d_v"), "sqrt(d_k)": (), "q.k": (), "W[0]": ("m",),
       "z": ("J",)}


_with = key_changer("shapes", KEY)


def _s(shape):
    return "(" + ", ".join(shape) + ")" if shape else "()"


RIGHT = {
    "tuples": _with(),
    "lists": {"shapes": {k: list(v) for k, v in KEY.items()}},
    "strings": {"shapes": {k: _s(v) for k, v in KEY.items()}},
    "no_underscore_upper": {"shapes": {k: tuple(d.replace("_", "").upper() for d in v) for k, v in KEY.items()}},
    "times_and_scalar_words": {"shapes": {**{k: " x ".join(v) for k, v in KEY.items() if len(v) == 2},
                                          "sqrt(d_k)": "scalar", "q.k": "scalar", "W[0]": "m", "z": "N_z"}},
    "companion_names": {"shapes": {**KEY, "Q": ("n_q", "d_k"), "QK^T": ("n_q", "n_k")}},
    "latex_keys": {"shapes": {**{k: v for k, v in KEY.items() if k not in ("sqrt(d_k)", "K^T")},
                              "\\sqrt{d_k}": (), "Kᵀ": ("d_k", "m")}},
}
WRONG = {
    "scores_transposed": (_with(**{"QK^T": ("m", "n")}), "wrong order"),
    "n_for_m": (_with(K=("n", "d_k")), "n counts queries"),
    "dv_for_dk": (_with(Q=("n", "d_v")), "d_k belongs to queries"),
    "ambiguous_d": (_with(V=("m", "d")), "ambiguous"),
    "scalar_as_vector": (_with(**{"q.k": ("d_k",)}), "number of dimensions"),
    "output_as_weights": (_with(output=("n", "m")), "one output row per query"),
    "unknown_dimension": (_with(z=("k",)), "not a dimension of this problem"),
    "nested_tuple": (_with(Q=(("n", "d_k"),)), "nests a tuple"),
    "a_number": (_with(W=2), "write a tuple of names"),
}

RIGHT.update({  # every way a paper writes a transpose
    "top_keys": {"shapes": {**{k: v for k, v in KEY.items() if "^T" not in k},
                            r"K^\top": ("d_k", "m"), r"QK^{\top}": ("n", "m")}},
    "intercal_and_mathsf_keys": {"shapes": {**{k: v for k, v in KEY.items() if "^T" not in k},
                                            r"K^\intercal": ["d_k", "m"], r"QK^{\mathsf{T}}": "n x m"}},
    "cdot_and_sqrt_symbol": {"shapes": {**{k: v for k, v in KEY.items() if k not in ("q.k", "sqrt(d_k)")},
                                        r"q \cdot k": "scalar", "√d_k": ()}},
})

RIGHT["fresh-mixed-spellings"] = {"shapes": {  # graded in a real notebook too: full marks
    "Q": "n x d_k", "K": ["m", "dk"], "V": "(m, d_v)", "K^T": ("D_K", "M"), "QK^T": "n_q x n_k", "S": ("n", "m"),
    "W": ("n", "m"), "output": ("n", "dv"), "sqrt(d_k)": "scalar", "q.k": "()", "W[0]": "m", "z": "J"}}

# fresh2: more ways to write a shape: ×, "by", subscript characters, NumPy's "(m,)", str() of a tuple
RIGHT.update({
    "fresh2-times-sign": {"shapes": {k: "×".join(v) if v else "()" for k, v in KEY.items()}},
    "fresh2-by-and-number": {"shapes": {k: " by ".join(v) if v else "a number" for k, v in KEY.items()}},
    "fresh2-subscript-characters": {"shapes": {k: tuple(d.replace("d_k", "dₖ").replace("d_v", "dᵥ") for d in v)
                                               for k, v in KEY.items()}},
    "fresh2-numpy-vector-strings": {"shapes": {**KEY, "W[0]": "(m,)", "z": "(J,)"}},
    "fresh2-str-of-tuple": {"shapes": {k: str(v) for k, v in KEY.items()}},
    "fresh2-braced-dimensions": {"shapes": {k: tuple(d.replace("_k", "_{k}").replace("_v", "_{v}") for d in v)
                                            for k, v in KEY.items()}},
})
WRONG.update({
    "fresh2-K^T-not-transposed": (_with(**{"K^T": ("m", "d_k")}), "wrong order"),
    "fresh2-row-of-W-per-query": (_with(**{"W[0]": ("n",)}), "n counts queries"),
    "fresh2-sqrt-as-vector": (_with(**{"sqrt(d_k)": ("d_k",)}), "number of dimensions"),
    "fresh2-scalar-as-one": (_with(**{"q.k": (1,)}), "shapes-format"),
    "fresh2-weights-transposed": (_with(W=("m", "n")), "wrong order"),
    "fresh2-output-with-d_k": (_with(output=("n", "d_k")), "d_k belongs"),
})

WRONG.update({  # a placeholder argument names no item when the brackets tell items apart (W against W[0])
    "placeholder-key-W-row-or-matrix": ({"shapes": {**{k: v for k, v in KEY.items() if k != "W[0]"},
                                                    r"W[\cdot]": ("m",)}}, "not one of its items"),
})

# shapes written with LaTeX signs, q.k keyed as q^T k: the classes of the fresh answers
# (tests/corpora/fresh/notation/), other members
RIGHT.update({  # the same classes, other members
    "keys2-latex-signs-and-spaces": {"shapes": {**KEY, "Q": r"$n \times d_{k}$", "K": r"m\times d_k",
                                                "V": r"(m \times d_v)", "output": r"n \cdot d_v", "S": "n ⋅ m"}},
    "keys2-real-spaces": {"shapes": {**KEY, "Q": r"\mathbb{R}^{n \times d_k}", "K": "ℝ^{m×d_k}", "W[0]": r"\mathbb{R}^m",
                                     "z": r"\mathbb{R}^{J}"}},
    "keys2-dot-product-spellings": {"shapes": {**{k: v for k, v in KEY.items() if k != "q.k"}, r"q^\top k": "scalar"}},
    "keys2-angle-brackets": {"shapes": {**{k: v for k, v in KEY.items() if k != "q.k"}, r"\langle q, k \rangle": ()}},
})
WRONG.update({  # near misses: the other dimension or order, written with \times
    "keys2-times-dv-for-dk": (_with(Q=r"n \times d_v"), "d_k belongs"),
    "keys2-times-wrong-order": (_with(Q=r"d_k \times n"), "wrong order"),
    "keys2-real-space-m-for-n": (_with(Q=r"\mathbb{R}^{m \times d_k}"), "n counts queries"),
    "keys2-times-ambiguous-d": (_with(V=r"m \times d"), "ambiguous"),
})
