"""The clauses of a "Build this" equation that are not arithmetic: the equation and its definitions, the
index set of a sum or maximum, conditions, indicator brackets and ``cases``; read on a
:class:`~reading_maths.kit.equation_reader.Reader`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reading_maths.kit import latex
from reading_maths.kit.equation_tokens import RELATIONS, Node, Unread, name, op

if TYPE_CHECKING:
    from reading_maths.kit.equation_reader import Reader


def equation(r: Reader) -> tuple[Node, Node, list[tuple[Node, Node]]]:
    """The main equation, then its definitions ``, \\quad \\mu = ...`` or ``h(r) = ...``."""
    segments: list[list[latex.Token]] = [[]]
    depth = 0
    for tok in r.toks:
        depth += 1 if tok.kind == "open" or tok.text in ("(", "[", "{") else 0
        depth -= 1 if tok.kind == "close" or tok.text in (")", "]", "}") else 0
        if depth == 0 and tok.kind == "punct" and tok.text in (",", "."):
            segments.append([])
        elif not (tok.kind == "op" and tok.text in ("where", "and")):
            segments[-1].append(tok)
    segments = [seg for seg in segments if seg]
    for seg in segments[1:]:
        if len(seg) > 3 and seg[1].text == "(" and seg[0].kind in ("letter", "op"):
            r.funcs.add(name(seg[0].text) if seg[0].kind == "letter" else op(seg[0]))
    if not segments:
        raise Unread("it is empty")
    left, right = r.sub(segments[0], lambda inner: definition(inner, True))
    return left, right, [r.sub(seg, lambda inner: definition(inner, False)) for seg in segments[1:]]


def definition(r: Reader, main: bool) -> tuple[Node, Node]:
    """``symbol = formula`` (the main one may name its arguments, ``H(p) = ...``) or ``h(r) = formula``."""
    if not (r.at("letter") or (r.at("op") and not main)):
        raise Unread("its left side is not the result's symbol" if main else "a definition is not `symbol = ...`")
    if r.at("op") and not main:
        left: Node = ("sym", op(r.take("op")), None, [])
    else:
        left = r.symbol(head=True)
    if r.at("punct", "(") and main:  # f(x) = ...: the arguments name inputs
        while r.peek() is not None and not r.at("punct", ")"):
            r.pos += 1
        r.take("punct", ")")
    elif r.at("punct", "("):  # h(r) = ...: a function of its parameters
        r.pos += 1
        params = [r.take("letter").text]
        while r.at("punct", ","):
            r.pos += 1
            params.append(r.take("letter").text)
        r.take("punct", ")")
        left = ("fun", name(left[1]), [name(p) for p in params])
    if not r.at("punct", "="):
        raise Unread("it is not one equation `result = formula`" if main else "a definition is not `symbol = ...`")
    r.pos += 1
    return left, r.expr()


def binder(r: Reader) -> tuple[list[str], Node | None, Node | None]:
    """The subscript of a sum or maximum: its indices, a lower bound (``i=1``), a condition (``j \\neq y_i``)."""
    vars_ = [r.take("letter").text]
    while r.at("punct", ","):
        r.pos += 1
        vars_.append(r.take("letter").text)
    if r.at("punct", "="):
        r.pos += 1
        return vars_, r.expr(), None
    if r.peek() is not None and len(vars_) == 1:
        relation = RELATIONS.get(op(r.take(r.peek().kind)))  # type: ignore[union-attr]
        if relation is None or relation == "eq":
            raise Unread("the index set of a sum or maximum is not read")
        return vars_, None, ("rel", [("sym", vars_[0], None, []), relation, r.expr()])
    return vars_, None, None


def condition(r: Reader) -> Node | None:
    """A comparison, maybe chained (``0 < x \\le 1``) or joined by `and`; None for `otherwise`."""
    while r.at("op", "if") or r.at("punct", ","):
        r.pos += 1
    if r.at("op", "otherwise", "else"):
        r.pos += 1
        return None
    parts: list[Any] = [r.expr()]
    while r.peek() is not None and op(r.peek()) in RELATIONS:  # type: ignore[arg-type]
        parts += [RELATIONS[op(r.take(r.peek().kind))], r.expr()]  # type: ignore[union-attr]
    if len(parts) < 3:
        raise Unread("a condition is not a comparison")
    node: Node = ("rel", parts)
    if r.at("op", "and") or r.at("punct", ","):
        r.pos += 1
        rest = condition(r)
        if rest is None:
            raise Unread("a condition is not read")
        node = ("and", node, rest)
    return node


def indicator(r: Reader) -> Node:
    """``\\mathbb{1}[condition]``, ``\\mathbb{I}\\{condition\\}`` or ``\\mathbb{1}_{condition}``: 1 where it holds."""
    if r.at("punct", "_"):
        r.pos += 1
        return ("ind", r.sub(r.group(), condition))
    close = {"[": ("punct", "]"), "(": ("punct", ")"), "{": ("op", "}")}
    tok = r.peek()
    if tok is None or tok.text not in close:
        raise Unread("an indicator without its condition in brackets")
    r.pos += 1
    cond = condition(r)
    r.take(*close[tok.text])
    return ("ind", cond)


def _trimmed(tokens: list[latex.Token]) -> list[latex.Token]:
    """A value or condition of ``cases`` without the punctuation after it (``x, & x > 0.``)."""
    while tokens and tokens[-1].kind == "punct" and tokens[-1].text in ",;.":
        tokens = tokens[:-1]
    return tokens


def cases(r: Reader) -> Node:
    """``\\begin{cases} value & condition \\\\ ... \\end{cases}``: its rows, the last one's condition may be
    ``otherwise`` (None)."""
    rows: list[list[latex.Token]] = [[]]
    for tok in r.group():
        if tok.kind == "op" and tok.text == "cr":
            rows.append([])
        else:
            rows[-1].append(tok)
    found = []
    for row in filter(None, rows):
        cut = [i for i, t in enumerate(row) if t.kind == "punct" and t.text == "&"]
        if len(cut) != 1:
            raise Unread("a row of the cases is not `value & condition`")
        value, cond = _trimmed(row[:cut[0]]), _trimmed(row[cut[0] + 1:])
        found.append((r.sub(value, lambda inner: inner.expr()), r.sub(cond, condition)))
    return ("cases", found)
