"""Reading short answers: letters, words, dimension names, shapes and dicts of them.

The value answers of the ``notation`` and ``matching`` assignments are plain Python data (a dict
of letters, a tuple of dimension names, a word).  These pure functions turn what a student typed
into one canonical form, forgiving where it is harmless and strict where it matters:

- case, surrounding spaces and brackets never matter: ``"B"``, ``" b "``, ``"(b)"`` read as ``"b"``;
  ``"Power "`` and ``"POWER"`` as ``"power"``;
- a symbol may be written in Unicode or in LaTeX: ``"β₁ᵗ"``, ``"beta1^t"`` and ``"\\beta_1^t"`` are
  the same key, and so are ``"∇"`` and ``"nabla"``; a superscript and a subscript may come in either
  order (``"\\beta^t_1"`` is ``"\\beta_1^t"``, as LaTeX typesets them); amsmath's spellings of an operator
  (``"\\operatorname*{arg\\,max}_x"``, ``"\\underset{x}{\\arg\\max}"``, ``"\\mathop{..}"``) are the operator,
  and an operator may leave out the subscript naming its variable (``"\\mathbb{E}[f(x)]"``); a placeholder
  argument names the symbol alone: ``"\\mathbb{E}[\\cdot]"`` is the expectation, ``"‖·‖"`` the norm (never
  ``|·|`` or ``‖·‖₁``); a key copied with its table's ``=`` (``"\\epsilon = 10^{-8}"``) names the item one side
  names when the other names none;
- a shape may be a tuple, a list or a string: ``("n", "m")``, ``["n", "m"]``, ``"(n, m)"``, ``"n x m"``,
  ``"n \\times m"``, ``"\\mathbb{R}^{n \\times m}"``;
  a dimension name may drop its underscore or change case (``"dk"``, ``"D_K"`` are ``"d_k"``), and
  the companion section's ``n_q`` / ``n_k`` are accepted for ``n`` / ``m``;
- but the order of dimensions and which dimension it is (``n`` against ``m``, ``d_k`` against ``d_v``)
  always matter, a bare ``"d"`` is refused as ambiguous, and one item never takes several answers.

A malformed answer raises :class:`AnswerFormatError`, whose message says how to write it and never
whether it is right; a character that is not printable ASCII is named in it (:func:`describe`).  The
module uses only the standard library, so the notebooks inline it in a read-only cell for their public
checks (students may not have this package); pylatexenc, for LaTeX keys, is used when it is there and
replaced by a small table when it is not.
"""

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any


class AnswerFormatError(ValueError):
    """An answer that cannot be read in the format its question asks for; the text says why."""


_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "θ": "theta", "ϑ": "theta", "λ": "lambda", "μ": "mu", "π": "pi", "σ": "sigma", "τ": "tau",
    "φ": "phi", "ϕ": "phi", "ψ": "psi", "ω": "omega", "η": "eta", "∇": "nabla", "⊙": "odot",
    "∑": "sum", "∏": "prod", "ℓ": "l", "∼": "~", "−": "-", "‖": "||", "√": "sqrt",
    "∥": "||", "𝔼": "e", "⋅": ".", "·": ".", "∙": ".", "•": ".", "∘": "odot", "×": "x",
    "κ": "kappa", "ν": "nu", "ξ": "xi", "ρ": "rho", "χ": "chi", "ζ": "zeta", "ι": "iota",
    "Σ": "sum", "Π": "prod", "Δ": "delta", "Θ": "theta", "Φ": "phi", "Ψ": "psi", "Ω": "omega", "Λ": "lambda",
    "Γ": "gamma", "⊤": "t", "⊺": "t",  # \top, \intercal: the transpose, like ᵀ and T
}
_LATEX_WORDS = re.compile(r"\\?(mathbf|boldsymbol|mathrm|operatorname|mathbb|left|right|varepsilon|vartheta|varphi)")
_LATEX_FONTS = re.compile(r"\\(?:mathsf|mathit|mathcal|mathtt|textrm|text|bm)(?![a-zA-Z])")
_LATEX_SWAP = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi"}
_LATEX_SYMBOLS = {"sim": "∼", "Vert": "‖", "|": "‖", "vert": "|", "cdot": "⋅", "times": "×", "prime": "'",
                  "top": "⊤", "intercal": "⊺", "lVert": "‖", "rVert": "‖", "odot": "⊙", "nabla": "∇", "Sigma": "Σ",
                  "Pi": "Π", "parallel": "∥", "langle": "⟨", "rangle": "⟩"}
