"""Each reach into nbgrader's internals (reading_maths/nbgrader/patches.py) checked against the installed nbgrader.

When an nbgrader upgrade changes what a patch relies on, the test named after that patch fails here, saying
what changed, instead of the patch silently doing nothing (or the wrong thing) to the grades.
"""

from __future__ import annotations

import copy
import importlib
import inspect

import jsonschema
import nbgrader.api
import pytest
from nbconvert.exporters import NotebookExporter
from nbconvert.exporters import exporter as nbconvert_exporter
from nbgrader.converters import Autograde
from nbgrader.converters.base import BaseConverter
from nbgrader.coursedir import CourseDirectory
from nbgrader.nbgraderformat import common as nbgrader_format
from nbgrader.preprocessors import CheckCellMetadata, OverwriteCells

from conftest import ROOT
from reading_maths.nbgrader import patches
from reading_maths.nbgrader.session import BatchGradebook
from reading_maths.nbgrader.steps import SandboxedAutograde
from reading_maths.notebook import read_notebook


def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


# -- gradebooks_opened_by: the name Gradebook rebound in the recording modules ---------------------------------

def _modules_of_a_recording() -> set[str]:
    """The modules of the converter and of every preprocessor a recording runs, with their base classes'."""
    classes = [SandboxedAutograde, *SandboxedAutograde.class_traits()["sanitize_preprocessors"].default(),
               *SandboxedAutograde.class_traits()["autograde_preprocessors"].default()]
    return {base.__module__ for cls in classes for base in cls.__mro__}


def test_every_module_of_a_recording_that_opens_a_gradebook_is_rebound():
    opening = {name for name in _modules_of_a_recording()
               if getattr(importlib.import_module(name), "Gradebook", None) is nbgrader.api.Gradebook}
    assert opening <= set(patches.RECORDING_MODULES), (
        f"these modules open nbgrader's Gradebook during a recording but are not rebound: "
        f"{sorted(opening - set(patches.RECORDING_MODULES))}")


def test_each_rebound_module_still_names_nbgrader_gradebook_and_gets_it_back():
    modules = [importlib.import_module(name) for name in patches.RECORDING_MODULES]
    assert all(m.Gradebook is nbgrader.api.Gradebook for m in modules), "a module no longer imports Gradebook"

    def opener(*args, **kwargs):
        raise AssertionError

    with patches.gradebooks_opened_by(opener):
        assert all(m.Gradebook is opener for m in modules)
    assert all(m.Gradebook is nbgrader.api.Gradebook for m in modules)


def test_the_batch_opener_takes_what_nbgrader_passes_to_gradebook():
    assert _parameters(nbgrader.api.Gradebook.__init__) == ["self", "db_url", "course_id", "authenticator"]
    assert _parameters(BatchGradebook.open)[1:] == ["db_url", "course_id", "authenticator"]


def test_the_gradebook_has_the_session_and_lookups_the_batch_shares():
    made = inspect.getsource(nbgrader.api.Gradebook.__init__)  # a new gradebook runs alembic: not in-process
    assert "self.engine = create_engine(" in made and "self.db = scoped_session(" in made
    assert _parameters(nbgrader.api.Gradebook.find_notebook) == ["self", "name", "assignment"]
    for lookup in (nbgrader.api.Gradebook.find_source_cell, nbgrader.api.Gradebook.find_graded_cell):
        assert _parameters(lookup) == ["self", "name", "notebook", "assignment"]
    copied = {nbgrader.api.Notebook: ("name", "kernelspec", "source_cells", "grade_cells", "solution_cells",
                                      "task_cells"),
              nbgrader.api.SourceCell: ("name", "cell_type", "locked", "checksum", "source"),
              nbgrader.api.GradeCell: ("name", "max_score"), nbgrader.api.TaskCell: ("name", "max_score"),
              nbgrader.api.SolutionCell: ("name",)}  # what session._Definition copies of each row
    for row, fields in copied.items():
        assert all(hasattr(row, f) for f in fields), (row, [f for f in fields if not hasattr(row, f)])


# -- CheckMetadata: nbgrader's jsonschema swapped for one that checks each schema once ---------------------------

def test_the_metadata_validator_calls_jsonschema_validate_of_the_module_swapped(monkeypatch):
    assert nbgrader_format.jsonschema is jsonschema
    checked = []
    monkeypatch.setattr(patches.SchemaCheckedOnce, "validate", staticmethod(lambda instance, schema: checked.append(1)))
    nb = read_notebook(ROOT / "source" / "code" / "code.ipynb")
    patches.CheckMetadata().preprocess(nb, {})
    assert len(checked) == sum("nbgrader" in c.metadata for c in nb.cells) > 0
    assert nbgrader_format.jsonschema is jsonschema, "the swap outlived the step"


