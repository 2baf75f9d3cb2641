"""Naming characters so that a student can find them, and reading the ones whose meaning is plain.

A message about a character a student cannot see or tell from another (a non-breaking space, a
zero-width space, U+2212 MINUS SIGN beside ``-``, a Cyrillic ``е`` beside a Latin ``e``) names it by its
Unicode code point and name (:func:`reading_maths.kit.answers.describe`) and says what to type instead.
:func:`plain_formula` rewrites the characters whose meaning in a formula is not in doubt (a minus sign,
``×``, a superscript, a line break) into the ASCII the formula readers take, so that a right answer
never loses points for them.
"""

import re
import unicodedata

from reading_maths.kit.answers import LINE_BREAKS, describe

LOOKALIKES = {
    **dict.fromkeys("\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d", "-"),
    **dict.fromkeys("\u00d7\u00b7\u22c5\u2219\u2022\u2217\u2027", "*"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u00b4", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
    "\u00f7": "/", "\u2215": "/", "\u2044": "/",
    # letters of other scripts drawn like Latin ones
    **{g: latin for g, latin in zip("αεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "aeikvoptuxABEZHIKMNOPTYX", strict=True)},
    **{c: latin for c, latin in zip("аеорсухіјѕԁԛԝАВЕКМНОРСТХІЈЅ", "aeopcyxijsdqwABEKMHOPCTXIJS", strict=True)},
}
"""Characters often typed or pasted for an ASCII one, with that ASCII character."""

FORMULA_SIGNS = {
    **dict.fromkeys("\u2212\u2010\u2011\u2013\ufe63\uff0d", "-"),  # minus, hyphens, en dash (" - " autocorrected)
    **dict.fromkeys("\u00d7\u00b7\u22c5\u2219\u2217", "*"),  # times, middle dot, dot/bullet/asterisk operators
    "\u00f7": "/", "\u2215": "/",
}
"""Signs a formula reader takes as the ASCII operator, since they mean nothing else in a formula.  The em dash
is not one of them (a word processor makes it of ``--``, which Python reads as plus), nor is the bullet ``•``."""

_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
"""Zero-width spaces and joiners, the byte-order mark and the soft hyphen: shown as nothing, so they mean nothing."""
_PLAIN_FORMS = ("<wide>", "<narrow>", "<sub>", "<font>", "<noBreak>")
_SUPERSCRIPTS = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁱⁿᵏᵗʲ]+")


def fix(ch: str) -> str:
    """What to do about a character a reader refused: type its ASCII look-alike, or delete it."""
    if ch in LINE_BREAKS:
        return "keep the text on one line"
    if ch.isspace():
        return "type an ordinary space"
    plain = LOOKALIKES.get(ch) or unicodedata.normalize("NFKC", ch)
    if ch in _INVISIBLE or unicodedata.category(ch) in ("Cf", "Cc"):
        return "delete it (it is invisible)"
    if plain != ch and plain.isascii() and plain.isprintable():
        return f"type {plain} instead"
    return "retype it with the keyboard's ASCII characters"


def unusual(text: str) -> str | None:
    """The first character of ``text`` that is not printable ASCII (a space is), or None."""
    return next((ch for ch in text if not " " <= ch < "\x7f"), None)


def explain(ch: str) -> str:
    """A character named, with its fix: ``"the character U+2014 EM DASH (—): type - instead"``."""
    return f"{describe(ch)}: {fix(ch)}"


def plain_formula(text: str) -> str:
    """``text`` with the characters whose meaning in a formula is plain written in ASCII.

    A superscript is a power (``beta1²`` is ``beta1**(2)``, ``beta1ᵏ⁻ⁱ`` is ``beta1**(k-i)``); a minus sign,
    hyphen or en dash is ``-``; ``×``, ``·``, ``⋅`` are ``*`` and ``÷`` is ``/``; any space or line break is a
    space; an invisible character is dropped; a full-width, subscript or mathematical-font letter or digit is
    the ASCII one (``β₁`` stays Greek: only ASCII results are taken).
    """
    text = _SUPERSCRIPTS.sub(lambda m: f"**({unicodedata.normalize('NFKC', m.group())})", text)
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")
        elif ch.isascii():
            out.append(ch)
        elif ch in FORMULA_SIGNS:
            out.append(FORMULA_SIGNS[ch])
        elif ch not in _INVISIBLE:
            plain = unicodedata.normalize("NFKC", ch)
            tag = unicodedata.decomposition(ch).split(" ")[0]
            out.append(plain if tag in _PLAIN_FORMS and plain.isascii() and plain.isprintable() else ch)
    return "".join(out)
