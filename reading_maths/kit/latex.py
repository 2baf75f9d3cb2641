"""Reading the symbols of an equation written in LaTeX (with pylatexenc's parser).

An equation is read into a flat list of tokens: letters and Greek letters (symbols), their
decorations (``\\hat{y}``, ``\\mathcal{L}``), sub- and superscripts, operators (``\\log``,
``\\frac``, ``\\mathrm{softmax}``, ``\\mathbb{E}``) and punctuation.  A *symbol* is a letter or a
Greek letter together with its subscript when that is a label or an index (``d_k``, ``\\beta_1``,
``y_w``, ``x_i``).  What is not a symbol: operators and function names, digits and constants
(a bare ``\\pi``), marks in a superscript (a transpose, a prime), and the bound letters of a sum or
product (the i of ``\\sum_{i=1}^{N}``; its bound N is a size, a symbol).  A symbol table key, and a named
dimension of a shape, are read the same way, so ``"\\gamma"``, ``"γ"`` and ``"\\boldsymbol{\\gamma}"`` all
name ``\\gamma``, and a dimension ``"d_k"`` spells ``d_{k}``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from pylatexenc.latexencode import unicode_to_latex
from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexSpecialsNode,
    LatexWalker,
)

MAX_LATEX = 4000

GREEK = set(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho "
    "varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi "
    "Psi Omega ell".split()
)
_VARIANTS = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho", "varsigma": "sigma",
             "varpi": "pi"}
DECORATIONS = {"hat", "widehat", "bar", "overline", "tilde", "widetilde", "vec", "dot", "ddot", "mathcal"}
"""Decorations that make a different symbol (y-hat is a prediction, not y)."""
FONTS = {"mathbf", "boldsymbol", "bm", "mathit", "mathsf", "mathnormal", "pmb"}
"""Fonts that leave a symbol what it is (a bold x is x)."""
OPERATOR_LETTERS = {"\\mathcal{N}", "\\mathcal{U}", "\\mathcal{O}"}
"""Decorated letters that name an operator or a family, not a quantity: a Gaussian, a uniform, big O."""
NAMES = {"mathrm", "operatorname", "text", "textrm", "mathtt", "textit", "mbox", "mathbb", "mathfrak"}
"""Macros whose argument is a name or an operator: \\mathrm{softmax}, \\mathbb{E}, \\text{if}."""
WORDS = {"softmax", "sigmoid", "relu", "gelu", "tanh", "exp", "log", "ln", "max", "min", "argmax", "argmin", "sum",
         "mean", "var", "std", "diag", "tr", "det", "sign", "abs", "erf", "kl", "mse", "norm", "concat", "attention",
         "layernorm", "rmsnorm", "dropout", "mask", "where", "if", "otherwise", "for", "and", "cos", "sin", "sqrt",
         "const", "clip", "logsumexp", "cross", "entropy", "ce", "nll", "loss", "dpo"}
SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹ᵗᵀⁿⁱ", "0123456789tTni", strict=True))
SUBSCRIPT = dict(zip("₀₁₂₃₄₅₆₇₈₉ₜₙᵢⱼₖ", "0123456789tnijk", strict=True))


class LatexError(ValueError):
    """Text that cannot be read as LaTeX maths."""


@dataclass(frozen=True)
class Token:
    """One item of an equation: ``kind`` is ``letter``, ``op``, ``digit``, ``punct``, ``open`` or ``close``."""

    kind: str
    text: str


def from_unicode(text: str) -> str:
    """Unicode maths as LaTeX: ``"β₁"``, ``"σ²"``, ``"ŷ"`` are ``"\\beta_{1}"``, ``"\\sigma^{2}"``, ``"\\hat{y}"``."""
    text = re.sub(r"(\w)\u0302", r"\\hat{\1}", unicodedata.normalize("NFD", str(text)))
    text = re.sub(r"(\w)\u0304", r"\\bar{\1}", text)
    text = re.sub(r"(\w)\u0303", r"\\tilde{\1}", text)
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in SUBSCRIPT:
            out.append(f"_{{{SUBSCRIPT[ch]}}}")
        elif ch in SUPERSCRIPT:
            out.append(f"^{{{SUPERSCRIPT[ch]}}}")
        elif ord(ch) > 127:
            latex = unicode_to_latex(ch, non_ascii_only=True)
            out.append(" " + re.sub(r"^\\ensuremath\{(.*)\}$", r"\1", latex).strip() + " ")
        else:
            out.append(ch)
    return "".join(out)


def _text_of(nodes) -> str:
    """The plain letters of a macro argument (``\\mathrm{soft max}`` → ``"softmax"``)."""
    parts = []
    for node in nodes or []:
        if isinstance(node, LatexCharsNode):
            parts.append(node.chars)
        elif isinstance(node, LatexGroupNode):
            parts.append(_text_of(node.nodelist))
        elif isinstance(node, LatexMacroNode):
            parts.append(node.macroname)
    return re.sub(r"\s+", "", "".join(parts))


def _chars(chars: str) -> list[Token]:
    tokens = []
    for word in re.findall(r"[A-Za-z]+|\d+(?:\.\d+)?|\S", chars):
        if word[0].isalpha() and len(word) > 1 and (word.lower() in WORDS or len(word) > 2):
            tokens.append(Token("op", word))  # a function name, or a named quantity written as a word
        elif word[0].isalpha():
            tokens += [Token("letter", c) for c in word]
        elif word[0].isdigit():
            tokens.append(Token("digit", word))
        else:
            tokens.append(Token("punct", word))
    return tokens


def _args(node: LatexMacroNode) -> list:
    return [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]


def tokens(latex: str) -> list[Token]:
    """The equation as a flat list of tokens; groups become ``open``/``close`` tokens."""
    return list(_tokens(latex))


@functools.lru_cache(maxsize=1024)
def _tokens(latex: str) -> tuple[Token, ...]:
    """:func:`tokens`, each text parsed once per process (the course's equations are read for every entry)."""
    if len(latex) > MAX_LATEX:
        raise LatexError(f"it is longer than {MAX_LATEX} characters")
    try:
        nodes, _, _ = LatexWalker(from_unicode(latex), tolerant_parsing=True).get_latex_nodes()
        return tuple(_walk(nodes))
    except (RecursionError, MemoryError):
        raise LatexError("it is nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - the parser's own errors, whatever their kind
        raise LatexError(f"the LaTeX parser could not read it ({type(exc).__name__})") from None


def _walk(nodes) -> list[Token]:
    out: list[Token] = []
    for node in nodes or []:
        if isinstance(node, LatexCharsNode):
            out += _chars(node.chars)
        elif isinstance(node, (LatexGroupNode, LatexMathNode, LatexEnvironmentNode)):  # cases, aligned...
            out += [Token("open", "{"), *_walk(node.nodelist), Token("close", "}")]
        elif isinstance(node, LatexSpecialsNode):
            out.append(Token("punct", node.specials_chars))
        elif isinstance(node, LatexMacroNode):
            out += _macro(node)
        elif not isinstance(node, LatexCommentNode):
            out.append(Token("punct", "?"))
    return out


def _macro(node: LatexMacroNode) -> list[Token]:
    name, args = node.macroname, _args(node)
    if name in GREEK:
        return [Token("letter", "\\" + _VARIANTS.get(name, name))]
    if name in FONTS and args:
        return _walk([args[-1]])
    if name in DECORATIONS and args:
        inner = _walk([args[-1]])
        letters = [t for t in inner if t.kind == "letter"]
        if len(letters) == 1 and len([t for t in inner if t.kind not in ("open", "close")]) == 1:
            symbol = f"\\{name}{{{letters[0].text}}}"
            return [Token("op" if symbol in OPERATOR_LETTERS else "letter", symbol)]
        return [Token("op", name), *inner]
    if name in NAMES and args:
        return [Token("op", _text_of([args[-1]]) or name)]
    if name in ("left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "quad", "qquad",
                "displaystyle", "limits", "nolimits", ",", ";", ":", "!", " ", "\\"):
        return []
    return [Token("op", name), *[t for a in args for t in _walk([a])]]


def _group(toks: list[Token], start: int) -> tuple[list[Token], int]:
    """The tokens of the script at ``start`` (one token, or a braced group) and the index after it."""
    if start >= len(toks):
        return [], start
    if toks[start].kind != "open":
        return [toks[start]], start + 1
    depth, i = 0, start
    while i < len(toks):
        depth += {"open": 1, "close": -1}.get(toks[i].kind, 0)
        i += 1
        if depth == 0:
            break
    return toks[start + 1:i - 1], i


def _label(script: list[Token]) -> str | None:
    """A subscript that names a symbol's label or index (``k``, ``1``, ``w``, ``\\theta``, ``ref``)."""
    parts = [t for t in script if t.kind not in ("open", "close")]
    if parts and all(t.kind in ("letter", "digit", "op") for t in parts):
        return "".join(t.text.lstrip("\\") if t.kind == "op" else t.text for t in parts)
    return None


MARKS = {"T", "top", "intercal", "prime", "ast", "star", "dagger", "'", "*", "-", "+", "(", ")"}
"""What a superscript of marks and digits only is (a transpose, a prime, an inverse): no symbols in it."""
BINDERS = {"=", "in", "sim"}
"""What separates the bound letters of an operator's subscript from the rest (``i=1``, ``x \\in X``, ``x \\sim D``)."""


def symbols(latex: str) -> list[str]:
    """The symbols of an equation, in order of appearance, each once: ``["y", "\\gamma", "x", "\\mu", ...]``.

    Every place is read: sub- and superscripts, exponents, arguments and the limits of sums.  What is
    left out: indices (the letters of a label such as the ``i`` of ``x_i``, the bare letters of a
    subscript such as the ``i`` of ``x_{i+1}``, an index in a superscript such as the ``(i)`` of ``x^{(i)}``),
    bound letters (the ``i`` of ``\\sum_{i=1}^{n}``, the ``x`` of ``\\mathbb{E}_{x \\sim D}``), marks (a
    transpose ``^T``, a prime), and the constants ``\\pi`` and ``e``.
    """
    found: dict[str, None] = {}
    exempt: set[str] = set()
    _read(tokens(latex), found, exempt)
    exempt |= {t.text for s in found if "_{" in s for t in _walk_label(s)}
    return [s for s in found if s not in exempt]


def _marks(script: list[Token]) -> bool:
    """A superscript that holds no symbol: a transpose, a prime, digits, or an index in brackets ``(i)``."""
    parts = [t for t in script if t.kind not in ("open", "close")]
    if len(parts) == 3 and parts[0].text == "(" and parts[1].kind == "letter" and parts[2].text == ")":
        return True
    return all(t.kind == "digit" or t.text.lstrip("\\") in MARKS for t in parts)


def _limits(script: list[Token], found: dict[str, None], exempt: set[str]) -> None:
    """An operator's subscript: the letters before a binder are bound; what follows it is read."""
    split = next((i for i, t in enumerate(script) if t.text.lstrip("\\") in BINDERS and t.kind != "letter"), None)
    before, after = (script, []) if split is None else (script[:split], script[split + 1:])
    exempt |= {t.text for t in before if t.kind == "letter"}
    _read(after, found, exempt)


def _read(toks: list[Token], found: dict[str, None], exempt: set[str], bare_index: bool = False) -> None:
    """Add the symbols of ``toks`` to ``found`` and their indices and bound letters to ``exempt``; with
    ``bare_index`` (inside a subscript that is not a label) a letter without scripts is an index."""
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind == "punct" and tok.text in ("_", "^"):  # the script of a bracket
            script, i = _group(toks, i + 1)
            if not (tok.text == "^" and _marks(script)):
                _read(script, found, exempt, bare_index)
            continue
        i += 1
        if tok.kind == "op":  # its limits, in either order: the bound letters below, a size such as N above
            while i < len(toks) and toks[i].kind == "punct" and toks[i].text in ("_", "^"):
                kind = toks[i].text
                script, i = _group(toks, i + 1)
                if kind == "_":
                    _limits(script, found, exempt)
                elif not _marks(script):
                    _read(script, found, exempt, bare_index)
        if tok.kind != "letter":
            continue
        name, label, scripts = tok.text, None, []
        while i < len(toks) and toks[i].kind == "punct" and toks[i].text in ("_", "^"):
            kind = toks[i].text
            script, i = _group(toks, i + 1)
            if kind == "_" and label is None and _label(script) is not None:
                label = _label(script)
            elif kind == "_" or not _marks(script):
                scripts.append((kind, script))
        following = toks[i].text if i < len(toks) else ""
        if bare_index and label is None and not scripts:
            exempt.add(name)  # the i of x_{i+1}
        elif not ((name == "\\pi" and label is None and following != "(") or (name == "e" and label is None
                                                                               and scripts)):
            found.setdefault(f"{name}_{{{label}}}" if label else name, None)  # not the constants pi and e
        for kind, script in scripts:
            _read(script, found, exempt, bare_index=kind == "_")


def _walk_label(symbol: str) -> list[Token]:
    """The letters of a symbol's subscript label: ``"M_{ij}"`` -> i, j."""
    label = symbol.split("_{", 1)[1][:-1]
    return [t for t in tokens(label) if t.kind == "letter"]


def base(symbol: str) -> str:
    """The symbol without its subscript and decoration: ``"y_{w}"`` → ``"y"``, ``"\\hat{y}"`` → ``"y"``."""
    name = symbol.split("_{", 1)[0]
    match = re.fullmatch(r"\\[a-z]+\{(.+)\}", name)
    return match.group(1) if match else name


def uncovered(equation: str, keys: Iterable[str], dimensions: Iterable[str] = ()) -> list[str]:
    """The equation's symbols that no key of the symbol table names (by itself or by its base letter) and no
    named dimension of a shape spells (exactly: ``"d_k"`` is ``d_{k}``, the N of ``\\sum_{i=1}^{N}`` is ``"N"``)."""
    named: set[str] = set()
    for key in keys:
        for symbol in symbols(str(key)) or symbols(f"{key}()"):  # a key "\\pi" names the symbol, not 3.14...
            named |= {symbol, base(symbol)}
    spelled = {found[0] for dim in dimensions if len(found := symbols(str(dim))) == 1}
    return [s for s in symbols(equation) if s not in named and base(s) not in named and s not in spelled]


def fingerprint(latex: str) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]]:
    """What makes two equations the same: their token sequence, and their symbols and operators as sets."""
    toks = [t for t in tokens(latex) if t.kind not in ("open", "close")]
    ops = {t.text for t in toks if t.kind in ("op", "punct") and t.text not in ("(", ")", "[", "]", "{", "}")}
    return tuple(t.text for t in toks), frozenset(symbols(latex)), frozenset(ops)


def same_equation(a: str, b: str) -> bool:
    """The same equation written twice: the same tokens, or the same symbols combined by the same operators."""
    fa, fb = fingerprint(a), fingerprint(b)
    return fa[0] == fb[0] or (fa[1] == fb[1] and fa[2] == fb[2])
