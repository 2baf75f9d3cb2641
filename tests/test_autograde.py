"""``reading-maths autograde``: sandboxed grades in nbgrader's gradebook, and stock ``nbgrader autograde``.

Everything runs on a temporary copy of the course (``source/``, ``graders/``, ``nbgrader_config.py``);
the project's own ``gradebook.db`` is never touched. The graded course is built once per session
(shared between pytest-xdist workers through a file lock); tests that change a course work on a copy.
"""

from __future__ import annotations

import copy
import csv
import fcntl
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from hostile.text import LEAKY_ATTENTION
from nbgrader.api import Gradebook
from sqlalchemy import create_engine, inspect, text

from classroom.builder import answered
from classroom.stock import use_stock_nbgrader
from conftest import BACKENDS, use_gradebook
from reading_maths.kit.reference import SECRET_FILE
from reading_maths.nbgrader.environment import course_directory, nbgrader_env
from reading_maths.nbgrader.session import LOOKUP_INDEXES, batch_gradebook
from reading_maths.notebook import is_test_cell

pytestmark = [pytest.mark.sandbox, pytest.mark.kernel]

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ASSIGNMENT = "code"
HONEST = ("right", "wrong", "blank")
BROKEN = ("corrupt", "duplicated", "renamed")

NO_SHIFT_SOFTMAX = '''def softmax(z, T=1.0):
    z = np.asarray(z, dtype=np.float64) / T
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
'''


# --- building a course with submissions ---------------------------------------------------------------


def env_for(course: Path) -> dict[str, str]:
    return nbgrader_env(READING_MATHS_COURSE=str(course))  # nbgrader runs `alembic` on a new gradebook


