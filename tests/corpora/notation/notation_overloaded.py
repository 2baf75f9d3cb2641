"""Corpora for notation_overloaded."""

from classroom.corpus import key_changer

KEY = {"sigma_dpo": "b", "sigma_vae": "a", "T_transpose": "c", "T_temperature": "b", "T_steps": "a",
       "p_pytorch": "c", "p_dropout_paper": "b", "p_theta": "c", "abs": "b", "set_size": "a", "norm_bars": "c",
       "kl_bars": "b", "hat_m": "c"}


_with = key_changer("overloaded", KEY)


RIGHT = {
    "plain": _with(),
    "upper": {"overloaded": {k: v.upper() for k, v in KEY.items()}},
    "upper_keys": {"overloaded": {k.upper(): v for k, v in KEY.items()}},
    "spaced_keys": {"overloaded": {k.replace("_", " "): f"{v}." for k, v in KEY.items()}},
    "bracketed": {"overloaded": {k: f"[{v}]" for k, v in KEY.items()}},
}
WRONG = {
    "sigma_dpo_as_std": (_with(sigma_dpo="a"), "F.logsigmoid"),
    "sigma_vae_as_sigmoid": (_with(sigma_vae="b"), "not a function"),
    "pytorch_p_as_keep": (_with(p_pytorch="a"), "opposite way"),
    "kl_bars_as_norm": (_with(kl_bars="a"), "only separates"),
    "hat_as_prediction": (_with(hat_m="a"), "bias-corrected"),
    "two_letters": (_with(T_steps=["a", "b"]), "gives 2 options"),
    "empty_string": (_with(abs=""), "not answered yet"),
}

RIGHT["fresh-zip-of-split-string"] = {"overloaded": dict(zip(KEY, "b a c b a c b c b a c b c".split()))}

RIGHT["fresh2-greek-keys"] = {"overloaded": {k.replace("sigma", "σ").replace("theta", "θ"): v for k, v in KEY.items()}}
WRONG.update({
    "fresh2-sigma_vae-as-variance": (_with(sigma_vae="d"), "overloaded-sigma_vae"),
    "fresh2-dropout-paper-p-as-drop": (_with(p_dropout_paper="a"), "overloaded-p_dropout_paper"),
    "fresh2-abs-as-norm": (_with(abs="c"), "overloaded-abs"),
    "fresh2-T_steps-as-temperature": (_with(T_steps="b"), "overloaded-T_steps"),
    "fresh2-a-key-left-out": ({"overloaded": {k: v for k, v in KEY.items() if k != "hat_m"}}, "not answered yet"),
})
