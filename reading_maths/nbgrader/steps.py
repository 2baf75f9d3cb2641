"""The nbgrader preprocessors that put the sandbox's results where nbgrader's ``Execute`` would have.

:class:`SandboxedAutograde` is nbgrader's own ``Autograde`` converter with :class:`InjectResults` in
place of ``Execute``: the grade cells receive the engine's results as outputs (the feedback on
stdout, the score as the cell's ``execute_result``, which nbgrader's ``determine_grade`` reads as
partial credit), and :class:`SaveFeedbackComments` writes the feedback as the gradebook comment of
each question's answer cell.  Its sanitize steps (``ClearOutput``, ``DeduplicateIds``,
``OverwriteKernelspec``, ``OverwriteCells`` with ``add_missing_cells``, ``CheckCellMetadata``) and
recording steps (``LimitOutput``, ``SaveAutoGrades``, ``AssignLatePenalties``) are nbgrader's.
"""

from __future__ import annotations

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbformat import NotebookNode
from nbformat.v4 import new_output
from nbgrader import utils as nbutils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import (
    AssignLatePenalties,
    ClearOutput,
    DeduplicateIds,
    LimitOutput,
    OverwriteKernelspec,
    SaveAutoGrades,
)
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import List

from reading_maths.nbgrader.patches import CheckMetadata, OnePassAutograde, RestoreCells
from reading_maths.notebook import is_test_cell
from reading_maths.reports.escape import markdown_text
from reading_maths.results import GradeResult, QuestionResult

RESOURCE_KEY = "reading_maths"
"""Where :class:`SandboxedAutograde` puts a notebook's engine result in nbconvert's ``resources``."""


def cell_score(question: QuestionResult | None, points: float) -> float:
    """The engine's score for a question, on the scale of the grade cell's ``points``."""
    if question is None or question.max_score <= 0:
        return 0.0
    score = question.score if question.max_score == points else question.score * points / question.max_score
    return round(min(max(score, 0.0), points), 6)


def feedback_lines(question: QuestionResult | None, qid: str, points: float) -> list[str]:
    """What the grade cell prints and the gradebook comment says about one question."""
    if question is None:
        return [f"{qid}: 0 / {points:g}", " - not graded: the grader produced no result for this question"]
    return [f"{qid}: {cell_score(question, points):g} / {points:g}", *(f" - {line}" for line in question.feedback)]


def notebook_notes(result: GradeResult | None) -> list[str]:
    """Notes about the whole notebook (restored cells, cells that raised), shown once."""
    return [f" - {e}" for e in result.errors] if result else []


class InjectResults(NbGraderPreprocessor):
    """Put the sandboxed engine's result into each test cell, in place of running the notebook.

    A test cell gets two outputs: a stdout stream with the feedback, and an ``execute_result`` whose
    ``text/plain`` is the score, which :func:`nbgrader.utils.determine_grade` reads as partial credit
    (0 gives 0 points, the cell's ``points`` full marks). No code is run.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        result: GradeResult | None = resources.get(RESOURCE_KEY, {}).get("result")
        questions = {q.id: q for q in result.questions} if result else {}
        notes = notebook_notes(result)
        for cell in nb.cells:
            if not is_test_cell(cell):
                continue
            qid = cell.metadata.nbgrader["grade_id"]
            points = float(cell.metadata.nbgrader["points"])
            lines = feedback_lines(questions.get(qid), qid, points)
            if notes:
                lines += ["About the whole notebook:", *notes]
                notes = []
            cell.outputs = [
                new_output("stream", name="stdout", text="\n".join(lines) + "\n"),
                new_output("execute_result", data={"text/plain": repr(float(cell_score(questions.get(qid), points)))},
                           execution_count=None),
            ]
            cell.execution_count = None
        return nb, resources


def answer_cells(nb: NotebookNode) -> dict[str, str]:
    """For each test cell's question, the grade id of its answer cell (where its comment goes).

    ``<question>-answer`` when the notebook has it, else the nearest autograded answer above the test cell.
    """
    ids = [c.metadata.nbgrader.get("grade_id") for c in nb.cells if nbutils.is_solution(c)]
    found: dict[str, str] = {}
    last_answer = None
    for cell in nb.cells:
        if nbutils.is_solution(cell) and not nbutils.is_grade(cell):
            last_answer = cell.metadata.nbgrader["grade_id"]
        elif is_test_cell(cell):
            qid = cell.metadata.nbgrader["grade_id"]
            answer = f"{qid}-answer" if f"{qid}-answer" in ids else last_answer
            if answer:
                found[qid] = answer
    return found


class SaveFeedbackComments(NbGraderPreprocessor):
    """Write each question's feedback as the gradebook comment of its answer cell (after ``SaveAutoGrades``).

    nbgrader keeps comments on answer cells only (a test cell has none), so the comment of
    ``softmax-answer`` carries the feedback of the question ``softmax``; nbgrader's own
    "No response." stays in front when the student left the answer unchanged. A comment is Markdown
    that ``generate_feedback`` renders as HTML: every line is escaped (it may quote the student).
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        result: GradeResult | None = resources.get(RESOURCE_KEY, {}).get("result")
        questions = {q.id: q for q in result.questions} if result else {}
        points = {c.metadata.nbgrader["grade_id"]: float(c.metadata.nbgrader["points"])
                  for c in nb.cells if is_test_cell(c)}
        comments: dict[str, list[str]] = {}
        for qid, answer in answer_cells(nb).items():
            comments.setdefault(answer, []).extend(feedback_lines(questions.get(qid), qid, points[qid]))
        with Gradebook(info["db_url"]) as gb:
            for answer, lines in comments.items():
                comment = gb.find_comment(answer, info["notebook"], info["assignment"], info["student"])
                prefix = [comment.auto_comment] if comment.auto_comment == "No response." else []
                comment.auto_comment = "\n".join(prefix + [markdown_text(line) for line in lines])
            gb.db.commit()
        return nb, resources


class SandboxedAutograde(OnePassAutograde):
    """nbgrader's ``Autograde`` converter whose execute step injects precomputed, sandboxed results, in one pass."""

    sanitize_preprocessors = List([
        ClearOutput,
        DeduplicateIds,
        OverwriteKernelspec,
        RestoreCells,               # OverwriteCells with add_missing_cells (set in record), fixed cell ids
        CheckMetadata,              # CheckCellMetadata
    ]).tag(config=True)

    autograde_preprocessors = List([
        InjectResults,              # instead of Execute (and IgnorePattern, which only filters stderr)
        ClearMetadataPreprocessor,
        LimitOutput,
        SaveAutoGrades,
        SaveFeedbackComments,
        AssignLatePenalties,
        CheckMetadata,
    ]).tag(config=True)

    def __init__(self, results: dict[tuple[str, str], GradeResult], **kwargs):
        super().__init__(**kwargs)
        self.results = results

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        resources = super().init_single_notebook_resources(notebook_filename)
        info = resources["nbgrader"]
        resources[RESOURCE_KEY] = {"result": self.results.get((info["student"], info["notebook"]))}
        return resources