_DROP = re.compile(r"[\s\\_^{}()\[\]$]")
_CODE_ACCENT = re.compile(r"(?<![A-Za-z])([A-Za-z])_?(hat|tilde|bar)(?![A-Za-z])")  # y_hat is ŷ


def latex_to_text(value: str) -> str:
    """Read LaTeX as a reader of the paper would: ``"x \\sim p"`` is ``"x ∼ p"``, ``"\\beta_1"`` is ``"β_1"``.

    Uses pylatexenc's LaTeX-to-text conversion when it is installed (the graders always have it);
    the notebooks' copy of this module falls back to a small table of the symbols the prompts'
    tables print, since a student's Python may not have pylatexenc.  Text without a backslash is
    returned as it is (a LaTeX reader would take its ``~`` for a space).
    """
    text = re.sub(r"\\wide(tilde|hat)(?![a-zA-Z])", r"\\\1", value)
    text = re.sub(r"\\overline(?![a-zA-Z])", r"\\bar", text)
    text = re.sub(r"\\\|", "‖", text)  # LaTeX's \| is a norm's double bar
    text = re.sub(r"\\arg(max|min)?(?![a-zA-Z])", r"arg\1", amsmath_operators(text))
    if "\\" not in text:
        return text
    try:
        from pylatexenc.latex2text import LatexNodes2Text
    except ImportError:
        return latex_by_hand(text)
    try:
        return LatexNodes2Text().latex_to_text(text)
    except Exception:  # noqa: BLE001 - malformed LaTeX is read by hand, never refused
        return latex_by_hand(text)


def _group(text: str, at: int) -> tuple[str, int]:
    """The argument starting at ``text[at]`` (spaces skipped) and where it ends: a braced or bracketed group
    (nested ones inside), a command such as ``\\top``, or one character; ``("", at)`` at the end."""
    while at < len(text) and text[at] == " ":
        at += 1
    if at >= len(text):
        return "", at
    pairs = {"{": "}", "(": ")"}
    if text[at] in pairs:
        depth = 0
        for end in range(at, len(text)):
            depth += {text[at]: 1, pairs[text[at]]: -1}.get(text[end], 0)
            if depth == 0:
                return text[at:end + 1], end + 1
        return text[at:], len(text)
    command = re.match(r"\\(?:[a-zA-Z]+|.)", text[at:])
    end = at + (command.end() if command else 1)
    return text[at:end], end


_AMSMATH = re.compile(r"\\(mathop|underset|overset)(?![a-zA-Z])")


def amsmath_operators(text: str) -> str:
    """amsmath's ways of typesetting an operator, as the operator: ``\\operatorname*{arg\\,max}_x`` is
    ``\\operatorname{arg\\,max}_x``, ``\\mathop{X}`` is ``X``, ``\\underset{x}{X}`` is ``X_{x}`` and
    ``\\overset{a}{X}`` ``X^{a}``; ``\\limits``, ``\\nolimits`` and ``\\displaystyle`` are dropped."""
    text = re.sub(r"\\operatorname\s*\*", r"\\operatorname", text)
    text = re.sub(r"\\(?:no)?limits(?![a-zA-Z])|\\(?:display|text)style(?![a-zA-Z])", "", text)
    for _ in range(text.count("\\")):
        found = _AMSMATH.search(text)
        if found is None:
            break
        first, end = _group(text, found.end())
        if found.group(1) == "mathop":
            text = text[:found.start()] + first[1:-1 if first[:1] == "{" else None] + text[end:]
            continue
        second, end = _group(text, end)
        body = second[1:-1] if second[:1] == "{" else second
        script = "_" if found.group(1) == "underset" else "^"
        text = text[:found.start()] + f"{body}{script}{first}" + text[end:]
    return text


