"""Mutation testing where student code runs: the sandboxed child, and stock nbgrader's kernel.

The mutants are written on the trusted side from the ``def`` the ``locate`` request points at (its text
is read from the trusted side's own copy of the cells) and each runs in a fresh trial
(:mod:`reading_maths.sandbox.rerun`).  These tests drive ``locate`` through a real sandbox, check that
a hostile notebook cannot use it or its trials to raise its grade, and that the sandboxed engine, the
in-process driver and the kernel driver give every build notebook the same marks.
"""

import linecache
import re
import warnings

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from conftest import ROOT
from reading_maths.course import Assignment
from reading_maths.grading.engine import Settings, grade, sanitize
from reading_maths.notebook import SOLUTION_MARKERS, grade_id, is_test_cell
from reading_maths.sandbox.mutant_calls import definition
from reading_maths.sandbox.notebook_run import MAX_PRELUDE
from reading_maths.sandbox.rerun import WORKERS, SessionTrials, run_fresh
from reading_maths.sandbox.session import Cell, StudentSession
from test_sandbox import SANDBOX, needs_isolation, session

pytestmark = [pytest.mark.sandbox, pytest.mark.kernel]

SOURCE = ROOT / "source" / "build" / "build.ipynb"
IMPLEMENTATION = "def twice(x):\n    # doubles\n    return 2 * x\n\nimplementation_1 = twice\n"
TEST = "def test_1():\n    assert twice(3) == 6\n"
KEEPS_A_FILE = '''
def test_1():  # the grader's first two calls pass; every later run fails: each mutant "caught", if files were kept
    with open("runs.txt", "a+") as runs:
        runs.seek(0)
        before = len(runs.read())
        runs.write("x")
    assert before < 2
'''
LIE_ABOUT_SOURCE = '''
import sys
sys.modules["__main__"]._locate = lambda namespace, name: {"event": "located", "cell": 0, "line": 1,
                                                           "function": "strong_looking_function"}
'''
WEAK_TEST_2 = "\n\ndef test_2():\n    implementation_2([[3.0, 4.0]], [1.0, 1.0])\n"
TWIN_TEST_1 = '''


def gelu_again(values):  # the same computation written again, under another name: a copy as the oracle
    import math
    return np.array([0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))) for v in values])


def test_1():
    for x in ([0.3, -2.0], [1.5, 4.0, -0.25]):
        assert np.allclose(implementation_1(x), gelu_again(x))
'''
EXAMPLE_ONLY_TEST_2 = ("\n\ndef test_2():\n    assert np.allclose(implementation_2([[3.0, 4.0], [1.0, -1.0]], "
                       "[1.0, 0.5], eps=0.0), [[0.8485, 0.5657], [1.0, -0.5]], atol=1e-3)\n")
NAMES_PYTHON_CHANGES = r'''

def implementation_1(x, ℓ):  # Python reads the ℓ of a def as l
    return np.exp(-np.asarray(x) ** 2 / (2 * ℓ**2))


def test_1():
    assert np.allclose(implementation_1([0.0, 2.0], ℓ=1.0), [1.0, 0.1353], atol=1e-4)
    assert np.isclose(implementation_1([3.0], ℓ=3.0)[0], 0.6065, atol=1e-4)
    assert np.allclose(implementation_1([0.5, -1.5], ℓ=2.0) ** 4, implementation_1([0.5, -1.5], ℓ=1.0))


entry_1 = {"paper": "Rasmussen and Williams (2006), Gaussian Processes for Machine Learning, eq. (2.16)",
           "equation": r"k_i = \exp\left(-\frac{x_i^2}{2\ell^2}\right)",
           "symbols": {"x": ("the points", ("n",), "x"), r"\ell": ("the length scale", (), "ℓ"),
                       "k": ("the covariance of each point with 0", ("n",), "return")},
           "example": {"inputs": {"x": [0.0, 2.0], "ℓ": 1.0}, "output": [1.0, 0.1353]}}
'''
BROKEN_IMPLEMENTATION_3 = ("\n\ndef implementation_3(mu1, sigma1, mu2, sigma2):\n"
                           "    return np.log(np.asarray(sigma2) / sigma1) + undefined_name\n")


