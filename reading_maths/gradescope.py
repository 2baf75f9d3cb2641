"""``reading-maths gradescope``: one assignment as a Gradescope ``autograder.zip``.

Gradescope's autograder specification: the zip holds ``setup.sh`` (run once, as root, when the
grading image is built) and ``run_autograder`` (run for each submission, from ``/autograder``) at
its root; Gradescope unpacks it into ``/autograder/source``, puts the student's files in
``/autograder/submission`` and reads the grade from ``/autograder/results/results.json``.

The zip, like ``otter generate``'s, carries everything the grading image needs:

- ``setup.sh``: bubblewrap, a Python ≥ 3.11, a virtual environment with this package installed
  (``package/``) at the versions it was built with (``constraints.txt``);
- ``run_autograder``: ``reading-maths grade /autograder/submission --gradescope ...``, the sandboxed
  engine, with this assignment's hidden-test visibility and time limit;
- ``course/``: the assignment's source notebook (the reference solution) and its hidden graders.
"""

from __future__ import annotations

import importlib.metadata
import re
import stat
import zipfile
from pathlib import Path
from string import Template

from reading_maths.course import Assignment, assignments
from reading_maths.kit.reference import SECRET_FILE, course_secret
from reading_maths.reports.outputs import VISIBILITIES

TEMPLATES = Path(__file__).resolve().parent / "templates" / "gradescope"
SKIP = re.compile(r"(__pycache__|\.ipynb_checkpoints|\.pyc$|\.egg-info)")


def constraints() -> str:
    """``name==version`` for every distribution installed here except this package: the image gets the same."""
    pins = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower().replace("_", "-") != "reading-maths":
            pins[name.lower()] = f"{name}=={dist.version}"
    return "\n".join(pins[k] for k in sorted(pins)) + "\n"


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and not SKIP.search(str(p.relative_to(folder))))


def _add(zf: zipfile.ZipFile, arcname: str, data: bytes | str, executable: bool = False) -> None:
    info = zipfile.ZipInfo(arcname, date_time=(2024, 1, 1, 0, 0, 0))  # the same course gives the same zip
    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def build(root: Path, assignment: str, out: Path, *, hidden: str = "after_published", timeout: float = 30.0,
          unsafe: bool = False) -> list[str]:
    """Write ``out`` (the autograder zip of ``assignment``) and return the names it holds.

    Parameters
    ----------
    root
        the course folder: ``source/``, ``graders/`` and the package's ``pyproject.toml``.
    hidden
        Gradescope visibility of the hidden tests: ``after_published`` (default), ``after_due_date``
        or ``hidden`` (the specification keeps ``hidden`` for tests that carry no points).
    unsafe
        grade with resource limits only when the image cannot run the sandbox (``--unsafe-no-sandbox``);
        by default such a run refuses, and its results.json says why.
    """
    task = Assignment(assignment, root)
    if not task.source_notebook.is_file():
        known = ", ".join(a.id for a in assignments(root))
        raise FileNotFoundError(f"no assignment {assignment!r} in source/; known assignments: {known}")
    if hidden not in VISIBILITIES:
        raise ValueError(f"visibility {hidden!r} is not one of {', '.join(VISIBILITIES)}")
    if not (root / "pyproject.toml").is_file():
        raise FileNotFoundError(f"{root / 'pyproject.toml'} is missing: build the zip from the course repository")
    fill = {"assignment": assignment, "hidden": hidden, "timeout": f"{timeout:g}",
            "sandbox": "--unsafe-no-sandbox" if unsafe else ""}
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as zf:
        for script in ("setup.sh", "run_autograder"):
            text = Template((TEMPLATES / script).read_text(encoding="utf-8")).substitute(fill)
            _add(zf, script, text, executable=True)
        _add(zf, "constraints.txt", constraints())
        for name in ("pyproject.toml", "README.md"):
            _add(zf, f"package/{name}", (root / name).read_bytes())
        package = Path(__file__).resolve().parent
        for path in _files(package):
            _add(zf, f"package/reading_maths/{path.relative_to(package).as_posix()}", path.read_bytes())
        _add(zf, f"course/source/{assignment}/{assignment}.ipynb", task.source_notebook.read_bytes())
        course_secret(root)  # made if the course has none yet: the zip grades with the course's own hidden inputs
        _add(zf, f"course/{SECRET_FILE}", (root / SECRET_FILE).read_bytes())
        graders = root / "graders" / assignment
        for path in _files(graders):
            _add(zf, f"course/graders/{assignment}/{path.relative_to(graders).as_posix()}", path.read_bytes())
        return zf.namelist()
