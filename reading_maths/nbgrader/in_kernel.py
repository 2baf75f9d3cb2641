"""What the hidden test cells of the source notebooks call under stock ``nbgrader autograde``.

There the graders run inside the student's own kernel, as nbgrader always does (and so without
the sandbox's protection); ``reading-maths autograde`` runs the same grader files sandboxed.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings

import numpy as np

from reading_maths.course import Assignment, find_root


def _kernel_namespace() -> dict:
    from IPython import get_ipython

    shell = get_ipython()
    return shell.user_ns if shell is not None else vars(sys.modules["__main__"])


def _kernel_notebook():
    """The cells this kernel ran, as :mod:`reading_maths.grading.causes` reads a notebook: each cell's error
    found again from its text (a syntax error, an import of a module this Python lacks)."""
    import ast
    import importlib.util

    from IPython import get_ipython

    from reading_maths.grading.causes import Notebook
    from reading_maths.sandbox.session import Cell

    shell = get_ipython()
    history = list(getattr(getattr(shell, "history_manager", None), "input_hist_raw", []) or [])
    cells, errors = [], {}
    for number, source in enumerate(history):
        if not source or "grade_question(" in source:
            continue
        cell = Cell(number, f"the cell run as In [{number}]", source)
        cells.append(cell)
        try:
            tree = ast.parse(cell.code)
        except SyntaxError as exc:
            errors[number] = f"{cell.label} raised SyntaxError: {exc.msg} (line {exc.lineno})"
            continue
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            missing = [n for n in names if importlib.util.find_spec(n.split(".")[0]) is None]
            if missing:
                errors[number] = f"{cell.label} raised ModuleNotFoundError: No module named '{missing[0]}'"
                break
    return Notebook(cells, errors)


def grade_question(assignment: str, question: str) -> float:
    """Run ``graders/<assignment>/<question>.py`` on the kernel's names; print feedback, return the score.

    The returned number becomes the cell's result, which nbgrader reads as partial credit.
    Warnings and the student's stderr are kept out of the cell, since nbgrader scores any cell
    with stderr output as 0.
    """
    grader = Assignment(assignment, find_root()).grader(question)  # the kernel runs in autograded/<student>/<a>/
    namespace = _kernel_namespace()
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        result = grader.run(namespace)
        if result.status == "missing" or any("raised NameError" in c.message for c in result.cases):
            from reading_maths.grading.causes import explain

            explain(result, grader.names, None, 1 << 30, _kernel_notebook())
    print(f"{question}: {result.score:g} / {result.max_score:g}")
    for line in result.feedback:
        print(" -", line)
    return result.score
