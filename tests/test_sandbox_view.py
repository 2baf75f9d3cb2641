"""What the sandbox can see: nothing secret, nothing of the grading kit (issue 9, deliverable 2).

A student's cell walks the whole file tree it is given and reports every readable file. The test
fails if any grader file, source notebook (the references), seed, mistake catalogue, gradebook or
any part of this package beyond the child's entry point and its wire could be reached.
"""

from pathlib import Path

import pytest

from conftest import ROOT
from reading_maths.sandbox.process import INSIDE
from test_sandbox import SANDBOX, needs_isolation, session

pytestmark = pytest.mark.sandbox

WALK = r"""
import os
seen = []
for top in ("/",):
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/sys", "/dev")]
        for name in files:
            path = os.path.join(folder, name)
            if os.access(path, os.R_OK):
                seen.append(path)
probe = "\n".join(seen)
"""


@pytest.fixture(scope="module")
def readable() -> list[str]:
    with session(WALK, timeout=120) as s:
        found = s.env().get("probe")
    assert isinstance(found, str), f"the walk did not finish: {s.cell_errors}"
    return found.splitlines()


def _seeds() -> list[str]:
    """Each grader file's SEED value, as written in the file."""
    found = []
    for grader in (ROOT / "graders").rglob("*.py"):
        for line in grader.read_text(encoding="utf-8").splitlines():
            if line.startswith("SEED ="):
                found.append(line.split("=", 1)[1].split("#")[0].strip().replace("_", ""))
    return found


@needs_isolation
def test_the_sandbox_sees_no_course_file(readable):
    assert len(readable) > 1000, "the walk saw the Python installation"
    course = str(ROOT)
    leaked = [p for p in readable if p.startswith(course + "/") and "/.venv/" not in p]
    assert leaked == [], leaked[:10]
    outside_python = [p for p in readable if "/site-packages/" not in p and not p.startswith("/usr/")]
    secret_names = [p for p in outside_python if Path(p).name in ("gradebook.db", "nbgrader_config.py")
                    or "/graders/" in p or ("/source/" in p and p.endswith(".ipynb"))]
    assert secret_names == [], secret_names[:10]


@needs_isolation
def test_of_this_package_only_the_child_and_its_wire_are_visible(readable):
    modules = [p for p in readable if ("/reading_maths/" in p or "/reading-maths-child/" in p)]
    sources = {Path(p).name for p in modules if p.endswith(".py")}
    assert sources == {p.name for p in INSIDE.glob("*.py")}, sorted(modules)[:20]
    assert all(p.startswith("/opt/reading-maths-child/") for p in modules), sorted(modules)[:20]


@needs_isolation
def test_no_readable_python_file_holds_a_seed(readable):
    seeds = _seeds()
    assert seeds, "the graders have seeds"
    suspects = [p for p in readable if p.endswith(".py") and ("reading" in p or "grader" in p)]
    for path in suspects:
        text = Path(path).read_text(encoding="utf-8", errors="replace") if Path(path).is_file() else ""
        assert not any(seed in text.replace("_", "") for seed in seeds), path


def test_the_sandbox_mode_is_reported():
    assert SANDBOX.mode in ("bwrap", "userns", "plain")
