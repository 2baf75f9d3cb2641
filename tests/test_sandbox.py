"""The sandbox and the wire: what student code can and cannot do, checked from the trusted side."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hostile.ordinary import MODES, as_user, ordinary_user

from conftest import ROOT
from reading_maths.sandbox import uids
from reading_maths.sandbox.errors import CallTimeout, ProcessDied, StudentError
from reading_maths.sandbox.inside import wire
from reading_maths.sandbox.process import SLOTS, Sandbox, bound_paths, choose, sandbox_uid
from reading_maths.sandbox.session import Cell, StudentSession

pytestmark = pytest.mark.sandbox

SANDBOX = choose(allow_unsafe=True)
needs_isolation = pytest.mark.skipif(not SANDBOX.isolated, reason="full sandbox needs root and bubblewrap")


def session(*sources: str, names=("probe",), timeout: float = 3.0, sandbox: Sandbox = SANDBOX) -> StudentSession:
    cells = [Cell(i, f"cell {i + 1}", s) for i, s in enumerate(sources)]
    return StudentSession(cells, list(names), sandbox, cell_timeout=timeout, call_timeout=timeout)


def probe(code: str):
    """Run ``code`` (which sets ``probe``) in the sandbox and return the value it saw."""
    with session(code) as s:
        return s.env().get("probe")


@needs_isolation
def test_student_code_runs_as_an_unprivileged_uid_with_no_capabilities():
    status = probe("probe = open('/proc/self/status').read()")
    uid_line = next(line for line in status.splitlines() if line.startswith("Uid:"))
    assert uid_line.split()[1:] == [str(sandbox_uid())] * 4 and sandbox_uid() >= 1000
    assert "CapEff:\t0000000000000000" in status
    assert "NoNewPrivs:\t1" in status


@needs_isolation
def test_course_files_and_host_are_invisible():
    seen = probe(
        "import os\n"
        f"probe = [os.path.exists(p) for p in ({str(ROOT / 'graders')!r}, {str(ROOT / 'source')!r}, "
        f"{str(ROOT / 'nbgrader_config.py')!r}, '/etc/passwd', '/root/.bash_history')]"
    )
    assert seen == [False] * 5


@needs_isolation
def test_no_network_and_own_pid_namespace():
    seen = probe(
        "import os, socket\n"
        "try:\n    socket.create_connection(('127.0.0.1', 22), timeout=1); net = 'open'\n"
        "except OSError as e:\n    net = type(e).__name__\n"
        "probe = (net, len([p for p in os.listdir('/proc') if p.isdigit()]) < 10)"
    )
    assert seen[0] != "open" and seen[1] is True


@needs_isolation
def test_scratch_is_a_small_private_tmpfs():
    seen = probe(
        "import os\n"
        "try:\n"
        "    for i in range(5):\n        open(f'part{i}', 'wb').write(b'0' * (20 << 20))\n"
        "    probe = 'wrote 100 MB'\n"
        "except OSError as e:\n    probe = (os.getcwd(), e.errno)"
    )
    assert seen == ("/work/scratch/home", 28)  # ENOSPC: the 64 MiB tmpfs is full, the host disk untouched


def test_a_hanging_cell_is_skipped_and_later_cells_still_run():
    with session("while True: pass", "probe = lambda: 42", timeout=1.0) as s:
        assert s.env()["probe"]() == 42
        assert "ran longer than 1 s" in s.cell_errors[0]


def test_a_cell_that_kills_the_process_is_skipped():
    with session("import os; os._exit(7)", "probe = 5") as s:
        assert s.env()["probe"] == 5
        assert "ended the notebook's Python process" in s.cell_errors[0]


def test_errors_system_exit_and_keyboard_interrupt_cost_only_their_cell():
    with session("raise SystemExit(1)", "raise KeyboardInterrupt", "1/0", "probe = 'ok'") as s:
        assert s.env()["probe"] == "ok"
        assert {0, 1, 2} == set(s.cell_errors)


def test_calls_return_plain_data_and_report_mutation():
    with session("def probe(x):\n    x *= 2\n    return x.sum()") as s:
        arg = np.array([1.0, 2.0])
        assert s.env()["probe"](arg) == 6.0
        assert arg.tolist() == [2.0, 4.0]  # the in-place change is visible, so graders can fail it


def test_student_exceptions_hangs_and_crashes_in_calls():
    code = ("def probe(kind):\n"
            "    if kind == 'raise': raise ValueError('nope')\n"
            "    if kind == 'hang':\n        while True: pass\n"
            "    import os; os._exit(1)\n")
    with session(code, timeout=1.0) as s:
        f = s.env()["probe"]
        with pytest.raises(StudentError, match="nope"):
            f("raise")
        with pytest.raises(CallTimeout):
            f("hang")
        s.begin_question()
        with pytest.raises(ProcessDied):
            f("die")
        s.begin_question()
        with pytest.raises(StudentError):
            f("raise")  # a fresh process answers the next question


def test_the_child_gets_the_sandbox_environment_and_nothing_else():
    seen = probe("import os, sys\n"
                 "probe = (dict(os.environ), 'site' in sys.modules, [p for p in sys.path if 'site-packages' in p])")
    environment = {k: v for k, v in seen[0].items() if k not in ("PWD", "LC_CTYPE")}  # set by bwrap and Python
    assert environment.keys() == SANDBOX.environment(None).keys()
    assert environment["OPENBLAS_NUM_THREADS"] == "1", "one BLAS thread (more doubles NumPy's start)"
    if SANDBOX.isolated:
        assert environment == SANDBOX.environment(None)
    assert seen[1] is False and seen[2], "started without site, with the package folders on its path"


def test_the_child_imports_numpy_and_matplotlib_without_site():
    assert probe("import numpy, matplotlib\nprobe = numpy.__version__ + matplotlib.__version__")


def test_portable_functions_run_in_the_child_with_no_callback():
    from reading_maths.kit import QuadraticGradient, Scaled

    rng = np.random.default_rng(5)
    B = rng.standard_normal((3, 3))
    grad = QuadraticGradient(B @ B.T + np.eye(3), rng.standard_normal(3))
    code = ("import numpy as np\n"
            "def probe(grad, x):\n    return grad(grad(x)), type(grad).__name__, grad.__name__\n")
    with session(code) as s:
        sent = []
        original = s._serve_callback
        s._serve_callback = lambda *a: sent.append(a) or original(*a)
        x = np.array([0.5, -1.0, 2.0])
        value, kind, name = s.env()["probe"](grad, x)
        assert np.array_equal(value, grad(grad(x))) and kind == "QuadraticGradient" and name == grad.__name__
        twice = s.env()["probe"](Scaled(2.0, "grad_of_sum_of_squares"), x)
        assert np.array_equal(twice[0], 4 * x) and twice[2] == "grad_of_sum_of_squares"
        assert sent == [], "no round trip per call of the function"


def test_only_the_child_rebuilds_portable_functions():
    from reading_maths.kit import QuadraticGradient

    sent = wire.encode([QuadraticGradient(np.eye(2), np.zeros(2))], [])
    assert sent[0]["__fn__"][0] == "quadratic-gradient"
    with pytest.raises(wire.WireError):
        wire.decode(sent)  # the trusted side decoding what a child sent
    rebuilt = wire.decode(sent, functions=True)[0]
    assert rebuilt(np.array([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert wire.encode(rebuilt) == {"__unencodable__": "QuadraticGradient"}  # a result never carries one back
    for bad in (["quadratic-gradient", [{"__nd__": ["f8", [2], "AAAAAAAAAAAAAAAAAAAAAA=="]}, 1, "x"]],
                ["os.system", ["echo"]], ["scaled", [float("nan"), "x"]], "scaled"):
        with pytest.raises(wire.WireError):
            wire.decode({"__fn__": bad}, functions=True)


@needs_isolation
def test_children_started_ahead_are_new_for_each_notebook():
    from reading_maths.sandbox.child_starter import Starter

    starter = Starter(SANDBOX, preload=("json",))
    leave = ("import json, os, sys\n"
             "open('/tmp/left-behind', 'w').write('x')\n"
             "open(os.path.expanduser('~/left-behind'), 'w').write('x')\n"
             "json.planted = True\n"
             "probe = open('/proc/self/status').read()")
    look = ("import json, os, sys\n"
            "probe = (getattr(json, 'planted', False), os.listdir('/tmp'), os.listdir(os.path.expanduser('~')), "
            "open('/proc/self/status').read())")
    try:
        first = StudentSession([Cell(0, "cell 1", leave)], ["probe"], SANDBOX, starter=starter)
        with first:
            before = first.env()["probe"]
            assert starter._ready is not None, "the next notebook's child is started while this one runs"
        second = StudentSession([Cell(0, "cell 1", look)], ["probe"], SANDBOX, starter=starter)
        with second:
            planted, tmp, home, after = second.env()["probe"]
    finally:
        starter.close()
    # a fresh /tmp holds only the mount points of what the sandbox binds under /tmp (a checkout in /tmp/...)
    made = sorted({p.relative_to("/tmp").parts[0] for p in bound_paths() if p.is_relative_to("/tmp")})
    assert (planted, sorted(tmp), home) == (False, made, []), "nothing of the first notebook reaches the next"
    uid = [next(line for line in status.splitlines() if line.startswith("Uid:")) for status in (before, after)]
    assert uid[0] != uid[1], "the next child runs as another sandbox uid"
    if SANDBOX.mode == "bwrap":  # as root each child has a uid of this process's own: none of them is left
        mine = {sandbox_uid(slot) for slot in range(SLOTS)}
        left = [p for p in os.listdir("/proc") if p.isdigit() and _uid_of(p) in mine]
        assert left == [], "no child outlives the starter"


def _uid_of(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


VIEW = r"""
import os, socket, sys
def fields(text, names):
    found = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {n: found[n].split() for n in names}
