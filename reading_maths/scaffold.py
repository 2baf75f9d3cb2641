"""``reading-maths new-question ASSIGNMENT QUESTION``: a new question's cells, grader file and corpus stubs.

In ``source/<assignment>/<assignment>.ipynb``, before its public-checks summary, the question's four cells with
nbgrader's exact metadata (prompt, answer ``<question>-answer``, check ``<question>-check``, grade cell
``<question>``), and the question added to the summary's list; ``graders/<assignment>/<question>.py``, a grader
whose cases compare the student's function with the reference (the answer cell's solution), its points
written in the grade cell;
``tests/corpora/<assignment>/<question>.py``, empty ``RIGHT`` and ``WRONG`` corpora to fill. The grade cell's
points are the grader's: :func:`sync_generated_cells` writes them (with the grade cells' boilerplate and the
helper cells' kit modules), and ``reading-maths release`` runs it.
"""

from __future__ import annotations

import ast
import json
import re
import secrets
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from reading_maths.course import Assignment
from reading_maths.notebook import grade_id, is_test_cell

QUESTION_ID = re.compile(r"^[a-z][a-z0-9_]*$")
SUMMARY = "public-checks-summary"
SUMMARY_CALL = re.compile(r"public_check_summary\((\[.*?\])\)", re.DOTALL)

GRADE_CELL = '''# The hidden tests for this question run here when your notebook is graded.
### BEGIN HIDDEN TESTS
from reading_maths.nbgrader.in_kernel import grade_question
grade_question("{assignment}", "{question}")
### END HIDDEN TESTS'''
"""The whole content of a question's grade cell: stock ``nbgrader autograde`` runs the grader file in the kernel."""

ANSWER_CELL = '''def {question}(x):
    """TODO: what {question} computes, its parameters and what it returns."""
    ### BEGIN SOLUTION
    raise NotImplementedError("the reference solution goes here")
    ### END SOLUTION'''

CHECK_CELL = '''# Public checks for {question}: the text's hand-worked numbers.
@public_checks("{question}")
def {question}_checks():
    assert callable({question}), "define the function {question} in the cell above"'''

GRADER_FILE = '''"""Hidden grader for {question} of the {assignment} assignment: TODO what is graded, on which inputs.

Public cases are the text's hand-worked examples; hidden ones are edge cases and random inputs from a seeded
generator. Each case compares the student's function with the reference (the answer cell's solution).
"""

from otter.test_files import test_case

from reading_maths.kit import Mistake, Question, course_seed, hidden_rng, reference

OK_FORMAT = False
name = "{question}"

SEED = course_seed({seed})  # hidden: the number and the course's secret, never in release/
REF = reference("{assignment}")

MISTAKES = [
    # Mistake("short-id", "what is wrong and how to fix it, in the course's words", wrong_implementation),
]
q = Question("{question}", REF.{question}, MISTAKES)


@test_case(points=1, hidden=False)
def hand_worked_example({question}):
    q.check({question}, 1.0, label="the text's example x = 1", public=True)


@test_case(points=2, hidden=True)
def random_inputs({question}):
    rng = hidden_rng(SEED, "random_inputs")
    for x in rng.normal(size=5):
        q.check({question}, float(x), label="a hidden random input")
'''

CORPUS_FILE = '''"""{question}: differently written right answers, and wrong ones with the diagnosis they must get."""

RIGHT = {{
    # "plain": {{"{question}": a_right_implementation}},
}}

WRONG = {{
    # "short-name": ({{"{question}": a_wrong_implementation}}, "mistake-id or a piece of its feedback"),
}}
'''


def _cell(make, source: str, grade_id: str, *, grade: bool = False, solution: bool = False, locked: bool = False,
          points: float | None = None, tags: list[str] | None = None, cell_id: str | None = None):
    meta: dict = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution}
    if points is not None:
        meta["points"] = points
    cell = make(source, metadata={"nbgrader": meta, **({"tags": tags} if tags else {})})
    cell["id"] = cell_id or grade_id
    return cell