def _script_kind(ch: str) -> str:
    """``"^"`` for a superscript character (``ᵗ``, ``²``), ``"_"`` for a subscript one (``₁``), else ``""``."""
    form = unicodedata.decomposition(ch)
    return "^" if form.startswith("<super>") else "_" if form.startswith("<sub>") else ""


def scripts_in_order(text: str) -> str:
    """``text`` with each superscript written before its subscript moved after it, as LaTeX typesets them the
    same: ``\\beta^t_1`` is ``\\beta_1^t``, ``g^{2}_t`` is ``g_t^{2}``, ``βᵗ₁`` is ``β₁ᵗ``.  A script is
    ``^`` or ``_`` with its argument (a braced or bracketed group, a command or one character), or a run of
    Unicode super- or subscript characters."""
    out: list[str] = []
    run: list[tuple[str, str]] = []  # the scripts met one after another: (kind, text)
    at = 0
    while at <= len(text):
        ch = text[at] if at < len(text) else ""
        if ch in ("^", "_"):
            _, end = _group(text, at + 1)
            run.append((ch, text[at:end]))
            at = end
            continue
        if ch and _script_kind(ch):
            end = at
            while end < len(text) and _script_kind(text[end]) == _script_kind(ch):
                end += 1
            run.append((_script_kind(ch), text[at:end]))
            at = end
            continue
        after = len(text) - len(text[at:].lstrip(" "))
        if ch == " " and run and after < len(text) and (text[after] in "^_" or _script_kind(text[after])):
            at = after  # spaces between two scripts
            continue
        out.extend(s for _, s in sorted(run, key=lambda r: r[0] == "^"))
        run = []
        out.append(ch)
        at += 1
    return "".join(out)


def latex_by_hand(text: str) -> str:
    """The fallback of :func:`latex_to_text`: spacing commands dropped, a few symbols as Unicode."""
    text = _LATEX_FONTS.sub("", re.sub(r"\\[,;:! ]", " ", text))
    return re.sub(r"\\([a-zA-Z]+|\|)", lambda m: _LATEX_SYMBOLS.get(m.group(1), m.group(0)), text)


def visible(text: str) -> str:
    """``text`` without its invisible format characters (zero-width spaces and joiners, a soft hyphen)."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def clean_text(value: str) -> str:
    """Drop invisible characters, casefold, apply Unicode compatibility forms and collapse runs of whitespace.

    Parameters
    ----------
    value
        any text a student typed.

    Returns
    -------
    str
        the text in lower case, with single spaces and no spaces at either end.
    """
    text = unicodedata.normalize("NFKC", visible(value)).casefold()
    return " ".join(text.split())


@functools.lru_cache(maxsize=8192)  # a grader reads every key of its table once per case: once is enough
def symbol_key(value: str) -> str:
    """A spelling-independent key for a symbol written in Unicode, LaTeX or plain ASCII.

    LaTeX is first read as text (:func:`latex_to_text`); then Greek letters become their names,
    combining hats and tildes become ``hat`` / ``tilde`` before their letter (as LaTeX writes
    them), and so does code's ``y_hat`` / ``ytilde``; Python's ``**`` is a caret; sub- and
    superscript characters become plain ones, and backslashes, underscores, carets, braces,
    brackets and spaces are dropped.

    Parameters
    ----------
    value
        a symbol as written, e.g. ``"β₁ᵗ"``, ``"\\\\beta_1^t"`` or ``"beta1^t"``.

    Returns
    -------
    str
        the key, e.g. ``"beta1t"`` for all three spellings above.

    Examples
    --------
    >>> symbol_key("x^{(i)}") == symbol_key("x^(i)") == "xi"
    True
    """
    text = unicodedata.normalize("NFD", latex_to_text(scripts_in_order(visible(str(value)))))
    text = re.sub(r"(.)\u0302", r"hat\1", text)
    text = re.sub(r"(.)\u0303", r"tilde\1", text)
    text = re.sub(r"(.)[\u0304\u0305]", r"bar\1", text)
    text = _CODE_ACCENT.sub(r"\2\1", text.replace("**", "^"))
    text = unicodedata.normalize("NFKC", text)
    text = "".join(_GREEK.get(ch, ch) for ch in text).casefold()
    text = _LATEX_WORDS.sub(lambda m: _LATEX_SWAP.get(m.group(1), ""), text)
    return _DROP.sub("", text)


LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""What Python's ``str.splitlines`` breaks lines at."""


