"""Reading a "Build this" equation ``result = formula`` into a small tree, for :mod:`equation_eval`.

The LaTeX is tokenised by :func:`reading_maths.kit.latex.tokens`, then read by recursive descent: sums and
products over index sets (``\\sum_{j \\neq y_i}``, ``\\sum_{i=1}^{N}``, ``\\sum_{i,j}``), ``\\max``/``\\min``
of values or over an index, ``\\arg\\max``, norms, absolute values, ``cases``, indicator brackets, fractions,
roots, powers, transposes and the usual functions.  A node is a tuple whose first item names its kind.
What the reader does not know raises :class:`Unread` with the reason, never a guess.
"""

from __future__ import annotations

import re
from typing import Any

from reading_maths.kit import latex

Node = tuple[Any, ...]
FUNCTIONS = {"exp", "log", "ln", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sigmoid", "relu", "softmax"}
RELATIONS = {"=": "eq", "neq": "ne", "ne": "ne", "<": "lt", ">": "gt", "lt": "lt", "gt": "gt", "le": "le",
             "leq": "le", "leqslant": "le", "ge": "ge", "geq": "ge", "geqslant": "ge"}
PRODUCTS = {"cdot": "dot", "times": "dot", "odot": "had", "circ": "had"}
TRANSPOSES = {"T", "top", "intercal", "mathsf{T}"}
_BARS = {"|": "|", "Vert": "Vert", "lVert": "rVert", "vert": "vert", "lvert": "rvert"}
"""Opening bars of norms (double) and absolute values (single), and their closing bars."""
_CLOSING = {"rVert", "rvert"}


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


def _op(token: latex.Token) -> str:
    return re.sub(r"[^A-Za-z0-9|{}]", "", token.text) if token.kind == "op" else token.text


class _Reader:
    def __init__(self, text: str) -> None:
        try:
            self.toks = [t for t in latex.tokens(_prepare(text)) if not (t.kind == "op" and t.text in (
                "left", "right", "mid", "displaystyle"))]
        except latex.LatexError as exc:
            raise Unread(f"it cannot be read as LaTeX: {exc}") from None
        self.pos = 0
        self.bars: list[str] = []

    # -- tokens
    def peek(self) -> latex.Token | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def at(self, kind: str, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == kind and (not texts or _op(tok) in texts or tok.text in texts)

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

    def sub(self, tokens: list[latex.Token], method: str, *args: Any) -> Any:
        inner = _Reader.__new__(_Reader)
        inner.toks, inner.pos, inner.bars = tokens, 0, []
        found = getattr(inner, method)(*args)
        if inner.pos != len(tokens):
            raise Unread(f"it has {inner.toks[inner.pos].text} where it was not expected")
        return found

    # -- the equation
    def equation(self) -> tuple[Node, Node]:
        if not self.at("letter"):
            raise Unread("its left side is not the result's symbol")
        left = self.symbol()
        if self.at("punct", "("):  # f(x) = ...: the arguments name inputs
            self.pos += 1
            while not self.at("punct", ")"):
                if self.peek() is None:
                    raise Unread("a parenthesis is not closed")
                self.pos += 1
            self.pos += 1
        if not self.at("punct", "="):
            raise Unread("it is not one equation `result = formula`")
        self.pos += 1
        right = self.expr()
        while self.at("punct", ".", ","):
            self.pos += 1
            if self.peek() is not None:
                raise Unread("it is more than one equation (a formula and the definitions of its parts)")
        if self.peek() is not None:
            raise Unread(f"it has {self.peek().text} where the formula should end")  # type: ignore[union-attr]
        return left, right

    def expr(self) -> Node:
        node = self.term()
        while self.at("punct", "+", "-"):
            sign = self.take("punct").text
            node = ("add" if sign == "+" else "sub", node, self.term())
        return node

    def term(self) -> Node:
        if self.at("punct", "-"):
            self.pos += 1
            return ("neg", self.term())
        if self.at("punct", "+"):
            self.pos += 1
        return self.chain()

    def starts_unit(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        if tok.kind in ("letter", "digit", "open"):
            return True
        if tok.kind == "punct":
            return tok.text in ("(", "[") or (tok.text == "|" and not self.bars)
        name = _op(tok)
        if name in _BARS or name in _CLOSING:
            return name in _BARS and not self.bars
        return name not in RELATIONS and name not in PRODUCTS and name not in ("cr", "}", "otherwise", "else", "if",
                                                                                  "and")

    def chain(self) -> Node:
        node = self.unit()
        while True:
            if self.at("op", *PRODUCTS):
                kind = PRODUCTS[_op(self.take("op"))]
                node = ("mul", node, self.unit(), kind)
            elif self.at("punct", "/"):
                self.pos += 1
                node = ("div", node, self.unit())
            elif self.starts_unit():
                node = ("mul", node, self.unit(), "jux")
            else:
                return node

    def unit(self) -> Node:
        node = self.primary()
        while self.at("punct", "^", "_"):
            if self.take("punct").text == "_":
                raise Unread("it puts a subscript on something that is not a symbol")
            node = self.power(node)
        return node

    def power(self, node: Node) -> Node:
        script = self.group()
        if len(script) == 1 and (script[0].text in TRANSPOSES or _op(script[0]) in TRANSPOSES):
            return ("T", node, script[0].text)
        return ("pow", node, self.sub(script, "expr"))

    def primary(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise Unread("it ends where a value was expected")
        if tok.kind == "digit":
            self.pos += 1
            return ("num", float(tok.text))
        if tok.kind == "letter":
            return self.symbol()
        if tok.kind == "open":
            return self.sub(self.group(), "expr")
        if tok.kind == "punct" and tok.text in "([":
            self.pos += 1
            inner = self.expr()
            self.take("punct", ")" if tok.text == "(" else "]")
            return inner
        if tok.kind == "punct" and tok.text == "|":
            return self.bracketed("abs", "punct", "|")
        name = _op(tok)
        if name in _BARS:
            return self.bracketed("abs" if name in ("vert", "lvert") else "norm", "op", _BARS[name])
        return self.operator(name)

    def bracketed(self, kind: str, tok_kind: str, closing: str) -> Node:
        if self.bars:
            raise Unread("it nests bars (absolute values or norms) in each other")
        self.pos += 1
        self.bars.append(closing)
        inner = self.expr()
        self.bars.pop()
        if not (self.peek() is not None and self.peek().kind == tok_kind  # type: ignore[union-attr]
                and _op(self.peek()) == closing):  # type: ignore[arg-type]
            raise Unread("a bar is not closed")
        self.pos += 1
        if kind == "abs":
            return ("abs", inner)
        order = None
        if self.at("punct", "_"):
            self.pos += 1
            script = self.group()
            if [t.text for t in script] not in (["1"], ["2"]):
                raise Unread("it takes a norm other than the 1- or 2-norm")
            order = int(script[0].text)
        return ("norm", order, inner)

    def operator(self, name: str) -> Node:
        self.pos += 1
        if name in ("frac", "dfrac", "tfrac"):
            top = self.sub(self.group(), "expr")
            return ("div", top, self.sub(self.group(), "expr"))
        if name == "sqrt":
            return ("pow", self.sub(self.group(), "expr"), ("num", 0.5))
        if name in ("sum", "prod"):
            return self.reduction(name)
        if name == "arg" and self.at("op", "max", "min"):
            return self.reduction("arg" + _op(self.take("op")))
        if name in ("max", "min", "argmax", "argmin"):
            return self.reduction(name) if self.at("punct", "_") else self.values(name)
        if name in ("1", "I"):
            return self.indicator()
        if name == "cases":
            return self.cases()
        if name.lower() in FUNCTIONS:
            return self.function(name.lower())
        raise Unread(f"it uses \\{name}, which is not read")

    def function(self, name: str) -> Node:
        base = None
        if name == "log" and self.at("punct", "_"):
            self.pos += 1
            base = self.sub(self.group(), "expr")
        if self.at("punct", "^"):
            raise Unread(f"it raises \\{name} to a power (of the function or of its value?)")
        if self.at("punct", "(", "["):
            return ("fn", name, self.primary(), base)
        arg = self.unit()
        if self.starts_unit():
            raise Unread(f"the argument of \\{name} is not clear (put it in parentheses)")
        return ("fn", name, arg, base)

    def values(self, name: str) -> Node:
        if name.startswith("arg") or not self.at("punct", "("):
            raise Unread(f"\\{name} is not over an index nor of values in parentheses")
        self.pos += 1
        items = [self.expr()]
        while self.at("punct", ","):
            self.pos += 1
            items.append(self.expr())
        self.take("punct", ")")
        if len(items) < 2:
            raise Unread(f"\\{name} of one value (over which axis?)")
        return ("ew", name, items)

    def reduction(self, name: str) -> Node:
        if not self.at("punct", "_"):
            raise Unread(f"the \\{name} does not say over which index")
        self.pos += 1
        vars_, lower, cond = self.sub(self.group(), "binder")
        upper = None
        if self.at("punct", "^"):
            self.pos += 1
            upper = self.sub(self.group(), "expr")
        if name in ("sum", "prod"):
            return ("sum", name, vars_, lower, upper, cond, self.chain())
        if lower is not None or upper is not None:
            raise Unread(f"the \\{name} has bounds")
        return ("red", name, vars_, cond, self.chain())

    def binder(self) -> tuple[list[str], Node | None, Node | None]:
        vars_ = [self.take("letter").text]
        while self.at("punct", ","):
            self.pos += 1
            vars_.append(self.take("letter").text)
        if self.at("punct", "="):
            self.pos += 1
            return vars_, self.expr(), None
        if self.peek() is not None and len(vars_) == 1:
            relation = RELATIONS.get(_op(self.take(self.peek().kind)))  # type: ignore[union-attr]
            if relation is None or relation == "eq":
                raise Unread("the index set of a sum or maximum is not read")
            return vars_, None, ("rel", [("sym", vars_[0], None, []), relation, self.expr()])
        return vars_, None, None

    def condition(self) -> Node | None:
        while self.at("op", "if") or self.at("punct", ","):
            self.pos += 1
        if self.at("op", "otherwise", "else"):
            self.pos += 1
            return None
        parts: list[Any] = [self.expr()]
        while self.peek() is not None and _op(self.peek()) in RELATIONS:  # type: ignore[arg-type]
            parts += [RELATIONS[_op(self.take(self.peek().kind))], self.expr()]  # type: ignore[union-attr]
        if len(parts) < 3:
            raise Unread("a condition is not a comparison")
        node: Node = ("rel", parts)
        if self.at("op", "and") or self.at("punct", ","):
            self.pos += 1
            rest = self.condition()
            if rest is None:
                raise Unread("a condition is not read")
            node = ("and", node, rest)
        return node

    def indicator(self) -> Node:
        if self.at("punct", "_"):
            self.pos += 1
            return ("ind", self.sub(self.group(), "condition"))
        close = {"[": ("punct", "]"), "(": ("punct", ")"), "{": ("op", "}")}
        tok = self.peek()
        if tok is None or tok.text not in close:
            raise Unread("an indicator without its condition in brackets")
        self.pos += 1
        cond = self.condition()
        self.take(*close[tok.text])
        return ("ind", cond)

    def cases(self) -> Node:
        rows: list[list[latex.Token]] = [[]]
        for tok in self.group():
            if tok.kind == "op" and tok.text == "cr":
                rows.append([])
            else:
                rows[-1].append(tok)
        found = []
        for row in [r for r in rows if r]:
            cut = [i for i, t in enumerate(row) if t.kind == "punct" and t.text == "&"]
            if len(cut) != 1:
                raise Unread("a row of the cases is not `value & condition`")
            value = [t for t in row[:cut[0]] if not (t.kind == "punct" and t.text in ",;.")]
            cond = [t for t in row[cut[0] + 1:] if not (t.kind == "punct" and t.text in ";.")]
            while cond and cond[-1].kind == "punct" and cond[-1].text == ",":
                cond.pop()
            found.append((self.sub(value, "expr"), self.sub(cond, "condition")))
        return ("cases", found)

    def symbol(self) -> Node:
        name = self.take("letter").text
        label, items = None, []
        while self.at("punct", "'"):
            self.pos += 1
        if self.at("punct", "_"):
            self.pos += 1
            script = [t for t in self.group() if t.kind not in ("open", "close")]
            label = "".join(t.text for t in script)
            items = self.subscripts(script)
        node: Node = ("sym", name, label, items)
        while self.at("punct", "^"):
            self.pos += 1
            node = self.power(node)
            if self.at("punct", "_"):
                raise Unread("it puts a subscript after a power")
        return node

    def subscripts(self, script: list[latex.Token]) -> list[Node]:
        if all(t.kind == "letter" for t in script) and len(script) > 1:
            return [("sym", t.text, None, []) for t in script]
        parts: list[list[latex.Token]] = [[]]
        for tok in script:
            if tok.kind == "punct" and tok.text == ",":
                parts.append([])
            else:
                parts[-1].append(tok)
        try:
            return [self.sub(part, "expr") for part in parts]
        except Unread:
            return []


def read(equation: str) -> tuple[Node, Node]:
    """The left side (a symbol node) and the formula of ``result = formula``."""
    return _Reader(equation).equation()
