"""Decoys: a student's function rewritten so that it computes the same thing from other source and bytecode.

A test of behaviour passes on every decoy: each is the same computation, written differently (a dead
store, the local names renamed, two independent statements swapped, the result passed through a
helper).  A test that compares the function's source, its bytecode or its disassembly with a copy,
or otherwise judges how the function is written, fails on them, and so judges something other than
what the function computes.  Like mutants (:mod:`reading_maths.kit.mutation`), decoys are source
text made on the trusted side and run where the student's code runs.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from reading_maths.kit.mutation import Mutant, parse_function

HELPER = "_decoy_same"


def _start(fn: ast.FunctionDef) -> int:
    return 1 if ast.get_docstring(fn) is not None else 0


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _parameters(fn: ast.FunctionDef) -> set[str]:
    args = fn.args
    return {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}


def _dead_store(fn: ast.FunctionDef) -> ast.FunctionDef | None:
    fn.body.insert(_start(fn), ast.parse("_decoy_unused = 0").body[0])
    return fn


def _renamed(fn: ast.FunctionDef) -> ast.FunctionDef | None:
    """Every local variable renamed (not the parameters); None when there is none, or renaming is not safe."""
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Global, ast.Nonlocal))
           for n in ast.walk(fn) if n is not fn) or _names(fn) & {"locals", "vars", "eval", "exec"}:
        return None
    stored = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local = stored - _parameters(fn)
    if not local:
        return None
    taken = _names(fn) | _parameters(fn)
    new = {}
    for number, name in enumerate(sorted(local)):
        new[name] = f"_v{number}"
        while new[name] in taken:
            new[name] = "_" + new[name]
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in new:
            node.id = new[node.id]
    return fn


def _reordered(fn: ast.FunctionDef) -> ast.FunctionDef | None:
    """The first two adjacent assignments that share no local name, swapped; None when there are none."""
    local = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | _parameters(fn)
    body = fn.body
    for i in range(len(body) - 1):
        a, b = body[i], body[i + 1]
        if not all(isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets) for s in (a, b)):
            continue
        if not (_names(a) & _names(b) & local):
            body[i], body[i + 1] = b, a
            return fn
    return None


class _WrapReturns(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # returns of nested functions stay as they are

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        if node.value is not None:
            node.value = ast.Call(ast.Name(HELPER, ast.Load()), [node.value], [])
        return node


def _helper(fn: ast.FunctionDef) -> ast.FunctionDef | None:
    """Every result passed through an identity helper defined in the function."""
    if HELPER in _names(fn) or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(fn)):
        return None
    fn.body = [_WrapReturns().visit(s) for s in fn.body]
    fn.body.insert(_start(fn), ast.parse(f"def {HELPER}(value):\n    return value").body[0])
    return fn


REWRITES: dict[str, Callable[[ast.FunctionDef], ast.FunctionDef | None]] = {
    "a dead store added": _dead_store,
    "its local names renamed": _renamed,
    "two independent statements swapped": _reordered,
    "its result passed through a helper": _helper,
}


def decoys(source: str) -> list[Mutant]:
    """The rewrites of the one function in ``source`` that apply, each with other source and bytecode."""
    fn = parse_function(source)
    original = ast.unparse(fn)
    found: dict[str, Mutant] = {}
    for what, rewrite in REWRITES.items():
        tree = rewrite(copy.deepcopy(fn))
        if tree is None:
            continue
        text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
        if text.strip() != original.strip() and text not in found:
            found[text] = Mutant(what, text)
    return list(found.values())