def describe(ch: str) -> str:
    """How a message names one character: ``"a line break"``, ``"a tab"``, ``"';'"`` for visible ASCII, else
    ``"the character U+2212 MINUS SIGN (−)"`` (without the glyph for a space or an invisible character)."""
    if ch in LINE_BREAKS:
        return "a line break"
    if ch == "\t":
        return "a tab"
    if " " < ch < "\x7f":
        return repr(ch)
    glyph = f" ({ch})" if ch.isprintable() and not ch.isspace() and unicodedata.category(ch) != "Cf" else ""
    return f"the character U+{ord(ch):04X} {unicodedata.name(ch, '(unnamed)')}{glyph}"


def named(value: Any, width: int | None = None) -> str:
    """``repr(value)`` (of its first ``width`` characters, then ``…``), and for text holding a character that is
    not printable ASCII, the first such one named: ``'а' (with the character U+0430 CYRILLIC SMALL LETTER A
    (а))``, which a reader cannot tell from ``'a'``."""
    if not isinstance(value, str):
        return repr(value)
    odd = next((ch for ch in value if not " " <= ch < "\x7f"), None)
    shown = repr(value) if width is None or len(value) <= width else repr(value[:width] + "…")
    return shown + (f" (with {describe(odd)})" if odd else "")


# -- single answers --------------------------------------------------------------------------

_SEPARATORS = re.compile(r"\s*(?:,|/|;|\+|&|\bor\b|\band\b|\s)\s*")


def parse_letter(value: Any, options: str) -> str:
    """Read one option letter: ``"b"``, ``"B"``, ``" b "``, ``"(b)"``, ``"b)"`` and ``"b."`` are ``"b"``.

    Parameters
    ----------
    value
        the student's answer for one item.
    options
        the letters this item offers, e.g. ``"abcd"``.

    Returns
    -------
    str
        the lower-case letter.

    Raises
    ------
    AnswerFormatError
        for several letters (``"b, c"``, ``["b", "c"]``), a list or set, a number, or a letter that
        is not among ``options``.
    """
    shown = f"one of {', '.join(repr(o) for o in options)}"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        if len(value) > 1:
            raise AnswerFormatError(f"gives {len(value)} options; choose exactly one letter, as a string such as 'b'")
        raise AnswerFormatError(f"is a {type(value).__name__}; write the letter itself as a string, such as 'b'")
    if not isinstance(value, str):
        raise AnswerFormatError(f"is {named(value)}; write a letter as a string, {shown}")
    text = clean_text(value).strip(" .")
    text = text.strip("()[]'\"").rstrip(")").strip()
    if len(text) == 1 and text in options:
        return text
    parts = [p.strip("()[]'\". ") for p in _SEPARATORS.split(text) if p.strip("()[]'\". ")]
    if len(parts) > 1 or (len(text) > 1 and text.isalpha() and set(text) <= set(options)):
        raise AnswerFormatError(f"is {named(value)}, which names several options; choose exactly one letter")
    raise AnswerFormatError(f"is {named(value)}; write {shown}")


_WORD_SYNONYMS = {"exponent": "power", "exponents": "power", "powers": "power", "indices": "index",
                  "indexes": "index", "labels": "label", "labelled": "label", "labeled": "label",
                  "transposed": "transpose", "transposes": "transpose", "transposition": "transpose"}


