"""A hostile student against three speed features: prelude fork servers, grading ahead, the wire's fast path.

Each test fails if its attack works."""

from __future__ import annotations

import copy
import glob
import json
import os
from pathlib import Path

import nbformat
import numpy as np
import pytest

from reading_maths.course import assignment as course_assignment
from reading_maths.grading.engine import Settings, assignment_prelude, grade, grade_cell_places, load, sanitize
from reading_maths.nbgrader.autograde import likely_notebooks
from reading_maths.sandbox.inside import wire
from reading_maths.sandbox.notebook_run import course_prelude
from reading_maths.sandbox.process import choose

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = choose(allow_unsafe=True)
needs_isolation = pytest.mark.skipif(not SANDBOX.isolated, reason="full sandbox needs root and bubblewrap")
SOURCE = ROOT / "source" / "code" / "code.ipynb"


def _source() -> nbformat.NotebookNode:
    return nbformat.read(SOURCE, as_version=4)


def _with_answer(nb, grade_id: str, code: str):
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source = code
            return nb
    raise LookupError(grade_id)


def _write(nb, folder: Path, name: str) -> Path:
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


# -- 1. prelude fork servers ---------------------------------------------------------------------

POLLUTER = r'''
import builtins, os, sys, gc, mmap
import numpy
# every way to leave something behind for the next notebook's child
for top in ("/tmp", "/dev/shm", os.environ.get("HOME", "/tmp"), os.getcwd()):
    try:
        with open(os.path.join(top, "leak"), "w") as fh:
            fh.write("x")
    except OSError:
        pass
os.environ["LEAK"] = "1"
builtins.LEAK = 1
numpy.LEAK = 1
numpy.exp = lambda x, *a, **k: 0 * numpy.asarray(x)
numpy.max = lambda x, *a, **k: 0
sys.modules["leak_module"] = type(sys)("leak_module")
np.LEAK = 1
# objects the prelude made: its helpers' globals and code
for obj in list(globals().values()):
    if callable(obj) and hasattr(obj, "__globals__"):
        obj.__globals__["LEAK"] = 1
# a writable shared mapping inherited from the fork server would reach every later child
shared = []
for line in open("/proc/self/maps"):
    fields = line.split()
    if len(fields[1]) == 4 and fields[1][1] == "w" and fields[1][3] == "s":
        shared.append(line)
import ctypes
for line in shared:
    start, end = (int(x, 16) for x in line.split()[0].split("-"))
    try:
        ctypes.memset(start, 0x41, min(end - start, 4096))
    except Exception:
        pass
SHARED = shared

def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.e ** (z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''

VICTIM = r'''
import builtins, os, sys
import numpy
LEAKS = [p for p in ("/tmp/leak", "/dev/shm/leak", os.path.join(os.environ.get("HOME", "/tmp"), "leak"), "leak")
         if os.path.exists(p)]
LEAKS += [w for w, seen in (("env", "LEAK" in os.environ), ("builtins", hasattr(builtins, "LEAK")),
                             ("numpy", hasattr(numpy, "LEAK")), ("np", hasattr(np, "LEAK")),
                             ("module", "leak_module" in sys.modules), ("globals", "LEAK" in globals()),
                             ("exp", numpy.exp(0.0) != 1.0)) if seen]

def softmax(z, T=1.0):
    if LEAKS:
        return np.zeros_like(np.asarray(z, dtype=float))
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''


def _scores(result) -> dict[str, float]:
    return {q.id: q.score for q in result.questions}


@pytest.mark.slow
@needs_isolation
def test_a_child_forked_after_the_prelude_leaves_nothing_to_the_next_students_child(tmp_path):
    """A student whose notebook starts with the course's read-only cells gets a child forked from the prelude
    fork server; they pollute everything they can reach (files, env, module state, the prelude's helpers, shared
    mappings).  The next student, forked from the same fork server, must see none of it."""
    from reading_maths.sandbox import child_starter

    source = _source()
    settings = Settings(SANDBOX, cell_timeout=30, call_timeout=10, ahead=True)
    code = course_assignment(ROOT, "code")
    victim = _write(_with_answer(source, "softmax-answer", VICTIM), tmp_path, "victim")
    polluter = _write(_with_answer(source, "softmax-answer", POLLUTER), tmp_path, "polluter")
    before = grade(victim, settings, ROOT, code)
    attacked = grade(polluter, settings, ROOT, code)
    after = grade(victim, settings, ROOT, code)
    used = [s for (pid, *_), s in child_starter._made.items() if pid == os.getpid()]
    assert any(assignment_prelude(code) in (s._fork_servers or {}) for s in used), \
        "the notebooks were forked after the assignment's prelude (else this test tests nothing)"
    assert _scores(before)["softmax"] > 0, before
    assert _scores(attacked)["softmax"] > 0, attacked  # the polluter's own softmax works: its cell ran
    assert _scores(after) == _scores(before), ("the polluter's child changed the next student's grade",
                                               before, after)


