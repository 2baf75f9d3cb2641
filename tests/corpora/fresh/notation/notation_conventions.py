"""Correct answers to notation_conventions."""
RIGHT = {
    "plain": {"conventions": {
        "softmax_rows": "c", "log_base": "b", "kl_symmetric": "c", "var_qk": "c", "std_scores": "b",
        "dropping_subscripts": "a", "one_letter": "c", "loose_indices": "c", "exp_italic": "a", "marginal": "b",
        "bayes": "a", "J": "c", "reparam": "c"}},
    "upper case, brackets, spaces": {"conventions": {
        "softmax_rows": "(C)", "log_base": " B", "kl_symmetric": "C ", "var_qk": "c)", "std_scores": "(b)",
        "dropping_subscripts": "A.", "one_letter": "C", "loose_indices": "'c'", "exp_italic": "A",
        "marginal": "B", "bayes": "(A)", "j": "C", "reparam": "c."}},
}