def parse_word(value: Any, vocabulary: Sequence[str]) -> str:
    """Read one word from a fixed vocabulary, ignoring case, spaces, an article and a full stop.

    Parameters
    ----------
    value
        the student's answer, e.g. ``"Power "``, ``"POWER"``, ``"a power"`` or ``"exponent"``.
    vocabulary
        the canonical words, e.g. ``("power", "index", "label", "transpose")``.

    Returns
    -------
    str
        the canonical word.

    Raises
    ------
    AnswerFormatError
        when the answer is not text, names several words, or is none of them.
    """
    shown = ", ".join(repr(w) for w in vocabulary)
    if not isinstance(value, str):
        raise AnswerFormatError(f"is {named(value)}; write one word as a string: {shown}")
    text = clean_text(value).strip(" .!'\"")
    text = re.sub(r"^(?:(?:a|an|the|it is|it's|it’s)\s+)+", "", text)
    text = _WORD_SYNONYMS.get(text, text)
    if text in vocabulary:
        return text
    found = [w for w in vocabulary if re.search(rf"\b{re.escape(w)}\b", text)]
    if len(found) > 1:
        raise AnswerFormatError(f"is {named(value)}, which names several answers; choose one of {shown}")
    raise AnswerFormatError(f"is {named(value)}; write one of {shown}")


DIMENSIONS = {"n": "n", "nq": "n", "m": "m", "nk": "m", "dk": "d_k", "dv": "d_v", "j": "J", "nz": "J"}
"""Dimension names the notebooks use, by :func:`symbol_key`; ``n_q``/``n_k`` are the companion
section's names for ``n``/``m``, and ``N_z`` is the VAE paper's Figure 2 name for ``J``."""

_SCALAR = {"scalar", "a scalar", "number", "a number", "()", "[]"}


def parse_dimension(value: Any, allowed: Sequence[str] = tuple(dict.fromkeys(DIMENSIONS.values()))) -> str:
    """Read one dimension name: ``"d_k"``, ``"dk"``, ``"D_K"``, ``"d_{k}"`` are all ``"d_k"``.

    Parameters
    ----------
    value
        one entry of a shape.
    allowed
        the canonical names this question uses.

    Returns
    -------
    str
        the canonical name (``"n"``, ``"m"``, ``"d_k"``, ``"d_v"`` or ``"J"``).

    Raises
    ------
    AnswerFormatError
        for a number, the ambiguous ``"d"``, or a name the question does not use.
    """
    shown = ", ".join(repr(a) for a in allowed)
    if not isinstance(value, str):
        raise AnswerFormatError(f"contains {named(value)}; each dimension is a name in quotes, one of {shown}")
    key = symbol_key(value)
    if key == "d":
        raise AnswerFormatError("uses 'd', which is ambiguous here: say 'd_k' or 'd_v'")
    name = DIMENSIONS.get(key)
    if name is None or name not in allowed:
        raise AnswerFormatError(f"contains {named(value)}, which is not a dimension of this problem; use {shown}")
    return name


_MULTIPLIED = re.compile(r"\s*(?:\\(?:times|cdot|ast|cross)(?![a-z])|[⋅·∙✕✖⨯])\s*")  # (casefolded)
_SPACE_OF = re.compile(r"(?:\\mathbb\s*\{r\}|\\mathbb\s+r|r)\s*\^\s*\{(.*)\}|(?:\\mathbb\s*\{r\}|r)\s*\^\s*(\w+)")


