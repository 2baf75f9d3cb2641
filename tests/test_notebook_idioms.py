"""Cells run as IPython runs them: every idiom of tests/notebook_idioms.py gives the same names and scores in a
real IPython kernel (nbclient, as nbgrader runs a notebook) and through the sandbox, and says in the question's
sandboxed feedback what grading does not run."""

import json
import tempfile
import textwrap
import warnings

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from notebook_idioms import MARKDOWN, REFUSED, SAME

from conftest import ROOT
from reading_maths.course import Assignment
from reading_maths.grading.causes import Notebook, explain
from reading_maths.sandbox.process import choose
from reading_maths.sandbox.session import Cell, StudentSession

pytestmark = [pytest.mark.sandbox, pytest.mark.kernel]

QUESTION = "softmax"
KERNEL_SAYS = {"%%timeit cell keeps nothing", "a module grading lacks", "a module grading lacks, in its own cell",
               "a syntax error in another cell", "a helper defined in no cell"}


def _plain(value):
    """A value both sides can compare: plain numbers, strings and lists of them; None for anything else."""
    if isinstance(value, (bool, int, float, str)) or hasattr(value, "item") and np.ndim(value) == 0:
        return value.item() if hasattr(value, "item") else value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def in_kernel(idiom: str, cells: list[str], names: list[str]) -> tuple[dict, float, str]:
    """The idiom's cells run as a notebook in an IPython kernel, then the hidden test cell's call."""
    report = textwrap.dedent(f"""
        import contextlib as _cl, io as _io, json as _json
        import numpy as _np
        from reading_maths.nbgrader.in_kernel import grade_question as _grade
        def _plain(v):
            if isinstance(v, (bool, int, float, str)) or hasattr(v, "item") and _np.ndim(v) == 0:
                return v.item() if hasattr(v, "item") else v
            return v if isinstance(v, list) and all(isinstance(x, str) for x in v) else None
        with _cl.redirect_stdout(_io.StringIO()) as _said:
            _score = _grade("code", {QUESTION!r})
        print(_json.dumps([{{n: _plain(globals()[n]) for n in {names!r} if n in globals()}}, _score,
                           _said.getvalue()]))
    """)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(MARKDOWN[idiom])] if idiom in MARKDOWN else []
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells] + [nbformat.v4.new_code_cell(report)]
    (ROOT / "autograded").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "autograded") as folder:
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": folder}}).execute()
    printed = [o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout"]
    assert printed, nb.cells[-1].outputs
    return tuple(json.loads("".join(printed).strip().splitlines()[-1]))


def sandboxed(idiom: str, cells: list[str], names: list[str]):
    """The idiom's cells run by the sandboxed child; the grader on the trusted side; the feedback explained."""
    grader = Assignment("code", ROOT).grader(QUESTION)
    first = 1 if idiom in MARKDOWN else 0
    run = [Cell(first + i, f"cell {first + i + 1}", c) for i, c in enumerate(cells)]
    others = [(0, "markdown", MARKDOWN[idiom])] if idiom in MARKDOWN else []
    wanted = list(dict.fromkeys(grader.names + names))
    with StudentSession(run, wanted, choose(allow_unsafe=True), cell_timeout=60, call_timeout=20) as session, \
            warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        env = session.env()
        result = grader.run({n: env.get(n) for n in grader.names}, session.interruption)
        explain(result, grader.names, None, 0, Notebook(run, session.cell_errors, others))
    return {n: _plain(env[n]) for n in names if n in env}, result


@pytest.mark.parametrize("idiom", SAME)
def test_idiom_gives_the_same_names_and_score_in_the_kernel_and_the_sandbox(idiom):
    cells, names, said = SAME[idiom]
    kernel_names, kernel_score, kernel_said = in_kernel(idiom, cells, names)
    sandbox_names, result = sandboxed(idiom, cells, names)
    assert sandbox_names == kernel_names
    assert result.score == kernel_score
    if said:
        assert any(said in line for line in result.feedback), result.feedback
    if said and idiom in KERNEL_SAYS:  # stock nbgrader's kernel says it too, from the cells it ran
        assert said in kernel_said, kernel_said
    assert not any("not defined: run the cell" in line for line in result.feedback), result.feedback


@pytest.mark.parametrize("idiom", REFUSED)
def test_what_grading_does_not_run_is_said_in_the_feedback(idiom):
    cells, message = REFUSED[idiom]
    _, result = sandboxed(idiom, cells, [])
    assert any(message in line for line in result.feedback), result.feedback