def _corrupted(nb, change):
    nb = copy.deepcopy(nb)
    meta = next(c for c in nb.cells if "nbgrader" in c.metadata).metadata.nbgrader
    change(meta)
    return nb


@pytest.mark.parametrize("change", [
    lambda m: m.update(points="three"), lambda m: m.update(grade="yes"), lambda m: m.update(schema_version=2),
    lambda m: m.pop("grade_id"), lambda m: m.update(unknown_key=1), lambda m: m.update(locked=None),
], ids=["points", "grade", "schema", "grade_id", "extra-key", "locked"])
def test_check_metadata_refuses_and_accepts_what_nbgraders_own_step_does(change):
    valid = read_notebook(ROOT / "source" / "code" / "code.ipynb")
    patches.CheckMetadata().preprocess(copy.deepcopy(valid), {})  # every valid cell remembered: the corrupted one not
    nb = _corrupted(valid, change)
    outcomes = []
    for step in (CheckCellMetadata(), patches.CheckMetadata()):
        try:
            step.preprocess(copy.deepcopy(nb), {})
            outcomes.append(None)
        except Exception as exc:  # noqa: BLE001 - whatever nbgrader's own step raises, the same
            outcomes.append((type(exc), str(exc)))
    assert outcomes[0] == outcomes[1]


# -- OwnedNotebookExporter: nbconvert's exporter without its deep copies -----------------------------------------

def test_the_exporter_copies_through_its_module_copy_and_the_owned_one_copies_nothing(monkeypatch):
    assert nbconvert_exporter.copy is copy, "nbconvert's exporter no longer calls copy.deepcopy of its module"
    nb = read_notebook(ROOT / "source" / "code" / "code.ipynb")
    deepcopy, copied = copy.deepcopy, []

    def counted(value, memo=None):
        copied.append(isinstance(value, dict) and "cells" in value)
        return deepcopy(value, memo)

    monkeypatch.setattr(copy, "deepcopy", counted)
    outputs = []
    for exporter in (NotebookExporter(), patches.OwnedNotebookExporter()):
        copied.clear()
        converted, _ = exporter.from_notebook_node(nb, {})
        outputs.append((sum(copied), converted))
    (stock_copies, stock), (owned_copies, owned) = outputs
    # nbconvert's two copies of the notebook, and nbformat's writes' one
    assert stock_copies - owned_copies == 3, (stock_copies, owned_copies)
    assert owned == stock
    assert nbconvert_exporter.copy is copy, "the swap outlived the conversion"


# -- RestoreCells: OverwriteCells' placing of missing grade cells overridden ------------------------------------

def test_overwrite_cells_still_places_missing_grade_cells_the_way_restore_cells_overrides():
    assert _parameters(OverwriteCells.add_missing_grade_cells) == ["self", "nb", "resources"]
    assert _parameters(OverwriteCells.missing_cell_transform) == [
        "self", "source_cell", "max_score", "is_solution", "is_task"]
    source = inspect.getsource(OverwriteCells.preprocess)
    for used in ("self.gradebook = Gradebook(", "self.add_missing_grade_cells(", "self.notebook_id",
                 "self.assignment_id"):
        assert used in source + inspect.getsource(OverwriteCells), f"OverwriteCells no longer has {used}"
    assert "self.missing_cell_transform(" in inspect.getsource(OverwriteCells.add_missing_grade_cells)


# -- OnePassAutograde: Autograde's two passes as one --------------------------------------------------------------

def test_autograde_still_runs_two_passes_through_the_methods_one_pass_replaces():
    assert _parameters(Autograde.convert_single_notebook) == ["self", "notebook_filename"]
    assert _parameters(BaseConverter.convert_single_notebook) == ["self", "notebook_filename"]
    assert "self._sanitizing" in inspect.getsource(Autograde._init_preprocessors)
    assert "self._init_preprocessors()" in inspect.getsource(Autograde.convert_single_notebook)


def test_one_pass_registers_both_lists_and_a_step_finds_its_converter(tmp_path):
    assert "self.exporter = self.exporter_class(parent=self" in inspect.getsource(BaseConverter.start)
    converter = SandboxedAutograde({}, coursedir=CourseDirectory(root=str(tmp_path)))
    converter.exporter = converter.exporter_class(parent=converter, config=converter.config)  # as start() does
    converter._init_preprocessors()
    registered = converter.exporter._preprocessors
    assert [type(p) for p in registered] == [*converter.sanitize_preprocessors, *converter.autograde_preprocessors]
    assert all(patches.converter_of(p) is converter for p in registered)