def question_cells(assignment: str, question: str, points: float) -> list:
    """The four cells of a question, as ``graders/README.md`` describes them."""
    return [
        new_markdown_cell(f"## {question}\n\nTODO: the prompt, in the course's words, with the text's "
                          "hand-worked numbers.", id=f"{question}-prompt"),
        _cell(new_code_cell, ANSWER_CELL.format(question=question), f"{question}-answer", solution=True),
        _cell(new_code_cell, CHECK_CELL.format(question=question), f"{question}-check", locked=True,
              tags=["raises-exception"]),
        _cell(new_code_cell, GRADE_CELL.format(assignment=assignment, question=question), question, grade=True,
              locked=True, points=points),
    ]


def _add_to_summary(cell, question: str) -> None:
    match = SUMMARY_CALL.search(cell.source)
    if match is None:
        raise ValueError(f"the {SUMMARY} cell has no public_check_summary([...]) call")
    listed = [*ast.literal_eval(match.group(1)), question]
    cell.source = cell.source[:match.start(1)] + json.dumps(listed) + cell.source[match.end(1):]


def new_question(root: Path, assignment: str, question: str) -> list[Path]:
    """Scaffold ``question`` in ``assignment`` of the course at ``root``; returns the files written or changed."""
    if not QUESTION_ID.match(question):
        raise ValueError(f"{question!r} cannot be a question id: lower-case letters, digits and _ (a Python name)")
    task = Assignment(assignment, Path(root))
    if not task.source_notebook.is_file():
        raise FileNotFoundError(f"no {task.source_notebook.relative_to(root)}: the assignment does not exist")
    grader = Path(root) / "graders" / assignment / f"{question}.py"
    corpus = Path(root) / "tests" / "corpora" / assignment / f"{question}.py"
    nb = nbformat.read(task.source_notebook, as_version=4)
    taken = {grade_id(c) for c in nb.cells} | {c.get("id") for c in nb.cells}
    if grader.exists() or taken & {question, f"{question}-answer", f"{question}-check", f"{question}-prompt"}:
        raise FileExistsError(f"{assignment} already has a question {question!r} (its cells or its grader file)")
    grader.parent.mkdir(parents=True, exist_ok=True)
    grader.write_text(GRADER_FILE.format(assignment=assignment, question=question, seed=secrets.randbelow(10**8)),
                      encoding="utf-8")
    corpus.parent.mkdir(parents=True, exist_ok=True)
    if not corpus.exists():
        corpus.write_text(CORPUS_FILE.format(question=question), encoding="utf-8")
    summary = next((i for i, c in enumerate(nb.cells) if grade_id(c) == SUMMARY), None)
    if summary is not None:
        _add_to_summary(nb.cells[summary], question)
    at = len(nb.cells) if summary is None else summary
    nb.cells[at:at] = question_cells(assignment, question, 0)
    nbformat.write(nb, task.source_notebook)
    sync_generated_cells(root, assignment)
    from reading_maths.grading.graderfile import load_grader
    from reading_maths.kit.reference import reference_of

    load_grader.cache_clear()  # they hold the scaffold's stub solution: the next grading reads the one written
    reference_of.cache_clear()
    return [task.source_notebook, grader, corpus]


PASTED = {"check-helpers": "checks.py", "answer-format-helpers": "answers.py", "entry-format": "entries.py"}
"""The read-only helper cells (by grade id) whose code is a module of ``reading_maths/kit/`` pasted below a
one-line comment: the notebook needs nothing but itself, and the module stays the one copy to edit."""


def sync_generated_cells(root: Path, assignment: str) -> bool:
    """Write what the package owns into the source notebook: each grade cell's boilerplate and its grader's
    points (the grader is the one source of truth), each helper cell's kit module; returns whether it changed."""
    from reading_maths.grading.graderfile import load_grader

    path = Path(root) / "source" / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    for cell in nb.cells:
        gid = grade_id(cell)
        grader = Path(root) / "graders" / assignment / f"{gid}.py"
        if is_test_cell(cell) and grader.is_file():  # (a copy of source/ alone keeps what it has)
            cell.metadata.nbgrader["points"] = load_grader(grader).max_score
            cell.source = GRADE_CELL.format(assignment=assignment, question=gid)
        elif gid in PASTED:
            module = (Path(__file__).parent / "kit" / PASTED[gid]).read_text(encoding="utf-8").rstrip("\n")
            cell.source = cell.source.split("\n", 1)[0] + "\n" + module
    if nbformat.writes(nb) == before:
        return False
    nbformat.write(nb, path)
    return True