def _chosen_prelude(nb_path: Path):
    """The prelude grade() would fork this notebook's child after (the assignment's, or ())."""
    code = course_assignment(ROOT, "code")
    nb, _ = load(nb_path, ROOT, code)
    cells, _ = sanitize(nb, code)
    places = grade_cell_places(nb)
    upto = [places.get(g.question) for g in code.graders]
    prelude = course_prelude(cells, upto[0] if upto else None)
    return (prelude if prelude == assignment_prelude(code) else ()), cells


def _variants(source):
    """Notebooks that start like the course's but differ in what a child would run."""
    def edit(fn):
        nb = copy.deepcopy(source)
        fn(nb)
        return nb

    def cell(nb, gid):
        return next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid)

    student = "import builtins\nbuiltins.PWNED = 1\n"
    yield "setup's code edited", edit(lambda nb: setattr(cell(nb, "setup"), "source", student))
    yield "setup unlocked in their copy", edit(lambda nb: (cell(nb, "setup").metadata.nbgrader.update(
        locked=False, solution=True), setattr(cell(nb, "setup"), "source", student)))
    yield "setup's grade id dropped", edit(lambda nb: (setattr(cell(nb, "setup"), "source", student),
                                                       cell(nb, "setup").metadata.pop("nbgrader")))
    yield "setup as a raw cell", edit(lambda nb: setattr(cell(nb, "setup"), "cell_type", "raw"))
    yield "a code cell before setup", edit(lambda nb: nb.cells.insert(0, nbformat.v4.new_code_cell(student)))
    yield "markdown made code", edit(lambda nb: (setattr(nb.cells[0], "cell_type", "code"),
                                                 setattr(nb.cells[0], "source", student),
                                                 nb.cells[0].update(outputs=[], execution_count=None)))
    yield "markdown first cell removed", edit(lambda nb: nb.cells.pop(0))
    yield "grade id with a trailing space", edit(lambda nb: (setattr(cell(nb, "setup"), "source", student),
                                                             cell(nb, "setup").metadata.nbgrader.update(
                                                                 grade_id="setup ")))
    yield "the first grade cell moved first", edit(lambda nb: nb.cells.insert(0, nb.cells.pop(
        nb.cells.index(cell(nb, "softmax")))))
    yield "student code in the setup cell's outputs and attachments", edit(lambda nb: cell(nb, "setup").update(
        outputs=[nbformat.v4.new_output("stream", text=student)], attachments={"x": {"text/plain": student}}))
    yield "the setup cell twice", edit(lambda nb: nb.cells.insert(2, copy.deepcopy(cell(nb, "setup"))))
    yield "the softmax answer given the check's grade id", edit(lambda nb: cell(nb, "softmax-answer")
                                                                .metadata.nbgrader.update(grade_id="check-helpers"))
    yield "a student cell marked read-only with a grade id of its own, first", edit(lambda nb: nb.cells.insert(
        0, nbformat.v4.new_code_cell(student, metadata={"nbgrader": {"grade": False, "grade_id": "evil",
                                                                     "locked": True, "solution": False}})))
    yield "setup's grade id with a zero-width space", edit(lambda nb: (setattr(cell(nb, "setup"), "source", student),
                                                                       cell(nb, "setup").metadata.nbgrader.update(
                                                                           grade_id="set\u200bup")))
    yield "setup as source lines", edit(lambda nb: setattr(cell(nb, "setup"), "source",
                                                           list(cell(nb, "setup").source.splitlines(True))))
    yield "the notebook's metadata changed", edit(lambda nb: nb.metadata.update(kernelspec={"name": "evil"}))


