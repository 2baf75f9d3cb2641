"""``reading-maths demo``: the whole nbgrader workflow on a bundled class of about 30 students.

Everything happens in a fresh work folder (``demo/`` under the course root by default), a copy of
the course's ``source/``, ``graders/`` and ``nbgrader_config.py``, so the real course's gradebook is
never touched.  The steps are the instructor's and the students' own:

1. ``nbgrader db student import`` + ``generate_assignment`` + ``release_assignment`` (exchange in ``demo/exchange``)
2. each student fetches, answers and submits through nbgrader's exchange (``--student=ID``; the
   exchange classes are driven in-process, one student after the other, to keep the demo fast)
3. the due date passes (``nbgrader db assignment add A --duedate``); two students submit late
4. ``nbgrader collect`` → ``reading-maths autograde A`` → ``generate_feedback`` + ``release_feedback``
5. ``nbgrader export`` → ``reading-maths report``

The answers come from the course's own material, written into the answer cells by a small class
builder (:func:`answer_pool`, :func:`fill`): the source notebook's solutions and the corpora's
``RIGHT`` entries for right answers, the graders' mistake catalogues and the corpora's ``WRONG``
entries for typical mistakes.
"""

from __future__ import annotations

import ast
import csv
import datetime as dt
import inspect
import os
import random
import runpy
import shutil
import subprocess
import sys
import textwrap
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.plugins import LateSubmissionPlugin

from reading_maths.course import Assignment, assignments
from reading_maths.notebook import SOLUTION_MARKERS, grade_id, nbgrader_meta

COURSE_ID = "reading-maths"

# -- the late-penalty policy the demo's nbgrader config names ------------------------------------