def run(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(list(args), cwd=course, env=env_for(course), capture_output=True, text=True,
                          check=False, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"{args} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def nbgrader(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return run(course, str(BIN / "nbgrader"), *args, f"--CourseDirectory.root={course}", check=check)


def reading_maths(course: Path, *args: str) -> subprocess.CompletedProcess:
    return run(course, str(BIN / "reading-maths"), *args)


def generated_course(folder: Path, assignment: str, db_url: str | None = None) -> Path:
    """``folder`` made a copy of the course (sources, graders, nbgrader's config; its gradebook at ``db_url``, by
    default the course's gradebook.db) with ``assignment`` generated into ``release/`` by nbgrader's
    generate_assignment."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("source", "graders"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    shutil.copy(ROOT / SECRET_FILE, folder / SECRET_FILE)  # the same course: the same hidden inputs
    if db_url:
        use_gradebook(folder, db_url)
    nbgrader(folder, "generate_assignment", assignment, "--create", "--force", "--log-level=WARN")
    return folder


def release_and_source(course: Path, assignment: str) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """The student's notebook of ``assignment`` as generated in ``course``, and the instructor's."""
    return tuple(nbformat.read(course / part / assignment / f"{assignment}.ipynb", as_version=4)
                 for part in ("release", "source"))


def make_course(folder: Path) -> Path:
    """A course copy with the assignment generated and five submissions in ``submitted/``."""
    generated_course(folder, ASSIGNMENT)
    release, source = release_and_source(folder, ASSIGNMENT)
    right = answered(release, source)
    duplicated = copy.deepcopy(right)
    i = next(k for k, c in enumerate(duplicated.cells)
             if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax-answer")
    twin = copy.deepcopy(duplicated.cells[i])
    twin.id = "twin-softmax-answer"
    duplicated.cells.insert(i + 1, twin)
    notebooks = {
        "right": right,
        "wrong": answered(release, source, {"softmax-answer": NO_SHIFT_SOFTMAX}),
        "blank": release,
        "duplicated": duplicated,
    }
    for student, nb in notebooks.items():
        path = submitted(folder, student)
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    path = submitted(folder, "corrupt")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"cells": [ this is not json \xff')
    (path.parent / "timestamp.txt").write_text("2030-01-01 12:00:00.000000 UTC\n")
    renamed = submitted(folder, "renamed").with_name("my answers.ipynb")
    renamed.parent.mkdir(parents=True)
    nbformat.write(right, renamed)
    return folder


def submitted(course: Path, student: str) -> Path:
    return course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def gradebook_dump(course: Path) -> list[str]:
    """The gradebook's contents, row by row (the SQL dump, which is deterministic for equal contents)."""
    with sqlite3.connect(course / "gradebook.db") as db:
        return list(db.iterdump())


def auto_scores(course: Path, student: str) -> dict[str, float | None]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
        return {g.name: g.auto_score for g in nb.grades}


def comments(course: Path, student: str) -> dict[str, str | None]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
        return {c.name: c.auto_comment for c in nb.comments}


def copy_course(course: Path, to: Path) -> Path:
    """A copy of a course (its config resolves paths from its own folder, so the copy is independent)."""
    shutil.copytree(course, to, symlinks=True)
    return to


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory, worker_id) -> Path:
    base = tmp_path_factory.getbasetemp()
    return base.parent if worker_id != "master" else base


def built_once(shared_dir: Path, name: str, build) -> Path:
    """Build ``shared_dir/name`` once for all xdist workers (the others wait on a lock), then reuse it."""
    target = shared_dir / name
    with open(shared_dir / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / ".built").exists():
            shutil.rmtree(target, ignore_errors=True)
            build(target)
            (target / ".built").write_text("ok")
    return target


@pytest.fixture(scope="session")
def prepared(shared_dir) -> Path:
    """Built once: a course with submissions, and ``reading-maths grade --json`` of the honest ones."""
    def build(target: Path) -> None:
        course = make_course(target / "course")
        paths = [str(submitted(course, s)) for s in HONEST]
        data = json.loads(reading_maths(course, "grade", "--json", *paths).stdout)
        (target / "expected.json").write_text(json.dumps(dict(zip(HONEST, data, strict=True))))

    return built_once(shared_dir, "autograde-prepared", build)


@pytest.fixture(scope="session")
def built(shared_dir, prepared) -> Path:
    """Built once: a copy of the prepared course after one ``reading-maths autograde code``."""
    def build(target: Path) -> None:
        course = copy_course(prepared / "course", target / "course")
        before = hashes(course / "submitted")
        done = reading_maths(course, "autograde", ASSIGNMENT, "--jobs", "2")
        (target / "run.json").write_text(json.dumps({"before": before, "stdout": done.stdout,
                                                     "stderr": done.stderr}))

    return built_once(shared_dir, "autograde-graded", build)


@pytest.fixture(scope="session")
def expected(prepared) -> dict[str, dict]:
    """``reading-maths grade --json`` of the honest submissions, student -> JSON result."""
    return json.loads((prepared / "expected.json").read_text())


@pytest.fixture(scope="session")
def graded(built) -> tuple[Path, dict]:
    """The course after ``reading-maths autograde code``, and that run's output and the hashes from before."""
    return built / "course", json.loads((built / "run.json").read_text())


def points(course: Path) -> dict[str, float]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {c.name: c.max_score for c in gb.find_notebook(ASSIGNMENT, ASSIGNMENT).grade_cells}


# --- reading-maths autograde ---------------------------------------------------------------------------


def test_gradebook_holds_the_engine_scores(graded, expected):
    course, _ = graded
    maxima = points(course)
    for student in HONEST:
        questions = {q["id"]: q for q in expected[student]["questions"]}
        scores = auto_scores(course, student)
        assert set(scores) == set(questions), student
        for qid, q in questions.items():
            assert scores[qid] == pytest.approx(q["score"] * maxima[qid] / q["max_score"]), (student, qid)
    assert auto_scores(course, "right") == maxima
    assert all(s == 0 for s in auto_scores(course, "blank").values())
    wrong = auto_scores(course, "wrong")
    assert wrong["softmax"] < maxima["softmax"]
    assert {q: s for q, s in wrong.items() if q != "softmax"} == {q: m for q, m in maxima.items() if q != "softmax"}


def test_structured_results_are_kept_beside_autograded(graded, expected):
    """The whole ``grade --json`` object of each notebook, cases and diagnosed mistakes included."""
    course, _ = graded
    for student in HONEST:
        kept = json.loads((course / "autograded" / student / f"{ASSIGNMENT}.json").read_text(encoding="utf-8"))
        result = kept[ASSIGNMENT]
        assert result["notebook"] == f"submitted/{student}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        assert [(q["id"], q["score"]) for q in result["questions"]] == \
            [(q["id"], q["score"]) for q in expected[student]["questions"]]
        assert all("cases" in q and "mistakes" in q for q in result["questions"])
    wrong = json.loads((course / "autograded" / "wrong" / f"{ASSIGNMENT}.json").read_text(encoding="utf-8"))
    softmax = next(q for q in wrong[ASSIGNMENT]["questions"] if q["id"] == "softmax")
    assert softmax["mistakes"] == ["no-max-shift"]


def test_autograded_notebooks_show_the_feedback(graded, expected):
    course, _ = graded
    for student in HONEST:
        nb = nbformat.read(course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
        tests = {c.metadata.nbgrader["grade_id"]: c for c in nb.cells
                 if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata.nbgrader.get("solution")}
        for q in expected[student]["questions"]:
            outputs = tests[q["id"]].outputs
            stdout = "".join(o.text for o in outputs if o.output_type == "stream" and o.name == "stdout")
            assert stdout.startswith(f"{q['id']}: ")
            for line in q["feedback"]:
                assert line in stdout
            [result] = [o for o in outputs if o.output_type == "execute_result"]
            assert float(result.data["text/plain"]) == pytest.approx(q["score"])
            assert not [o for o in outputs if o.output_type == "error" or o.get("name") == "stderr"]
    # the feedback is each answer cell's gradebook comment too; nbgrader's "No response." is kept
    wrong = comments(course, "wrong")["softmax-answer"]
    softmax = next(q for q in expected["wrong"]["questions"] if q["id"] == "softmax")
    assert all(line in wrong for line in softmax["feedback"]) and softmax["feedback"]
    assert comments(course, "blank")["softmax-answer"].startswith("No response.\nsoftmax: 0 /")
    assert "All" in comments(course, "right")["adam-answer"]


def test_broken_submissions_get_zero_with_a_comment(graded):
    course, run = graded
    for student in BROKEN:
        assert set(auto_scores(course, student).values()) == {0.0}, student
        notes = set(comments(course, student).values())
        assert len(notes) == 1 and next(iter(notes)).startswith("Not graded, 0 recorded: "), notes
        assert not (course / "autograded" / student / ASSIGNMENT).exists()
    assert "more than once" in next(iter(comments(course, "duplicated").values()))
    corrupt = next(iter(comments(course, "corrupt").values()))
    assert "submitted/corrupt/code/code.ipynb is not" in corrupt and str(course) not in corrupt
    # the others were graded, and the summary names the refused ones
    assert all((course / "autograded" / s / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file() for s in HONEST)
    assert "no code.ipynb in the submission (it holds: my answers.ipynb)" in comments(course, "renamed")["adam-answer"]
    assert "corrupt, duplicated, renamed" in run["stderr"]
    for student in (*HONEST, *BROKEN):
        assert student in run["stdout"]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:  # nbgrader's timestamp is kept
        assert gb.find_submission(ASSIGNMENT, "corrupt").timestamp.year == 2030


def test_submitted_is_never_modified(graded):
    course, run = graded
    assert hashes(course / "submitted") == run["before"]


def test_feedback_and_export_work_unchanged(graded, tmp_path, expected):
    course = copy_course(graded[0], tmp_path / "course")
    nbgrader(course, "generate_feedback", ASSIGNMENT, "--force", "--log-level=WARN")
    secrets = [line.strip() for line in (ROOT / "graders" / "code" / "softmax.py").read_text().splitlines()
               if line.strip().startswith(("SEED", "def _", "REF ="))]
    for student in HONEST:
        html = (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        assert "softmax: " in html
        assert not [s for s in secrets if s in html], "the feedback shows the hidden grader"
    wrong = (course / "feedback" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    softmax = next(q for q in expected["wrong"]["questions"] if q["id"] == "softmax")
    assert f"softmax: {softmax['score']:g} / {softmax['max_score']:g}" in wrong
    assert "no-max-shift" in softmax["mistakes"]
    assert "subtract" in wrong.lower(), "the targeted message about the max shift is in the student's feedback"
    nbgrader(course, "export", "--to", str(tmp_path / "grades.csv"), "--log-level=WARN")
    with open(tmp_path / "grades.csv", newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(rows) == {*HONEST, *BROKEN}
    for student in HONEST:
        assert float(rows[student]["raw_score"]) == pytest.approx(expected[student]["score"])
    assert float(rows["corrupt"]["score"]) == 0 and float(rows["duplicated"]["score"]) == 0


def test_rerun_is_idempotent(graded, tmp_path):
    course = copy_course(graded[0], tmp_path / "course")
    before = (gradebook_dump(course), hashes(course / "autograded"), hashes(course / "submitted"))
    reading_maths(course, "autograde", ASSIGNMENT, "--jobs", "2")
    assert (gradebook_dump(course), hashes(course / "autograded"), hashes(course / "submitted")) == before
    # --student grades one student only, to the same result
    done = reading_maths(course, "autograde", ASSIGNMENT, "--student", "wrong")
    assert "wrong" in done.stdout and "right" not in done.stdout
    assert (gradebook_dump(course), hashes(course / "autograded")) == before[:2]


def canonical_dump(url: str) -> list[str]:
    """The gradebook at ``url`` (SQLite or PostgreSQL): each table's columns and indexes, and its rows, sorted, with
    the random ids nbgrader draws for each student's rows replaced by what they stand for (whose submission, which
    notebook): equal for two runs that left the same rows, in whatever order they recorded the students."""
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            def rows(sql: str) -> list[tuple]:
                return [tuple(row) for row in db.execute(text(sql))]

            names = {i: f"submission of {s}" for i, s in rows("SELECT id, student_id FROM submitted_assignment")}
            names |= {i: f"{names[a]}, notebook {nb}"
                      for i, a, nb in rows("SELECT id, assignment_id, notebook_id FROM submitted_notebook")}
            names |= {i: "own id" for (i,) in rows("SELECT id FROM grade UNION SELECT id FROM comment")}
            schema, lines = inspect(db), []
            for table in schema.get_table_names():
                lines.append(f"TABLE {table} {[(c['name'], str(c['type'])) for c in schema.get_columns(table)]}")
                lines += [f"INDEX {i['name']} ON {table} {i['column_names']}" for i in schema.get_indexes(table)]
                lines += [f"{table} {row!r}" for row in rows(f'SELECT * FROM "{table}"')]
    finally:
        engine.dispose()
    return sorted(re.sub(r"'([0-9a-f]{32})'", lambda m: f"<{names.get(m[1], m[1])}>", line) for line in lines)


def postgresql_gradebooks(server, prepared: Path, folder: Path, count: int) -> list[str]:
    """``count`` gradebooks on the PostgreSQL ``server`` (tests/postgres.py), each a copy of one the prepared course's
    assignment was generated into: the same rows, the same ids, as copies of one gradebook.db."""
    course = copy_course(prepared / "course", folder)
    generated = server.database()
    use_gradebook(course, generated)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--create", "--force", "--log-level=WARN")
    return [server.database(copy_of=generated) for _ in range(count)]


def late_honest_course(prepared: Path, to: Path, db_url: str | None = None) -> Path:
    """The prepared course, honest students only (its gradebook at ``db_url``, a copy of the prepared one; by
    default the prepared gradebook.db), with a due date, a late plugin, and ``wrong`` 45 hours late;
    ``tampered``, whose notebook has an edited read-only cell and kept its outputs (nbgrader restores
    the one and clears the others); and ``pruned``, who deleted a question's public checks and raised a test's
    points (nbgrader puts the points back as they were)."""
    course = copy_course(prepared / "course", to)
    for student in BROKEN:
        shutil.rmtree(course / "submitted" / student)
    if db_url:
        use_gradebook(course, db_url)
    tampered = nbformat.read(submitted(course, "right"), as_version=4)
    locked = next(c for c in tampered.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("locked")
                  and not c.metadata["nbgrader"].get("grade"))
    locked.source += "\nprint('edited by the student')"
    for cell in tampered.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="left from the student's run\n")]
            cell.execution_count = 3
    submitted(course, "tampered").parent.mkdir(parents=True)
    nbformat.write(tampered, submitted(course, "tampered"))
    tests = [c for c in nbformat.read(submitted(course, "right"), as_version=4).cells if is_test_cell(c)]
    pruned = nbformat.read(submitted(course, "right"), as_version=4)
    gone = tests[0].metadata.nbgrader["grade_id"] + "-check"
    pruned.cells = [c for c in pruned.cells if c.metadata.get("nbgrader", {}).get("grade_id") != gone]
    next(c for c in pruned.cells if c.get("id") == tests[1].id).metadata.nbgrader["points"] = 100  # and its points
    submitted(course, "pruned").parent.mkdir(parents=True)
    nbformat.write(pruned, submitted(course, "pruned"))
    with (course / "nbgrader_config.py").open("a") as config:
        config.write('\nc.AssignLatePenalties.plugin_class = "reading_maths.nbgrader.late.TenPercentPerDay"\n')
    with Gradebook(course_directory(course).db_url, "reading-maths") as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate="2030-01-01 12:00:00 UTC")
    (course / "submitted" / "wrong" / ASSIGNMENT / "timestamp.txt").write_text("2030-01-03 09:00:00.000000 UTC\n")
    return course


@pytest.mark.parametrize("backend", BACKENDS)
def test_bulk_recording_equals_nbgraders_own_converter(prepared, tmp_path, backend, request):
    """One gradebook session per batch, one commit per student, leaves exactly what nbgrader's own converter
    (``nbgrader autograde``: its own gradebook opens, a commit per cell) leaves: same rows, same files; on SQLite and
    on PostgreSQL."""
    urls = [None, None]
    if backend == "postgresql":
        urls = postgresql_gradebooks(request.getfixturevalue("postgres"), prepared, tmp_path / "generated", 2)
    ours = late_honest_course(prepared, tmp_path / "ours", urls[0])
    theirs = late_honest_course(prepared, tmp_path / "theirs", urls[1])
    reading_maths(ours, "autograde", ASSIGNMENT, "--jobs", "2")
    nbgrader(theirs, "autograde", ASSIGNMENT, "--create", "--force", "--log-level=WARN")
    ours_url, theirs_url = course_directory(ours).db_url, course_directory(theirs).db_url
    indexes = [line for line in canonical_dump(ours_url) if "ix_reading_maths_" in line]  # ours adds only these
    assert len(indexes) == len(LOOKUP_INDEXES) and all(line.startswith("INDEX") for line in indexes)
    assert [line for line in canonical_dump(ours_url) if line not in indexes] == canonical_dump(theirs_url)
    assert hashes(ours / "autograded") == hashes(theirs / "autograded")
    with Gradebook(ours_url) as gb:  # the late penalty is on the recorded score
        late = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "wrong")
        assert late.score > 0 and late.late_submission_penalty == pytest.approx(0.2 * late.score)  # 2 started days
        assert not gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "right").late_submission_penalty
        tampered = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "tampered")
        assert tampered.score == gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "right").score > 0