def parse_shape(value: Any, allowed: Sequence[str] = tuple(dict.fromkeys(DIMENSIONS.values()))) -> tuple[str, ...]:
    """Read a shape as a tuple of dimension names; ``()`` is a scalar.

    Parameters
    ----------
    value
        ``("n", "m")``, ``["n", "m"]``, ``"(n, m)"``, ``"[n, m]"``, ``"n x m"``, ``"n by m"``; a bare
        ``"J"`` or ``("J",)`` for a vector; ``()``, ``"()"`` or ``"scalar"`` for a scalar.
    allowed
        the canonical dimension names this question uses.

    Returns
    -------
    tuple of str
        the canonical names, in the order given (order matters and is kept).

    Raises
    ------
    AnswerFormatError
        when the value is neither a tuple/list of names nor a string of them.
    """
    if isinstance(value, (tuple, list)):
        if any(isinstance(v, (tuple, list, dict, set)) for v in value):
            raise AnswerFormatError("nests a tuple inside the shape; write a flat tuple such as ('n', 'm')")
        return tuple(parse_dimension(v, allowed) for v in value)
    if not isinstance(value, str):
        raise AnswerFormatError(f"is a {type(value).__name__}; write a tuple of names such as ('n', 'm')")
    text = clean_text(value)
    if text in _SCALAR or text.replace(" ", "") in _SCALAR:
        return ()
    inner = _MULTIPLIED.sub(" × ", text.strip().strip("$").strip())
    space = _SPACE_OF.fullmatch(inner)  # ℝ^{n × d_k}, as papers write a shape
    inner = (space.group(1) or space.group(2)) if space else inner
    if inner[:1] in "([" and inner[-1:] in ")]":
        inner = inner[1:-1]
    parts = re.split(r"\s*(?:,|×|\*|\bby\b|\s+x\s+)\s*", inner)
    parts = [p for p in (p.strip(" '\"") for p in parts) if p]
    if not parts:
        raise AnswerFormatError(f"is {named(value)}; write a tuple of names such as ('n', 'm'), or () for a scalar")
    return tuple(parse_dimension(p, allowed) for p in parts)


# -- a dict of answers, one per item ---------------------------------------------------------

class Reading:
    """A dict answer read item by item.

    ``values`` holds the canonical answer of each well-formed item (by canonical key),
    ``problems`` a message for each item that is missing or malformed, and ``general`` the
    problems with the answer as a whole (not a dict, unknown or repeated keys).  (A plain class,
    not a dataclass, so that the notebooks can define it by executing this file's text.)
    """

    def __init__(self, name: str):
        self.name = name
        self.values: dict[str, Any] = {}
        self.problems: dict[str, str] = {}
        self.general: list[str] = []

    def messages(self) -> list[str]:
        """Every problem, general first, as sentences a student can act on."""
        return self.general + [f"`{self.name}[{k!r}]` {m}." for k, m in self.problems.items()]

    def require(self, key: str) -> Any:
        """The canonical answer of ``key``, or raise ``AssertionError`` saying why it cannot be read."""
        if key in self.values:
            return self.values[key]
        if key in self.problems:
            also = f" ({' '.join(self.general)})" if self.general else ""
            raise AssertionError(f"`{self.name}[{key!r}]` {self.problems[key]}.{also}")
        raise AssertionError(" ".join(self.general) or f"`{self.name}` has no answer for {key!r}.")


_ALTERNATIVES = re.compile(r"\s+or\s+|/|,")


_SPACING = r"(?:\s|\\[,;:! ]|\\q?quad(?![a-zA-Z]))*"
_SLOT = re.compile(  # a placeholder argument: ·, \cdot, \bullet, ., ..., -, _, □ alone in brackets, braces or bars
    r"(?:(?<=[(\[{|‖,])|(?<=Vert)|(?<=vert))" + _SPACING
    + r"(?:\\(?:cdot|bullet|cdots|ldots|dots|square|Box|_)(?![a-zA-Z])|[·⋅∙•□…_-]|\.{1,3})" + _SPACING
    + r"(?=\\right|\\[|}]|\\[lr]?[Vv]ert|[)\]}|‖,])")
_ANY = "\ue000"
_SLOTS_ONLY = re.compile(  # brackets or braces holding nothing but placeholders (and separators between them)
    r"(?:\\left\s*)?(?:[(\[{]|\\\{)(?:[\s,|‖\ue000]|\\[,;:! |]|\\[Vv]ert)*(?:\\right\s*)?(?:[)\]}]|\\\})")
_ARGUMENT = re.compile(  # an argument between brackets or bars, with no brackets, bars or commands inside
    r"(?P<open>(?:\\left\s*)?[(\[]|\\\{|\\\||‖|\\[lr]?Vert|\|)[^()\[\]{}|‖\\]*[^()\[\]{}|‖\\\s][^()\[\]{}|‖\\]*"
    r"(?P<close>(?:\\right\s*)?[)\]]|\\\}|\\\||‖|\\[lr]?Vert|\|)")
