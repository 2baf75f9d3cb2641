"""Correct answers to notation_powers_indices."""
RIGHT = {
    "ascii keys, word variants": {"powers": {
        "beta1^t": "Power", "m_t": "an index", "g_t^2": "exponent", "K^T": "Transpose", "d_k": "LABEL",
        "x^(i)": "index", "y^(l)": "the index", "ytilde^l": "index", "beta1^(t-i)": "a power",
        "theta_(t-1)": "index.", "10^-8": "power", "d_v": "a label", "sigma^2": "power "}},
    "unicode keys": {"powers": {
        "β₁ᵗ": "power", "mₜ": "index", "g_t²": "power", "Kᵀ": "transpose", "d_k": "label", "x⁽ⁱ⁾": "index",
        "y⁽ˡ⁾": "index", "ỹˡ": "index", "β₁^(t−i)": "power", "θ_(t−1)": "index", "10⁻⁸": "power",
        "d_v": "label", "σ²": "power"}},
    "latex keys as a paper writes them": {"powers": {
        r"\beta_1^t": "power", r"m_t": "index", r"g_t^2": "power", r"K^T": "transpose", r"d_k": "label",
        r"\mathbf{x}^{(i)}": "index", r"\mathbf{y}^{(l)}": "index", r"\widetilde{\mathbf{y}}^{l}": "index",
        r"\beta_1^{t-i}": "power", r"\theta_{t-1}": "index", r"10^{-8}": "power", r"d_v": "label",
        r"\sigma^2": "power"}},
    "python-ish keys": {"powers": {
        "beta_1**t": "power", "m_t": "index", "g_t**2": "power", "K^⊤": "transpose", "d_k": "label",
        "x^{(i)}": "index", "y^{(l)}": "index", "y~^l": "index", "beta_1**(t-i)": "power",
        "theta_{t-1}": "index", "10**-8": "power", "d_v": "label", "sigma**2": "power"}},
}
RIGHT["latex \\top, braces everywhere"] = {"powers": {
    r"\beta_{1}^{t}": "power", r"m_{t}": "index", r"g_{t}^{2}": "power", r"K^{\top}": "transpose", r"d_{k}": "label",
    r"x^{(i)}": "index", r"y^{(l)}": "index", r"\tilde{y}^{l}": "index", r"\beta_{1}^{(t-i)}": "power",
    r"\theta_{(t-1)}": "index", r"10^{(-8)}": "power", r"d_{v}": "label", r"\sigma^{2}": "power"}}

# LaTeX with the superscript written before the subscript: x^a_b and x_b^a typeset identically.
RIGHT["superscript before subscript: \\beta^t_1, g^2_t, \\beta^{t-i}_1"] = {"powers": {
    r"\beta^t_1": "power", "m_t": "index", r"g^2_t": "power", "K^T": "transpose", "d_k": "label",
    "x^(i)": "index", "y^(l)": "index", "ỹ^l": "index", r"\beta^{t-i}_1": "power", "theta_(t-1)": "index",
    "10^-8": "power", "d_v": "label", "sigma^2": "power"}}
RIGHT["the epsilon row keyed as in the table: \\epsilon = 10^{-8}"] = {"powers": {
    "beta1^t": "power", "m_t": "index", "g_t^2": "power", "K^T": "transpose", "d_k": "label",
    "x^(i)": "index", "y^(l)": "index", "ỹ^l": "index", "beta1^(t-i)": "power", "theta_(t-1)": "index",
    r"\epsilon = 10^{-8}": "power", "d_v": "label", "sigma^2": "power"}}
