"""Correct answers to notation_overloaded."""
RIGHT = {
    "plain keys, varied letters": {"overloaded": {
        "sigma_dpo": "B", "sigma_vae": "(a)", "T_transpose": "c", "T_temperature": " b ", "T_steps": "a)",
        "p_pytorch": "C", "p_dropout_paper": "b", "p_theta": "c.", "abs": "b", "set_size": "a",
        "norm_bars": "c", "kl_bars": "B", "hat_m": "c"}},
    "greek / latex key spellings": {"overloaded": {
        "σ_dpo": "b", "σ_vae": "a", "T_transpose": "c", "T_temperature": "b", "T_steps": "a",
        "p_pytorch": "c", "p_dropout_paper": "b", r"p_\theta": "c", "abs": "b", "set_size": "a",
        "norm_bars": "c", "kl_bars": "b", "hat_m": "c"}},
    "keys in another order": {"overloaded": dict(reversed(list({
        "sigma_dpo": "b", "sigma_vae": "a", "T_transpose": "c", "T_temperature": "b", "T_steps": "a",
        "p_pytorch": "c", "p_dropout_paper": "b", "p_theta": "c", "abs": "b", "set_size": "a",
        "norm_bars": "c", "kl_bars": "b", "hat_m": "c"}.items())))},
}
RIGHT["keys spelled as symbol + context: σ (DPO), T (transpose), \\hat{m}"] = {"overloaded": {
    "σ (DPO)": "b", "σ (VAE)": "a", "T (transpose)": "c", "T (temperature)": "b", "T (steps)": "a",
    "p (pytorch)": "c", "p (dropout paper)": "b", r"p_\theta": "c", "abs": "b", "set size": "a",
    "norm bars": "c", "KL bars": "b", r"\hat{m}": "c"}}
