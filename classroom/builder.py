"""One way to build answered notebooks, for the demo, the tests and the benchmarks.

:func:`answered` fills a notebook's answer cells with the reference solutions, replacing the ones
asked for; :class:`ClassBuilder` collects, per question, right and wrong answers from the source
notebook, the graders' mistake catalogues and the corpora in ``tests/corpora/``; :func:`fill`
writes a chosen set of answers into a release notebook.
"""

from __future__ import annotations

import ast
import inspect
import runpy
import textwrap
import types
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from reading_maths.course import Assignment
from reading_maths.notebook import SOLUTION_MARKERS, grade_id, nbgrader_meta


def answered(base: nbformat.NotebookNode, source: nbformat.NotebookNode,
             replace: Mapping[str, str] | None = None) -> nbformat.NotebookNode:
    """A copy of ``base`` (a release or source notebook) with ``source``'s solution in every answer cell.

    ``replace`` maps a question id (its ``<question>-answer`` cell) or an answer cell's grade id to the
    code written there instead.
    """
    solutions = {grade_id(c): strip_solution(c.source) for c in source.cells if nbgrader_meta(c).get("solution")}
    wanted = {(k if k in solutions else f"{k}-answer"): v for k, v in (replace or {}).items()}
    nb = nbformat.from_dict(base)
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in wanted:
            cell.source = wanted[gid]
        elif gid in solutions:
            cell.source = solutions[gid]
    return nb


@dataclass(frozen=True)
class Answer:
    """One way of answering one question: code per answer cell (grade id → source)."""

    question: str
    kind: str  # "right" or "wrong"
    label: str
    cells: dict[str, str]
    mistake: str | None = None