def test_a_batch_keeps_the_students_it_finished_and_drops_a_refused_or_interrupted_one(tmp_path, monkeypatch):
    """Students share a transaction, each in a savepoint: undo drops only what that student wrote, an exception
    drops that student only, and the students recorded before are committed when the batch closes."""
    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook runs alembic
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gb:
        gb.add_assignment("a")
    with batch_gradebook(url, "default_course") as batch:
        with batch.student():
            batch.gradebook.add_student("finished")
        with pytest.raises(RuntimeError), batch.student():
            batch.gradebook.add_student("interrupted")
            raise RuntimeError("grading stopped here")
        with batch.student() as savepoint:
            batch.gradebook.add_student("refused-first-write")
            savepoint.undo()
            batch.gradebook.add_student("refused")
        batch.commit()
    with Gradebook(url) as gb:
        assert sorted(s.id for s in gb.students) == ["finished", "refused"]


def test_deleted_test_cells_are_put_back_and_graded(prepared, tmp_path):
    """A student who deleted test cells (the one below its public checks, the one after a deleted answer,
    and the first) is graded as if they had not: nbgrader's own converter refuses the whole submission
    (``KeyError``: the cell above a deleted test cell in the source is not a grade or answer cell)."""
    course = copy_course(prepared / "course", tmp_path / "course")
    right = nbformat.read(submitted(course, "right"), as_version=4)
    ids = [c.metadata.nbgrader["grade_id"] for c in right.cells if is_test_cell(c)]
    gone = {ids[0], ids[1], f"{ids[1]}-answer", f"{ids[1]}-check", ids[-1]}
    pruned = copy.deepcopy(right)
    pruned.cells = [c for c in pruned.cells if c.metadata.get("nbgrader", {}).get("grade_id") not in gone]
    submitted(course, "pruned").parent.mkdir(parents=True)
    nbformat.write(pruned, submitted(course, "pruned"))
    done = reading_maths(course, "autograde", ASSIGNMENT, "--student", "pruned")
    assert "could not be read" not in done.stderr, done.stderr
    reading_maths(course, "autograde", ASSIGNMENT, "--student", "right")
    scores, full = auto_scores(course, "pruned"), auto_scores(course, "right")
    assert scores[ids[0]] == full[ids[0]] > 0 and scores[ids[-1]] == full[ids[-1]] > 0  # their answers are there
    assert scores[ids[1]] == 0  # the answer itself was deleted
    assert {q: scores[q] for q in ids[2:-1]} == {q: full[q] for q in ids[2:-1]}
    graded = nbformat.read(course / "autograded" / "pruned" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    order = [c.metadata.get("nbgrader", {}).get("grade_id") for c in graded.cells]
    for qid in (ids[0], ids[-1]):  # back below the public checks, with the feedback in them
        assert order.index(qid) == order.index(f"{qid}-check") + 1
        cell = graded.cells[order.index(qid)]
        assert cell.id.startswith("restored-") and f"{qid}: {full[qid]:g} /" in cell.outputs[0]["text"]
    assert order.index(ids[1]) == order.index(f"{ids[0]}") + 1  # nothing of its own left above it


# --- stock nbgrader autograde (the hidden test cells call reading_maths.nbgrader.in_kernel) --------------------


def test_stock_nbgrader_autograde_agrees(prepared, tmp_path, expected):
    course = copy_course(prepared / "course", tmp_path / "course")
    use_stock_nbgrader(course)  # the course's config routes nbgrader through the sandbox; this is stock
    for student in BROKEN:
        shutil.rmtree(course / "submitted" / student)  # nbgrader aborts the whole batch on the duplicated one
    nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force", "--log-level=WARN")
    maxima = points(course)
    for student in HONEST:
        questions = {q["id"]: q for q in expected[student]["questions"]}
        scores = auto_scores(course, student)
        for qid, q in questions.items():
            assert scores[qid] == pytest.approx(q["score"] * maxima[qid] / q["max_score"]), (student, qid)
    # the hidden test cells ran in the kernel (stock Execute): their outputs are the in-kernel driver's
    nb = nbformat.read(course / "autograded" / "right" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    assert any(o.get("execution_count") for c in nb.cells for o in c.get("outputs", []))


# --- nbgrader's own autograde, routed through the sandbox by nbgrader_config.py -------------------------

THIEF = """import json, pathlib
COURSE = pathlib.Path({course!r})
LOOT = {{}}
for path in [COURSE / "source/code/code.ipynb", COURSE / "gradebook.db", COURSE / "graders/code/softmax.py",
             pathlib.Path("../../../source/code/code.ipynb"), pathlib.Path("../../../gradebook.db")]:
    try:
        LOOT[str(path)] = path.read_bytes()
    except OSError:
        pass
def softmax(z, T=1.0):
    ns = {{}}
    for text in LOOT.values():
        try:
            cells = json.loads(text)["cells"]
        except Exception:
            continue
        for cell in cells:
            if "def softmax" in "".join(cell["source"]):
                exec("".join(cell["source"]), ns)
                return ns["softmax"](z, T)
    raise ValueError(repr(sorted(LOOT))[:300] + b"".join(LOOT.values()).decode("latin-1")[:200])
"""


def with_thief(prepared: Path, to: Path) -> Path:
    """A copy of the prepared course, honest students only, plus ``thief``, whose softmax uses what it can read
    of ``source/`` (the reference solution: full marks if it reads it) and shows the rest in its message."""
    course = copy_course(prepared / "course", to)
    for student in BROKEN:
        shutil.rmtree(course / "submitted" / student)
    release = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    path = submitted(course, "thief")
    path.parent.mkdir(parents=True)
    nbformat.write(answered(release, source, {"softmax-answer": THIEF.format(course=str(course))}), path)
    return course


def assert_sandboxed_like_reading_maths(course: Path, graded_course: Path) -> None:
    """Honest scores equal ``reading-maths autograde``'s; the thief read nothing; results JSON beside autograded/."""
    for student in HONEST:
        assert auto_scores(course, student) == auto_scores(graded_course, student), student
        ours = json.loads((course / "autograded" / student / f"{ASSIGNMENT}.json").read_text())
        theirs = json.loads((graded_course / "autograded" / student / f"{ASSIGNMENT}.json").read_text())
        assert ours == theirs, student
    maxima = points(course)
    thief = auto_scores(course, "thief")
    assert thief["softmax"] == 0 and thief["attention"] == maxima["attention"], thief
    said = comments(course, "thief")["softmax-answer"] + (course / "autograded" / "thief" /
                                                        f"{ASSIGNMENT}.json").read_text()
    assert "your code raised ValueError" in said
    for leak in ("SQLite format", "BEGIN SOLUTION", "source/code/code.ipynb", "gradebook.db", "Question("):
        assert leak not in said, leak
    # no kernel ran the hidden cells: their outputs are the injected results, without execution counts
    nb = nbformat.read(course / "autograded" / "thief" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"
             and not c.metadata.nbgrader.get("solution")]
    assert tests and all(c.outputs[0].text.startswith(c.metadata.nbgrader["grade_id"] + ": ") for c in tests)
    assert not any(c.get("execution_count") for c in nb.cells)


def test_nbgrader_autograde_cli_is_sandboxed(prepared, graded, tmp_path):
    course = with_thief(prepared, tmp_path / "course")
    before = hashes(course / "submitted")
    nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force", "--log-level=WARN")
    assert_sandboxed_like_reading_maths(course, graded[0])
    assert hashes(course / "submitted") == before


FORMGRADER = """
import json, sys
from nbgrader.apps.api import NbGraderAPI
from nbgrader.apps.nbgraderapp import NbGraderApp
app = NbGraderApp()          # formgrader's API: its app loads the course's nbgrader_config.py
app.load_config_file()
api = NbGraderAPI(app.coursedir, parent=app)
print(json.dumps({s: api.autograde("code", s)["success"] for s in sys.argv[1:]}))
"""


def test_formgrader_autograde_button_is_sandboxed(prepared, graded, tmp_path):
    course = with_thief(prepared, tmp_path / "course")
    students = [*HONEST, "thief"]
    done = run(course, sys.executable, "-c", FORMGRADER, *students)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == dict.fromkeys(students, True)
    assert_sandboxed_like_reading_maths(course, graded[0])


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.live: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img" or any(name.startswith("on") for name, _ in attrs) \
                or any("javascript:" in (value or "") for _, value in attrs):
            self.live.append((tag, attrs))


def test_student_markup_stays_text_in_comments_and_feedback_html(prepared, tmp_path):
    """An exception message that is HTML and Markdown reaches the gradebook comment escaped and the
    feedback HTML (``nbgrader generate_feedback``) as text: no ``img``, no ``on*`` attribute, no link."""
    course = with_thief(prepared, tmp_path / "course")
    release = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    path = submitted(course, "markup")
    path.parent.mkdir(parents=True)
    nbformat.write(answered(release, source, {"attention-answer": LEAKY_ATTENTION}), path)
    nbgrader(course, "autograde", ASSIGNMENT, "--student=markup", "--create", "--force", "--log-level=WARN")
    comment = comments(course, "markup")["attention-answer"]
    assert "&lt;img src=x" in comment and "<img" not in comment and "Leak_" not in comment
    nbgrader(course, "generate_feedback", ASSIGNMENT, "--student=markup", "--force", "--log-level=WARN")
    page = (course / "feedback" / "markup" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    parser = _Tags()
    parser.feed(page)
    assert "your code raised an exception" in page and "onerror" in page  # shown, as text
    assert not parser.live, parser.live


def test_nbgrader_autograde_keeps_to_the_notebook_budget(prepared, tmp_path):
    course = copy_course(prepared / "course", tmp_path / "course")
    nbgrader(course, "autograde", ASSIGNMENT, "--student=right", "--create", "--force", "--log-level=WARN",
             "--GradeInSandbox.budget=0.01")  # nbgrader_config.py's c.GradeInSandbox.budget, from the command line
    assert set(auto_scores(course, "right").values()) == {0}
    assert all("time budget (0.01 s" in (text or "") for text in comments(course, "right").values()), \
        comments(course, "right")
