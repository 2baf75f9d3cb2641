"""Correct answers to notation_shapes."""
RIGHT = {
    "strings with x, by and scalar words": {"shapes": {
        "Q": "n x d_k", "K": "m x d_k", "V": "m x d_v", "K^T": "d_k x m", "QK^T": "n by m", "S": "(n, m)",
        "W": "[n, m]", "output": "n x d_v", "sqrt(d_k)": "scalar", "q.k": "a number", "W[0]": "m", "z": "J"}},
    "unicode keys, lists, dk spellings": {"shapes": {
        "Q": ["n", "dk"], "K": ["m", "dk"], "V": ["m", "dv"], "Kᵀ": ["dk", "m"], "QKᵀ": ["n", "m"],
        "S": ["n", "m"], "W": ["n", "m"], "output": ["n", "dv"], "√d_k": [], "q·k": (), "W[0]": ["m"], "z": ["J"]}},
    "latex keys, companion section's n_q and n_k": {"shapes": {
        "Q": ("n_q", "d_k"), "K": ("n_k", "d_k"), "V": ("n_k", "d_v"), r"K^\top": ("d_k", "n_k"),
        r"QK^\top": ("n_q", "n_k"), "S": ("n_q", "n_k"), "W": ("n_q", "n_k"), "output": ("n_q", "d_v"),
        r"\sqrt{d_k}": "()", r"q \cdot k": (), "W[0]": ("n_k",), "z": ("N_z",)}},
    "times sign, upper case, braces": {"shapes": {
        "Q": "N × D_K", "K": "M × D_K", "V": "M×D_V", "K^T": "d_{k} × m", "QK^T": "n × m", "S": "n×m",
        "W": "n × m", "output": "n × d_{v}", "sqrt(d_k)": "()", "q.k": "scalar", "W[0]": ("m",), "z": ("J",)}},
}

# Shapes written the way the course's LaTeX writes them: n \times d_k (the Unicode × is accepted).
RIGHT["latex \\times in shape strings"] = {"shapes": {
    "Q": r"n \times d_k", "K": r"m \times d_k", "V": r"m \times d_v", "K^T": r"d_k \times m", "QK^T": r"n \times m",
    "S": r"n \times m", "W": r"n \times m", "output": r"n \times d_v", "sqrt(d_k)": (), "q.k": (), "W[0]": "m",
    "z": "J"}}
# The same items keyed by the other spelling of the dot product (x^T y, as the dictionary's 'dot' row has it),
# and the first row written with a subscript.
RIGHT["q^T k for q.k, W_0 for W[0]"] = {"shapes": {
    "Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v"), "K^T": ("d_k", "m"), "QK^T": ("n", "m"),
    "S": ("n", "m"), "W": ("n", "m"), "output": ("n", "d_v"), "sqrt(d_k)": (), "qᵀk": (), "W_0": ("m",),
    "z": ("J",)}}
