"""A batch's start-up: Otter's package body run only when one of its names is asked for, and the pool of
``reading-maths autograde`` started before nbgrader is imported, its workers warm and free of nbgrader."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

HEAVY = ("pandas", "nbconvert", "otter.api", "otter.run", "nbgrader", "sqlalchemy", "jupyter_server")


def python(code: str) -> list:
    """Run ``code`` in a fresh interpreter (nothing imported yet); what it printed, as JSON lines."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.slow
def test_loading_the_graders_imports_otters_test_files_only_and_otter_stays_whole():
    loaded, whole = python(f"""
import json, sys
from pathlib import Path
from reading_maths.course import assignment
assignment(Path({str(ROOT)!r}), "code").graders
print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
import importlib.metadata, otter
from otter import api
print(json.dumps([otter.Notebook.__name__, otter.__version__ == importlib.metadata.version("otter-grader"),
                  api.__name__, "pandas" in sys.modules]))
""")
    assert loaded == []
    assert whole == ["Notebook", True, "otter.api", True]  # the package's body ran when its names were asked for


@pytest.mark.sandbox
def test_the_pool_starts_before_nbgrader_and_its_workers_warm_up_without_it():
    found = python(f"""
import json, sys
from pathlib import Path
from reading_maths.grading.batch import started_pool
from reading_maths.grading.engine import Settings
from reading_maths.sandbox.process import choose

def seen():
    from reading_maths.sandbox import child_starter
    ready = [s for s in child_starter._made.values() if s._ready is not None]
    return [m for m in {HEAVY!r} if m in sys.modules], len(ready)

settings = Settings(choose(), budget=30.0)
with started_pool(settings, 2, Path({str(ROOT)!r}), "code") as pool:
    import nbgrader.apps  # this process imports nbgrader while the workers warm up
    print(json.dumps([pool.submit(seen).result() for _ in range(4)]))
""")[0]
    assert found == [[[], 1]] * 4  # no nbgrader in a worker; each has its fork server and a child waiting


@pytest.mark.sandbox
def test_a_batch_whose_early_worker_died_is_graded_by_new_ones():
    score, out_of, why = python(f"""
import json, os
from pathlib import Path
from reading_maths.grading.batch import grade_many, started_pool
from reading_maths.grading.engine import Settings
from reading_maths.sandbox.process import choose

root = Path({str(ROOT)!r})
settings = Settings(choose(), budget=30.0)
with started_pool(settings, 1, root, "code") as pool:
    died = pool.submit(os._exit, 1)  # the worker dies before it is handed the batch: the pool is broken
    why = type(died.exception()).__name__
    result, = grade_many([root / "source" / "code" / "code.ipynb"], settings, jobs=1, root=root, assignment="code",
                         progress=False, pool=pool)
print(json.dumps([result.score, result.max_score, why]))
""")[0]
    assert why == "BrokenProcessPool"
    assert score == out_of > 0


@pytest.mark.sandbox
def test_notebooks_begun_ahead_are_taken_over_and_the_others_dropped(tmp_path):
    notebooks = []
    for name in "abc":
        notebooks.append(tmp_path / name / "code.ipynb")
        notebooks[-1].parent.mkdir()
        notebooks[-1].write_bytes((ROOT / "source" / "code" / "code.ipynb").read_bytes())
    graded = python(f"""
import json
from pathlib import Path
from reading_maths.grading.batch import grade_many, started_pool
from reading_maths.grading.engine import Settings
from reading_maths.sandbox.process import choose

root, (a, b, c) = Path({str(ROOT)!r}), [Path(p) for p in {[str(p) for p in notebooks]!r}]
settings = Settings(choose(), budget=30.0)
with started_pool(settings, 1, root, "code") as pool:
    pool.grade_ahead([a, b], settings, root, "code")  # a is never asked for; c was not begun
    results = grade_many([b, c], settings, jobs=1, root=root, assignment="code", progress=False, pool=pool)
print(json.dumps([[Path(r.notebook).parent.name, r.score == r.max_score > 0] for r in results]))
""")[0]
    assert graded == [["b", True], ["c", True]]
