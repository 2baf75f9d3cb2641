"""Every place this package reaches into nbgrader's internals, in one module.

nbgrader's documented extension points (a converter's preprocessor lists, a preprocessor's ``preprocess``)
are used elsewhere as they are meant to be. What is here depends on how nbgrader 0.9 is written inside, and
``tests/test_nbgrader_patches.py`` checks each assumption against the installed nbgrader, so that an upgrade
that changes one fails there, by name, rather than as a wrong grade:

- :func:`gradebooks_opened_by` — the name ``Gradebook`` rebound, for a ``with`` block, in the nbgrader modules
  that record a student (:data:`RECORDING_MODULES`), so that each ``Gradebook(db_url)`` they make is the batch's
  one session (:mod:`reading_maths.nbgrader.session`);
- :class:`CheckMetadata` — nbgrader's ``CheckCellMetadata`` with the ``jsonschema`` module of
  ``nbgrader.nbgraderformat.common`` swapped for one that checks each schema once;
- :class:`RestoreCells` — ``OverwriteCells.add_missing_grade_cells`` and ``missing_cell_transform`` overridden;
- :class:`OnePassAutograde` — ``Autograde``'s two passes (sanitize, write, read back, grade) run as one;
- :class:`OwnedNotebookExporter` — nbconvert's exporter without its deep copies of a notebook read for it alone;
- :func:`converter_of` — the converter a preprocessor runs in (``preprocessor.parent.parent``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import nbformat
from nbconvert.exporters import Exporter, NotebookExporter
from nbconvert.exporters import exporter as nbconvert_exporter
from nbformat import NotebookNode
from nbformat.v4.nbjson import BytesEncoder
from nbformat.v4.rwbase import split_lines, strip_transient
from nbgrader import utils as nbutils
from nbgrader.converters import Autograde
from nbgrader.converters.base import BaseConverter
from nbgrader.nbgraderformat import common as nbgrader_format
from nbgrader.preprocessors import CheckCellMetadata, OverwriteCells
from nbgrader.preprocessors.base import NbGraderPreprocessor

RECORDING_MODULES = (
    "nbgrader.converters.autograde",          # init_assignment: student, submission, timestamp, missing notebooks
    "nbgrader.preprocessors.overwritekernelspec",
    "nbgrader.preprocessors.overwritecells",
    "nbgrader.preprocessors.saveautogrades",  # one commit per cell
    "nbgrader.preprocessors.latesubmissions",
    "reading_maths.nbgrader.steps",           # SaveFeedbackComments
)
"""The modules whose ``Gradebook`` :func:`gradebooks_opened_by` rebinds: every module of a recording that opens one."""


@contextlib.contextmanager
def gradebooks_opened_by(opener: Callable[..., Any]) -> Iterator[None]:
    """For the ``with`` block, ``Gradebook(...)`` in each of :data:`RECORDING_MODULES` calls ``opener`` instead."""
    modules = [importlib.import_module(name) for name in RECORDING_MODULES]
    originals = [getattr(module, "Gradebook") for module in modules]  # noqa: B009 - a module's name, rebound
    try:
        for module in modules:
            setattr(module, "Gradebook", opener)  # noqa: B010
        yield
    finally:
        for module, original in zip(modules, originals, strict=True):
            setattr(module, "Gradebook", original)  # noqa: B010


@functools.cache
def _validator(schema: str) -> jsonschema.protocols.Validator:
    """A validator for a schema (as JSON text), the schema itself checked once per process."""
    loaded = json.loads(schema)
    cls = jsonschema.validators.validator_for(loaded)
    cls.check_schema(loaded)
    return cls(loaded)


class SchemaCheckedOnce:
    """``jsonschema`` as nbgrader's metadata validator calls it, with ``validate`` checking each schema once.

    ``jsonschema.validate(instance, schema)`` validates the schema against its meta-schema before every
    instance: nbgrader calls it for every cell of every notebook, twice per student, and that schema
    check was two thirds of recording a submission.  This ``validate`` does the rest of what
    ``jsonschema.validate`` does (the best-matching error raised, or nothing), and checks an instance equal (as
    JSON) to one already found valid against the same schema only once (up to :data:`MAX_VALID` of them).
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(jsonschema, name)

    @staticmethod
    def validate(instance: Any, schema: dict) -> None:
        text = json.dumps(schema, sort_keys=True)
        known = (text, json.dumps(instance, sort_keys=True))  # a class's notebooks repeat the same cells' metadata
        if known in _VALID:
            return
        error = jsonschema.exceptions.best_match(_validator(text).iter_errors(instance))
        if error is not None:
            raise error
        if len(_VALID) < MAX_VALID:
            _VALID.add(known)