def _defined_names(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def strip_solution(code: str) -> str:
    return textwrap.dedent(SOLUTION_MARKERS.sub("", code)).strip() + "\n"


def _value_code(name: str, value: Any, done: set[int] | None = None) -> str:
    """Python source that defines ``name`` as ``value`` in a notebook (functions by their source)."""
    done = set() if done is None else done
    if isinstance(value, types.FunctionType):
        return _function_code(name, value, done)
    if isinstance(value, types.ModuleType):
        return f"import {value.__name__} as {name}\n" if value.__name__ != name else f"import {value.__name__}\n"
    module = type(value).__module__.split(".")[0]
    if module == "sympy":
        import sympy

        return f"from sympy import *\n{name} = {sympy.srepr(value)}\n"
    text = repr(value)
    prelude = "from numpy import array, inf, nan, float64, int64\n" if "array(" in text or "inf" in text \
        or "nan" in text else ""
    return f"{prelude}{name} = {text}\n"


def _function_code(name: str, func: types.FunctionType, done: set[int]) -> str:
    if id(func) in done:
        return ""
    done.add(id(func))
    parts: list[str] = []
    # a closure's variables become plain assignments (e.g. a mistake built by a factory function)
    for ref, cell in zip(func.__code__.co_freevars, func.__closure__ or (), strict=False):
        parts.append(_value_code(ref, cell.cell_contents, done))
    # the module-level helpers and modules the function uses, defined first
    for ref in _global_names(func.__code__):
        value = func.__globals__.get(ref)
        if value is None or ref in {"np", "numpy"}:
            continue
        if isinstance(value, types.FunctionType) and value.__module__ == func.__module__:
            parts.append(_function_code(ref, value, done))
        elif isinstance(value, types.ModuleType):
            parts.append(_value_code(ref, value, done))
        elif callable(value) and getattr(value, "__name__", None) and \
                getattr(__import__("numpy"), value.__name__, None) is value:
            parts.append(f"{ref} = np.{value.__name__}\n")  # e.g. g_squared = np.square
        elif isinstance(value, (int, float, str, tuple)) and not ref.startswith("__"):
            parts.append(f"{ref} = {value!r}\n")
    if func.__name__ == "<lambda>":
        parts.append(f"{name} = {_lambda_source(func)}\n")
    else:
        source = textwrap.dedent(inspect.getsource(func))
        parts.append(source if source.endswith("\n") else source + "\n")
        if func.__name__ != name:
            parts.append(f"{name} = {func.__name__}\n")
    return "\n".join(p for p in parts if p)


def _global_names(code: types.CodeType) -> list[str]:
    """Global names a code object uses, its nested comprehensions and lambdas included."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += [n for n in _global_names(const) if n not in names]
    return names


def _lambda_source(func: types.FunctionType) -> str:
    """The exact source of a lambda (``inspect.getsource`` gives its whole line, e.g. a dict literal)."""
    path = inspect.getsourcefile(func)
    text = Path(path).read_text(encoding="utf-8") if path else ""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Lambda) and node.lineno == func.__code__.co_firstlineno:
            segment = ast.get_source_segment(text, node) or ""
            try:
                code = next(c for c in compile(f"({segment})", "<lambda>", "eval").co_consts
                            if isinstance(c, types.CodeType))
            except (SyntaxError, StopIteration):
                continue
            if code.co_code == func.__code__.co_code and code.co_varnames == func.__code__.co_varnames:
                return segment.replace("\n", " ")
    raise ValueError(f"cannot recover the source of {func!r}")


class ClassBuilder:
    """Answers for one assignment, from the source notebook, the graders and the corpora."""

    def __init__(self, assignment: Assignment):
        self.assignment = assignment
        self.answer_cells: dict[str, str] = {}  # grade id → the source solution
        self.owner: dict[str, str] = {}  # a name a solution defines → its answer cell's grade id
        for cell in assignment.source.cells:  # code answers, hand-marked ones too (a build entry's cell)
            if nbgrader_meta(cell).get("solution") and cell.cell_type == "code" and grade_id(cell):
                self.answer_cells[grade_id(cell)] = cell.source
                for name in _defined_names(strip_solution(cell.source)):
                    self.owner.setdefault(name, grade_id(cell))
        self.manual_cells = {grade_id(c): c for c in assignment.source.cells  # written answers
                             if nbgrader_meta(c).get("solution") and nbgrader_meta(c).get("grade")
                             and c.cell_type == "markdown"}

    def _cell_for(self, question: str, name: str) -> str | None:
        if name in self.owner:
            return self.owner[name]
        if f"{question}-answer" in self.answer_cells:
            return f"{question}-answer"
        return next(iter(self.answer_cells), None)

    def from_env(self, question: str, kind: str, label: str, env: dict, mistake: str | None = None) -> Answer | None:
        cells: dict[str, str] = {}
        done: set[int] = set()
        try:
            for name, value in env.items():
                cell = self._cell_for(question, name)
                if cell is None:
                    return None
                cells[cell] = cells.get(cell, "import numpy as np\n") + "\n" + _value_code(name, value, done)
        except (OSError, TypeError, ValueError):
            return None  # a value whose source cannot be recovered: not usable in the demo
        return Answer(question, kind, label, cells, mistake)

    def pool(self) -> dict[str, dict[str, list[Answer]]]:
        """Per question: right and wrong answers."""
        root = self.assignment.root
        result: dict[str, dict[str, list[Answer]]] = {}
        for question in self.assignment.questions:
            right: list[Answer] = []
            wrong: list[Answer] = []
            try:
                grader = self.assignment.grader(question)
            except Exception:  # noqa: BLE001
                grader = None
            own = grader.names[0] if grader and grader.names else None  # the question's own answer defines it
            owned = {self.owner[own]} if own in self.owner else set()
            source_cells = {g: strip_solution(s) for g, s in self.answer_cells.items()
                            if g == f"{question}-answer" or g.startswith(f"{question}-") or g in owned}
            if source_cells:
                right.append(Answer(question, "right", "reference", source_cells))
            corpus_path = root / "tests" / "corpora" / self.assignment.id / f"{question}.py"
            corpus: dict = {}
            if corpus_path.is_file():
                try:
                    corpus = runpy.run_path(str(corpus_path))
                except Exception:  # noqa: BLE001 - a broken corpus only means fewer demo answers
                    corpus = {}
            for label, env in corpus.get("RIGHT", {}).items():
                if (a := self.from_env(question, "right", label, env)) is not None:
                    right.append(a)
            if grader is not None and len(grader.names) == 1:
                for m in grader.mistakes:
                    if (a := self.from_env(question, "wrong", m.name, {grader.names[0]: m.impl}, m.name)):
                        wrong.append(a)
            for label, (env, expected) in corpus.get("WRONG", {}).items():
                if (a := self.from_env(question, "wrong", label, env, expected)) is not None:
                    wrong.append(a)
            result[question] = {"right": right, "wrong": wrong}
        return result


def fill(
    nb: nbformat.NotebookNode, answers: list[Answer], manual: dict[str, str] | None = None
) -> nbformat.NotebookNode:
    """A copy of a release notebook with the answers written into its answer cells."""
    nb = nbformat.from_dict(nb)
    code = {g: s for a in answers for g, s in a.cells.items()}
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in code:
            cell.source = code[gid]
        elif manual and gid in manual:
            cell.source = manual[gid]
    return nb