def test_locate_gives_the_def_as_the_notebook_holds_it():
    with session("import numpy as np", IMPLEMENTATION, TEST, names=("implementation_1", "test_1")) as s:
        env = s.env()
        assert definition(env["implementation_1"]) == "def twice(x):\n    # doubles\n    return 2 * x\n"
        assert definition(env["test_1"]) == TEST


def test_a_child_that_lies_about_its_source_gets_only_the_notebooks_text():
    with session(LIE_ABOUT_SOURCE, IMPLEMENTATION, names=("implementation_1",)) as s:
        with pytest.raises(LookupError, match="no def strong_looking_function"):
            definition(s.env()["implementation_1"])


# -- trials forked from the warm snapshot: the course's leading cells run once, nothing of one trial in the next ------

PRELUDE = """
import os
import numpy as np
MADE_ONCE = os.urandom(8).hex()  # differs in every process that runs this cell
KEPT = []  # made by the snapshot: each trial changes a copy of its own
"""
COUNTS = """
def twice(x):
    return 2 * x


implementation_1 = twice


def test_1(_copy=twice, _runs=[]):  # a copy of the implementation in a default argument, and a list kept there
    global CALLS
    CALLS = globals().get("CALLS", 0) + 1
    _runs.append(1)
    KEPT.append(1)
    sizes = set()
    for folder in ("/tmp", "/dev/shm", os.path.expanduser("~")):
        with open(os.path.join(folder, "runs"), "a") as fh:
            fh.write("x")
        sizes.add(os.path.getsize(os.path.join(folder, "runs")))
    return {"prelude": MADE_ONCE, "calls": CALLS, "runs": len(_runs), "kept": len(KEPT), "files": sorted(sizes),
            "pid": os.getpid(), "copy": _copy(3), "implementation": implementation_1(3),
            "left by the prelude": os.path.exists("/tmp/left-by-the-prelude")}
"""


def _trials(prelude: str, student_first: bool = False, more: str = "") -> tuple[dict, list, SessionTrials]:
    """The notebook's own run of ``test_1``, and six trials of it (``twice`` made ``k * x``, k = 3..8) on both
    workers at once; ``more``: a second read-only cell."""
    cells = [Cell(0, "cell 1", prelude, trusted=True), Cell(2, "cell 3", COUNTS)]
    if student_first:
        cells.insert(0, Cell(-1, "the student's cell", "import os"))
    if more:
        cells.insert(-1, Cell(1, "cell 2", more, trusted=True))
    with StudentSession(cells, ["implementation_1", "test_1"], SANDBOX, cell_timeout=30, call_timeout=30) as notebook:
        env = notebook.env()
        own = env["test_1"]()
        runs = [(f"def twice(x):\n    return {k} * x\n", 30.0) for k in range(3, 9)]
        outcomes = list(run_fresh(env["implementation_1"], [(env["test_1"], {})], runs))
        trials = SessionTrials(notebook, "implementation_1", [("test_1", {})])
    assert [[kind for kind, _ in outcome] for outcome in outcomes] == [["value"]] * 6, outcomes
    return own, [outcome[0][1] for outcome in outcomes], trials


def _nothing_carried(results: list[dict]) -> None:
    """Each trial alone: its globals, default arguments, the snapshot's objects, its files and its process ids
    start from scratch, and the copy it keeps is the replacement."""
    for k, result in zip(range(3, 9), results, strict=True):
        assert (result["calls"], result["runs"], result["kept"], result["files"]) == (1, 1, 1, [1]), result
        assert result["pid"] == 2, "alone in a PID namespace of its own"
        assert result["copy"] == result["implementation"] == 3 * k, "the copy in the default argument is the mutant"