_SCRIPT = re.compile(r"[\^_]\s*\{?\s*(?:\\left)?\s*\\?[(\[{|]$")


def _in_script(text: str, at: int) -> bool:
    """Whether the brackets opening just before ``text[at]`` hold a power or an index (``x^{(i)}``, ``θ_(t-1)``)."""
    return bool(_SCRIPT.search(text[:at]))


def argument_slots(keys: Sequence[str]) -> dict[str, str]:
    """Known keys with each argument as a slot (``\\Vert x \\Vert`` as ``‖·‖``), by :func:`symbol_key`.

    Arguments in a power or an index are kept: there the argument is what the item is about.
    """
    def slot(m: "re.Match[str]") -> str:
        return m.group() if _in_script(m.string, m.end("open")) else m["open"] + _ANY + m["close"]
    templates = {key: _ARGUMENT.sub(slot, key) for key in keys}
    return {symbol_key(template): key for key, template in templates.items() if _ANY in template}


def _placeholder_item(raw_key: str, lookup: Mapping[str, str], slots: Mapping[str, str]) -> str | None:
    """The item a key with placeholder arguments names (``\\mathbb{E}[\\cdot]``, ``‖·‖``, ``\\log(.)``): that of
    the operator alone (the placeholders' brackets dropped), or of a known key with an argument in each
    placeholder's place; None unless exactly one item.  A placeholder in a power or an index is not one."""
    marked = _SLOT.sub(lambda m: m.group() if _in_script(raw_key, m.start()) else _ANY, raw_key)
    if _ANY not in marked:
        return None
    alone = _SLOTS_ONLY.sub(lambda m: "" if _ANY in m.group() else m.group(), marked)
    items = {lookup.get(symbol_key(alone)) if _ANY not in alone else None,
             lookup.get(symbol_key(slots.get(symbol_key(marked), "")))}
    items.discard(None)
    return items.pop() if len(items) == 1 else None


_OPERATOR = re.compile(  # an operator whose subscript names the variable it ranges over: E_{x~p}, argmax_x, ∇_θ, Σ_i
    r"(?:\\mathbb\s*\{\s*E\s*\}|\\mathbb\s+E|𝔼|(?<![A-Za-z])E|\\operatorname\s*\{[^{}]*\}|"
    r"\\(?:mathrm|text|rm)\s*\{\s*(?:(?:arg\s*(?:\\[,;:! ]\s*)?)?m(?:ax|in)|E)\s*\}|"
    r"(?:\\arg|(?<![A-Za-z])arg)\s*\\?m(?:ax|in)|\\max|\\min|\\nabla|∇|(?<![A-Za-z])nabla|\\sum|\\prod|[∑∏ΣΠ])"
    r"(?=\s*_)")


def bare_operators(key: str) -> str:
    """``key`` with the subscript of each operator left out, as one writes ``\\mathbb{E}[f(x)]`` for
    ``\\mathbb{E}_{x \\sim p}[f(x)]`` when the variable is clear: ``\\arg\\max_x f(x)`` is ``\\arg\\max f(x)``."""
    text = amsmath_operators(key)
    for _ in range(text.count("_")):
        found = next((m for m in _OPERATOR.finditer(text)), None)
        if found is None:
            break
        underscore = text.index("_", found.end())
        _, end = _group(text, underscore + 1)
        text = text[:found.end()] + " " + text[end:]
    return text


def bare_lookup(keys: Mapping[str, str]) -> dict[str, str]:
    """Known keys (spelling -> item) by the :func:`symbol_key` of their :func:`bare_operators`, where that names
    one item only."""
    items: dict[str, set[str]] = {}
    for spelling, item in keys.items():
        items.setdefault(symbol_key(bare_operators(spelling)), set()).add(item)
    return {bare: found.pop() for bare, found in items.items() if len(found) == 1}


_EQUALS = re.compile(r":?=|≔|\\coloneqq(?![a-zA-Z])")