def test_the_shared_prelude_is_chosen_only_when_the_child_would_run_exactly_those_cells_first(tmp_path):
    """Whatever the student did to the leading cells, a notebook forked after the assignment's prelude runs the
    course's code there and nothing of its own (the fork server runs only course code, once, for everyone)."""
    code = course_assignment(ROOT, "code")
    wanted = assignment_prelude(code)
    assert wanted, "the code assignment starts with read-only cells"
    forked = []
    for name, nb in _variants(_source()):
        path = _write(nb, tmp_path, name.replace(" ", "-").replace("'", ""))
        shared, cells = _chosen_prelude(path)
        if not shared:
            continue
        forked.append(name)
        assert [(c.index, c.code) for c in cells[:len(shared)]] == list(shared), name
        assert all(c.trusted for c in cells[:len(shared)]), name
        assert "PWNED" not in "".join(code for _, code in shared), name
        assert shared == wanted, name
    assert "setup's code edited" in forked and "setup unlocked in their copy" in forked, forked  # restored: shared


# -- 2. grading ahead ----------------------------------------------------------------------------

def _notebook_at(root: Path, student: str, assignment: str = "A") -> Path:
    folder = root / "submitted" / student / assignment
    folder.mkdir(parents=True)
    (folder / f"{assignment}.ipynb").write_text(json.dumps(nbformat.v4.new_notebook()))
    return folder / f"{assignment}.ipynb"


def test_grading_ahead_refuses_a_student_folder_that_is_a_link_to_anothers(tmp_path):
    """``submitted/bob`` a symbolic link to ``submitted/alice``: bob's "submission" is alice's notebook. The folder
    check starts at ``submitted/bob/A`` (lstat follows ``bob``), so nothing refuses the link."""
    _notebook_at(tmp_path, "alice")
    (tmp_path / "submitted" / "bob").symlink_to(tmp_path / "submitted" / "alice")
    found = likely_notebooks(tmp_path, "A")
    assert tmp_path / "submitted" / "bob" / "A" / "A.ipynb" not in found, \
        "bob's linked folder is graded ahead: alice's notebook under bob's name"


def test_grading_ahead_begins_only_notebooks_nbgrader_would_find(tmp_path):
    """Folders nbgrader's ``glob.glob`` never lists (names starting with a dot) are not graded ahead: each would take
    a worker for up to a notebook's budget, before the real students, and its result is thrown away."""
    _notebook_at(tmp_path, "alice")
    for name in (".a", ".b", ".c"):
        _notebook_at(tmp_path, name)
    nbgraders = {Path(p) / "A.ipynb" for p in glob.glob(str(tmp_path / "submitted" / "*" / "A"))}
    wasted = [p for p in likely_notebooks(tmp_path, "A") if p not in nbgraders]
    assert not wasted, f"graded ahead, never asked for: {wasted}"


# -- 3. the wire's fast path ---------------------------------------------------------------------

