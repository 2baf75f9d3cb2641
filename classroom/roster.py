"""The demo's class: who the students are, what each one answers, and how they fetch and submit.

Each student has a profile (right, mixed, wrong, partial, blank, late, hostile, copy); their answers come
from :class:`classroom.builder.ClassBuilder`'s pool (a copier hands in a classmate's answers under a disguise:
:data:`COPIES`), and they fetch and submit through nbgrader's own exchange classes, in-process, as
``nbgrader fetch_assignment``/``submit --student=ID`` would.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from classroom.builder import Answer, ClassBuilder, fill, strip_solution
from classroom.disguises import disguised
from reading_maths.course import Assignment

COURSE_ID = "reading-maths"

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
    profile: str  # "right", "mixed", "wrong", "partial", "blank", "late", "hostile", "copy"

    @property
    def email(self) -> str:
        return f"{self.id}@example.edu"


COPIES = {-1: (5, "a comment per line"), -2: (6, "renamed")}
"""The demo's planted copies: the last two students hand in the notebooks of the first two "right" ones (by index
in the class), each under a disguise (:data:`classroom.disguises.DISGUISES`); the integrity report ranks them first."""


def roster(size: int = 30) -> list[Student]:
    """The bundled class: mostly right or mixed answers, a few partial, two blank, two late, one hostile and, in a
    class of 16 or more, two copiers (:data:`COPIES`)."""
    profiles = ["hostile", "blank", "blank", "late", "late"] + ["right"] * max(0, size // 4) + ["partial"] * 3
    profiles += ["mixed"] * (size - len(profiles))
    profiles = profiles[:size]
    if size >= 16:
        for copier in COPIES:
            profiles[copier] = "copy"
    students = []
    for i, profile in enumerate(profiles):
        first, last = FIRST[i % len(FIRST)], LAST[i % len(LAST)]
        students.append(Student(f"{first[0]}{last}".lower() + (str(i // len(FIRST)) if i >= len(FIRST) else ""),
                                first, last, profile))
    return students


def copied_from(students: list[Student], index: int) -> tuple[int, str] | None:
    """For a copier, the index of the student copied and the disguise."""
    if students[index].profile != "copy":
        return None
    return next(found for copier, found in COPIES.items() if copier % len(students) == index)


def answers_of(students: list[Student], index: int, pool: dict[str, dict[str, list[Answer]]]) -> list[Answer]:
    """What student ``index`` hands in: their own answers, or a classmate's under a disguise."""
    copied = copied_from(students, index)
    if copied is None:
        return choose_answers(students[index], index, pool)
    original, how = copied
    return [disguised(a, how) for a in choose_answers(students[original], original, pool)]


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
                        answers = answers_of(students, index, pools[a])
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
        model = strip_solution(cell.source)
        text[gid] = model if student.profile in ("right", "late") else model.split("\n\n")[0] + "\n\n(unfinished)"
    return text