@needs_isolation
def test_trials_fork_from_the_warm_snapshot_and_no_trial_sees_another():
    """The course's leading cells run once, in the fork server the trials are forked from (the trials of one
    worker all see the value they drew, not the one the notebook's own run drew); a test that counts its calls,
    keeps a list in a default argument or in the snapshot's objects, writes files or holds a copy of the
    implementation starts from scratch in every trial, two trials at a time as in every other order."""
    own, results, trials = _trials(PRELUDE)
    assert trials.prelude == ((0, Cell(0, "", PRELUDE).code),)
    drawn = {r["prelude"] for r in results}
    assert len(drawn) <= WORKERS < len(results) and own["prelude"] not in drawn, results  # one snapshot per worker
    _nothing_carried(results)


@needs_isolation
def test_a_prelude_that_leaves_a_file_is_run_by_every_trial_itself():
    """A prelude whose run leaves what a forked child would not have (a file in its /tmp): the fork server refuses
    it, and each trial runs it itself (the file is there, as in the notebook's own run)."""
    own, results, _ = _trials(PRELUDE + "open('/tmp/left-by-the-prelude', 'w').close()\n")
    assert len({r["prelude"] for r in results} | {own["prelude"]}) == 7, "each trial ran the prelude itself"
    assert all(r["left by the prelude"] for r in results) and own["left by the prelude"]
    _nothing_carried(results)


@needs_isolation
def test_only_the_courses_cells_before_any_of_the_students_are_the_snapshot():
    _, results, trials = _trials(PRELUDE, student_first=True)
    assert trials.prelude == (), "a student's cell first: nothing runs in the fork server"
    assert len({r["prelude"] for r in results}) == 6
    _nothing_carried(results)


@needs_isolation
def test_read_only_cells_beyond_what_the_fork_servers_command_line_holds_run_in_each_trial():
    big = "BIG = len(" + repr("x" * MAX_PRELUDE) + ")\n"
    _, results, trials = _trials(PRELUDE, more=big)
    assert [index for index, _ in trials.prelude] == [0], "the first cell only: the second is too long"
    assert len({r["prelude"] for r in results}) <= WORKERS
    _nothing_carried(results)


def test_only_read_only_cells_restored_from_the_source_are_trusted():
    nb = nbformat.read(SOURCE, as_version=4)
    locked = {grade_id(c) for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("locked")}
    edited = next(c for c in nb.cells if grade_id(c) == "entry-format")
    original, edited.source = edited.source, "ENTRY_FORMAT_MINE = True\n" + edited.source
    cells, notes = sanitize(nb, Assignment("build", ROOT))
    assert any("entry-format was edited" in n for n in notes)
    by_id = {c.label.split("(")[-1].rstrip(")"): c for c in cells}
    assert by_id["entry-format"].trusted and by_id["entry-format"].source == original
    assert by_id["meanings_1"].trusted is False
    assert {k for k, c in by_id.items() if c.trusted} <= locked


# -- whole notebooks: the sandboxed engine against the two in-process drivers ---------------------------------

def _notebook(tmp_path, name: str, extra: dict[str, str]):
    """The source notebook (hidden tests included) with ``extra`` code appended to some answer cells."""
    nb = nbformat.read(SOURCE, as_version=4)
    for cell in nb.cells:
        if grade_id(cell) in extra:
            cell.source = SOLUTION_MARKERS.sub("", cell.source) + extra[grade_id(cell)]
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _in_process(path) -> dict[str, list[tuple[str, bool]]]:
    """The pytest driver: the notebook's cells run here, the graders on the real functions."""
    nb = nbformat.read(path, as_version=4)
    env: dict = {"__name__": "notebook"}
    for number, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and not is_test_cell(cell):
            filename = f"<notebook cell {number}>"
            linecache.cache[filename] = (len(cell.source), None, cell.source.splitlines(True), filename)
            try:
                exec(compile(cell.source, filename, "exec"), env)  # noqa: S102 - our own test notebooks
            except Exception:  # noqa: BLE001, S110 - a broken cell is the student's, as in a kernel
                pass
    build = Assignment("build", ROOT)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {q: [(c.name, c.passed) for c in build.grader(q).run(env).cases] for q in build.questions}


