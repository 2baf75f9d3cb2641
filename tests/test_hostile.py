"""Hostile submissions gain nothing: the corpus of ``tests/hostile/attacks.py``, graded in one batch.

The suite runs twice: as root, and as an ordinary user (``tests/hostile/ordinary.py``: created
when the suite runs as root), each through the sandbox that user gets.  Every attack becomes a
submission of the ``code`` assignment (the source notebook with its ``softmax-answer`` cell
replaced, or an extra cell put first).  The whole corpus is graded by one
``reading-maths grade FOLDER --json --timeout 3`` run, followed in the same batch by two canaries
(an honest right notebook and an honest wrong one), and the checks are:

- each attack scores no more than its honest content earns (and, unless it sabotages its own
  process, its untouched answers still score full marks: no attack spills onto other questions);
- the batch ends with a result for every notebook, and the canaries score exactly as they do when
  graded alone;
- no file of the course tree, of the submissions folder, of the host's /tmp or the grader's HOME
  changes, and nothing an attack tries to write appears;
- no process outlives the batch (this test process is made a child subreaper, so anything the
  batch leaves behind becomes its child), and no process carries an attack's marker;
- nobody connects to a port the test listens on, and the feedback never shows the hidden
  grader's source or the grader's secret environment variable;
- no SysV shared memory segment, cgroup or scratch folder outlives the batch.

``test_stalling_attacks_cost_only_themselves`` grades each attack on the grader's time first, with an
honest student after it in the same worker (``--jobs 1``).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import pickle
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import nbformat
import pytest
from hostile.attacks import ATTACKS, Attack
from hostile.ordinary import MODES, as_user, ordinary_user

from classroom.builder import answered
from conftest import ROOT
from reading_maths.notebook import grade_id
from reading_maths.sandbox import uids
from reading_maths.sandbox.inside import wire
from reading_maths.sandbox.process import SCRATCH_PREFIX, inspect

pytestmark = pytest.mark.sandbox

CLI = [sys.executable, "-m", "reading_maths.cli"]
SOURCE = ROOT / "source" / "code" / "code.ipynb"
ISOLATED = inspect()[0] != "plain"
RUNNABLE = {name: a for name, a in ATTACKS.items() if ISOLATED or not a.isolated}
TIMEOUT = 3
SECRET = f"rm-hostile-secret-{uuid.uuid4().hex}"
# demo/ is the throwaway class `reading-maths demo` rebuilds from scratch, and screenshots/ the browser tests'
# pictures, which they delete and take again: other tests do both while this batch runs
SKIP_TREE = {".venv", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints", "demo",
             "screenshots"}
WRONG_CANARY = '''def softmax(z, T=1.0):
    z = np.asarray(z, dtype=float) / T
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
'''


# -- building submissions ---------------------------------------------------------------------------

def submission(folder: Path, name: str, attack: Attack | None, port: int, softmax: str | None = None) -> Path:
    source = nbformat.read(SOURCE, as_version=4)
    replace = {"softmax": softmax} if softmax is not None else {}
    if attack is not None:
        # the adam grader makes ~1600 callback round trips, most of a notebook's grading time: attack
        # notebooks leave adam out (honest content 0), the canaries keep it
        replace["adam"] = "# adam: not attempted\n"
        code = attack.code.replace("{port}", str(port)).strip() + "\n"
        if attack.where == "softmax":
            replace["softmax"] = code
    nb = answered(source, source, replace)
    if attack is not None and attack.where != "softmax":
        setup = next(i for i, c in enumerate(nb.cells) if grade_id(c) == "setup")
        nb.cells.insert(setup + 1, nbformat.v4.new_code_cell(code))
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def plant_traps(folder: Path) -> None:
    """Files a careless grader would execute: a pickled .OTTER_LOG and a conftest.py beside the notebooks."""
    class Payload:
        def __reduce__(self):
            return (os.system, ("touch /tmp/rm-hostile-planted-otter-log",))

    (folder / ".OTTER_LOG").write_bytes(pickle.dumps(Payload()))
    (folder / "conftest.py").write_text("open('/tmp/rm-hostile-planted-conftest', 'w').write('ran')\n")


# -- snapshots of files and processes -------------------------------------------------------------------

def snapshot(top: Path, skip: set[str] = frozenset()) -> dict[str, tuple]:
    seen = {}
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in skip and not d.startswith("pytest-of")]
        for name in files:
            path = Path(folder, name)
            try:
                st = path.lstat()
                digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
            except OSError:
                continue
            seen[str(path)] = (st.st_size, st.st_mtime_ns, digest)
    return seen


def host_markers() -> set[str]:
    """Marker files anywhere an attack might reach on the host."""
    found = set()
    for top in (Path("/tmp"), Path("/work"), Path("/dev/shm"), Path.home()):
        try:
            found |= {str(p) for p in top.iterdir() if "rm-hostile" in p.name or p.name == ".OTTER_LOG"}
        except OSError:
            pass
    for extra in (Path.home() / ".ipython" / "profile_default" / "startup",):
        if extra.is_dir():
            found |= {str(p) for p in extra.iterdir() if "rm-hostile" in p.name}
    return found


def processes() -> dict[int, dict]:
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            uid = int(next(line for line in (entry / "status").read_text().splitlines()
                           if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        table[int(entry.name)] = {"state": fields[0], "ppid": int(fields[1]), "cmdline": cmdline, "uid": uid}
    return table


def sandboxed(uid: int) -> bool:
    """A uid sandboxes run as (see reading_maths.sandbox.process.sandbox_uid), nobody's, or the
    ordinary grading user's (in a user namespace the sandbox is that user on the host)."""
    graders = {ordinary_user()[0]} if os.geteuid() == 0 else set()
    return uid == 65534 or uid in uids.configured() or uid in graders


