"""A class with planted copies, from the corpora: the integrity report's calibration (tests, benchmarks) and the
demo's two copiers.

Honest students answer every question with a different one of the corpora's ``RIGHT`` answers (written
independently); each copier hands in another student's whole notebook under one disguise
(:data:`classroom.disguises.DISGUISES`). :func:`measure` says how the report ranks them.
"""

from __future__ import annotations

import ast
import runpy
from dataclasses import dataclass
from pathlib import Path

import nbformat

from classroom.builder import Answer, ClassBuilder, fill
from classroom.disguises import DISGUISES, disguised
from reading_maths.course import Assignment
from reading_maths.integrity import answers as reading
from reading_maths.integrity.run import THRESHOLD, Pair, compare_documents
from reading_maths.notebook import read_notebook


def right_answers(builder: ClassBuilder, question: str) -> list[Answer]:
    """The corpus's ``RIGHT`` answers to ``question`` whose notebook code reads as Python (not an object's repr)."""
    path = builder.assignment.root / "tests" / "corpora" / builder.assignment.id / f"{question}.py"
    corpus = runpy.run_path(str(path))
    found = [builder.from_env(question, "right", label, env) for label, env in corpus.get("RIGHT", {}).items()]
    return [a for a in found if a is not None and all(_parses(code) for code in a.cells.values())]


def _parses(code: str) -> bool:
    """Whether ``code`` reads as Python (the class builder writes an object it cannot recover as its repr)."""
    try:
        return isinstance(ast.parse(code), ast.Module)
    except SyntaxError:
        return False


@dataclass
class PlantedClass:
    """Notebooks by student, and which copier copied whom under which disguise."""

    notebooks: dict[str, nbformat.NotebookNode]
    copies: dict[str, tuple[str, str]]  # copier → (original, disguise)

    def copied(self) -> set[tuple[str, str]]:
        """The pairs (in name order) where one copied the other, or both copied one notebook."""
        pairs = {tuple(sorted((c, o))) for c, (o, _) in self.copies.items()}
        pairs |= {tuple(sorted((c, d))) for c, (o, _) in self.copies.items() for d, (p, _) in self.copies.items()
                  if c != d and o == p}
        return pairs  # type: ignore[return-value]


def planted_class(root: Path, assignment: str, honest: int | None = None) -> PlantedClass:
    """``honest`` students (default: as many as the smallest corpus allows), and one copier per disguise, each
    copying a different honest student."""
    builder = ClassBuilder(Assignment(assignment, root))
    pools = {q: right_answers(builder, q) for q in builder.assignment.questions}
    size = min(len(p) for p in pools.values()) if honest is None else honest
    release = read_notebook(root / "release" / assignment / f"{assignment}.ipynb", student=False)
    chosen = {f"honest{i:02d}": [pool[(i + 3 * q) % len(pool)] for q, pool in enumerate(pools.values())]
              for i in range(size)}
    copies: dict[str, tuple[str, str]] = {}
    for i, how in enumerate(DISGUISES):
        original = f"honest{(2 * i + 1) % size:02d}"
        copier = f"copier{i:02d}"
        chosen[copier] = [disguised(a, how) for a in chosen[original]]
        copies[copier] = (original, how)
    return PlantedClass({s: fill(release, answers) for s, answers in chosen.items()}, copies)


def compared(root: Path, assignment: str, planted: PlantedClass, jobs: int = 1) -> list[Pair]:
    """The report's ranking of the planted class's pairs of students."""
    layout = reading.layout(Assignment(assignment, root))
    documents: dict = {}
    for student, nb in planted.notebooks.items():
        for doc in reading.documents(layout.read(student, nb)):
            documents.setdefault(doc.part, {})[doc.owner] = doc
    return compare_documents(documents, layout.given, jobs=jobs)[0]


def measure(root: Path, assignment: str) -> dict:
    """Calibration figures: copies and honest pairs, their lowest and highest scores, the rates at
    :data:`~reading_maths.integrity.run.THRESHOLD`, and whether every copy ranks above every honest pair."""
    planted = planted_class(root, assignment)
    pairs = compared(root, assignment, planted)
    copied = planted.copied()
    scores = {(p.a, p.b): p.score for p in pairs}
    students = sorted(planted.notebooks)
    honest = [scores.get((a, b), 0.0) for i, a in enumerate(students) for b in students[i + 1:]
              if (a, b) not in copied]
    copy_scores = {how: scores.get(tuple(sorted((c, o))), 0.0) for c, (o, how) in planted.copies.items()}
    return {"assignment": assignment, "students": len(students), "copies": len(copy_scores),
            "honest_pairs": len(honest), "copy_scores": copy_scores, "threshold": THRESHOLD,
            "lowest_copy": min(copy_scores.values()), "highest_honest": max(honest),
            "copies_flagged": sum(s >= THRESHOLD for s in copy_scores.values()) / len(copy_scores),
            "honest_flagged": sum(s >= THRESHOLD for s in honest) / len(honest),
            "copies_above_every_honest_pair": min(copy_scores.values()) > max(honest)}