def _item_of(raw_key: str, lookup: Mapping[str, str], slots: Mapping[str, str],
             bare: Mapping[str, str] | None = None) -> str | None:
    """The item a key names: by its :func:`symbol_key`, as a row's several symbols (``"θ / φ"``,
    ``"x·y or xᵀy"``) when each of them names that same item, by its placeholder arguments, by its
    operators without their subscripts (``\\mathbb{E}[f(x)]``, from ``bare``), or as a table's formula
    ``"\\epsilon = 10^{-8}"`` when one side names an item and the other none."""
    key = lookup.get(symbol_key(raw_key))
    if key is None:
        parts = {lookup.get(symbol_key(p)) for p in _ALTERNATIVES.split(raw_key) if p.strip()}
        key = parts.pop() if len(parts) == 1 else None
    key = key or _placeholder_item(raw_key, lookup, slots)
    if key is None and bare:
        key = bare.get(symbol_key(bare_operators(raw_key)))
    if key is None and _EQUALS.search(raw_key):
        sides = [_item_of(side, lookup, slots, bare) for side in _EQUALS.split(raw_key) if side.strip()]
        named = {side for side in sides if side is not None}
        key = named.pop() if len(named) == 1 and len(sides) == 2 and None in sides else None
    return key


def read_answers(
    answer: Any,
    spec: Mapping[str, Any],
    parse: Callable[[Any, Any], Any],
    name: str,
    aliases: Mapping[str, str] | None = None,
) -> Reading:
    """Read a dict answer ``{item: answer}`` against its items, without ever judging it right or wrong.

    Parameters
    ----------
    answer
        the student's value: a dict from item keys to single answers.
    spec
        canonical item key -> what ``parse`` accepts for it (option letters, a vocabulary, dimensions).
    parse
        reads one item's answer: :func:`parse_letter`, :func:`parse_word` or :func:`parse_shape`.
    name
        the student's variable name, for messages.
    aliases
        other spellings of keys (by :func:`symbol_key`) -> canonical key.

    Returns
    -------
    Reading
        the canonical answers and the problems, item by item.
    """
    reading = Reading(name)
    if answer is None:
        reading.general.append(f"`{name}` is still None: replace None with your dict of answers.")
        return reading
    if not isinstance(answer, dict):
        reading.general.append(
            f"`{name}` should be a dict {{item: answer}}, but it is a {type(answer).__name__}."
        )
        return reading
    lookup = {symbol_key(k): k for k in spec}
    lookup.update({symbol_key(a): k for a, k in (aliases or {}).items()})
    slots = argument_slots([*spec, *(aliases or {})])
    bare = bare_lookup({**{k: k for k in spec}, **(aliases or {})})
    seen: dict[str, Any] = {}
    for raw_key, raw_value in answer.items():
        key = _item_of(str(raw_key), lookup, slots, bare)
        if key is None:
            reading.general.append(
                f"`{name}` has the key {named(raw_key)}, which is not one of its items "
                f"({', '.join(repr(k) for k in spec)})."
            )
            continue
        if key in seen:
            reading.general.append(f"`{name}` answers {key!r} twice (as {seen[key]!r} and {raw_key!r}); keep one.")
            reading.problems[key] = "is given twice"
            reading.values.pop(key, None)
            continue
        seen[key] = raw_key
        if raw_value is None or (isinstance(raw_value, str) and not raw_value.strip()):
            reading.problems[key] = "is not answered yet"
            continue
        try:
            reading.values[key] = parse(raw_value, spec[key])
        except AnswerFormatError as exc:
            reading.problems[key] = str(exc)
    for key in spec:
        if key not in seen:
            reading.problems.setdefault(key, "is not answered yet")
    return reading


def format_report(answer: Any, spec: Mapping[str, Any], parse: Callable[[Any, Any], Any], name: str,
                  aliases: Mapping[str, str] | None = None) -> str:
    """For a public check cell: raise ``AssertionError`` listing every malformed item, else a summary.

    Says only whether each answer can be read, never whether it is right.
    """
    reading = read_answers(answer, spec, parse, name, aliases)
    problems = reading.messages()
    if problems:
        raise AssertionError("\n".join(["Fix the format of these answers:", *(f"- {p}" for p in problems)]))
    return f"all {len(spec)} answers of `{name}` are well-formed (this check does not say whether they are right)."
