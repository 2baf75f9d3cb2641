"""``make demo`` (``python -m classroom.demo``): the whole nbgrader workflow on a bundled class of about 30 students.

Everything happens in a fresh work folder (``demo/`` under the course root by default), a copy of
the course's ``source/``, ``graders/`` and ``nbgrader_config.py``, so the real course's gradebook is
never touched.  The steps are the instructor's and the students' own:

1. ``nbgrader db student import`` + ``generate_assignment`` + ``release_assignment`` (exchange in ``demo/exchange``)
2. each student fetches, answers and submits through nbgrader's exchange (``--student=ID``; the
   exchange classes are driven in-process, one student after the other, to keep the demo fast)
3. the due date passes (``nbgrader db assignment add A --duedate``); two students submit late
4. ``nbgrader collect`` → ``reading-maths autograde A`` → ``generate_feedback`` + ``release_feedback``
5. ``nbgrader export`` → ``reading-maths report``

The answers come from the course's own material, written into the answer cells by the class
builder (:mod:`classroom.builder`): the source notebook's solutions and the corpora's ``RIGHT``
entries for right answers, the graders' mistake catalogues and the corpora's ``WRONG`` entries
for typical mistakes.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from classroom.builder import ClassBuilder
from classroom.roster import COURSE_ID, Student, copied_from, make_class, roster
from reading_maths.course import Assignment, assignments, find_root
from reading_maths.nbgrader.environment import nbgrader_env, use_nbgrader_env
from reading_maths.reports.tables import grade_table

DEMO_CONFIG = f'''
# --- added by `reading-maths demo` (this copy only) ---------------------------------------------
# Late policy: 10 % of the score per started day late (reading_maths.nbgrader.late.TenPercentPerDay).
c.AssignLatePenalties.plugin_class = "reading_maths.nbgrader.late.TenPercentPerDay"
# The demo's 30 students all submit as one OS user, with `nbgrader submit --student=ID`.
c.ExchangeCollect.check_owner = False
c.CourseDirectory.course_id = "{COURSE_ID}"
'''

NOTES = {"hostile": "hostile: its first answer tries to read the graders and the gradebook and to kill the grader; "
                    "the sandbox let it do neither, so it scores what its answers are worth (right ones)",
         "late": "late: submitted after the due date (10 % off per started day)"}
"""What the grade table says beside a student whose score alone would mislead."""

# -- running nbgrader -----------------------------------------------------------------------------

def nbgrader(work: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``nbgrader ARGS`` in the demo's course folder (its nbgrader_config.py applies)."""
    command = [sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, env=_env(work), check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{done.stdout[-1500:]}{done.stderr[-3000:]}")
    return done


def reading_maths(work: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "reading_maths.cli", *args]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, env=_env(work), check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"reading-maths {' '.join(args)} failed:\n{done.stdout[-1500:]}{done.stderr[-3000:]}")
    return done


def _env(work: Path) -> dict[str, str]:
    env = nbgrader_env()
    env.pop("JUPYTER_CONFIG_DIR", None)
    return env


# -- the demo -------------------------------------------------------------------------------------

@dataclass
class DemoResult:
    work: Path
    students: list[Student]
    assignments: list[str]
    artefacts: dict[str, Path] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)


