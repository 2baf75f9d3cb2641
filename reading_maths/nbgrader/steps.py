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

import contextlib
import functools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import nbformat
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbformat import NotebookNode
from nbformat.v4 import new_output
from nbgrader import utils as nbutils
from nbgrader.api import Gradebook
from nbgrader.converters import Autograde
from nbgrader.converters.base import BaseConverter
from nbgrader.nbgraderformat import common as nbgrader_format
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import List

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
    if not result:
        return []
    folder = str(Path(result.notebook).parent) + os.sep  # the student's folder: paths relative to it
    return [f" - {e.replace(folder, '')}" for e in result.errors]


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


class RestoreCells(OverwriteCells):
    """nbgrader's ``OverwriteCells``, giving the grade cells it puts back a fixed cell id, and putting back
    every deleted grade cell.

    nbformat would draw a random id for them, and a submission with a deleted grade cell would get a
    different autograded file on each run.  nbgrader puts a deleted grade cell back after the cell just
    above it in the source, and raises ``KeyError`` (refusing the whole submission) when that one is not a
    grade or answer cell of the submission, as every test cell of this course, below its public checks, is.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        self._with_ids = (nb.get("nbformat"), nb.get("nbformat_minor", 0)) >= (4, 5)
        self._taken = {c.get("id") for c in nb.cells}
        return super().preprocess(nb, resources)

    def add_missing_grade_cells(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        """nbgrader's where it can place them all; else each missing grade cell after the nearest cell above it
        in the source that the submission still has (first when there is none)."""
        source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        order = [cell.name for cell in source.source_cells]
        placed = {c.metadata.nbgrader["grade_id"] for c in nb.cells if nbutils.is_grade(c) or nbutils.is_solution(c)}
        for cell in source.grade_cells:  # nbgrader's walk, to see whether it finds a place for each
            if cell.name not in placed:
                above = order.index(cell.name) - 1
                if above >= 0 and order[above] not in placed:
                    break
                placed.add(cell.name)
        else:
            return super().add_missing_grade_cells(nb, resources)
        solutions = {cell.name for cell in source.solution_cells}
        for cell in source.grade_cells:
            places = {c.metadata.nbgrader.get("grade_id"): i for i, c in enumerate(nb.cells)
                      if "nbgrader" in c.metadata}
            if cell.name in places:
                continue
            self.log.warning(f"Missing grade cell {cell.name} encountered, adding to notebook")
            above = [places[name] for name in reversed(order[:order.index(cell.name)]) if name in places]
            restored = self.missing_cell_transform(source.source_cells[order.index(cell.name)], cell.max_score,
                                                   is_solution=cell.name in solutions)
            nb.cells.insert(above[0] + 1 if above else 0, restored)
        return nb, resources

    def missing_cell_transform(self, source_cell, max_score, is_solution=False, is_task=False):
        # nbgrader's cell has plain dicts inside, which its second pass reads back from the file as nodes
        cell = nbformat.from_dict(super().missing_cell_transform(source_cell, max_score, is_solution=is_solution,
                                                                 is_task=is_task))
        if self._with_ids:
            base = "restored-" + re.sub(r"[^A-Za-z0-9_-]", "-", source_cell.name)[:50]
            candidate, n = base, 1
            while candidate in self._taken:
                n += 1
                candidate = f"{base}-{n}"
            cell["id"] = candidate
            self._taken.add(candidate)
        return cell


@functools.cache
def _validator(schema: str) -> jsonschema.protocols.Validator:
    """A validator for a schema (as JSON text), the schema itself checked once per process."""
    loaded = json.loads(schema)
    cls = jsonschema.validators.validator_for(loaded)
    cls.check_schema(loaded)
    return cls(loaded)


class _SchemaCheckedOnce:
    """``jsonschema`` as nbgrader's metadata validator calls it, with ``validate`` checking each schema once.

    ``jsonschema.validate(instance, schema)`` validates the schema against its meta-schema before every
    instance: nbgrader calls it for every cell of every notebook, twice per student, and that schema
    check was two thirds of recording a submission.  This ``validate`` does the rest of what
    ``jsonschema.validate`` does (the best-matching error raised, or nothing).
    """

    def __getattr__(self, name: str):
        return getattr(jsonschema, name)

    @staticmethod
    def validate(instance, schema) -> None:
        error = jsonschema.exceptions.best_match(_validator(json.dumps(schema, sort_keys=True)).iter_errors(instance))
        if error is not None:
            raise error


@contextlib.contextmanager
def _schemas_checked_once() -> Iterator[None]:
    original = nbgrader_format.jsonschema
    nbgrader_format.jsonschema = _SchemaCheckedOnce()
    try:
        yield
    finally:
        nbgrader_format.jsonschema = original


class CheckMetadata(CheckCellMetadata):
    """nbgrader's ``CheckCellMetadata`` (the same checks, the same errors), nbgrader's schema checked once."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        with _schemas_checked_once():
            return super().preprocess(nb, resources)


class SandboxedAutograde(Autograde):
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

    def _init_preprocessors(self) -> None:
        self.exporter._preprocessors = []
        for preprocessor in [*self.sanitize_preprocessors, *self.autograde_preprocessors]:
            self.exporter.register_preprocessor(preprocessor)

    def convert_single_notebook(self, notebook_filename: str) -> None:
        """nbgrader's two passes over a notebook (sanitize, write, read back, grade) as one: with nothing executed
        between them, the sanitized notebook need not go through a file."""
        self._init_preprocessors()
        BaseConverter.convert_single_notebook(self, notebook_filename)

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        resources = super().init_single_notebook_resources(notebook_filename)
        info = resources["nbgrader"]
        resources[RESOURCE_KEY] = {"result": self.results.get((info["student"], info["notebook"]))}
        return resources