def leftovers() -> list[str]:
    """Processes left behind by the batch: descendants of this (subreaper) process, marker command
    lines, and processes of a sandbox uid with no living grader above them."""
    table = processes()
    me = os.getpid()

    def chain(pid):
        seen = []
        while pid in table and pid not in seen and pid > 1:
            seen.append(pid)
            pid = table[pid]["ppid"]
        return seen

    found = []
    for pid, info in table.items():
        if info["state"] == "Z" or pid == me:
            continue
        ancestors = chain(pid)[1:]
        ours = me in ancestors
        orphan = sandboxed(info["uid"]) and all(sandboxed(table[a]["uid"]) or "bwrap" in table[a]["cmdline"]
                                                for a in ancestors)
        if ours or orphan or "rm-hostile" in info["cmdline"]:
            found.append(f"{pid} uid={info['uid']} {info['cmdline'][:120]}")
    return found


def reap_and_kill() -> None:
    """Kill what the batch left behind, reap the orphans it handed to this process, stop being a subreaper."""
    for line in leftovers():
        try:
            os.kill(int(line.split()[0]), signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        mine = [pid for pid, info in processes().items() if info["ppid"] == os.getpid()]
        for pid in mine:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not mine:
            break
        time.sleep(0.05)
    set_subreaper(False)


def set_subreaper(on: bool) -> None:
    """Make this process adopt orphans, so nothing the batch leaves behind can hide by being reparented."""
    if sys.platform.startswith("linux"):
        PR_SET_CHILD_SUBREAPER = 36
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)


