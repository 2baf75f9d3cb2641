"""The disguises a student puts on a copied answer, for planting copies in a class (the integrity calibration, the
demo): each takes Python source and returns source that runs the same.

:data:`DISGUISES` holds renamed variables, reordered definitions, reformatting, dead code, a comment on every line,
a loop turned into a comprehension (or the other way round where the answer has no such loop), and all at once.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable

from classroom.builder import Answer

KEPT = {"self", "np", "math", "numpy", "sympy", "sp"}


def _local_names(tree: ast.AST, public: set[str]) -> list[str]:
    """Names the code assigns or takes as parameters, and its helpers' names, but not the ones graded."""
    found: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found[node.id] = None
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            found[node.name] = None
    for node in ast.walk(tree):  # a parameter keeps its name: the graders call by keyword
        if isinstance(node, ast.arg):
            found.pop(node.arg, None)
    return [n for n in found if n not in public and n not in KEPT and not n.startswith("entry_")]


def rename(source: str, prefix: str = "acc") -> str:
    """Every local variable and helper renamed (``total`` → ``acc_3``); the graded names kept."""
    tree = ast.parse(source)
    for i, name in enumerate(_local_names(tree, _graded(tree))):
        source = re.sub(rf"(?<![\w.]){re.escape(name)}\b", f"{prefix}_{i}", source)
    return source


def _graded(tree: ast.Module) -> set[str]:
    """The names the cell ends up defining at top level that a grader reads: all of them but ``_private`` ones."""
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return {n for n in names if not n.startswith("_")}


def reorder(source: str) -> str:
    """The top-level definitions in reverse order (imports first, plain statements after every definition)."""
    tree = ast.parse(source)
    segments = [(n, ast.get_source_segment(source, n, padded=True) or "") for n in tree.body]
    imports = [s for n, s in segments if isinstance(n, ast.Import | ast.ImportFrom)]
    defs = [s for n, s in segments if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    rest = [s for n, s in segments if not isinstance(n, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef)]
    return "\n\n".join(imports + defs[::-1] + rest) + "\n"


def reformat(source: str) -> str:
    """Laid out anew, as a formatter would (and no comment left): :func:`ast.unparse`."""
    return ast.unparse(ast.parse(source)) + "\n"


def dead_code(source: str) -> str:
    """An unused helper, and an unused statement at the top of every function."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.body[:0] = ast.parse("_trace = [step * 2 for step in range(3)]\nif _trace is None:\n"
                                      "    print('never')").body
    helper = "def _unused_helper(values):\n    total = 0\n    for v in values:\n        total += v\n    return total\n"
    return helper + "\n\n" + ast.unparse(tree) + "\n"


def comment_lines(source: str) -> str:
    """A comment at the end of every logical line."""
    ends = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.NEWLINE}
    lines = source.splitlines()
    return "\n".join(f"{line}  # step {i}: this line does its part" if i in ends and line.strip() else line
                     for i, line in enumerate(lines, 1)) + "\n"


class _LoopToComprehension(ast.NodeTransformer):
    """``xs = []`` then ``for t in it: xs.append(e)`` becomes ``xs = [e for t in it]``, the first one found; where
    there is none, the first ``xs = [e for t in it]`` becomes the loop."""

    def __init__(self, backwards: bool):
        self.backwards, self.done = backwards, False

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and not self.done:
                setattr(node, field, self._rewrite(body))
        return node

    def _rewrite(self, body: list) -> list:
        for i, statement in enumerate(body):
            if self.backwards and _comprehension(statement):
                target = statement.targets[0].id
                comp = statement.value.generators[0]
                loop = ast.parse(f"{target} = []\nfor _ in _:\n    {target}.append(_)").body
                loop[1].target, loop[1].iter = comp.target, comp.iter
                loop[1].body[0].value.args = [statement.value.elt]
                self.done = True
                return body[:i] + loop + body[i + 1:]
            if not self.backwards and i + 1 < len(body) and _append_loop(statement, body[i + 1]):
                loop = body[i + 1]
                value = ast.ListComp(loop.body[0].value.args[0], [ast.comprehension(loop.target, loop.iter, [], 0)])
                self.done = True
                return body[:i] + [ast.Assign([statement.targets[0]], value, lineno=0)] + body[i + 2:]
        return body


def _comprehension(node: ast.AST) -> bool:
    return (isinstance(node, ast.Assign) and isinstance(node.value, ast.ListComp) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and len(node.value.generators) == 1
            and not node.value.generators[0].ifs)


def _append_loop(first: ast.AST, loop: ast.AST) -> bool:
    if not (isinstance(first, ast.Assign) and isinstance(first.value, ast.List) and not first.value.elts
            and isinstance(first.targets[0], ast.Name) and isinstance(loop, ast.For) and len(loop.body) == 1
            and not loop.orelse):
        return False
    call = loop.body[0].value if isinstance(loop.body[0], ast.Expr) else None
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == first.targets[0].id
            and len(call.args) == 1)


def loop_to_comprehension(source: str) -> str:
    """The first append loop as a comprehension (or, with none, the first comprehension as a loop)."""
    tree = ast.parse(source)
    change = _LoopToComprehension(backwards=False)
    change.visit(tree)
    if not change.done:
        _LoopToComprehension(backwards=True).visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def everything(source: str) -> str:
    """Every disguise at once."""
    return comment_lines(dead_code(reorder(rename(loop_to_comprehension(source)))))


DISGUISES: dict[str, Callable[[str], str]] = {
    "renamed": rename, "reordered": reorder, "reformatted": reformat, "dead code": dead_code,
    "a comment per line": comment_lines, "loop to comprehension": loop_to_comprehension, "all at once": everything,
}


def disguised(answer: Answer, how: str) -> Answer:
    """``answer`` with the disguise ``how`` on every one of its cells."""
    return Answer(answer.question, "copy", f"{answer.label} ({how})",
                  {cell: DISGUISES[how](code) for cell, code in answer.cells.items()})
