"""Where every core-second of a whole ``reading-maths autograde`` batch goes.

Runs :func:`reading_maths.nbgrader.autograde.autograde` in this one process, one submission after another
(the pool is replaced by a loop, so that every step runs here and can be timed): each notebook graded as a
pool worker grades it (children forked by the fork server, each started a notebook ahead) and recorded as
the driver records it, and counts CPU seconds:

- this process's, per step (``time.process_time`` around each, nested steps subtracted): reading and
  sanitizing the notebook, talking to the child (calls and cells), the trusted-side comparisons, each of
  nbgrader's recording steps, the gradebook, and the imports before any of it;
- each sandboxed child's own (user + system time of its processes, read from ``/proc`` just before it is
  stopped): the student's cells and calls, and the child's set-up;
- the fork server's (once for the batch: Python, NumPy and the notebook's imports).

    .venv/bin/python benchmarks/profile_batch.py COURSE ASSIGNMENT     # prints one JSON object
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

from report import FORKED as FORKED_HERE  # beside this file: the report shows the row by this name
from sandbox_cpu import tree_cpu  # beside this file

T0, C0 = time.perf_counter(), time.process_time()
from reading_maths.nbgrader import autograde as ag  # noqa: E402 - the imports are what is timed
from reading_maths.sandbox import child_starter  # noqa: E402
from reading_maths.sandbox.process import choose  # noqa: E402

for _name in ("nbgrader.apps", "nbgrader.api"):  # autograde imports nbgrader where it uses it: timed here too
    importlib.import_module(_name)

IMPORTS, IMPORTS_CPU = time.perf_counter() - T0, time.process_time() - C0

cpu: dict[str, float] = defaultdict(float)
wall: dict[str, float] = defaultdict(float)
counts: dict[str, int] = defaultdict(int)
_inner: list[float] = []  # CPU of steps nested in the running one, to subtract from it


def meter(owner, attr: str, name: str) -> None:
    """Add the CPU and wall seconds of every call of ``owner.attr`` to ``name`` (exclusive of metered calls inside)."""
    original = getattr(owner, attr)

    @functools.wraps(original)
    def timed(*args, **kwargs):
        _inner.append(0.0)
        start, used = time.perf_counter(), time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent = time.process_time() - used
            nested = _inner.pop()
            cpu[name] += spent - nested
            wall[name] += time.perf_counter() - start
            counts[name] += 1
            if _inner:
                _inner[-1] += spent

    setattr(owner, attr, timed)


def counted_stop(original):
    @functools.wraps(original)
    def stop(child, group=None):
        cpu["sandboxed children (their own CPU: set-up, student cells, calls)"] += tree_cpu(
            [pid for pid in (child.pid, getattr(child, "init", None)) if pid])
        counts["sandboxed children (their own CPU: set-up, student cells, calls)"] += 1
        return original(child, group)

    return stop


def instrument() -> None:
    from nbconvert.exporters import Exporter
    from nbgrader.converters.base import BaseConverter

    from reading_maths.grading import engine, graderfile
    from reading_maths.nbgrader import recording
    from reading_maths.sandbox import session

    child_starter.stop = counted_stop(child_starter.stop)
    meter(engine, "load", "trusted: reading and recognising the notebook")
    meter(engine, "sanitize", "trusted: sanitizing (locked cells)")
    meter(child_starter.Starter, "take", "trusted: taking a child started ahead, starting the next")
    meter(session.StudentSession, "_run", "trusted: following the child through the cells")
    meter(session.StudentSession, "call", "trusted: calls into the sandbox (wire, pipes)")
    for step in ("run", "start", "finish"):  # the public run's cases, then the hidden run's
        meter(graderfile.GraderFile, step, "trusted: the graders' comparisons and diagnoses")
    meter(session.StudentSession, "close", "trusted: stopping the child")
    meter(engine, "grade", "trusted: the rest of grading a notebook")
    meter(Exporter, "from_filename", "recording: nbgrader's preprocessors (one pass)")
    meter(BaseConverter, "write_single_notebook", "recording: writing the autograded notebook")
    meter(recording, "record", "recording: nbgrader's converter set-up (gradebook rows, files)")
    meter(recording, "release_zero_point_tasks", "recording: unflagging 0-point tasks")
    meter(recording, "save_results", "recording: the structured results JSON")
    meter(recording.Recorder, "settle", "recording: committing, and the rest of settling a student")
    meter(recording, "read_back", "recording: reading the student's scores back")
    meter(ag, "open_course", "set-up: nbgrader's configuration and the gradebook (once)")
    meter(ag, "find_submissions", "set-up: finding the submissions (once)")


def serial_grade_many(paths, settings, *, root, assignment=None, on_result=None, **_):
    """grade_many without the pool: every notebook graded here, in order, as a pool worker grades it (children
    from the fork server, started ahead), each recorded as it is graded."""
    from reading_maths.grading import batch

    worker = dataclasses.replace(settings, ahead=True)
    results = []
    for i, path in enumerate(paths):
        results.append(batch.grade_one(Path(path), worker, root, assignment))
        if on_result is not None:
            on_result(i, results[-1])
    return results


def fork_server_cpu() -> tuple[float, bool]:
    """The fork servers' own CPU (their start and imports; not that of the children they reaped, each counted when
    it was stopped), and whether there was one."""
    found = [z._process for s in child_starter._made.values() for z in (s._fork_servers or {}).values()
             if z._process]
    return sum(tree_cpu([z.pid], reaped=False) for z in found), bool(found)




def reaped_cpu() -> float:
    """CPU seconds of this process's children it has reaped: with the children from the fork server (the fork
    server's own, reaped inside its sandbox), these are the processes the graders fork to evaluate a formula
    under limits (:mod:`reading_maths.sandbox.limited_eval`)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


@contextlib.contextmanager
def no_pool(*_, **__):
    """Instead of the pool autograde starts before it finds the submissions: every notebook is graded here."""
    yield None


def main() -> None:
    course, assignment = Path(sys.argv[1]), sys.argv[2]
    instrument()
    ag.grade_many = serial_grade_many
    ag.started_pool = no_pool
    settings = ag.Settings(choose())
    wall0, cpu0, reaped0 = time.perf_counter(), time.process_time(), reaped_cpu()
    outcomes = ag.autograde(course, assignment, settings, progress=False)
    server_cpu, forked = fork_server_cpu()
    cpu[FORKED_HERE] += reaped_cpu() - reaped0
    print(json.dumps({
        "assignment": assignment, "notebooks": len(outcomes), "sandbox": settings.sandbox.mode, "forked": forked,
        "imports": IMPORTS_CPU, "wall": time.perf_counter() - wall0, "cpu": time.process_time() - cpu0,
        "fork_server_cpu": server_cpu, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "steps": dict(cpu), "wall_steps": dict(wall), "counts": dict(counts),
        "scores": {o.student: o.scores for o in outcomes},
    }))


if __name__ == "__main__":
    main()
