"""Public check cells that read like feedback: one line per question, and a summary of them all.

A question's check cell holds a function of plain ``assert`` statements, each with a message in the
course's words, under ``@public_checks("<question>")``. Running the cell runs the checks and prints
one line: ``"softmax: all public checks passed"`` (or the line the function returns), or the first
failed check's message, prefixed by the question, without a traceback. A failed check still makes
the cell fail (it raises :class:`CheckFailed`), which is what nbgrader's Validate counts; Jupyter
shows only its message. Check cells carry the ``raises-exception`` tag, so Run All goes on past a
failed check to the notebook's last cell, where :func:`public_check_summary` runs every question's
checks again on the answers as they are then.

While nbgrader autogrades (``NBGRADER_EXECUTION=autograde``, which nbgrader's own kernel and this
course's sandbox both set) the checks are kept but not run: their verdicts go nowhere, the hidden
graders decide, and a student's slow or looping code would only cost grading time.

Only the standard library is used: each notebook carries this module, verbatim, in its read-only
``check-helpers`` cell (students may not have this package); a test keeps the copies equal.
"""

import contextlib
import io
import os
import sys
import types
import warnings
from collections.abc import Callable

CHECKS: dict[str, Callable[[], object]] = {}
"""Every check function run so far in this kernel, by question."""

GRADING_MODULES = ("numpy", "matplotlib", "sympy", "IPython")
"""What the grading environment has besides Python's standard library (the notebook's opening cell says so)."""


def foreign_modules(namespace: dict | None = None) -> list[str]:
    """The packages the notebook's names come from that the grading environment does not have."""
    namespace = vars(sys.modules["__main__"]) if namespace is None else namespace
    found = set()
    for name, value in list(namespace.items()):
        try:
            module = value.__name__ if isinstance(value, types.ModuleType) else type(value).__module__ \
                if not isinstance(value, type | types.FunctionType | types.BuiltinFunctionType) else value.__module__
        except Exception:  # noqa: BLE001 - an object that will not say
            continue
        top = module.partition(".")[0] if isinstance(module, str) and not name.startswith("_") else ""
        if top and top not in sys.stdlib_module_names and top not in GRADING_MODULES + ("__main__", "builtins"):
            found.add(top)
    return sorted(found)


def foreign_note() -> str:
    """A warning line when the notebook uses a package grading lacks, else ``""``."""
    foreign = ", ".join(foreign_modules())
    return (f"\nnote: your notebook uses {foreign}, which the grading environment does not have (it has "
            f"{', '.join(GRADING_MODULES)} and Python's standard library): what needs it fails when graded."
            if foreign else "")


def autograding() -> bool:
    """nbgrader is autograding this notebook: checks are not run (see the module's docstring)."""
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


class CheckFailed(AssertionError):
    """A public check that failed: Jupyter shows its message alone, without a traceback."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows instead of the traceback: the message, in red."""
        return [f"\x1b[0;31m{line}\x1b[0m" for line in str(self).splitlines()]


def verdict(question: str, checks: Callable[[], object]) -> tuple[bool, str]:
    """Run ``checks``: ``(True, the pass line)``, or ``(False, the first failed check's message)``.

    Warnings and stderr output of the code under check are dropped: the verdict is the one line, and
    nbgrader's Validate would count any stderr output as a failed cell.
    """
    try:
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            said = checks()
    except AssertionError as exc:
        return False, f"{question}: {str(exc) or 'a public check failed'}"
    except NotImplementedError:
        return False, f"{question}: not answered yet (its answer cell still raises NotImplementedError)."
    except NameError as exc:
        return False, f"{question}: {exc}: run the answer cell above first, and keep the names as given."
    except Exception as exc:  # noqa: BLE001 - whatever the student's code raises is feedback here
        return False, f"{question}: your code raised {type(exc).__name__}: {str(exc)[:300]}"
    return True, f"{question}: {said if isinstance(said, str) else 'all public checks passed'}"


def public_checks(question: str) -> Callable[[Callable[[], object]], Callable[[], object]]:
    """Decorate a check cell's function: keep it for the summary, run it now, print or raise one line."""

    def run(checks: Callable[[], object]) -> Callable[[], object]:
        CHECKS[question] = checks
        if autograding():
            return checks
        passed, line = verdict(question, checks)
        line += foreign_note()
        if not passed:
            raise CheckFailed(line) from None
        print(line)
        return checks

    return run


def public_check_summary(questions: list[str]) -> None:
    """Run every question's public checks again and print one line each, then how many pass."""
    if autograding():
        return
    passed = 0
    for question in questions:
        if question in CHECKS:
            ok, line = verdict(question, CHECKS[question])
        else:
            ok, line = False, f"{question}: not checked yet: run its check cell."
        passed += ok
        print(("✓ " if ok else "✗ ") + line)
    print(f"{passed} of {len(questions)} questions pass their public checks.{foreign_note()}")