def prepare(root: Path, work: Path, assignment_ids: list[str] | None = None) -> list[str]:
    """A fresh course folder at ``work``: copies of source/, graders/, tests/corpora and the config."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shutil.copytree(root / "source", work / "source")
    shutil.copytree(root / "graders", work / "graders", ignore=shutil.ignore_patterns("__pycache__"))
    if (root / "tests" / "corpora").is_dir():
        shutil.copytree(root / "tests" / "corpora", work / "tests" / "corpora",
                        ignore=shutil.ignore_patterns("__pycache__"))
    config = (root / "nbgrader_config.py").read_text(encoding="utf-8")
    (work / "nbgrader_config.py").write_text(config + DEMO_CONFIG, encoding="utf-8")
    found = [a.id for a in assignments(work) if (work / "graders" / a.id).is_dir()]
    return [a for a in found if assignment_ids is None or a in assignment_ids]


class Instructor:
    """nbgrader's own instructor commands, run in-process through ``nbgrader.apps.NbGraderAPI``.

    Each method is the named ``nbgrader`` command with the course folder's ``nbgrader_config.py``
    (in-process because every ``nbgrader`` start-up costs seconds, times 4 assignments x 6 steps).
    """

    def __init__(self, work: Path):
        from nbgrader.apps import NbGraderAPI
        from nbgrader.auth import Authenticator
        from nbgrader.coursedir import CourseDirectory
        from traitlets.config.loader import PyFileConfigLoader

        self.work = work
        self.config = PyFileConfigLoader("nbgrader_config.py", path=str(work)).load_config()
        coursedir = CourseDirectory(config=self.config)
        self.api = NbGraderAPI(coursedir, Authenticator(config=self.config), config=self.config)

    def run(self, command: str, *args: Any, **kwargs: Any) -> None:
        result = getattr(self.api, command)(*args, **kwargs)
        if not result.get("success"):
            raise RuntimeError(f"nbgrader {command} {' '.join(map(str, args))} failed:\n"
                               f"{result.get('log', '')[-1500:]}{result.get('error', '')[-3000:]}")

    def gradebook(self):
        from nbgrader.api import Gradebook

        return Gradebook(self.config.CourseDirectory.db_url, COURSE_ID)


def run_class(work: Path, students: list[Student], assignment_ids: list[str], *,
              log: Callable[[str], None] = print, jobs: int = 0) -> dict[str, float]:
    """Run the whole workflow in a prepared course folder; returns seconds per step."""
    timings: dict[str, float] = {}

    def timed(name: str, func: Callable[[], Any]) -> Any:
        log(f"· {name}")
        start = time.perf_counter()
        value = func()
        timings[name] = round(time.perf_counter() - start, 2)
        return value

    use_nbgrader_env()
    nbg = Instructor(work)

    def import_roster() -> None:
        roster_csv = work / "students.csv"
        with roster_csv.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", "first_name", "last_name", "email"])
            writer.writerows([s.id, s.first, s.last, s.email] for s in students)
        with nbg.gradebook() as gb:
            for s in students:
                gb.update_or_create_student(s.id, first_name=s.first, last_name=s.last, email=s.email)
    timed("roster → gradebook (as `nbgrader db student import students.csv`)", import_roster)

    def release() -> None:
        for a in assignment_ids:
            nbg.run("generate_assignment", a, force=True, create=True)
            nbg.run("release_assignment", a)
    timed("nbgrader generate_assignment + release_assignment", release)

    pools = timed("class builder: answers from the solutions, corpora and mistake catalogues",
                  lambda: {a: ClassBuilder(Assignment(a, work)).pool() for a in assignment_ids})

    def deadline() -> None:
        due = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
        log(f"  the due date passes: nbgrader db assignment add A --duedate='{due}'")
        for a in assignment_ids:
            _set_duedate(nbg, a, due)
    timed("students fetch, answer and submit (nbgrader exchange, --student=ID)",
          lambda: make_class(work, students, assignment_ids, pools, on_deadline=deadline))

    def collect() -> None:
        for a in assignment_ids:
            nbg.run("collect", a)
    timed("nbgrader collect", collect)

    def autograde() -> None:
        for a in assignment_ids:
            args = ["autograde", a] + ([f"--jobs={jobs}"] if jobs else [])
            reading_maths(work, *args)  # its per-student table is in the report; keep the demo's output short
            log(f"  autograded {a}: {len(list((work / 'autograded').glob(f'*/{a}')))} submissions")
    timed("reading-maths autograde", autograde)

    def feedback() -> None:
        # one process per assignment (nbgrader renders the HTML one notebook after the other)
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(len(assignment_ids), os.cpu_count() or 1)) as pool:
            list(pool.map(_feedback, [work] * len(assignment_ids), assignment_ids))
    timed("nbgrader generate_feedback + release_feedback", feedback)
    timed("nbgrader export", lambda: nbgrader(work, "export", f"--to={work / 'grades.csv'}"))

    def report() -> None:
        from reading_maths.reports.report import build_report

        build_report(work, work / "reports")
    timed("reading-maths report", report)
    return timings


def _feedback(work: Path, assignment: str) -> None:
    """``nbgrader generate_feedback A`` then ``nbgrader release_feedback A``."""
    use_nbgrader_env()
    nbg = Instructor(work)
    nbg.run("generate_feedback", assignment)
    nbg.run("release_feedback", assignment)


def _set_duedate(nbg: Instructor, assignment: str, due: str) -> None:
    """What ``nbgrader db assignment add A --duedate=DUE`` does, in-process."""
    from nbgrader.utils import parse_utc

    with nbg.gradebook() as gb:
        gb.update_or_create_assignment(assignment, duedate=parse_utc(due))


def artefacts(work: Path) -> dict[str, Path]:
    return {
        "release (student versions)": work / "release",
        "exchange (outbound, inbound, feedback)": work / "exchange" / COURSE_ID,
        "students' working folders": work / "students",
        "submitted": work / "submitted",
        "autograded": work / "autograded",
        "feedback (HTML)": work / "feedback",
        "gradebook": work / "gradebook.db",
        "nbgrader export CSV": work / "grades.csv",
        "LMS grades CSV": work / "reports" / "grades.csv",
        "report HTML": work / "reports" / "report.html",
        "similar answers (integrity) HTML": work / "reports" / "integrity",
    }


def run_demo(root: Path, work: Path | None = None, size: int = 30, assignment_ids: list[str] | None = None,
             log: Callable[[str], None] = print, jobs: int = 0) -> DemoResult:
    """The whole demo: a fresh ``work`` folder, the class, every step; returns where things are."""
    work = (work or root / "demo").resolve()
    start = time.perf_counter()
    found = prepare(root, work, assignment_ids)
    if not found:
        raise RuntimeError("no assignment with both source/<a>/<a>.ipynb and graders/<a>/ to run the demo on")
    students = roster(size)
    log(f"demo course: {work}  ({len(students)} students; assignments: {', '.join(found)})")
    timings = run_class(work, students, found, log=log, jobs=jobs)
    timings["total"] = round(time.perf_counter() - start, 1)
    return DemoResult(work, students, found, artefacts(work), timings)


@click.command()
@click.option("--work", type=click.Path(path_type=Path), help="Work folder (default: demo/ in the course; wiped).")
@click.option("--students", "size", default=30, show_default=True, help="Class size.")
@click.option("--assignment", "only", multiple=True, help="Only these assignments (default: all that exist).")
def main(work: Path | None, size: int, only: tuple[str, ...]) -> DemoResult:
    """The whole workflow on a bundled class: release, fetch, submit, collect, autograde, feedback, export, report.

    Run from the course folder; then prints the class, the timings and where every artefact is.
    """
    root = find_root()
    assignment_ids = list(only) or None
    console = Console()
    result = run_demo(root, work, size, assignment_ids, log=console.print)
    profile = {s.id: NOTES.get(s.profile, s.profile) for s in result.students}
    for index, student in enumerate(result.students):
        if (copied := copied_from(result.students, index)) is not None:
            profile[student.id] = (f"copy: hands in {result.students[copied[0]].id}'s notebooks ({copied[1]}); "
                                   "reports/integrity/ ranks the pair first")
    kinds = Counter(s.profile for s in result.students)
    console.print("class: " + ", ".join(f"{n} {k}" for k, n in kinds.items()))
    console.print(grade_table(result.artefacts["LMS grades CSV"], profile))
    table = Table(title=f"where everything is (demo took {result.timings['total']:g} s)", title_justify="left")
    table.add_column("artefact")
    table.add_column("path")
    for name, path in result.artefacts.items():
        table.add_row(name, str(path) + ("" if path.exists() else "  (missing)"))
    console.print(table)
    console.print("seconds per step: " + ", ".join(f"{k.split(' (')[0]} {v:g}" for k, v in result.timings.items()))
    return result


if __name__ == "__main__":
    main()
