"""Where every core-second of a whole ``reading-maths autograde`` batch goes.

Runs :func:`reading_maths.nbgrader.autograde.autograde` in this one process, one notebook after
another (the pool is replaced by a loop, so that every step runs here and can be timed), with
``time.perf_counter`` wrapped around the steps: importing, child start and cells, calls into the
sandbox, the trusted-side comparisons, nbgrader's converter (each sanitize and recording
preprocessor, reading and writing the notebook) and the gradebook.  The children's own CPU time
comes from ``getrusage(RUSAGE_CHILDREN)``.

    .venv/bin/python benchmarks/profile_batch.py COURSE ASSIGNMENT     # prints one JSON object
"""

from __future__ import annotations

import functools
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

T0 = time.perf_counter()
C0 = time.process_time()
from reading_maths.nbgrader import autograde as ag  # noqa: E402 - the import is what is timed
from reading_maths.sandbox.process import choose  # noqa: E402

IMPORTS = time.perf_counter() - T0
IMPORTS_CPU = time.process_time() - C0

spent: dict[str, float] = defaultdict(float)
counts: dict[str, int] = defaultdict(int)


def meter(owner, attr: str, name: str) -> None:
    """Accumulate the wall time of every call of ``owner.attr`` under ``name``."""
    original = getattr(owner, attr)

    @functools.wraps(original)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start
            counts[name] += 1

    setattr(owner, attr, timed)


def instrument() -> None:
    from nbconvert.exporters import Exporter
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.converters.base import BaseConverter
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        ClearOutput,
        DeduplicateIds,
        LimitOutput,
        OverwriteKernelspec,
        SaveAutoGrades,
    )

    from reading_maths.grading import engine, graderfile
    from reading_maths.nbgrader import recording, steps
    from reading_maths.sandbox import session

    meter(engine, "load", "grade: read + recognise the notebook")
    meter(engine, "sanitize", "grade: sanitize (locked cells)")
    meter(session.StudentSession, "start", "grade: child start + student cells")
    meter(session.StudentSession, "call", "grade: calls into the sandbox")
    meter(session.StudentSession, "close", "grade: stop child, remove scratch")
    meter(graderfile.GraderFile, "run", "grade: graders (incl. calls)")
    meter(engine, "grade", "grade: total")
    meter(ag, "grade_one", "grade: total + errors")
    for cls in (ClearOutput, DeduplicateIds, OverwriteKernelspec, steps.RestoreCells, CheckCellMetadata,
                steps.InjectResults, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
                steps.SaveFeedbackComments, AssignLatePenalties):
        meter(cls, "preprocess", f"record: {cls.__name__}")
    meter(Exporter, "from_filename", "record: converter passes (read + preprocessors)")
    meter(BaseConverter, "write_single_notebook", "record: write autograded/ notebook")
    meter(BaseConverter, "init_single_notebook_resources", "record: resources")
    meter(BaseConverter, "init_destination", "record: init destination (gradebook checks, copy files)")
    meter(BaseConverter, "init_assignment", "record: init assignment (gradebook submission)")
    meter(recording, "record", "record: total (converter per student)")
    meter(recording, "release_zero_point_tasks", "record: unflag 0-point tasks (gradebook)")
    meter(recording, "save_results", "record: save results JSON")
    meter(ag, "read_back", "read back scores (gradebook)")
    meter(ag, "open_course", "open course (nbgrader config, gradebook)")
    meter(ag, "find_submissions", "find submissions")


def serial_grade_locally(submissions, settings, root, assignment, jobs, progress):
    """grade_locally without the pool: every submission graded and recorded here, in order."""
    recorder = ag.start_worker(root, assignment)
    try:
        return {s.student: ag.grade_and_record(s, settings, root, assignment) for s in submissions}
    finally:
        recorder.close()


def main() -> None:
    course, assignment = Path(sys.argv[1]), sys.argv[2]
    instrument()
    ag.grade_locally = serial_grade_locally
    settings = ag.Settings(choose())
    wall0, cpu0 = time.perf_counter(), time.process_time()
    outcomes = ag.autograde(course, assignment, settings, progress=False)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "assignment": assignment, "notebooks": len(outcomes), "sandbox": settings.sandbox.mode,
        "imports": IMPORTS, "imports_cpu": IMPORTS_CPU, "wall": wall, "cpu": cpu,
        "children_cpu": children.ru_utime + children.ru_stime, "peak_rss_mb": resource.getrusage(
            resource.RUSAGE_SELF).ru_maxrss / 1024,
        "spent": dict(spent), "counts": dict(counts),
        "scores": {o.student: o.scores for o in outcomes},
    }))


if __name__ == "__main__":
    main()