status = fields(open("/proc/self/status").read(), ["Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                                   "NoNewPrivs", "Seccomp"])
mounts = sorted({line.split()[4] for line in open("/proc/self/mountinfo")})
try:
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    net = "open"
except OSError as e:
    net = type(e).__name__
try:
    with socket.socket() as s:  # no inet socket at all: the child's seccomp filter (issue 32)
        s.bind(("127.0.0.1", 0))
    inet = "bound"
except OSError as e:
    inet = type(e).__name__
probe = {"status": status, "pids": sorted(p for p in os.listdir("/proc") if p.isdigit()), "pid": os.getpid(),
         "inet": inet, "session": os.getsid(0) == os.getpid(), "mounts": mounts, "net": net, "env": dict(os.environ),
         "cwd": os.getcwd(), "tmp": os.listdir("/tmp"), "home": os.listdir(os.environ["HOME"]),
         "writable": [os.access(p, os.W_OK) for p in ("/tmp", os.environ["HOME"], "/usr", sys.prefix)],
         "path": sys.path, "path_there": [os.path.isdir(p) for p in sys.path[1:]],
         "limits": [__import__("resource").getrlimit(r) for r in range(16)]}
"""


def views(sandbox: Sandbox) -> tuple[str, dict, dict]:
    """What a child forked by the fork server and one bubblewrap started each see, and the first's kind."""
    from reading_maths.sandbox.child_starter import Starter

    def view(starter=None):
        with StudentSession([Cell(0, "cell 1", VIEW)], ["probe"], sandbox, starter=starter) as s:
            assert s.start_error is None and not s.cell_errors, (s.start_error, s.cell_errors)
            return type(s._child.process).__name__, s.env()["probe"]

    starter = Starter(sandbox)
    try:
        kind, forked = view(starter)
    finally:
        starter.close()
    return kind, forked, view()[1]




@needs_isolation
@pytest.mark.parametrize("mode", MODES)
def test_the_fork_servers_children_see_what_bubblewraps_children_see(mode):
    if mode == "root":
        kind, forked, spawned = views(SANDBOX)
    else:  # as the ordinary user the hostile suite grades as: bubblewrap in a user namespace
        script = ("import json, sys; sys.path[:0] = ['tests', '.']\n"
                  "from test_sandbox import views\nfrom reading_maths.sandbox.process import choose\n"
                  "print(json.dumps(views(choose())))")
        done = subprocess.run(as_user([sys.executable, "-c", script]), cwd=ROOT, capture_output=True, text=True,
                              env=dict(os.environ, HOME=ordinary_user()[2]), timeout=120, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        kind, forked, spawned = json.loads(done.stdout.splitlines()[-1])
    assert kind == "Forked", "the batch's children come from the fork server here"
    for view in (forked, spawned):
        uid = view["status"].pop("Uid")
        assert len(set(uid)) == 1 and int(uid[0]) in uids.configured()
        view["status"].pop("Gid")
    assert forked == spawned
    assert forked["pids"] == ["1", "2"] and forked["pid"] == 2 and forked["net"] != "open"
    assert forked["inet"] == "PermissionError", "sockets other than AF_UNIX are refused"
    assert set(forked["status"]["CapEff"] + forked["status"]["CapBnd"]) == {"0000000000000000"}


@needs_isolation
def test_a_forked_child_cannot_reach_the_fork_server_or_the_next_child():
    from reading_maths.sandbox.child_starter import Starter

    attack = ("import os, signal, sys\n"
              "seen = [int(p) for p in os.listdir('/proc') if p.isdigit()]\n"
              "for pid in seen:\n"
              "    try:\n        os.kill(pid, signal.SIGKILL if pid != os.getpid() else 0)\n"
              "    except OSError:\n        pass\n"
              "try:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\n"
              "import wire\nwire.encode = lambda *a, **k: {'__unencodable__': 'tampered'}\n"
              "probe = seen\n")
    starter = Starter(SANDBOX, preload=("json",))
    try:
        with StudentSession([Cell(0, "cell 1", attack)], ["probe"], SANDBOX, starter=starter) as first:
            first.env()
        after = StudentSession([Cell(0, "cell 1", "import wire\nprobe = wire.encode([1.5])")], ["probe"], SANDBOX,
                               starter=starter)
        with after:
            assert after.start_error is None and after.env()["probe"] == [1.5], "the next child is untouched"
            assert type(after._child.process).__name__ == "Forked", "the fork server survived the attack"
    finally:
        starter.close()


@needs_isolation
def test_each_notebooks_child_is_forked_after_its_own_leading_course_cells():
    """A starter follows the course's read-only cells a notebook starts with (run once by a fork server, each child
    forked after them); a notebook whose cells stand elsewhere, or start with none, is served as its own cells say."""
    from reading_maths.sandbox.child_starter import PRELUDES, Starter
    from reading_maths.sandbox.notebook_run import course_prelude

    helper = "import os\nDRAWN = os.urandom(8).hex()\n"
    layouts = {"course's": [Cell(0, "cell 1", helper, trusted=True), Cell(1, "cell 2", "probe = (DRAWN, 1)")],
               "moved": [Cell(1, "cell 2", helper, trusted=True), Cell(2, "cell 3", "probe = (DRAWN, 2)")],
               "a student's first": [Cell(0, "cell 1", "x = 3"), Cell(1, "cell 2", helper, trusted=True),
                                     Cell(2, "cell 3", "probe = (DRAWN, x)")]}
    starter = Starter(SANDBOX)
    seen = {}
    try:
        for name in ["course's", "moved", "course's", "a student's first", "course's", "moved"]:
            cells = layouts[name]
            starter.follow(course_prelude(cells))
            with StudentSession(cells, ["probe"], SANDBOX, starter=starter) as s:
                assert s.start_error is None and not s.cell_errors, (s.start_error, s.cell_errors)
                seen.setdefault(name, []).append((s.env()["probe"], s._child.process.prelude))
            assert len(starter._fork_servers) <= PRELUDES
    finally:
        starter.close()
    assert {name: [probe[1] for probe, _ in runs] for name, runs in seen.items()} == {
        "course's": [1, 1, 1], "moved": [2, 2], "a student's first": [3]}, "each notebook's own names"
    assert [ran for _, ran in seen["course's"]] == [course_prelude(layouts["course's"])] * 3
    assert seen["a student's first"][0][1] == (), "a student's cell first: its child runs every cell itself"
    course, moved = {probe[0] for probe, _ in seen["course's"]}, [probe[0] for probe, _ in seen["moved"]]
    assert len(course) == 1, "the course's cells ran once, in the fork server, for all three"
    assert len(set(moved)) == 2 and not course & set(moved), "evicted by a third prelude, then started again"


def test_a_childs_preloaded_modules_are_the_notebooks_own_imports():
    from reading_maths.course import Assignment

    imports = Assignment("code", ROOT).imports
    assert imports[0] == "numpy" and not any(m.startswith("reading_maths") for m in imports), imports


def test_trusted_callbacks_are_served():
    with session("def probe(grad, x):\n    return grad(grad(x))") as s:
        assert s.env()["probe"](lambda v: v * 2, np.array([1.5])).tolist() == [6.0]


def test_unencodable_values_and_subclasses_arrive_as_plain_data():
    code = ("import numpy as np\n"
            "class Sneaky(np.ndarray):\n    def __eq__(self, other): return True\n"
            "probe = (np.arange(3.0).view(Sneaky), object(), {'a': [1, 2]})")
    value = probe(code)
    assert type(value[0]) is np.ndarray and value[0].tolist() == [0.0, 1.0, 2.0]
    assert isinstance(value[1], wire.Unencodable)
    assert value[2] == {"a": [1, 2]}


@needs_isolation
def test_no_process_outlives_the_session(tmp_path):
    code = ("import subprocess\n"
            "subprocess.Popen(['sleep', '314.159'], start_new_session=True)\n"
            "probe = 1")
    with session(code):
        pass
    time.sleep(0.3)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert not [line for line in ps.splitlines() if line.strip() == "sleep 314.159"]


@pytest.mark.parametrize("bad", [
    {"__nd__": ["O", [1], ""]},
    {"__nd__": ["f8", [10**12], ""]},
    {"__nd__": ["f8", [2], "AAAA"]},
    {"__pickle__": "gASVAAAA"},
    {"__dict__": [[{"__nd__": ["f8", [0], ""]}, 1]]},
    {"a": 1, "b": 2},
])
def test_wire_rejects_anything_but_plain_data(bad):
    with pytest.raises(wire.WireError):
        wire.decode(bad)


def test_wire_round_trip():
    value = {"x": (np.arange(6.0).reshape(2, 3), [1, True, None, "s"], float("inf")), 3: np.array([1, 2])}
    back = wire.decode(wire.encode(value))
    assert back["x"][0].tolist() == value["x"][0].tolist() and back["x"][1:] == value["x"][1:]
    assert back[3].dtype == np.int64


def test_degraded_sandbox_still_grades(monkeypatch):
    with session("probe = __import__('os').getpid() > 0", sandbox=Sandbox("plain")) as s:
        assert s.env()["probe"] is True
    assert os.environ.get("HOME")  # the trusted side's environment is untouched


def test_a_notebooks_trials_share_its_time_budget():
    from reading_maths.sandbox.rerun import SessionTrials

    cells = [Cell(0, "cell 1", "def f():\n    return 1\n")]
    with StudentSession(cells, ["f"], SANDBOX, cell_timeout=5, call_timeout=5, budget=4) as notebook:
        trials = SessionTrials(notebook, "f", [("f", {})])
        assert trials.run("def f():\n    return 2\n", 5) == [("value", 2)]  # within the budget: it runs
        time.sleep(notebook.remaining())
        assert trials.run("def f():\n    return 3\n", 5) != [("value", 3)], "a trial ran past the budget"
        assert notebook.interruption()[0] == "timeout"