def _sandboxed(path) -> tuple[dict[str, list[tuple[str, bool]]], dict]:
    result = grade(path, Settings(SANDBOX, cell_timeout=30, call_timeout=10), ROOT)
    return {q.id: [(c.name, c.passed) for c in q.cases] for q in result.questions}, result


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("build")
    return {
        "reference": _notebook(tmp, "reference", {}),
        "weak-and-broken": _notebook(tmp, "weak-and-broken", {"meanings_2": WEAK_TEST_2,
                                                              "meanings_3": BROKEN_IMPLEMENTATION_3}),
        "keeps-a-file": _notebook(tmp, "keeps-a-file", {"meanings_1": KEEPS_A_FILE}),
        "twin-and-example-only": _notebook(tmp, "twin-and-example-only", {"meanings_1": TWIN_TEST_1,
                                                                          "meanings_2": EXAMPLE_ONLY_TEST_2}),
        "names-python-changes": _notebook(tmp, "names-python-changes", {"meanings_1": NAMES_PYTHON_CHANGES}),
    }


def test_the_sandbox_and_the_in_process_driver_agree(notebooks):
    for name, path in notebooks.items():
        sandboxed, result = _sandboxed(path)
        if name != "keeps-a-file":  # it would write into this process's folder
            assert sandboxed == _in_process(path), name
        if name == "reference":
            assert result.score == result.max_score == 33, result.to_json()
        if name == "names-python-changes":  # the example's input ℓ reaches the argument Python calls l
            assert result.question("entry_1").score == 11, result.question("entry_1").feedback
        if name == "weak-and-broken":
            entry_2, entry_3 = result.question("entry_2"), result.question("entry_3")
            assert entry_2.score == 11 - 4 and any("Your test asserts nothing" in f for f in entry_2.feedback)
            assert any("raised NameError" in f for f in entry_3.feedback) and entry_3.score < 11 - 4
        if name == "twin-and-example-only":  # strength is what the test adds beyond the example and a copy
            entry_1, entry_2 = result.question("entry_1"), result.question("entry_2")
            assert entry_1.score == 11 - 4 and "test-compares-with-a-copy" in entry_1.mistakes, entry_1.feedback
            assert entry_2.score == 11 - 2 and "test-checks-only-the-example" in entry_2.mistakes, entry_2.feedback


def test_a_test_that_keeps_a_file_gains_nothing(notebooks):
    """Each mutant runs in a fresh child: the file of the runs before is not there."""
    _, result = _sandboxed(notebooks["keeps-a-file"])
    entry_1 = result.question("entry_1")
    strength = [c for c in entry_1.cases if c.name.startswith("test_kills")]
    assert strength and not any(c.passed for c in strength), entry_1.feedback
    assert "weak-test" in entry_1.mistakes, entry_1.feedback  # in the graders' words: no count from hidden trials
    assert result.score == 33 - 4


def test_stock_nbgrader_kernel_grades_the_build_notebook_the_same(notebooks):
    """The hidden test cells run the same graders inside the kernel, as stock ``nbgrader autograde`` does."""
    nb = nbformat.read(notebooks["weak-and-broken"], as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    printed = {}
    for cell in nb.cells:
        if is_test_cell(cell):
            text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
            match = re.search(r"(entry_\d): ([\d.]+) / 11", text)
            assert match, text
            printed[match.group(1)] = float(match.group(2))
    _, result = _sandboxed(notebooks["weak-and-broken"])
    assert printed == {q.id: q.score for q in result.questions}