class _Liar(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


class _LiarInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class _LiarStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class _LiarArray(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(other), bool)


class _LyingClass:
    @property
    def __class__(self):
        return float


class _F64(np.float64):
    def __eq__(self, other):
        return True


def _round_trip(value):
    try:  # as the child describes a value (child.describe): what encode raises travels as unencodable
        sent = wire.encode(value)
    except BaseException as exc:  # noqa: BLE001 - the student's own process
        sent = {"__unencodable__": type(exc).__name__}
    return wire.decode(wire.parse(wire.frame({"v": sent})[4:])["v"])


PLAIN = (type(None), bool, int, float, str, list, tuple, dict, set, np.ndarray, wire.Unencodable)


def _plain(value) -> bool:
    if type(value) is np.ndarray:
        return value.dtype in (np.float64, np.int64, np.bool_)
    if isinstance(value, (list, tuple, set)):
        return type(value) in (list, tuple, set) and all(_plain(v) for v in value)
    if isinstance(value, dict):
        return type(value) is dict and all(_plain(k) and _plain(v) for k, v in value.items())
    return type(value) in PLAIN[:5] or isinstance(value, wire.Unencodable)


@pytest.mark.parametrize("value", [
    _Liar(2.0), _LiarInt(3), _LiarStr("x"), _F64(1.0), np.arange(3.0).view(_LiarArray), _LyingClass(),
    np.array([_Liar(1.0), "a", None], dtype=object), np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")]),
    np.array([1, 2], dtype=np.uint64), np.array(["1.5", "2"]), [_Liar(1.0), {_LiarStr("k"): _LiarInt(1)}],
    np.float32(1.5), np.int8(3), np.datetime64("2020-01-01"), np.array([b"ab"]), 2**63, -(2**70),
    np.ma.masked_array([1.0, 2.0], mask=[True, False]), np.matrix([[1.0, 2.0]]),
], ids=lambda v: type(v).__name__)
def test_the_trusted_side_decodes_only_plain_values(value):
    decoded = _round_trip(value)
    assert _plain(decoded), (type(decoded), decoded)
    assert not (isinstance(decoded, (int, float, str)) and decoded == object()), decoded


def test_a_recursive_or_wide_value_neither_hangs_nor_crashes_the_decoder():
    loop: list = []
    loop.append(loop)
    assert _plain(_round_trip(loop))
    message = b'{"v":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(wire.WireError):
        wire.decode(wire.parse(message)["v"])
    with pytest.raises(wire.WireError):
        wire.decode({"__nd__": ["f8", [2**31 - 1, 2**31 - 1], ""]})


def test_a_size_zero_array_with_a_shape_numpy_cannot_make_is_a_wire_error():
    """Size 0 (so its empty data matches), but dimensions whose product NumPy refuses: decoding raises ValueError,
    which :meth:`StudentSession.call` (``except wire.WireError``) does not take for a protocol break."""
    with pytest.raises(wire.WireError):
        wire.decode({"__nd__": ["f8", [2**31 - 1] * 31 + [0], ""]})


def test_nbgraders_find_refuses_a_student_folder_that_is_a_link_to_anothers(tmp_path, monkeypatch):
    """The same layout as above, found nbgrader's way (:func:`find_submissions`, the step the batch records from):
    bob must not be recorded with alice's notebook."""
    import contextlib

    import nbgrader.api
    from nbgrader.coursedir import CourseDirectory

    import reading_maths.nbgrader.recording as recording
    from reading_maths.nbgrader.autograde import find_submissions

    _notebook_at(tmp_path, "alice")
    (tmp_path / "submitted" / "bob").symlink_to(tmp_path / "submitted" / "alice")
    monkeypatch.setattr(nbgrader.api, "Gradebook", lambda *a, **k: contextlib.nullcontext())
    monkeypatch.setattr(recording, "notebook_ids", lambda gb, assignment: ["A"])
    coursedir = CourseDirectory(root=str(tmp_path))
    found = {s.student: s for s in find_submissions(coursedir, "A")}
    assert "bob" not in found or found["bob"].refused or not found["bob"].notebooks, \
        f"bob is recorded with alice's notebook: {found['bob']}"


HUGE_EMPTY = r"""
import wire
_encode = wire.encode

class _Sentinel:
    pass

def _crafted(value, *args, **kwargs):
    if isinstance(value, _Sentinel):
        return {"__nd__": ["f8", [2**31 - 1] * 31 + [0], ""]}
    return _encode(value, *args, **kwargs)

wire.encode = _crafted

def softmax(z, T=1.0):
    return _Sentinel()
"""


@pytest.mark.slow
@needs_isolation
def test_a_crafted_array_from_the_child_is_a_protocol_break_not_a_grader_crash(tmp_path):
    """The student's process answers a call with an array spec of size 0 whose shape NumPy cannot make: decoding
    it on the trusted side must be a protocol break (the call fails for this student), never an exception
    escaping into the grader, the hidden run, or the rest of the notebook's questions."""
    code = course_assignment(ROOT, "code")
    settings = Settings(SANDBOX, cell_timeout=30, call_timeout=10, ahead=True)
    path = _write(_with_answer(_source(), "softmax-answer", HUGE_EMPTY), tmp_path, "huge-empty")
    result = grade(path, settings, ROOT, code)
    scores = _scores(result)
    assert scores["softmax"] == 0, result
    assert not any("could not judge" in (q.problem or "") for q in result.questions), \
        [(q.id, q.status, q.problem) for q in result.questions]


@pytest.mark.slow
@needs_isolation
def test_a_notebook_replaced_after_it_was_graded_ahead_is_graded_as_nbgrader_finds_it(tmp_path):
    """The pool grades ``submitted/<student>/A/A.ipynb`` as it stood before nbgrader found it; if the file is then
    replaced (a collect still copying, a resubmission), the batch must not record the early grading of the old
    bytes beside the new notebook that nbgrader's converter copies."""
    import time

    from reading_maths.grading.batch import started_pool

    folder = tmp_path / "submitted" / "mallory" / "code"
    folder.mkdir(parents=True)
    path = folder / "code.ipynb"
    path.write_text("not a notebook yet")
    settings = Settings(SANDBOX, cell_timeout=30, call_timeout=10, ahead=True)
    with started_pool(settings, 1, ROOT, "code") as pool:
        pool.grade_ahead([path], settings, ROOT, "code")
        _, early = next(iter(pool._ahead.values()))  # (the file as it was, the grading)
        deadline = time.monotonic() + 240
        while not early.done() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert early.done() and "not" in " ".join(early.result().errors)
        nbformat.write(_source(), path)  # the real notebook arrives before nbgrader finds the folder
        result = pool.grading(path, settings, ROOT, "code").result(timeout=300)
    assert _scores(result).get("softmax"), ("the early grading of the old bytes was recorded", result.errors)


def _grade_cell_first(nb, gid: str):
    nb = copy.deepcopy(nb)
    index = next(i for i, c in enumerate(nb.cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid)
    nb.cells.insert(0, nb.cells.pop(index))
    return nb


@pytest.mark.slow
@needs_isolation
@pytest.mark.parametrize("gid", ["softmax", "attention", "adam_step", "adam", "dpo_loss"])
def test_a_grade_cell_moved_before_the_prelude_is_graded_as_without_the_fork_servers_prelude(tmp_path, gid):
    """A question's grade cell moved to the top: its hidden run asks for the names before the course's leading
    cells, which a child forked after them cannot give.  The grade must be what grading without children started
    ahead (each child running every cell) gives, and never a grader crash."""
    code = course_assignment(ROOT, "code")
    path = _write(_grade_cell_first(_source(), gid), tmp_path, f"moved-{gid}")
    plain = grade(path, Settings(SANDBOX, cell_timeout=30, call_timeout=10, ahead=False), ROOT, code)
    forked = grade(path, Settings(SANDBOX, cell_timeout=30, call_timeout=10, ahead=True), ROOT, code)
    assert [(q.id, q.score, q.status) for q in forked.questions] == [(q.id, q.score, q.status) for q in plain.questions]


@pytest.fixture(scope="module")
def linked_course(tmp_path_factory) -> Path:
    from test_autograde import generated_course

    return generated_course(tmp_path_factory.mktemp("linked-student") / "course", "notation")


@pytest.mark.slow
@pytest.mark.sandbox
def test_autograde_refuses_a_student_folder_linked_to_the_courses_source(linked_course):
    """``submitted/mallory`` a link to the course's ``source/`` (which has the layout of a student's folder:
    ``<assignment>/<assignment>.ipynb``): the folder check starts one level down, at ``submitted/mallory/notation``,
    and lstat follows ``mallory``.  Grading ahead and nbgrader's find both take the instructor's solution for
    mallory's submission."""
    from nbgrader.api import Gradebook
    from test_autograde import reading_maths

    course, a = linked_course, "notation"
    (course / "submitted").mkdir(exist_ok=True)
    (course / "submitted" / "mallory").symlink_to(course / "source", target_is_directory=True)
    reading_maths(course, "autograde", a, "--jobs", "2")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        score = gb.find_submission(a, "mallory").score
    assert score == 0, f"mallory is recorded with the instructor's solution: {score}"
    assert not (course / "autograded" / "mallory" / a / f"{a}.ipynb").exists()


def test_a_student_folder_nested_past_the_stack_does_not_stop_grading_ahead(tmp_path):
    """One student's folder holding folders nested 1200 deep: the early glob's folder check (os.walk, recursive in
    this Python) raises RecursionError, which stops ``autograde`` for the whole class before nbgrader finds anyone.
    The folder must be refused (or skipped), the others still found."""
    _notebook_at(tmp_path, "alice")
    deep = _notebook_at(tmp_path, "zz").parent
    _nest_deep(deep)
    try:
        found = likely_notebooks(tmp_path, "A")
    finally:
        _remove_deep(deep / "a")
    assert tmp_path / "submitted" / "alice" / "A" / "A.ipynb" in found
    assert deep / "A.ipynb" not in found


def _nest_deep(folder: Path, levels: int = 1200) -> None:
    """A chain of folders ``a/a/...`` ``levels`` deep in ``folder`` (made from inside, each path short)."""
    here = os.getcwd()
    try:
        os.chdir(folder)
        for _ in range(levels):
            os.mkdir("a")
            os.chdir("a")
    finally:
        os.chdir(here)


def _remove_deep(path: Path) -> None:
    """The chain of folders ``a/a/...`` nested past the stack removed, deepest first, in this process
    (shutil.rmtree, and pytest's cleanup of old temporary folders, recurse)."""
    chain = [path]
    while (inner := chain[-1] / "a").is_dir():
        chain.append(inner)
    for folder in reversed(chain):
        for entry in folder.iterdir():
            entry.unlink()
        folder.rmdir()


@pytest.mark.slow
@pytest.mark.sandbox
def test_autograde_grades_the_class_beside_a_folder_nested_past_the_stack(tmp_path):
    """The whole batch, as the instructor runs it: one student's folder nested 1200 deep must cost that student
    only (refused), never everyone's grades."""
    from nbgrader.api import Gradebook
    from test_autograde import BIN, generated_course, release_and_source, run

    from classroom.builder import answered

    a = "notation"
    course = generated_course(tmp_path / "course", a)
    honest = course / "submitted" / "ada" / a / f"{a}.ipynb"
    honest.parent.mkdir(parents=True)
    nbformat.write(answered(*release_and_source(course, a)), honest)
    deep = course / "submitted" / "zz" / a
    deep.mkdir(parents=True)
    nbformat.write(answered(*release_and_source(course, a)), deep / f"{a}.ipynb")
    _nest_deep(deep)
    try:
        done = run(course, str(BIN / "reading-maths"), "autograde", a, "--jobs", "2", check=False)
    finally:
        _remove_deep(deep / "a")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            score = gb.find_submission(a, "ada").score
        except Exception:  # noqa: BLE001 - not recorded at all
            score = None
    assert score, ("ada's grade was not recorded: one student's folder stopped the class's batch",
                   done.returncode, done.stderr[-1500:])


COLLIDING = r"""
import wire
_encode = wire.encode
M = 2**61 - 1  # every multiple of it hashes to 0: a set of them is built in time quadratic in its size

class _Sentinel:
    pass

def _crafted(value, *args, **kwargs):
    if isinstance(value, _Sentinel):
        return {"__set__": [i * M for i in range(N)]}
    return _encode(value, *args, **kwargs)

wire.encode = _crafted

def softmax(z, T=1.0):
    return _Sentinel()
"""


@pytest.mark.parametrize("tag", ["__set__", "__dict__"])
def test_decoding_a_set_of_colliding_numbers_takes_linear_time(tag):
    """``{"__set__": [0, M, 2M, ...]}`` (M = 2**61 - 1: all hash alike) is decoded by ``set(items)``, quadratic:
    20 000 items take seconds, the 2 000 000 a message may hold would take hours of the trusted side's time."""
    import time

    items = [i * (2**61 - 1) for i in range(20_000)]
    body = json.dumps({"v": {tag: items if tag == "__set__" else [[k, 0] for k in items]}}).encode()
    start = time.process_time()
    try:
        wire.decode(wire.parse(body)["v"])
    except wire.WireError:
        pass
    assert time.process_time() - start < 1.0, "a 0.5 MB message held the trusted side for seconds"


@pytest.mark.slow
@needs_isolation
def test_a_call_answered_with_a_set_of_colliding_numbers_stays_within_the_notebooks_budget(tmp_path):
    """The student's process answers ``softmax(...)`` with 100 000 colliding numbers tagged as a set (2.5 MB):
    decoding happens on the trusted side, outside every deadline, and must not hold the grading process past
    the notebook's budget (30 s here).  Graded in a process of its own, stopped after budget + 30 s."""
    import multiprocessing

    code = course_assignment(ROOT, "code")
    settings = Settings(SANDBOX, cell_timeout=30, call_timeout=10, budget=30.0)
    path = _write(_with_answer(_source(), "softmax-answer", "N = 100_000\n" + COLLIDING), tmp_path, "colliding")
    worker = multiprocessing.get_context("fork").Process(target=grade, args=(path, settings, ROOT, code))
    worker.start()
    worker.join(60.0)
    held = worker.is_alive()
    if held:
        worker.kill()
        worker.join()
    assert not held, "one call's answer held the trusted grading process past its notebook's budget"