class Listener:
    """A TCP port on the host's loopback that no sandboxed attack should ever reach."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
                self.connections += 1
                conn.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def run_cli(mode: str, *args: str, path: str | None = None) -> subprocess.CompletedProcess:
    """``reading-maths ARGS`` as root or as the ordinary user, with the grader's secret in its environment."""
    env = dict(os.environ, READING_MATHS_COURSE=str(ROOT), READING_MATHS_HOSTILE_SECRET=SECRET)
    if path is not None:
        env["PATH"] = path
    command = [*CLI, *args]
    if mode == "user":
        env["HOME"] = ordinary_user()[2]
        command = as_user(command)
    return subprocess.run(command, check=False, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def grade(folder: Path, mode: str = MODES[0], *extra: str) -> tuple[list[dict], float]:
    start = time.monotonic()
    done = run_cli(mode, "grade", str(folder), "--json", "--timeout", str(TIMEOUT), *extra)
    elapsed = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    return (data if isinstance(data, list) else [data]), elapsed


def by_name(results: list[dict]) -> dict[str, dict]:
    return {Path(r["notebook"]).stem: r for r in results}


def shared_folder() -> Path:
    """A submissions folder both root and the ordinary user can read (pytest's own is root's only)."""
    folder = Path(tempfile.mkdtemp(prefix="rm-grading-subs-"))
    folder.chmod(0o755)
    return folder


def host_state() -> dict[str, set]:
    """What a sandbox could leave on the host besides files and processes."""
    try:
        shm = {line.split()[0] for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]}
    except OSError:
        shm = set()
    groups = {str(p) for top in Path("/sys/fs/cgroup").glob("*/reading-maths*") for p in top.iterdir() if p.is_dir()}
    scratch = {str(p) for p in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*")}
    return {"shm": shm, "cgroups": groups, "scratch": scratch}


class Descendants:
    """Every process started below this one while the block runs (sampled every 0.1 s): the graders
    of this batch, as opposed to other tests' (pytest-xdist runs them side by side)."""

    def __enter__(self) -> Descendants:
        self.pids: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            table = processes()
            for pid in table:
                ancestor, hops = pid, 0
                while ancestor in table and ancestor > 1 and hops < 64:
                    if table[ancestor]["ppid"] == me:
                        self.pids.add(pid)
                        break
                    ancestor, hops = table[ancestor]["ppid"], hops + 1
            self._stop.wait(0.1)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _label_pid(path: str) -> int | None:
    """The grading process a cgroup (``<pid>-<n>``) or scratch folder (``...-scratch-<pid>-...``) belongs to."""
    match = re.match(r"(?:" + re.escape(SCRATCH_PREFIX) + r")?(\d+)-", Path(path).name)
    return int(match[1]) if match else None


def new_state(before: dict[str, set], owners: set[int]) -> dict[str, list]:
    """What this batch's graders (``owners``) left on the host since ``before``."""
    found = {kind: sorted(now - before[kind]) for kind, now in host_state().items()}
    for kind in ("cgroups", "scratch"):
        found[kind] = [p for p in found[kind] if _label_pid(p) in owners]
    return found


# -- the batch ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def batch(mode):
    subs = shared_folder()
    listener = Listener()
    for name, attack in RUNNABLE.items():
        submission(subs, f"attack_{name}", attack, listener.port)
    # canaries sort after every attack, so they are graded after the hostile notebooks
    submission(subs, "zz_canary_right", None, listener.port)
    submission(subs, "zz_canary_wrong", None, listener.port, softmax=WRONG_CANARY)
    plant_traps(subs)

    set_subreaper(True)
    course_before, subs_before = snapshot(ROOT, SKIP_TREE), snapshot(subs)
    markers_before = host_markers()
    procs_before = set(leftovers())
    host_before = host_state()
    try:
        with Descendants() as graders:
            results, elapsed = grade(subs, mode)
        time.sleep(0.5)  # give anything that escaped a moment to show itself
        state = {
            "host": new_state(host_before, graders.pids),
            "results": by_name(results), "count": len(results), "elapsed": elapsed,
            "course_changes": diff(course_before, snapshot(ROOT, SKIP_TREE)),
            "subs_changes": diff(subs_before, snapshot(subs)),
            "new_markers": sorted(host_markers() - markers_before),
            "leftovers": sorted(set(leftovers()) - procs_before),
            "connections": listener.connections,
        }
    finally:
        listener.close()
        reap_and_kill()
        shutil.rmtree(subs, ignore_errors=True)
    return state


@pytest.fixture(scope="module")
def canaries_alone(mode):
    folder = shared_folder()
    submission(folder, "zz_canary_right", None, 0)
    submission(folder, "zz_canary_wrong", None, 0, softmax=WRONG_CANARY)
    try:
        return by_name(grade(folder, mode)[0])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def diff(before: dict, after: dict) -> list[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


SUSPICIOUS_NAMES = ("rm-hostile", ".OTTER_LOG", "conftest.py", "results.json", "gradebook.db", "sitecustomize")


def suspicious(paths: list[str]) -> list[str]:
    """Course-tree changes an attack could have made.

    Engineers (and other test runs) edit the course tree while this batch runs, so a change counts
    only when it looks like an attack's: a deleted file, a file owned by the sandbox's uid, a name an
    attack writes, or contents carrying an attack's marker.
    """
    found = []
    for path in paths:
        file = Path(path)
        try:
            owner = file.stat().st_uid
            marked = b"rm-hostile" in file.read_bytes()
        except OSError:
            found.append(f"{path} (deleted)")
            continue
        if sandboxed(owner) or marked or any(n in file.name for n in SUSPICIOUS_NAMES):
            found.append(path)
    return found


def scores(result: dict) -> dict[str, tuple]:
    return {q["id"]: (q["score"], q["max_score"]) for q in result["questions"]}


def comparable(result: dict) -> dict:
    return dict(result, notebook=None)


# -- the checks ----------------------------------------------------------------------------------------------

def test_the_corpus_is_large_enough():
    assert len(ATTACKS) >= 20


def test_every_notebook_has_a_result(batch):
    assert batch["count"] == len(RUNNABLE) + 2
    assert set(batch["results"]) == {f"attack_{n}" for n in RUNNABLE} | {"zz_canary_right", "zz_canary_wrong"}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_an_attack_gains_nothing(batch, name):
    attack = ATTACKS[name]
    if attack.isolated and not ISOLATED:
        pytest.skip("contained only by the full sandbox (root and bubblewrap): in the degraded mode "
                    "student code can read and write what the grader can, by design")
    result = batch["results"][f"attack_{name}"]
    got = scores(result)
    assert got["softmax"][0] <= attack.softmax_max, (attack.why, result["questions"][0])
    assert got["adam"][0] == 0, "adam is not attempted in attack notebooks"
    honest = {q: s for q, s in got.items() if q not in ("softmax", "adam")}
    if attack.others_full:
        assert all(score == full for score, full in honest.values()), (attack.why, honest, result["errors"])
    assert result["score"] <= attack.softmax_max + sum(full for _, full in honest.values())


def test_canaries_score_as_they_do_alone(batch, canaries_alone):
    right, wrong = batch["results"]["zz_canary_right"], batch["results"]["zz_canary_wrong"]
    assert right["score"] == right["max_score"] > 0, right
    assert 0 < wrong["score"] < wrong["max_score"], wrong
    assert comparable(right) == comparable(canaries_alone["zz_canary_right"])
    assert comparable(wrong) == comparable(canaries_alone["zz_canary_wrong"])


def test_no_file_outside_the_scratch_changes(batch):
    assert suspicious(batch["course_changes"]) == [], "an attack changed the course tree"
    assert batch["subs_changes"] == [], "the submissions folder changed during the batch"
    assert batch["new_markers"] == [], "an attack left a file on the host"


def test_no_process_outlives_the_batch(batch):
    assert batch["leftovers"] == []


def test_no_shared_memory_cgroup_or_scratch_outlives_the_batch(batch):
    assert batch["host"] == {"shm": [], "cgroups": [], "scratch": []}


@pytest.mark.skipif(not ISOLATED, reason="the degraded mode has the host's network")
def test_no_connection_reaches_the_host(batch):
    assert batch["connections"] == 0


def test_feedback_shows_no_hidden_source_or_secret(batch):
    text = json.dumps(batch["results"])
    assert SECRET not in text
    hidden = (ROOT / "graders" / "code" / "softmax.py").read_text().splitlines()
    distinctive = [line.strip() for line in hidden if len(line.strip()) > 40 and not line.strip().startswith("#")]
    leaked = [line for line in distinctive if line in text]
    assert leaked == []
    assert "90_417_233" not in text and "90417233" not in text
    assert "BEGIN HIDDEN TESTS" not in text and "### BEGIN SOLUTION" not in text


def test_forged_wire_values_are_wire_errors():
    for forged in ({"__nd__": ["f8", [65536] * 4, ""]}, {"__nd__": ["f8", [1], "!!"]},
                   {"__dict__": [[[[1]], 2]]}, {"__nd__": ["f8", [2**31], ""]}):
        with pytest.raises(wire.WireError):
            wire.decode(forged)


def test_no_attack_holds_the_batch(batch):
    # a stall detector, not a timing: the whole corpus takes about a minute on two quiet cores, and one notebook
    # that held its worker for a whole notebook budget (300 s by default) would show here
    assert batch["elapsed"] < 300, batch["elapsed"]
