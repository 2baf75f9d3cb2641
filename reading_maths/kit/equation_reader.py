"""Reading a "Build this" equation ``result = formula`` into a small tree, for :mod:`equation_value`.

Recursive descent over :class:`~reading_maths.kit.equation_tokens.Tokens`: sums and products over index sets
(``\\sum_{j \\neq y_i}``, ``\\sum_{i=1}^{N}``, ``\\sum_{i,j}``), ``\\max``/``\\min`` of values or over an
index, ``\\arg\\max``, norms, absolute values, ``cases``, indicator brackets, fractions, roots, powers,
transposes, the usual functions and the functions an equation defines (:mod:`equation_clauses`).  A node is
a tuple whose first item names its kind.  What the reader does not know raises
:class:`~reading_maths.kit.equation_tokens.Unread` with the reason, never a guess.
"""

from __future__ import annotations

from reading_maths.kit import equation_clauses as clauses
from reading_maths.kit import latex
from reading_maths.kit.equation_tokens import RELATIONS, Node, Tokens, Unread, name, op

FUNCTIONS = {"exp", "log", "ln", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sigmoid", "relu", "softmax", "erf"}
PRODUCTS = {"cdot": "dot", "times": "dot", "odot": "had", "circ": "had"}
TRANSPOSES = {"T", "top", "intercal", "mathsf{T}"}
BARS = {"|": "|", "Vert": "Vert", "lVert": "rVert", "vert": "vert", "lvert": "rvert"}
"""Opening bars of norms (double) and absolute values (single), and their closing bars."""
CLOSING = {"rVert", "rvert"}


class Reader(Tokens):
    """The grammar of a formula."""

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
        name = op(tok)
        if name in BARS or name in CLOSING:
            return name in BARS and not self.bars
        return name not in RELATIONS and name not in PRODUCTS and name not in ("cr", "}", "otherwise", "else", "if",
                                                                                  "and")

    def chain(self) -> Node:
        node = self.unit()
        while True:
            if self.at("op", *PRODUCTS):
                kind = PRODUCTS[op(self.take("op"))]
                node = ("mul", node, self.unit(), kind)
            elif self.at("punct", "/"):
                self.pos += 1
                node = ("div", node, self.unit())
                if self.starts_unit():
                    raise Unread("it divides by a product without parentheses (is a/bc a/(bc) or (a/b)c?)")
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
        if len(script) == 1 and (script[0].text in TRANSPOSES or op(script[0]) in TRANSPOSES):
            return ("T", node, script[0].text)
        return ("pow", node, self.sub(script, Reader.expr))

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
            return self.sub(self.group(), Reader.expr)
        if tok.kind == "punct" and tok.text in "([":
            self.pos += 1
            inner = self.expr()
            self.take("punct", ")" if tok.text == "(" else "]")
            return inner
        if tok.kind == "punct" and tok.text == "|":
            return self.bracketed("abs", "punct", "|")
        name = op(tok)
        if name in BARS:
            return self.bracketed("abs" if name in ("vert", "lvert") else "norm", "op", BARS[name])
        return self.operator(name)

    def bracketed(self, kind: str, tok_kind: str, closing: str) -> Node:
        if self.bars:
            raise Unread("it nests bars (absolute values or norms) in each other")
        self.pos += 1
        self.bars.append(closing)
        inner = self.expr()
        self.bars.pop()
        if not (self.peek() is not None and self.peek().kind == tok_kind  # type: ignore[union-attr]
                and op(self.peek()) == closing):  # type: ignore[arg-type]
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
            top = self.sub(self.group(), Reader.expr)
            return ("div", top, self.sub(self.group(), Reader.expr))
        if name == "sqrt":
            return ("pow", self.sub(self.group(), Reader.expr), ("num", 0.5))
        if name in ("sum", "prod"):
            return self.reduction(name)
        if name == "arg" and self.at("op", "max", "min"):
            return self.reduction("arg" + op(self.take("op")))
        if name in ("max", "min", "argmax", "argmin"):
            return self.reduction(name) if self.at("punct", "_") else self.values(name)
        if name in ("1", "I"):
            return clauses.indicator(self)
        if name == "cases":
            return clauses.cases(self)
        if name in self.funcs:
            return self.call(name)
        if name.lower() in FUNCTIONS:
            return self.function(name.lower())
        raise Unread(f"it uses \\{name}, which is not read")

    def function(self, name: str) -> Node:
        base = None
        if name == "log" and self.at("punct", "_"):
            self.pos += 1
            base = self.sub(self.group(), Reader.expr)
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
        vars_, lower, cond = self.sub(self.group(), clauses.binder)
        upper = None
        if self.at("punct", "^"):
            self.pos += 1
            upper = self.sub(self.group(), Reader.expr)
        if name in ("sum", "prod"):
            return ("sum", name, vars_, lower, upper, cond, self.chain())
        if lower is not None or upper is not None:
            raise Unread(f"the \\{name} has bounds")
        return ("red", name, vars_, cond, self.chain())

    def symbol(self, head: bool = False) -> Node:
        letter = self.take("letter").text
        label, items = None, []
        while self.at("punct", "'"):
            self.pos += 1
        if name(letter) in self.funcs and not head and self.at("punct", "("):
            return self.call(name(letter))
        if self.at("punct", "_"):
            self.pos += 1
            script = [t for t in self.group() if t.kind not in ("open", "close")]
            label = "".join(t.text for t in script)
            items = self.subscripts(script)
        node: Node = ("sym", letter, label, items)
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
            return [self.sub(part, Reader.expr) for part in parts]
        except Unread:
            return []


    def call(self, fname: str) -> Node:
        self.take("punct", "(")
        args = [self.expr()]
        while self.at("punct", ","):
            self.pos += 1
            args.append(self.expr())
        self.take("punct", ")")
        return ("call", fname, args)


def read(equation: str) -> tuple[Node, Node, list[tuple[Node, Node]]]:
    """The left side (a symbol node) and the formula of ``result = formula``, and the definitions after it
    (``symbol = formula``, or ``("fun", name, parameters)`` and the function's formula)."""
    return clauses.equation(Reader(equation))
