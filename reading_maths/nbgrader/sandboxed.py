"""nbgrader's own Autograde (``nbgrader autograde``, formgrader's button) routed through the sandbox.

``nbgrader_config.py`` calls :func:`route_autograde`, which gives nbgrader's ``Autograde`` converter
the preprocessors of :class:`~reading_maths.nbgrader.steps.SandboxedAutograde` with
:class:`GradeInSandbox` first: nbgrader still sanitizes, writes ``autograded/`` and records the
grades, but the submitted notebook is graded by the sandboxed engine
(:func:`reading_maths.grading.engine.grade`) and its results are injected in place of ``Execute``; the
hidden test cells never run in a kernel. ``route_autograde(c, sandboxed=False)`` puts nbgrader's stock
preprocessors back (the benchmark's baseline and the in-kernel driver's test use it).
"""

from __future__ import annotations

import errno
import functools
import logging
import warnings
from pathlib import Path

from nbformat import NotebookNode
from nbgrader.converters import Autograde
from nbgrader.preprocessors.base import NbGraderPreprocessor
from traitlets import Bool, Float
from traitlets.config import Config

from reading_maths.grading.batch import grade_one
from reading_maths.grading.engine import Settings
from reading_maths.inputs import UnsafeInput, unsafe_entries
from reading_maths.nbgrader.patches import converter_of
from reading_maths.nbgrader.recording import save_results
from reading_maths.nbgrader.steps import RESOURCE_KEY, SandboxedAutograde
from reading_maths.sandbox.limits import Limits
from reading_maths.sandbox.process import Sandbox, choose


@functools.cache
def _sandbox(unsafe: bool, log: logging.Logger) -> Sandbox:
    """The sandbox; without one, :class:`~reading_maths.sandbox.process.SandboxUnavailable` (the
    submission is not graded) unless ``unsafe``."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        sandbox = choose(allow_unsafe=unsafe, limits=Limits.for_jobs(1))  # nbgrader grades one at a time
    for warning in seen:
        log.warning("%s", warning.message)
    return sandbox


class GradeInSandbox(NbGraderPreprocessor):
    """Grade the submitted notebook with the sandboxed engine, for :class:`InjectResults` to inject.

    Runs first among the autograde preprocessors. The file graded is the one in ``submitted/`` (as
    ``reading-maths autograde`` grades it), not nbgrader's sanitized copy; its structured result is
    kept in ``autograded/<student>/<assignment>.json``. When the result is already in the resources
    (``reading-maths autograde`` graded the class in parallel first) nothing is done.
    """

    timeout = Float(30.0, help="Seconds a student's cell or a call to a student's function may run.").tag(config=True)
    budget = Float(None, allow_none=True, help="Seconds one notebook's whole grading may take (all its cells and "
                   "calls); the questions not graded by then get 0. None: a multiple of the reference solution's own "
                   "grading time (reading_maths.grading.budget).").tag(config=True)
    unsafe_no_sandbox = Bool(False, help="Grade even where no sandbox can be had (student code then runs as a "
                             "plain subprocess of this user); without it, grading refuses there.").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        mine = resources.setdefault(RESOURCE_KEY, {})
        if "result" in mine:
            return nb, resources
        coursedir = converter_of(self).coursedir
        info = resources["nbgrader"]
        folder = coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"])
        if unsafe := unsafe_entries(Path(folder)):  # nbgrader fails this submission and removes its autograded copy
            raise UnsafeInput(errno.EPERM, f"{info['student']}'s submission is refused: {'; '.join(unsafe[:3])}")
        settings = Settings(_sandbox(self.unsafe_no_sandbox, self.log), cell_timeout=self.timeout,
                            call_timeout=self.timeout, budget=self.budget)
        result = grade_one(Path(folder, f"{info['notebook']}.ipynb"), settings, Path(coursedir.root).resolve(),
                           info["assignment"])
        mine["result"] = result
        save_results(coursedir, info["student"], info["assignment"], {info["notebook"]: result}, merge=True)
        return nb, resources


def route_autograde(c: Config, sandboxed: bool = True) -> None:
    """Configure nbgrader's ``Autograde``: sandboxed grading (default), or nbgrader's stock kernel execution."""
    converter = SandboxedAutograde if sandboxed else Autograde
    traits = converter.class_traits()
    c.Autograde.sanitize_preprocessors = list(traits["sanitize_preprocessors"].default())
    c.Autograde.autograde_preprocessors = ([GradeInSandbox] if sandboxed else []) + list(
        traits["autograde_preprocessors"].default())
    c.OverwriteCells.add_missing_cells = sandboxed  # sandboxed: a deleted grade cell is put back, graded 0
    c.Exporter.optimistic_validation = sandboxed  # sandboxed: the notebook validated once per pass, as autograde does
