"""Is an entry new: not the worked entry, not another entry, not one of the course's own equations or functions.

Two ways to tell, each enough to refuse:

- **structure**: the equation, its symbols renamed, is the same as a known one, or is a piece of one (the
  first line of layer norm written with other letters): :func:`known_piece` compares token sequences in
  which every letter stands for "the symbol first seen n-th", so renaming changes nothing;
- **behaviour**: the implementation computes one of the course's functions (layer norm, softmax,
  attention, an Adam step, the DPO loss) on the example and on random inputs of the declared shapes,
  its arguments in some order: :func:`course_function`.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from reading_maths.kit import latex
from reading_maths.kit.probes import probes
from reading_maths.kit.strength import agree

COURSE_EQUATIONS = {
    "scaled dot-product attention":
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right) V",
    "softmax with a temperature": r"q_i = \frac{\exp(z_i / T)}{\sum_j \exp(z_j / T)}",
    "softmax": r"q_i = \frac{\exp(z_i)}{\sum_j \exp(z_j)}",
    "softmax written with e": r"q_i = \frac{e^{z_i}}{\sum_j e^{z_j}}",
    "Adam's update": r"\theta_t = \theta_{t-1} - \alpha \hat{m}_t / (\sqrt{\hat{v}_t} + \epsilon)",
    "Adam's update written as a fraction":
        r"\theta_t = \theta_{t-1} - \alpha \frac{\hat{m}_t}{\sqrt{\hat{v}_t} + \epsilon}",
    "Adam's first moment": r"m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t",
    "Adam's second moment": r"v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2",
    "Adam's bias correction": r"\hat{m}_t = \frac{m_t}{1 - \beta_1^t}",
    "the DPO loss": r"L = -\mathbb{E}\left[\log \sigma\left(\beta\left(\left(\log \pi(y_w|x) - \log ref(y_w|x)\right)"
                    r" - \left(\log \pi(y_l|x) - \log ref(y_l|x)\right)\right)\right)\right]",
}
"""The equations the course text works itself: an entry must pick others."""
MIN_PIECE = 6
"""A part of an equation shorter than this many tokens is too small to be called a copy (``y = x + b``)."""
PARTS = {"=", ",", "quad", "qquad", ";", "\\\\"}


def _parts(equation: str) -> list[list[latex.Token]]:
    """The equation's sides and lines: its tokens (without braces) cut at ``=``, commas and ``\\quad``."""
    parts: list[list[latex.Token]] = [[]]
    for tok in latex.tokens(equation):
        if tok.kind in ("open", "close"):
            continue
        if tok.text.lstrip("\\") in PARTS or tok.text in PARTS:
            parts.append([])
        else:
            parts[-1].append(tok)
    return [p for p in parts if p]


def _renamed(toks: list[latex.Token]) -> tuple[str, ...]:
    """The tokens with each letter replaced by the order in which it first appears."""
    order: dict[str, int] = {}
    return tuple(f"#{order.setdefault(t.text, len(order))}" if t.kind == "letter" else t.text for t in toks)


def known_piece(equation: str, known: str) -> bool:
    """The longest part of ``equation``, its symbols renamed, is ``known`` or a piece of one of its parts."""
    mine = max(_parts(equation), key=len, default=[])
    if len(mine) < MIN_PIECE:
        return False
    target = _renamed(mine)
    for part in _parts(known):
        for start in range(len(part) - len(mine) + 1):
            if _renamed(part[start:start + len(mine)]) == target:
                return True
    return False


def _course_functions() -> dict[str, Callable[..., Any]]:
    from reading_maths.kit.reference import reference  # local: the references run notebooks when first asked

    code, build = reference("code"), reference("build")
    return {"layer norm (the worked entry)": build.implementation_0, "softmax": code.softmax,
            "attention": code.attention, "an Adam step": code.adam_step, "the DPO loss": code.dpo_loss}


def _required(function: Callable[..., Any]) -> tuple[int, int]:
    params = [p for p in inspect.signature(function).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return sum(p.default is p.empty for p in params), len(params)


def _value(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        with np.errstate(all="ignore"):
            return "value", call()
    except Exception:  # noqa: BLE001 - a course function refusing these inputs: not the same function
        return "error", None


def _matches(theirs: tuple[str, Any], mine: tuple[str, Any]) -> bool:
    if theirs[0] != "value":
        return False
    candidates = [theirs] + ([("value", theirs[1][0])] if isinstance(theirs[1], tuple) and theirs[1] else [])
    return any(agree(mine, c) for c in candidates)


def course_function(implementation: Any, entry: dict[str, Any], rng: np.random.Generator) -> str | None:
    """The course function ``implementation`` computes on the example and on random inputs, if any."""
    found = probes(entry, rng)
    tried = [found[0], *found[-2:]]
    mine = [_value(functools.partial(implementation, **kw)) for kw in tried]
    if any(m[0] != "value" for m in mine):
        return None
    names = list(entry["inputs"])
    for what, function in _course_functions().items():
        low, high = _required(function)
        if not low <= len(names) <= high:
            continue
        for order in itertools.permutations(names):
            if all(_matches(_value(functools.partial(function, *[kw[n] for n in order])), m)
                   for kw, m in zip(tried, mine, strict=True)):
                return what
    return None
