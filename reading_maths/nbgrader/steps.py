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
from nbgrader import utils as nbutils
from nbgrader.api import BaseCell, Comment, Grade, Gradebook
from nbgrader.preprocessors import (
    AssignLatePenalties,
    ClearOutput,
    DeduplicateIds,
    LimitOutput,
    OverwriteKernelspec,
    SaveAutoGrades,
)
from nbgrader.preprocessors.base import NbGraderPreprocessor
from sqlalchemy import update
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
            # nbformat's new_output, without validating each output (the whole notebook is validated once, at the end)
            cell.outputs = [
                NotebookNode(output_type="stream", name="stdout", text="\n".join(lines) + "\n"),
                NotebookNode(output_type="execute_result", metadata=NotebookNode(), execution_count=None,
                             data={"text/plain": repr(float(cell_score(questions.get(qid), points)))}),
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


def feedback_comments(nb: NotebookNode, result: GradeResult | None) -> dict[str, list[str]]:
    """Each answer cell's feedback lines (the questions whose comment it carries), unescaped."""
    questions = {q.id: q for q in result.questions} if result else {}
    points = {c.metadata.nbgrader["grade_id"]: float(c.metadata.nbgrader["points"])
              for c in nb.cells if is_test_cell(c)}
    comments: dict[str, list[str]] = {}
    for qid, answer in answer_cells(nb).items():
        comments.setdefault(answer, []).extend(feedback_lines(questions.get(qid), qid, points[qid]))
    return comments


def with_feedback(auto_comment: str | None, lines: list[str]) -> str:
    """The comment an answer cell gets: nbgrader's own "No response." kept in front, then the feedback."""
    prefix = [auto_comment] if auto_comment == "No response." else []
    return "\n".join(prefix + [markdown_text(line) for line in lines])


class SaveFeedbackComments(NbGraderPreprocessor):
    """Write each question's feedback as the gradebook comment of its answer cell (after ``SaveAutoGrades``).

    nbgrader keeps comments on answer cells only (a test cell has none), so the comment of
    ``softmax-answer`` carries the feedback of the question ``softmax``; nbgrader's own
    "No response." stays in front when the student left the answer unchanged. A comment is Markdown
    that ``generate_feedback`` renders as HTML: every line is escaped (it may quote the student).
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        comments = feedback_comments(nb, resources.get(RESOURCE_KEY, {}).get("result"))
        with Gradebook(info["db_url"]) as gb:
            for answer, lines in comments.items():
                comment = gb.find_comment(answer, info["notebook"], info["assignment"], info["student"])
                comment.auto_comment = with_feedback(comment.auto_comment, lines)
            gb.db.commit()
        return nb, resources


def rows_by_cell(gb: Gradebook, model: type[Grade] | type[Comment], notebook_id: str, preferred: str
                  ) -> dict[str, tuple]:
    """A submitted notebook's grade or comment rows by cell name: ``(row id, manual score or None)``, the row of
    the ``preferred`` cell type first, as nbgrader's ``find_grade``/``find_comment`` look them up."""
    manual = [Grade.manual_score] if model is Grade else []
    query = gb.db.query(model.id, BaseCell.name, BaseCell.type, *manual).join(BaseCell, BaseCell.id == model.cell_id)
    rows: dict[str, tuple] = {}
    for row_id, name, kind, *score in query.filter(model.notebook_id == notebook_id):
        if name not in rows or kind == preferred:
            rows[name] = (row_id, *score, None)[:2]
    return rows


class RecordGrades(NbGraderPreprocessor):
    """``SaveAutoGrades`` and :class:`SaveFeedbackComments` as one read and one write of the notebook's rows.

    The same values in the same rows as nbgrader's ``SaveAutoGrades`` (each grade cell's ``auto_score`` from
    ``determine_grade`` and ``needs_manual_grade``; "No response." on an unchanged answer) followed by
    :class:`SaveFeedbackComments`, but the grade and comment rows of the submitted notebook are read in two
    queries (none when the batch has just added them: :meth:`~reading_maths.nbgrader.session._Handle.added_rows`)
    and written in two statements, where nbgrader looks each cell up with a seven-table join and
    commits it on its own. A cell the gradebook does not know is looked up as nbgrader does, to fail as it fails.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        where = (info["notebook"], info["assignment"], info["student"])
        with Gradebook(info["db_url"]) as gb:
            added = gb.added_rows(*where)  # a batch's handle knows the rows it has just added
            if added:
                notebook_id, grades, comments = added
            else:
                notebook_id = gb.find_submission_notebook(*where).id
                grades = rows_by_cell(gb, Grade, notebook_id, "GradeCell")
                comments = rows_by_cell(gb, Comment, notebook_id, "SolutionCell")
            grade_rows, comment_text = [], {}
            for cell in nb.cells:
                name = cell.metadata.get("nbgrader", {}).get("grade_id")
                if nbutils.is_grade(cell):
                    row_id, manual = grades[name] if name in grades else (gb.find_grade(name, *where).id, None)
                    auto_score, _ = nbutils.determine_grade(cell, self.log)
                    grade_rows.append({"id": row_id, "auto_score": auto_score,
                                       "needs_manual_grade": manual is not None or auto_score is None})
                if nbutils.is_solution(cell) or nbutils.is_task(cell):
                    if name not in comments:
                        gb.find_comment(name, *where)
                    unchanged = (cell.metadata.nbgrader.get("checksum", None) == nbutils.compute_checksum(cell)
                                 and not nbutils.is_task(cell))
                    comment_text[name] = "No response." if unchanged else None
            for answer, lines in feedback_comments(nb, resources.get(RESOURCE_KEY, {}).get("result")).items():
                if answer not in comments:
                    gb.find_comment(answer, *where)
                comment_text[answer] = with_feedback(comment_text.get(answer), lines)
            if grade_rows:
                gb.db.execute(update(Grade), grade_rows)
            if comment_text:
                gb.db.execute(update(Comment), [{"id": comments[name][0], "auto_comment": text}
                                                for name, text in comment_text.items()])
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
