"""Grading one notebook, in named steps: load → sanitize → execute in the sandbox → grade → result.

Only the first and the last steps touch files; the student's code runs only inside the sandboxed
child of :mod:`reading_maths.sandbox.session`, and the grader files run here, on the trusted side, on the
plain data and proxies the session hands them.
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reading_maths.course import Assignment, recognise, shown_path
from reading_maths.grading.budget import FLOOR, MULTIPLE, budget_for
from reading_maths.grading.causes import Notebook, explain
from reading_maths.notebook import NotANotebook, grade_id, is_test_cell, nbgrader_meta, read_notebook
from reading_maths.results import GradeResult
from reading_maths.sandbox.child_starter import Prelude, starter
from reading_maths.sandbox.notebook_run import course_prelude
from reading_maths.sandbox.process import Sandbox
from reading_maths.sandbox.session import Cell, StudentSession


class NotGradable(ValueError):
    """The file cannot be graded at all (not a notebook, or not one of this course's)."""


@dataclass(frozen=True)
class Settings:
    """How to run student code: the sandbox, the wall-clock limits of a cell, of a call and of a whole notebook
    (``budget``), and whether children are started one notebook ahead (``ahead``: in a batch's worker
    processes, one thread each)."""

    sandbox: Sandbox
    cell_timeout: float = 30.0
    call_timeout: float = 10.0
    ahead: bool = False
    budget: float | None = None
    """None: :func:`~reading_maths.grading.budget.budget_for` (a multiple of the reference's own grading time)"""


def load(path: Path, root: Path, assignment: Assignment | None = None, shown: str | None = None, nb=None):
    """Step 1: read the notebook (``nb``: read already, as :func:`~reading_maths.notebook.read_notebook` reads one:
    a check's, by the service); check it is one of ``assignment`` (when it is known: autograde, ``grade
    --assignment``), else recognise its assignment. Messages name the file ``shown`` (default: as the course
    sees it, :func:`~reading_maths.course.shown_path`)."""
    shown = shown or shown_path(path, root)
    try:
        nb = read_notebook(path, shown) if nb is None else nb
    except NotANotebook as exc:
        raise NotGradable(str(exc)) from None
    if not isinstance(nb.get("cells"), list):
        raise NotGradable(f"{shown} is not a Jupyter notebook (no cells)")
    if assignment is not None:
        if not assignment.holds(nb):
            raise NotGradable(f"{shown} is not a notebook of {assignment.id} (none of its question ids in its cells)")
        return nb, assignment
    found = recognise(nb, root)
    if found is None:
        raise NotGradable(f"{shown} is not a notebook of this course (no known question ids in its cells)")
    return nb, found


def sanitize(nb, assignment: Assignment) -> tuple[list[Cell], list[str]]:
    """Step 2: the cells to run, with read-only cells restored from the source notebook.

    Test cells are never run (the graders run on the trusted side instead); read-only cells the
    student edited get their original code back, and ones they deleted are put back first.
    Returns the cells and notes for the student about what was restored.
    """
    locked = {
        grade_id(c): c.source for c in assignment.source.cells
        if c.cell_type == "code" and nbgrader_meta(c).get("locked") and not is_test_cell(c)
    }
    seen: set[str | None] = set()
    cells: list[Cell] = []
    notes: list[str] = []
    for index, cell in enumerate(nb.cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or is_test_cell(cell):
            continue
        source = _text(cell)
        gid = grade_id(cell)
        if gid in locked:
            if source != locked[gid]:
                notes.append(f"read-only cell {gid} was edited; its original code was run instead")
            source = locked[gid]
            seen.add(gid)
        cells.append(Cell(index, f"cell {index + 1}" + (f" ({gid})" if gid else ""), source, trusted=gid in locked))
    missing = [Cell(-1 - i, f"read-only cell {gid} (restored)", code, trusted=True)
               for i, (gid, code) in enumerate(locked.items()) if gid not in seen]
    notes += [f"{c.label.split(' (')[0]} was missing; it was put back" for c in missing]
    return missing + cells, notes


def grade_cell_places(nb) -> dict[str, int]:
    """Where each question's grade cell stands in the student's notebook.

    A question is graded on the names as they are at its grade cell, as nbgrader's kernel and the
    student's own Run All see them: a later cell that redefines a helper does not change it.  A
    question whose grade cell is missing is graded after every cell.
    """
    places: dict[str, int] = {}
    for index, cell in enumerate(nb.cells):
        if isinstance(cell, dict) and cell.get("cell_type") == "code" and is_test_cell(cell) and grade_id(cell):
            places.setdefault(str(grade_id(cell)), index)
    return places


def _text(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def own_text_cells(nb, assignment: Assignment) -> list[tuple[int, str, str]]:
    """The Markdown and Raw cells the student wrote or made (not the prompt's): ``(index, cell type, source)``."""
    prompts = {_text(c) for c in assignment.source.cells if c.cell_type != "code"}
    return [(i, str(c.get("cell_type")), _text(c)) for i, c in enumerate(nb.cells)
            if isinstance(c, dict) and c.get("cell_type") in ("markdown", "raw") and _text(c) not in prompts]


def assignment_prelude(assignment: Assignment) -> Prelude:
    """The read-only cells the assignment's own notebook starts with, before its first question: those most of its
    notebooks start with, whose children a fork server forks after them (:func:`course_prelude`)."""
    cells, _ = sanitize(assignment.source, assignment)
    first = grade_cell_places(assignment.source).get(assignment.questions[0]) if assignment.questions else None
    return course_prelude(cells, first)


def grade(nb_path: Path, settings: Settings, root: Path, assignment: Assignment | None = None,
          shown: str | None = None, nb=None) -> GradeResult:
    """Grade one notebook of ``assignment`` (None: recognised from its cells): every step above, then the
    assignment's graders on the student's names.  ``nb``: the notebook read already (then ``nb_path`` only names
    it)."""
    nb, assignment = load(nb_path, root, assignment, shown, nb)
    cells, notes = sanitize(nb, assignment)
    graders = assignment.graders
    names = list(dict.fromkeys(n for g in graders for n in g.names))
    result = GradeResult(assignment.id, str(nb_path), errors=list(notes))
    places = grade_cell_places(nb)
    upto = [places.get(g.question) for g in graders]
    budget = budget_for(assignment, settings)
    ahead = None
    if settings.ahead and settings.sandbox.isolated:  # children forked after the course's leading cells, where they
        prelude = course_prelude(cells, upto[0] if upto else None)  # stand as in the assignment's own notebook
        shared = prelude if prelude == assignment_prelude(assignment) else ()
        ahead = starter(settings.sandbox, assignment.imports, prelude=shared)
    session = StudentSession(cells, names, settings.sandbox, settings.cell_timeout, settings.call_timeout,
                             upto=upto[0] if upto else None, budget=budget, starter=ahead,
                             preload=assignment.imports, public_run=True)
    with session, warnings.catch_warnings(), np.errstate(all="ignore"), \
            contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        started = []
        for grader, place in zip(graders, upto, strict=True):  # the public run: what it says may be shown
            session.advance(place)
            session.begin_question()
            started.append(grader.start(session.env(), session.interruption))
        shown_errors, start_error = dict(session.cell_errors), session.start_error
        if any(later for _, later in started) and not start_error:
            session.begin_hidden()  # a new process: none of what it says is shown but in the graders' words
        first, notebook = 0, Notebook(cells, shown_errors, own_text_cells(nb, assignment))
        for grader, place, (question, later) in zip(graders, upto, started, strict=True):
            try:
                if later:
                    session.advance(place)
                    session.begin_question()
                result.questions.append(grader.finish(question, later, session.env(), session.interruption))
            except Exception:  # noqa: BLE001 - its text may be the student's process's, after a hidden input
                logging.getLogger("reading_maths").exception("the hidden run of %s failed", grader.question)
                question.status, question.problem = "error", "not graded: the hidden tests could not judge it"
                result.questions.append(question)
            explain(result.questions[-1], grader.names, place, first, notebook)
            first = place if place is not None else first
    result.errors += [shown_errors[i] for i in sorted(shown_errors, key=abs)]
    if start_error:
        result.errors.append(start_error)
    if session.ran_out:
        cut = sum(q.status == "timeout" and "time budget" in q.problem for q in result.questions)
        why = "" if settings.budget is not None else (
            f" ({MULTIPLE:g} times what the course's own solution takes to grade, at least {FLOOR:g} s: a notebook "
            "far slower than it needs to be, with cells that sleep or loops that wait, runs out of it)")
        result.errors.append(f"grading stopped: the notebook's time budget of {budget:g} s{why} ran out, "
                             f"{cut} question(s) not graded to the end")
    return result
