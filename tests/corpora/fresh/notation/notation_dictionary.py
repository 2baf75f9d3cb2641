"""Correct answers to notation_dictionary, in spellings students use."""
RIGHT = {
    "plain keys, upper-case and bracketed letters": {"dictionary": {
        "expectation": "B", "argmax": "(c)", "nabla": " a ", "KL": "D", "sum_prod": "b)", "x~p": "c.",
        "norm": "A", "dot": "(B)", "indicator": "d", "theta": "a", "hat": "C", "log": "b", "odot": "c"}},
    "unicode symbol keys": {"dictionary": {
        "𝔼": "b", "arg max": "c", "∇": "a", "KL": "d", "∑ / ∏": "b", "x ∼ p": "c",
        "‖x‖": "a", "x·y": "b", "𝟙": "d", "θ / φ": "a", "ŷ": "c", "log p(x)": "b", "⊙": "c"}},
    "latex keys as in the prompt": {"dictionary": {
        r"\mathbb{E}_{x \sim p}[f(x)]": "b", r"\arg\max_x f(x)": "c", r"\nabla_\theta L": "a",
        r"\mathrm{KL}(p \,\Vert\, q)": "d", r"\sum_i": "b", r"x \sim p": "c", r"\Vert x \Vert": "a",
        r"x^T y": "b", r"\mathbb{1}[\text{condition}]": "d", r"\theta": "a", r"\hat{y}": "c",
        r"\log p(x)": "b", r"\odot": "c"}},
    "ascii / code spellings of keys": {"dictionary": {
        "E_{x~p}[f(x)]": "b", "argmax_x f(x)": "c", "nabla_theta L": "a", "KL(p||q)": "d", "sum_i / prod_i": "b",
        "x ~ p": "c", "||x||": "a", "x . y": "b", "1[condition]": "d", "theta": "a", "y_hat": "c", "log": "b",
        "odot": "c"}},
}
RIGHT["more latex spellings: \\lVert, \\left\\|, \\top, D_KL, \\varphi"] = {"dictionary": {
    r"\mathbb{E}_{x\sim p}\left[f(x)\right]": "b", r"\operatorname{arg\,max}_x f(x)": "c", r"\nabla_{\theta} L": "a",
    r"D_{\mathrm{KL}}(p \| q)": "d", r"\prod_i": "b", r"x\sim p": "c", r"\lVert x \rVert": "a",
    r"x^\top y": "b", r"\mathbb{1}": "d", r"\varphi": "a", r"\hat y": "c", r"\log p(x)": "b",
    r"\sigma \odot \epsilon": "c"}}

# One key at a time in a spelling papers use for the same symbol (the rest as in the first answer).
_BASE = {"expectation": "b", "argmax": "c", "nabla": "a", "KL": "d", "sum_prod": "b", "x~p": "c", "norm": "a",
         "dot": "b", "indicator": "d", "theta": "a", "hat": "c", "log": "b", "odot": "c"}


def _one(item, key):
    d = {k: v for k, v in _BASE.items() if k != item}
    d[key] = _BASE[item]
    return {"dictionary": d}


RIGHT["argmax as \\operatorname*{arg\\,max}_x f(x) (amsmath's usual spelling)"] = _one(
    "argmax", r"\operatorname*{arg\,max}_x f(x)")
RIGHT["argmax as \\underset{x}{\\arg\\max} f(x)"] = _one("argmax", r"\underset{x}{\arg\max} f(x)")
RIGHT["KL with \\parallel: KL(p \\parallel q)"] = _one("KL", r"\mathrm{KL}(p \parallel q)")
RIGHT["KL with Unicode ∥ (U+2225): KL(p ∥ q)"] = _one("KL", "KL(p ∥ q)")
RIGHT["norm as \\|x\\|_2"] = _one("norm", r"\|x\|_2")
RIGHT["expectation as \\mathbb{E}[f(x)]"] = _one("expectation", r"\mathbb{E}[f(x)]")