MAX_VALID = 4096
"""Metadata found valid that a process remembers (per schema, as JSON text), so that each is checked once."""
_VALID: set[tuple[str, str]] = set()


@contextlib.contextmanager
def schemas_checked_once() -> Iterator[None]:
    """For the ``with`` block, nbgrader's metadata validators call :class:`SchemaCheckedOnce` for ``jsonschema``."""
    original = nbgrader_format.jsonschema
    nbgrader_format.jsonschema = SchemaCheckedOnce()
    try:
        yield
    finally:
        nbgrader_format.jsonschema = original


class CheckMetadata(CheckCellMetadata):
    """nbgrader's ``CheckCellMetadata`` (the same checks, the same errors), nbgrader's schema checked once."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        with schemas_checked_once():
            return super().preprocess(nb, resources)


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
                just_above = order.index(cell.name) - 1
                if just_above >= 0 and order[just_above] not in placed:
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

    def missing_cell_transform(self, source_cell: Any, max_score: float, is_solution: bool = False,
                               is_task: bool = False) -> NotebookNode:
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


class OnePassAutograde(Autograde):
    """nbgrader's ``Autograde`` converter with its two passes over a notebook (sanitize, write, read back, grade)
    as one: its ``sanitize_preprocessors`` then its ``autograde_preprocessors``, on one exporter.

    Right only when nothing between the passes runs the notebook (no ``Execute``): the subclass's lists must not
    hold it.
    """

    def _init_preprocessors(self) -> None:
        self.exporter._preprocessors = []
        for preprocessor in [*self.sanitize_preprocessors, *self.autograde_preprocessors]:
            self.exporter.register_preprocessor(preprocessor)

    def convert_single_notebook(self, notebook_filename: str) -> None:
        self._init_preprocessors()
        BaseConverter.convert_single_notebook(self, notebook_filename)


class _Uncopied:
    """The ``copy`` module as nbconvert's exporter sees it in :class:`OwnedNotebookExporter`: nothing copied."""

    @staticmethod
    def deepcopy(value: Any, memo: dict | None = None) -> Any:
        return value


class OwnedNotebookExporter(NotebookExporter):
    """nbconvert's ``NotebookExporter`` for a notebook read from its file for this conversion alone.

    nbconvert deep-copies the notebook twice, and the resources once, before its preprocessors change them (a
    third of the exporter's own time on a submission); nothing else holds these, so here its exporter module's
    ``copy.deepcopy`` hands back what it is given while a notebook is converted. The text written is
    nbformat's ``writes`` less its own deep copy and its second validation (the exporter has just validated the
    notebook, and ``writes`` would only log what it finds). Not thread-safe.
    """

    def from_notebook_node(self, nb: NotebookNode, resources: Any = None, **kw: Any) -> Any:
        original = nbconvert_exporter.copy
        nbconvert_exporter.copy = _Uncopied  # type: ignore[assignment]
        try:
            converted, resources = Exporter.from_notebook_node(self, nb, resources, **kw)
        finally:
            nbconvert_exporter.copy = original
        if converted.nbformat != self.nbformat_version:
            resources["output_suffix"] = f".v{self.nbformat_version}"
            converted = nbformat.convert(converted, self.nbformat_version)
        else:
            resources["output_suffix"] = ".nbconvert"
        text = json.dumps(strip_transient(split_lines(converted)), cls=BytesEncoder, indent=1, sort_keys=True,
                          separators=(",", ": "), ensure_ascii=False)  # nbformat v4's JSONWriter.writes
        return (text if text.endswith("\n") else text + "\n"), resources


def converter_of(preprocessor: NbGraderPreprocessor) -> Autograde:
    """The nbgrader converter a preprocessor runs in (its parent is the exporter, whose parent is the converter)."""
    return preprocessor.parent.parent
