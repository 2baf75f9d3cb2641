"""The tokens of a "Build this" equation, as :mod:`equation_reader` and :mod:`equation_clauses` read them.

The LaTeX is tokenised by :func:`reading_maths.kit.latex.tokens`, after rewriting the forms it would lose
(``cases`` rows, bold ones, ``\\operatorname{argmax}``).  :class:`Tokens` walks them; a form that cannot be
read raises :class:`Unread` with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from reading_maths.kit import latex

Node = tuple[Any, ...]
RELATIONS = {"=": "eq", "neq": "ne", "ne": "ne", "<": "lt", ">": "gt", "lt": "lt", "gt": "gt", "le": "le",
             "leq": "le", "leqslant": "le", "ge": "ge", "geq": "ge", "geqslant": "ge"}
T = TypeVar("T", bound="Tokens")


class Unread(Exception):
    """A form the reader or the evaluator does not read; the message says which and why."""


def _prepare(text: str) -> str:
    """Rewrite the forms the tokeniser would lose: ``cases`` rows, bold ones, ``\\operatorname{argmax}``."""
    if "\\sqrt[" in text:
        raise Unread("it takes an n-th root")
    text = re.sub(r"\\begin\{d?cases\}", r"\\cases{", text)
    text = re.sub(r"\\end\{d?cases\}", "}", text)
    text = re.sub(r"\\\\(\[[^\]]*\])?", r" \\cr ", text)
    text = re.sub(r"\\(mathbf|boldsymbol|mathds|bm|mathbb)\s*\{\s*(1|I)\s*\}", r"\\mathbb{\2}", text)
    return re.sub(r"\\operatorname\*?\s*\{([^{}]*)\}", r"\\mathrm{\1}", text)


def name(base: str, label: str | None = None) -> str:
    """A symbol's canonical name: ``\\hat{y}_{i}`` is ``haty_i``."""
    return "".join(c for c in base + ("_" + label if label else "") if c not in "\\{} ")


def op(token: latex.Token) -> str:
    return re.sub(r"[^A-Za-z0-9|{}]", "", token.text) if token.kind == "op" else token.text


class Tokens:
    """A list of tokens and a position in it."""

    def __init__(self, text: str) -> None:
        try:
            self.toks = [t for t in latex.tokens(_prepare(text)) if not (t.kind == "op" and t.text in (
                "left", "right", "mid", "displaystyle"))]
        except latex.LatexError as exc:
            raise Unread(f"it cannot be read as LaTeX: {exc}") from None
        self.pos = 0
        self.bars: list[str] = []
        self.funcs: set[str] = set()

    def peek(self) -> latex.Token | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def at(self, kind: str, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == kind and (not texts or op(tok) in texts or tok.text in texts)

    def take(self, kind: str, *texts: str) -> latex.Token:
        if not self.at(kind, *texts):
            tok = self.peek()
            raise Unread(f"it has {tok.text if tok else 'nothing'} where {' or '.join(texts) or kind} was expected")
        self.pos += 1
        return self.toks[self.pos - 1]

    def group(self) -> list[latex.Token]:
        """The tokens of the next braced group or single token."""
        start = self.pos
        if not self.at("open"):
            self.pos += 1
            return self.toks[start:self.pos]
        depth = 0
        while self.pos < len(self.toks):
            depth += {"open": 1, "close": -1}.get(self.toks[self.pos].kind, 0)
            self.pos += 1
            if depth == 0:
                return self.toks[start + 1:self.pos - 1]
        raise Unread("a brace is not closed")

    def sub(self: T, tokens: list[latex.Token], read: Callable[[T], Any]) -> Any:
        """``read`` of a reader of ``tokens`` only (a group), which must read them all."""
        inner = type(self).__new__(type(self))
        inner.toks, inner.pos, inner.bars, inner.funcs = tokens, 0, [], self.funcs
        found = read(inner)
        if inner.pos != len(tokens):
            raise Unread(f"it has {inner.toks[inner.pos].text} where it was not expected")
        return found
