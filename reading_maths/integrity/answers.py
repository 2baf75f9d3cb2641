"""What each student answered, part by part, and what every answer is given (templates and helper cells).

An answer cell is one nbgrader marks as a solution; it answers the question whose grade cell comes next, and a
cell the student added answers the question of the answer cell above it. A "Build this" entry (an answer cell
assigning a dict with an ``"equation"``) is read in three parts, each compared with every student's entries, the
worked entry's and (equations) the course's own formulas: the code (its functions), the equation (its LaTeX) and
the example (the dict's ``"example"``). Nothing a student wrote is run: the cell is parsed with :mod:`ast`.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from reading_maths.course import Assignment
from reading_maths.integrity.fingerprints import Document
from reading_maths.notebook import NotANotebook, grade_id, is_test_cell, nbgrader_meta, read_notebook

MAX_TEXT = 50_000
"""Characters of one answer that are compared (a pasted data dump would slow everyone down)."""
ENTRY_PARTS = ("entries: code", "entries: equations", "entries: examples")
WORKED = "worked entry (entry_0)"
FORMULAS = "the course's formulas"


@dataclass
class Submission:
    """One student's answers: part → text, the hash of the answer cells, and any reason it was not read."""

    student: str
    answers: dict[str, str] = field(default_factory=dict)
    digest: str = ""
    answered: bool = False
    problem: str = ""


@dataclass
class Layout:
    """An assignment's answer cells (grade id → the part it answers) and what every answer is given."""

    parts: dict[str, str]
    given: list[str]
    entries: bool
    sources: dict[str, dict[str, Document]]

    def read(self, student: str, nb) -> Submission:
        """The answers of ``student``'s notebook ``nb``, by part."""
        found: dict[str, list[str]] = {}
        current = None
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "code":
                continue
            gid = grade_id(cell)
            if gid in self.parts:
                current = self.parts[gid]
            elif gid:  # a cell of the course's (a check, a test): the next answer cell starts a part again
                current = None
                continue
            elif current is None:
                continue
            found.setdefault(current, []).append(str(cell.get("source", ""))[:MAX_TEXT])
        texts = {part: "\n\n".join(cells) for part, cells in found.items()}
        digest = hashlib.sha256("\0".join(f"{p}\0{t.strip()}" for p, t in sorted(texts.items())).encode()).hexdigest()
        answered = any(t.strip() and t.strip() not in self.given for t in (c for cs in found.values() for c in cs))
        if self.entries:
            texts = entry_parts(texts)
        return Submission(student, {p: t for p, t in texts.items() if t.strip()}, digest, answered)


def layout(assignment: Assignment) -> Layout:
    """Where the answers are in ``assignment``'s release notebook (its source when not released yet)."""
    path = assignment.root / "release" / assignment.id / f"{assignment.id}.ipynb"
    nb = read_notebook(path, student=False) if path.is_file() else assignment.source
    parts: dict[str, str] = {}
    pending: list[str] = []
    given: list[str] = []
    worked: str | None = None
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        gid = grade_id(cell)
        if nbgrader_meta(cell).get("solution") and gid:
            pending.append(gid)
            given.append(cell.source.strip())
        elif is_test_cell(cell) and gid:
            parts.update(dict.fromkeys(pending, gid))
            pending = []
        elif gid and _entry_cell(cell.source):
            worked = cell.source
        else:
            given.append(cell.source.strip())
    entries = worked is not None
    sources: dict[str, dict[str, Document]] = {}
    if worked is not None:
        from reading_maths.kit.novelty import COURSE_EQUATIONS

        sources[WORKED] = {p: Document(WORKED, p, t, _kind(p)) for p, t in entry_parts({"entry_0": worked}).items()}
        formulas = "\n".join(f"{name}: {eq}" for name, eq in COURSE_EQUATIONS.items())
        sources[FORMULAS] = {ENTRY_PARTS[1]: Document(FORMULAS, ENTRY_PARTS[1], formulas, "latex")}
    return Layout(parts, [g for g in given if g], entries, sources)


def _kind(part: str) -> str:
    return "latex" if part == ENTRY_PARTS[1] else "python"


def documents(submission: Submission) -> list[Document]:
    """The submission's answers as documents to compare."""
    return [Document(submission.student, p, t, _kind(p)) for p, t in submission.answers.items()]


def _entry_cell(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(_entry_dict(node) is not None for node in tree.body)


def _entry_dict(node: ast.AST) -> ast.Dict | None:
    """The dict literal assigned by ``node`` when it has an ``"equation"`` key."""
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
        keys = [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
        if "equation" in keys:
            return node.value
    return None


def entry_parts(cells: dict[str, str]) -> dict[str, str]:
    """A "Build this" answer's three parts, each entry under a comment naming its cell: the functions' code, the
    equations (LaTeX) and the examples (the dict's source). A cell that does not parse is all code."""
    code, equations, examples = [], [], []
    for name, source in cells.items():
        try:
            tree = ast.parse(source)
        except SyntaxError:
            code.append(f"# {name}\n{source}")
            continue
        functions = [ast.get_source_segment(source, n) or "" for n in tree.body
                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
        if functions:
            code.append(f"# {name}\n" + "\n\n".join(functions))
        for node in tree.body:
            entry = _entry_dict(node)
            for key, value in zip(entry.keys if entry else [], entry.values if entry else [], strict=True):
                label = key.value if isinstance(key, ast.Constant) else None
                if label == "equation" and isinstance(value, ast.Constant | ast.JoinedStr | ast.BinOp):
                    equations.append(_string(value, source))
                elif label == "example":
                    examples.append(f"# {name}\n{ast.get_source_segment(source, value) or ''}")
    return dict(zip(ENTRY_PARTS, ("\n\n".join(code), "\n".join(equations), "\n\n".join(examples)), strict=True))


def _string(node: ast.AST, source: str) -> str:
    """The text of a string literal (implicitly joined pieces included), else its source."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ast.get_source_segment(source, node) or ""


def submissions(root: Path, assignment: str, layout_: Layout) -> list[Submission]:
    """Every ``submitted/<student>/<assignment>/`` notebook, read (a refused or broken one says why)."""
    found = []
    for folder in sorted((Path(root) / "submitted").glob(f"*/{assignment}")):
        student = folder.parent.name
        notebooks = sorted(p for p in folder.glob("*.ipynb") if not p.is_symlink())
        if not notebooks:
            found.append(Submission(student, problem="no notebook"))
            continue
        try:
            found.append(layout_.read(student, read_notebook(notebooks[0], shown=f"{student}/{notebooks[0].name}")))
        except NotANotebook as exc:
            found.append(Submission(student, problem=str(exc)))
    return found
