"""The in-process floor of grading a class: each notebook's cells exec'd and the assignment's graders run on its
names, in one warm process on one core, with no isolation and no recording.

What no grader of this course can go below: no sandbox, no child process, no wire between the graders and the
student's names, nothing written; only the student's code and the graders' own comparisons.  ``make bench`` sets
the batch's core time per notebook against it.

- one core (this process is kept to it) and one BLAS thread, as a sandboxed child has;
- warm, but on no notebook of the class: Python, NumPy and the graders loaded, and the assignment's source
  notebook (the reference, every answer the course's own) graded once, untimed, as a pool worker grades it
  when it measures the time budget: every module a grader imports is loaded and the graders' memories hold the
  reference's outputs, which any grading process has after its first notebook;
- one timed pass over the class, in order, each notebook graded once: what the memories (:mod:`~reading_maths.kit.memo`,
  the formula checks' caches) give a notebook is only what an earlier notebook of the same class (or the
  reference) put there, as in a batch's worker; never its own verdicts from an earlier pass;
- per notebook: its code cells (read-only cells restored, hidden test cells left out, as the sandbox runs them)
  exec'd in a fresh namespace, a cell that raises skipped as a kernel goes on; then every grader's cases on
  those names (:meth:`~reading_maths.grading.graderfile.GraderFile.run`, its public and hidden cases at once).
  Reading and parsing the file is outside the timed part.  Each notebook's CPU time (``time.process_time``).

The notebooks are the benchmark's synthetic class, made from the course's own answers (``synthetic.py``):
never run this on students' notebooks, whose code it runs unsandboxed.

    .venv/bin/python benchmarks/floor.py COURSE ASSIGNMENT     # prints one JSON object
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import statistics
import sys
import time
import warnings
from pathlib import Path

os.environ.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"})

import numpy as np  # noqa: E402

from reading_maths.course import Assignment  # noqa: E402
from reading_maths.grading.engine import sanitize  # noqa: E402
from reading_maths.notebook import read_notebook  # noqa: E402

LIMIT = 30.0
"""Seconds one notebook may take here before it is given up (the class's answers are the course's own: none loops)."""


class TooLong(Exception):
    pass


def _too_long(*_) -> None:
    raise TooLong


def grade_in_process(cells, graders, names) -> dict[str, float]:
    """One notebook: its cells exec'd in a fresh namespace, then every grader on its names; the scores."""
    namespace: dict = {"__name__": "__main__"}
    for cell in cells:
        try:
            exec(compile(cell.code, cell.label, "exec"), namespace)  # noqa: S102 - the course's own answers
        except (TooLong, KeyboardInterrupt):
            raise
        except BaseException:  # noqa: BLE001 - a cell's error (SystemExit too): the next cells run, as in a kernel
            continue
    env = {n: namespace[n] for n in names if n in namespace}
    return {g.question: g.run(env).score for g in graders}


def timed(cells, graders, names) -> tuple[float, dict[str, float] | None]:
    """CPU seconds of :func:`grade_in_process`, and its scores (None when it ran out of :data:`LIMIT`)."""
    signal.setitimer(signal.ITIMER_REAL, LIMIT)
    started = time.process_time()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            scores = grade_in_process(cells, graders, names)
    except TooLong:
        scores = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    spent = time.process_time() - started
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
    return spent, scores


def main() -> None:
    course, assignment = Path(sys.argv[1]).resolve(), sys.argv[2]
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    signal.signal(signal.SIGALRM, _too_long)
    known = Assignment(assignment, course)
    graders = known.graders
    names = list(dict.fromkeys(n for g in graders for n in g.names))
    folders = sorted(p for p in (course / "submitted").iterdir() if p.is_dir())
    notebooks = {f.name: sanitize(read_notebook(f / assignment / f"{assignment}.ipynb"), known)[0]
                 for f in folders if (f / assignment / f"{assignment}.ipynb").is_file()}
    timed(sanitize(known.source, known)[0], graders, names)  # warm: the reference, untimed
    spent, scores = {}, {}
    for student, cells in notebooks.items():
        spent[student], scores[student] = timed(cells, graders, names)
    values = list(spent.values()) or [0.0]
    print(json.dumps({"assignment": assignment, "notebooks": len(notebooks), "mean": sum(values) / len(values),
                      "median": statistics.median(values), "max": max(values),
                      "gave_up": sorted(s for s, v in scores.items() if v is None), "scores": scores}))


if __name__ == "__main__":
    main()
