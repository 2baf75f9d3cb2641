"""Why a question's names are missing when graded, said plainly in that question's feedback.

A name the grader cannot find, or a function that raises ``NameError``, has a cause somewhere else in
the notebook: the cell defining it failed (a module the grading environment lacks, a syntax error), sits
below the question's test cell, is a Markdown or Raw cell, or is a ``%%bash`` cell or ``%%timeit`` cell;
or the name is defined in no cell at all (it lived only in the student's session).  All of this is read
on the trusted side from the notebook's own text and the cells' errors; nothing the child says is
believed beyond the error lines the notebook's report already shows.
"""

from __future__ import annotations

import builtins
import re
import symtable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from reading_maths.cells import not_run, split_magic, to_python
from reading_maths.kit.checks import GRADING_MODULES
from reading_maths.results import QuestionResult
from reading_maths.sandbox.session import Cell

TIMEIT = ("`{name}` is defined in {label}, a `%%timeit` cell: `%%timeit` runs its cell inside a function of its "
          "own (in Jupyter as when grading), so what it defines is not kept. Define it in a plain Python cell.")
_DEFINES = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)|^(\w+)\s*(?::[^=]*)?=(?!=)", re.MULTILINE)
_MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")
_WHERE = re.compile(r"\(<cell -?\d+>, line (\d+)\)")
_IPYTHON = frozenset({"get_ipython", "display", "__name__", "In", "Out", "exit", "quit"})


IMPORTS = {"np": "import numpy as np", "numpy": "import numpy as np", "math": "import math",
           "plt": "import matplotlib.pyplot as plt", "sp": "import sympy as sp", "sympy": "import sympy"}
"""Names that are modules under their usual alias: a missing one means a missing import, not a renamed answer."""


def defined_names(code: str) -> set[str]:
    """Names a cell's Python binds at its top level (also inside ``if``/``for``/``try``/``with``)."""
    return set(_defined_names(code))


@lru_cache(maxsize=1024)
def _defined_names(code: str) -> frozenset[str]:
    """:func:`defined_names`, remembered per cell text: most of a class's cells are the release notebook's own."""
    try:
        table = symtable.symtable(code, "cell", "exec")
    except (SyntaxError, ValueError):
        return frozenset(m.group(1) or m.group(2) for m in _DEFINES.finditer(code))  # the lines that look like defs
    return frozenset(s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()
                     or s.is_namespace())


def used_names(code: str) -> set[str]:
    """Global names a cell's Python reads, in its functions included."""
    return set(_used_names(code))


@lru_cache(maxsize=1024)
def _used_names(code: str) -> frozenset[str]:
    try:
        table = symtable.symtable(code, "cell", "exec")
    except (SyntaxError, ValueError):
        return frozenset()
    found: set[str] = set()

    def walk(scope) -> None:
        top = scope.get_type() == "module"
        for s in scope.get_symbols():
            if s.is_referenced() and (s.is_global() if not top else not s.is_assigned()):
                found.add(s.get_name())
        for child in scope.get_children():
            walk(child)

    walk(table)
    return frozenset(found)