class TenPercentPerDay(LateSubmissionPlugin):
    """Late policy: 10 % of the notebook's score per started day late, at most the whole score."""

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0:
            return None
        days = int(total_seconds_late // 86400) + 1
        return round(min(score, 0.1 * days * score), 6)


DEMO_CONFIG = f'''
# --- added by `reading-maths demo` (this copy only) ---------------------------------------------
# Late policy: 10 % of the score per started day late (reading_maths.demo.TenPercentPerDay).
c.AssignLatePenalties.plugin_class = "reading_maths.demo.TenPercentPerDay"
# The demo's 30 students all submit as one OS user, with `nbgrader submit --student=ID`.
c.ExchangeCollect.check_owner = False
c.CourseDirectory.course_id = "{COURSE_ID}"
'''

# -- the class builder --------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One way of answering one question: code per answer cell (grade id → source)."""

    question: str
    kind: str  # "right" or "wrong"
    label: str
    cells: dict[str, str]
    mistake: str | None = None


def _defined_names(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def _strip_solution(code: str) -> str:
    return textwrap.dedent(SOLUTION_MARKERS.sub("", code)).strip() + "\n"


def _value_code(name: str, value: Any, done: set[int] | None = None) -> str:
    """Python source that defines ``name`` as ``value`` in a notebook (functions by their source)."""
    done = set() if done is None else done
    if isinstance(value, types.FunctionType):
        return _function_code(name, value, done)
    if isinstance(value, types.ModuleType):
        return f"import {value.__name__} as {name}\n" if value.__name__ != name else f"import {value.__name__}\n"
    module = type(value).__module__.split(".")[0]
    if module == "sympy":
        import sympy

        return f"from sympy import *\n{name} = {sympy.srepr(value)}\n"
    text = repr(value)
    prelude = "from numpy import array, inf, nan, float64, int64\n" if "array(" in text or "inf" in text \
        or "nan" in text else ""
    return f"{prelude}{name} = {text}\n"


def _function_code(name: str, func: types.FunctionType, done: set[int]) -> str:
    if id(func) in done:
        return ""
    done.add(id(func))
    parts: list[str] = []
    # a closure's variables become plain assignments (e.g. a mistake built by a factory function)
    for ref, cell in zip(func.__code__.co_freevars, func.__closure__ or (), strict=False):
        parts.append(_value_code(ref, cell.cell_contents, done))
    # the module-level helpers and modules the function uses, defined first
    for ref in _global_names(func.__code__):
        value = func.__globals__.get(ref)
        if value is None or ref in {"np", "numpy"}:
            continue
        if isinstance(value, types.FunctionType) and value.__module__ == func.__module__:
            parts.append(_function_code(ref, value, done))
        elif isinstance(value, types.ModuleType):
            parts.append(_value_code(ref, value, done))
        elif callable(value) and getattr(value, "__name__", None) and \
                getattr(__import__("numpy"), value.__name__, None) is value:
            parts.append(f"{ref} = np.{value.__name__}\n")  # e.g. g_squared = np.square
        elif isinstance(value, (int, float, str, tuple)) and not ref.startswith("__"):
            parts.append(f"{ref} = {value!r}\n")
    if func.__name__ == "<lambda>":
        parts.append(f"{name} = {_lambda_source(func)}\n")
    else:
        source = textwrap.dedent(inspect.getsource(func))
        parts.append(source if source.endswith("\n") else source + "\n")
        if func.__name__ != name:
            parts.append(f"{name} = {func.__name__}\n")
    return "\n".join(p for p in parts if p)


def _global_names(code: types.CodeType) -> list[str]:
    """Global names a code object uses, its nested comprehensions and lambdas included."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += [n for n in _global_names(const) if n not in names]
    return names


def _lambda_source(func: types.FunctionType) -> str:
    """The exact source of a lambda (``inspect.getsource`` gives its whole line, e.g. a dict literal)."""
    path = inspect.getsourcefile(func)
    text = Path(path).read_text(encoding="utf-8") if path else ""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Lambda) and node.lineno == func.__code__.co_firstlineno:
            segment = ast.get_source_segment(text, node) or ""
            try:
                code = next(c for c in compile(f"({segment})", "<lambda>", "eval").co_consts
                            if isinstance(c, types.CodeType))
            except (SyntaxError, StopIteration):
                continue
            if code.co_code == func.__code__.co_code and code.co_varnames == func.__code__.co_varnames:
                return segment.replace("\n", " ")
    raise ValueError(f"cannot recover the source of {func!r}")


class ClassBuilder:
    """Answers for one assignment, from the source notebook, the graders and the corpora."""

    def __init__(self, assignment: Assignment):
        self.assignment = assignment
        self.answer_cells: dict[str, str] = {}  # grade id → the source solution
        self.owner: dict[str, str] = {}  # a name a solution defines → its answer cell's grade id
        for cell in assignment.source.cells:
            meta = nbgrader_meta(cell)
            if meta.get("solution") and not meta.get("grade") and cell.cell_type == "code" and grade_id(cell):
                self.answer_cells[grade_id(cell)] = cell.source
                for name in _defined_names(_strip_solution(cell.source)):
                    self.owner.setdefault(name, grade_id(cell))
        self.manual_cells = {grade_id(c): c for c in assignment.source.cells
                             if nbgrader_meta(c).get("solution") and nbgrader_meta(c).get("grade")}

    def _cell_for(self, question: str, name: str) -> str | None:
        if name in self.owner:
            return self.owner[name]
        if f"{question}-answer" in self.answer_cells:
            return f"{question}-answer"
        return next(iter(self.answer_cells), None)

    def from_env(self, question: str, kind: str, label: str, env: dict, mistake: str | None = None) -> Answer | None:
        cells: dict[str, str] = {}
        done: set[int] = set()
        try:
            for name, value in env.items():
                cell = self._cell_for(question, name)
                if cell is None:
                    return None
                cells[cell] = cells.get(cell, "import numpy as np\n") + "\n" + _value_code(name, value, done)
        except (OSError, TypeError, ValueError):
            return None  # a value whose source cannot be recovered: not usable in the demo
        return Answer(question, kind, label, cells, mistake)

    def pool(self) -> dict[str, dict[str, list[Answer]]]:
        """Per question: right and wrong answers."""
        root = self.assignment.root
        result: dict[str, dict[str, list[Answer]]] = {}
        for question in self.assignment.questions:
            right: list[Answer] = []
            wrong: list[Answer] = []
            source_cells = {g: _strip_solution(s) for g, s in self.answer_cells.items()
                            if g == f"{question}-answer" or g.startswith(f"{question}-")}
            if source_cells:
                right.append(Answer(question, "right", "reference", source_cells))
            corpus_path = root / "tests" / "corpora" / self.assignment.id / f"{question}.py"
            corpus: dict = {}
            if corpus_path.is_file():
                try:
                    corpus = runpy.run_path(str(corpus_path))
                except Exception:  # noqa: BLE001 - a broken corpus only means fewer demo answers
                    corpus = {}
            for label, env in corpus.get("RIGHT", {}).items():
                if (a := self.from_env(question, "right", label, env)) is not None:
                    right.append(a)
            try:
                grader = self.assignment.grader(question)
            except Exception:  # noqa: BLE001
                grader = None
            if grader is not None and len(grader.names) == 1:
                for m in grader.mistakes:
                    if (a := self.from_env(question, "wrong", m.name, {grader.names[0]: m.impl}, m.name)):
                        wrong.append(a)
            for label, (env, expected) in corpus.get("WRONG", {}).items():
                if (a := self.from_env(question, "wrong", label, env, expected)) is not None:
                    wrong.append(a)
            result[question] = {"right": right, "wrong": wrong}
        return result


def fill(
    nb: nbformat.NotebookNode, answers: list[Answer], manual: dict[str, str] | None = None
) -> nbformat.NotebookNode:
    """A copy of a release notebook with the answers written into its answer cells."""
    nb = nbformat.from_dict(nb)
    code = {g: s for a in answers for g, s in a.cells.items()}
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in code:
            cell.source = code[gid]
        elif manual and gid in manual:
            cell.source = manual[gid]
    return nb


HOSTILE_PRELUDE = '''\
# A hostile student: read the hidden graders and the gradebook, then kill the grader.
import os, pathlib
try:
    stolen = {str(p): p.read_text()[:200] for p in pathlib.Path("../../graders").rglob("*.py")}
    stolen["gradebook"] = pathlib.Path("../../gradebook.db").read_bytes()[:100]
except Exception as exc:
    stolen = repr(exc)
try:
    os.kill(os.getppid(), 9)
except Exception:
    pass
'''


# -- the class ------------------------------------------------------------------------------------

FIRST = ["Ada", "Alan", "Grace", "Emmy", "Kurt", "Sofia", "John", "Mary", "Carl", "Hedy", "Srinivasa", "Katherine",
         "Paul", "Dorothy", "Leonhard", "Sophie", "Bernhard", "Maryam", "David", "Evariste", "Niels", "Cathleen",
         "Henri", "Olga", "Pierre", "Karen", "Terence", "Ingrid", "Andrey", "Shafi"]
LAST = ["Lovelace", "Turing", "Hopper", "Noether", "Godel", "Kovalevskaya", "Nash", "Cartwright", "Gauss",
        "Lamarr", "Ramanujan", "Johnson", "Erdos", "Vaughan", "Euler", "Germain", "Riemann", "Mirzakhani",
        "Hilbert", "Galois", "Bohr", "Morawetz", "Poincare", "Ladyzhenskaya", "Fermat", "Uhlenbeck", "Tao",
        "Daubechies", "Kolmogorov", "Goldwasser"]


@dataclass
class Student:
    id: str
    first: str
    last: str
    profile: str  # "right", "mixed", "wrong", "partial", "blank", "late", "hostile"

    @property
    def email(self) -> str:
        return f"{self.id}@example.edu"


def roster(size: int = 30) -> list[Student]:
    """The bundled class: mostly right or mixed answers, a few partial, two blank, two late, one hostile."""
    profiles = ["hostile", "blank", "blank", "late", "late"] + ["right"] * max(0, size // 4) + ["partial"] * 3
    profiles += ["mixed"] * (size - len(profiles))
    profiles = profiles[:size]
    students = []
    for i, profile in enumerate(profiles):
        first, last = FIRST[i % len(FIRST)], LAST[i % len(LAST)]
        students.append(Student(f"{first[0]}{last}".lower() + (str(i // len(FIRST)) if i >= len(FIRST) else ""),
                                first, last, profile))
    return students


def choose_answers(student: Student, index: int, pool: dict[str, dict[str, list[Answer]]]) -> list[Answer]:
    """The answers one student writes, by profile (deterministic)."""
    rng = random.Random(f"{student.id}-{sorted(pool)}")
    chosen: list[Answer] = []
    for qi, answers in enumerate(pool.values()):
        right, wrong = answers["right"], answers["wrong"]
        if student.profile in ("blank",):
            continue
        if student.profile == "partial" and qi % 2 == 1:
            continue
        take_wrong = bool(wrong) and (student.profile == "wrong" or (
            student.profile in ("mixed", "late", "partial") and rng.random() < 0.55))
        if student.profile == "right" or not take_wrong:
            if right:
                chosen.append(right[(index + qi) % len(right)])
        else:
            chosen.append(wrong[(index * 7 + qi) % len(wrong)])
    return chosen


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
    env = dict(os.environ, READING_MATHS_COURSE=str(work))
    # nbgrader's Gradebook runs the `alembic` script, which lives beside this interpreter
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("JUPYTER_CONFIG_DIR", None)
    return env


def _exchange(kind: str, work: Path, student: str, assignment: str, folder: Path):
    """One of nbgrader's default exchange actions, configured as the student's ``nbgrader`` would be."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeFetchAssignment, ExchangeSubmit
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.course_id = COURSE_ID
    config.CourseDirectory.student_id = student
    config.CourseDirectory.assignment_id = assignment
    config.Exchange.root = str(work / "exchange")
    config.Exchange.path_includes_course = True
    config.Exchange.assignment_dir = str(folder)
    coursedir = CourseDirectory(config=config)
    auth = Authenticator(config=config)
    cls = {"fetch": ExchangeFetchAssignment, "submit": ExchangeSubmit}[kind]
    action = cls(coursedir=coursedir, authenticator=auth, config=config)
    action.start()


def make_class(work: Path, students: list[Student], assignment_ids: list[str],
               pools: dict[str, dict[str, dict[str, list[Answer]]]], *, late: bool = True,
               on_deadline: Callable[[], None] | None = None) -> None:
    """Each student fetches each assignment, writes answers and submits; late ones after the deadline."""
    manual = {a: ClassBuilder(Assignment(a, work)).manual_cells for a in assignment_ids}
    on_time = [s for s in students if not (late and s.profile == "late")]
    late_ones = [s for s in students if late and s.profile == "late"]

    def work_of(group: list[Student]) -> None:
        for student in group:
            index = students.index(student)
            home = work / "students" / student.id
            home.mkdir(parents=True, exist_ok=True)
            for a in assignment_ids:
                _exchange("fetch", work, student.id, a, home)
                folder = home / COURSE_ID / a  # path_includes_course: <course>/<assignment>
                if student.profile != "blank":
                    for path in folder.glob("*.ipynb"):
                        nb = nbformat.read(path, as_version=4)
                        answers = choose_answers(student, index, pools[a])
                        if student.profile == "hostile" and answers:
                            first = answers[0]
                            key = next(iter(first.cells))
                            answers[0] = Answer(first.question, "wrong", "hostile",
                                                {**first.cells, key: HOSTILE_PRELUDE + first.cells[key]})
                        nbformat.write(fill(nb, answers, _manual_text(manual[a], student)), path)
                _exchange("submit", work, student.id, a, home)

    work_of(on_time)
    if late_ones:
        time.sleep(1.2)  # timestamps have sub-second resolution; keep the deadline clearly between
        if on_deadline:
            on_deadline()
        time.sleep(1.2)
        work_of(late_ones)


def _manual_text(builder_cells: dict[str, Any], student: Student) -> dict[str, str]:
    """Hand-marked answers: the source's model answer, or a short attempt, by profile."""
    if student.profile in ("blank", "hostile"):
        return {}
    text = {}
    for gid, cell in builder_cells.items():
        model = _strip_solution(cell.source)
        text[gid] = model if student.profile in ("right", "late") else model.split("\n\n")[0] + "\n\n(unfinished)"
    return text


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

    os.environ["READING_MATHS_COURSE"] = str(work)
    os.environ["PATH"] = _env(work)["PATH"]
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
        from reading_maths.report import build_report

        build_report(work, work / "reports")
    timed("reading-maths report", report)
    return timings


def _feedback(work: Path, assignment: str) -> None:
    """``nbgrader generate_feedback A`` then ``nbgrader release_feedback A``."""
    os.environ["PATH"] = _env(work)["PATH"]
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


def grade_table(grades_csv: Path, profile: dict[str, str]):
    """The class's grades (the report's LMS CSV: late penalties and hand marks included) as a table."""
    import csv

    from rich.table import Table

    with grades_csv.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    columns = [c for c in (rows[0] if rows else {}) if c not in ("student_id", "last_name", "first_name", "email")]
    table = Table(title="the class's grades", title_justify="left")
    for column in ["student", "answers", *columns]:
        table.add_column(column, justify="left" if column in ("student", "answers") else "right")
    for row in rows:
        table.add_row(row["student_id"], profile.get(row["student_id"], ""), *(row[c] for c in columns))
    return table


def main(root: Path, work: Path | None = None, size: int = 30, assignment_ids: list[str] | None = None) -> DemoResult:
    """``reading-maths demo``: run it, then print the class, the timings and where every artefact is."""
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    console = Console()
    result = run_demo(root, work, size, assignment_ids, log=console.print)
    profile = {s.id: s.profile for s in result.students}
    kinds = Counter(profile.values())
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
