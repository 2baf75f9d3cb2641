"""Corpora for notation_conventions."""

from classroom.corpus import key_changer

KEY = {"softmax_rows": "c", "log_base": "b", "kl_symmetric": "c", "var_qk": "c", "std_scores": "b",
       "dropping_subscripts": "a", "one_letter": "c", "loose_indices": "c", "exp_italic": "a", "marginal": "b",
       "bayes": "a", "J": "c", "reparam": "c"}


_with = key_changer("conventions", KEY)


RIGHT = {
    "plain": _with(),
    "upper": {"conventions": {k: v.upper() for k, v in KEY.items()}},
    "padded": {"conventions": {f"  {k}": f"{v}  " for k, v in KEY.items()}},
    "parenthesised": {"conventions": {k: f"({v.upper()})" for k, v in KEY.items()}},
    "j_lower_key": {"conventions": {**{k: v for k, v in KEY.items() if k != "J"}, "j": "c"}},
}
WRONG = {
    "softmax_columns": (_with(softmax_rows="b"), "each row separately"),
    "log10": (_with(log_base="a"), "natural log"),
    "var_sqrt": (_with(var_qk="b"), "variances of the d_k independent"),
    "std_64": (_with(std_scores="c"), "square root of the variance"),
    "kl_equal": (_with(kl_symmetric="a"), "not symmetric"),
    "exp_is_expectation": (_with(exp_italic="b"), "upright"),
    "j_as_jacobian": (_with(J="b"), "Appendix B"),
    "several_letters": (_with(bayes="ab"), "several options"),
}

RIGHT["fresh2-keys-without-underscores"] = {"conventions": {k.replace("_", ""): v for k, v in KEY.items()}}
WRONG.update({
    "fresh2-softmax-whole-matrix": (_with(softmax_rows="a"), "conventions-softmax_rows"),
    "fresh2-var-one": (_with(var_qk="a"), "conventions-var_qk"),
    "fresh2-loose-index-other-point": (_with(loose_indices="a"), "conventions-loose_indices"),
    "fresh2-reparam-epsilon-as-adam": (_with(reparam="a"), "conventions-reparam"),
    "fresh2-marginal-as-joint": (_with(marginal="d"), "conventions-marginal"),
    "fresh2-letter-as-number": (_with(J=3), "conventions-format"),
})
