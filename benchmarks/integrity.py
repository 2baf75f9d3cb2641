"""The integrity report: its calibration on planted copies, and its time on a class of 300.

    .venv/bin/python benchmarks/integrity.py calibrate   # writes reading_maths/integrity/calibration.json
    .venv/bin/python benchmarks/integrity.py speed       # 50, 100, 200, 300 students of `code`, 2 processes
    .venv/bin/python benchmarks/integrity.py speed 300 600   # other class sizes

``speed`` writes each class's notebooks (every student answering each question with one of the corpora's right
answers, its variables renamed after the student: every text different, many pairs sharing whole answers) into a
course folder and times ``reading_maths.integrity.run.integrity`` on it, reading and all.
Results: benchmarks/integrity_results.md.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from classroom.disguises import rename  # noqa: E402
from classroom.planted import measure, planted_class  # noqa: E402
from reading_maths.integrity.run import CALIBRATION, integrity  # noqa: E402
from reading_maths.notebook import grade_id  # noqa: E402


def calibrate() -> dict:
    """Measure the planted classes of ``code`` and ``build`` and keep the figures beside the report."""
    figures = {a: measure(ROOT, a) for a in ("code", "build")}
    for f in figures.values():
        f["copy_scores"] = {k: round(v, 4) for k, v in f["copy_scores"].items()}
        for key in ("lowest_copy", "highest_honest"):
            f[key] = round(f[key], 4)
    CALIBRATION.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return figures


def _course(size: int, folder: Path) -> Path:
    course = folder / f"class-{size}"
    for part in ("source", "release"):
        shutil.copytree(ROOT / part / "code", course / part / "code")
    (course / "graders" / "code").mkdir(parents=True)
    planted = planted_class(ROOT, "code", honest=size)
    for student, nb in planted.notebooks.items():
        for cell in nb.cells:
            if grade_id(cell) and grade_id(cell).endswith("-answer") and cell.source.strip():
                cell.source = rename(cell.source, prefix=student)  # each student's text their own
        target = course / "submitted" / student / "code"
        target.mkdir(parents=True)
        nbformat.write(nb, target / "code.ipynb")
    return course


def speed(sizes: tuple[int, ...] = (50, 100, 200, 300), jobs: int = 2) -> list[tuple[int, int, float]]:
    """(students, pairs, seconds) per class size."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            course = _course(size, Path(tmp))
            start = time.perf_counter()
            result = integrity(course, "code", jobs=jobs)
            seconds = time.perf_counter() - start
            students = len(result.students)
            rows.append((students, students * (students - 1) // 2, seconds))
            print(f"{students} students, {rows[-1][1]} pairs x 5 questions: {seconds:.1f} s "
                  f"({1e6 * seconds / rows[-1][1]:.0f} µs a pair)", flush=True)
    return rows


if __name__ == "__main__":
    if sys.argv[1:] == ["calibrate"]:
        print(json.dumps(calibrate(), indent=1))
    elif sys.argv[1:2] == ["speed"]:
        speed(tuple(int(n) for n in sys.argv[2:]) or (50, 100, 200, 300))
    else:
        sys.exit(__doc__)
