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
    print(f"{question}: {result.score:g} / {result.max_score:g}")
    for line in result.feedback:
        print(" -", line)
    return result.score