@dataclass
class Notebook:
    """What grading knows of one notebook: the code cells it ran, their errors, and its other cells."""

    cells: list[Cell]
    errors: dict[int, str]
    others: list[tuple[int, str, str]] = field(default_factory=list)
    """``(index, cell type, source)`` of the Markdown and Raw cells"""

    @cached_property
    def _defines(self) -> dict[int, set[str]]:
        """Each cell's top-level names, read when a question first misses one."""
        return {c.index: defined_names(self._python(c)) for c in self.cells}

    @staticmethod
    def _python(cell: Cell) -> str:
        """The Python a cell holds: for a cell magic that keeps nothing (``%%timeit``), its body's."""
        split = split_magic(cell.source)
        return to_python(split[2]) if split and split[0] == "timeit" else cell.code

    def cause(self, name: str, place: int | None) -> str | None:
        """Why ``name`` is not defined at notebook position ``place`` (None: the end), when the notebook says."""
        above = [c for c in self.cells if place is None or c.index < place]
        defining = [c for c in above if name in self._defines[c.index]]
        for cell in reversed(defining):
            if cell.index in self.errors:
                return f"`{name}` is not defined because {self._error(cell.index)}.{self._module_hint(cell.index)}"
            split = split_magic(cell.source)
            if split and split[0] == "timeit":
                return TIMEIT.format(name=name, label=cell.label)
        if defining:
            return None
        below = [c for c in self.cells if c not in above and name in self._defines[c.index]]
        if below:
            return (f"`{name}` is defined in {below[0].label}, below this question's test cell: grading runs the "
                    "notebook from the top, as Restart & Run All does, so the question is graded before that cell "
                    "runs. Move the definition above the test cell.")
        for index, kind, source in self.others:
            if (place is None or index < place) and name in defined_names(source):
                return (f"`{name}` is defined in cell {index + 1}, which is a {kind.capitalize()} cell, so it never "
                        "runs: change it to a Code cell.")
        found = [note for c in above for note in not_run(c.source)]
        found += [f"{self._error(c.index)}.{self._module_hint(c.index)}" for c in above
                  if c.index in self.errors and _MISSING_MODULE.search(self.errors[c.index])]
        if found:
            return f"`{name}` is not defined in any cell that runs when graded. " + " ".join(dict.fromkeys(found))
        if name in IMPORTS:
            return (f"`{name}` is not defined in any cell above this question: it is a module's usual name, so put "
                    f"`{IMPORTS[name]}` in a code cell above (the notebook's first code cell is the usual place).")
        return (f"`{name}` is not defined in any cell above this question: keep the name `{name}` exactly as given "
                "(a renamed function is not found), in a cell above the test cell (a definition that lived only in "
                "your session, from a cell since deleted or changed, is not in the notebook).")

    def _error(self, index: int) -> str:
        return _WHERE.sub(r"(line \1)", self.errors[index])

    def _module_hint(self, index: int) -> str:
        missing = _MISSING_MODULE.search(self.errors[index])
        if missing is None:
            return ""
        top = missing.group(1).split(".")[0]
        return (f" The grading environment has no `{top}`: use only the modules listed at the top of the notebook "
                f"({', '.join(GRADING_MODULES)} and Python's standard library).")

    def redefined_below(self, names: list[str], place: int) -> list[str]:
        """A note for each of ``names`` that a cell below the grade cell at ``place`` defines again: the question is
        graded on the draft above (nbgrader's semantics), and the student should know why."""
        notes = []
        for name in names:
            below = next((c for c in self.cells if c.index > place and name in self._defines[c.index]), None)
            if below is not None:
                notes.append(f"Graded as `{name}` stood at this question's grade cell; {below.label}, below it, "
                             f"defines `{name}` again. Grading runs the notebook from the top and grades each "
                             "question at its grade cell, so a fix written below it is not seen: move it up, into "
                             "the answer cell.")
        return notes

    def undefined_used(self, names: list[str], place: int | None) -> list[str]:
        """Names the cells defining ``names`` read but no cell above ``place`` that ran defines."""
        above = [c for c in self.cells if place is None or c.index < place]
        defined = set().union(*(self._defines[c.index] for c in above if c.index not in self.errors))
        used = set().union(*(used_names(c.code) for c in above if set(names) & self._defines[c.index]))
        return sorted(used - defined - set(dir(builtins)) - _IPYTHON)


def explain(result: QuestionResult, names: list[str], place: int | None, first: int, notebook: Notebook) -> None:
    """Add to ``result`` what its feedback should say about the notebook: the cells of this question (from
    notebook position ``first`` to ``place``) that are not run, and why its names are missing."""
    result.notes += [note for c in notebook.cells if first <= c.index < (place if place is not None else 1 << 30)
                     for note in not_run(c.source)]
    if result.status == "missing":
        causes = [notebook.cause(n, place) for n in names]
        if any(causes):
            result.problem = " ".join(c for c in causes if c)
    elif any("raised NameError" in c.message for c in result.cases if not c.passed):
        causes = [notebook.cause(n, place) for n in notebook.undefined_used(names, place)]
        result.problem = " ".join(c for c in causes if c)
    if result.score < result.max_score and place is not None:
        result.notes += notebook.redefined_below(names, place)
    result.notes = list(dict.fromkeys(result.notes))
