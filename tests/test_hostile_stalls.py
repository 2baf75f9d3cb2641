"""No student stalls the batch, in either mode (root, ordinary user), and what the machine gives is told.

- each attack on the grader's time (``stalls=True`` in ``tests/hostile/attacks.py``) is graded first,
  an honest student right after it in the same worker (``--jobs 1``): every honest student keeps full
  marks, the batch ends within a bound set by the timeouts, and no process, shared memory, cgroup or
  scratch folder outlives it;
- ``reading-maths doctor`` names the sandbox each user gets, and ``grade`` refuses without one unless
  ``--unsafe-no-sandbox``;
- a killed run's scratch folders and cgroups are removed by the next run;
- a 64 MiB message of millions of empty lists is refused before it is parsed;
- memfd, which no rlimit counts, is refused (the syscall filter), cgroups or not;
- a slow but right notebook (every call just under its deadline) is stopped by the notebook's time
  budget, the questions it did not reach get 0 saying so, and the honest students behind it in the same
  worker keep full marks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.attacks import ATTACKS, SLOW_BUT_RIGHT, SLOW_CALL
from hostile.ordinary import as_user, ordinary_user

from conftest import ROOT
from reading_maths.sandbox.inside import wire
from reading_maths.sandbox.notebook_run import MAX_RESTARTS
from test_hostile import (
    SCRATCH_PREFIX,
    TIMEOUT,
    Descendants,
    by_name,
    grade,
    host_state,
    leftovers,
    new_state,
    reap_and_kill,
    run_cli,
    set_subreaper,
    shared_folder,
    submission,
)

pytestmark = pytest.mark.sandbox

STALLS = {name: a for name, a in ATTACKS.items() if a.stalls}
CELLS = 12
"""More than the code notebook's code cells: with the restarts, bounds one notebook's start."""


@pytest.fixture(scope="module")
def stalled(mode):
    subs = shared_folder()
    for i, (name, attack) in enumerate(STALLS.items()):
        submission(subs, f"{i:02d}a_attack_{name}", attack, 0)
        submission(subs, f"{i:02d}b_honest", None, 0)
    set_subreaper(True)
    procs_before, host_before = set(leftovers()), host_state()
    try:
        with Descendants() as graders:
            results, elapsed = grade(subs, mode, "--jobs", "1")
        return {"results": by_name(results), "elapsed": elapsed, "host": new_state(host_before, graders.pids),
                "leftovers": sorted(set(leftovers()) - procs_before)}
    finally:
        reap_and_kill()
        shutil.rmtree(subs, ignore_errors=True)


def test_there_is_a_stall_of_each_kind():
    assert {"frame_flood", "frame_flood_in_call", "unhashable_cell_id", "unread_callback_replies",
            "empty_lists_return"} <= set(STALLS)


def test_honest_students_after_a_stall_keep_full_marks(stalled):
    honest = {n: (r["score"], r["max_score"], r["errors"]) for n, r in stalled["results"].items() if "honest" in n}
    assert len(honest) == len(STALLS)
    assert all(score == full > 0 for score, full, _ in honest.values()), honest


def test_each_stall_costs_only_its_own_softmax(stalled):
    for name in STALLS:
        result = stalled["results"][f"{list(STALLS).index(name):02d}a_attack_{name}"]
        got = {q["id"]: (q["score"], q["max_score"]) for q in result["questions"]}
        assert got["softmax"][0] == 0, (name, result["questions"][0])
        assert all(s == full for q, (s, full) in got.items() if q not in ("softmax", "adam")), (name, got)


def test_the_stalled_batch_ends_within_its_timeouts(stalled):
    # one notebook's start is bounded by (cells + restarts + 1) timeouts and each question by one call
    # timeout; an honest notebook takes a few seconds: far below that bound, which is still finite
    bound = len(STALLS) * ((CELLS + MAX_RESTARTS + 1) * TIMEOUT + 30)
    assert stalled["elapsed"] < bound, stalled["elapsed"]


def test_nothing_outlives_the_stalled_batch(stalled):
    assert stalled["leftovers"] == []
    assert stalled["host"] == {"shm": [], "cgroups": [], "scratch": []}


def test_doctor_names_the_sandbox_each_user_gets(mode):
    done = run_cli(mode, "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("sandbox: bwrap" if mode == "root" else "sandbox: userns"), done.stdout
    uid_line = next(line for line in done.stdout.splitlines() if "another host uid" in line)
    assert ("[held]" in uid_line) == (mode == "root")
    assert "[held] read-only view" in done.stdout and "[held] no network" in done.stdout


def test_grading_refuses_without_a_sandbox_unless_told(mode):
    folder = shared_folder()
    submission(folder, "honest", None, 0)
    no_bwrap = "/nonexistent"  # bubblewrap not found: no sandbox can be had
    try:
        refused = run_cli(mode, "grade", str(folder), "--json", path=no_bwrap)
        assert refused.returncode == 1 and "--unsafe-no-sandbox" in refused.stderr, refused.stderr
        assert refused.stdout == ""
        doctor = run_cli(mode, "doctor", path=no_bwrap)
        assert doctor.returncode == 1 and "NO SANDBOX" in doctor.stdout
        assert "\nfix: install bubblewrap" in doctor.stdout, doctor.stdout
        results, _ = grade(folder, mode, "--unsafe-no-sandbox")
        assert results[0]["score"] == results[0]["max_score"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_killed_runs_leftovers_are_removed_by_the_next_run(mode):
    gone = subprocess.Popen(["true"])
    gone.wait()
    scratch = Path("/tmp") / f"{SCRATCH_PREFIX}{gone.pid}-left"
    scratch.mkdir()
    (scratch / "home").mkdir()
    groups = [top / f"{gone.pid}-0" for top in Path("/sys/fs/cgroup").glob("*/reading-maths*") if top.is_dir()]
    if mode == "user":
        uid, gid, _ = ordinary_user()
        groups = [g for g in groups if g.parent.name.endswith(f"-{uid}")]
        shutil.chown(scratch, uid, gid)
        shutil.chown(scratch / "home", uid, gid)
    else:
        groups = [g for g in groups if g.parent.name == "reading-maths"]
    for group in groups:
        group.mkdir()
    folder = shared_folder()
    submission(folder, "honest", None, 0)
    try:
        grade(folder, mode)
        assert not scratch.exists()
        assert [g for g in groups if g.exists()] == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)


def test_millions_of_empty_lists_are_refused_before_parsing():
    body = b'{"event":"return","value":[' + b"[]," * 22_000_000 + b'[]],"args":[]}'
    assert len(body) < wire.MAX_MESSAGE
    with pytest.raises(wire.WireError, match="too many values"):
        wire.parse(body)


MEMFD_HOG = '''
import dataclasses, json, sys
from reading_maths.sandbox.limits import Limits
from reading_maths.sandbox.process import choose
from reading_maths.sandbox.session import Cell, StudentSession
HOG = """
import os, mmap
kept = []
for _ in range(40):  # 1.2 GiB in 30 MiB memfds: each under the file-size rlimit, together over the cap
    fd = os.memfd_create("rm-hog"); os.ftruncate(fd, 30 << 20); kept.append(fd)
    view = mmap.mmap(fd, 30 << 20)
    for i in range(0, 30 << 20, 4096):
        view[i] = 1
    view.close()
probe = len(kept)
"""
box = dataclasses.replace(choose(), limits=Limits(memory_bytes=400 << 20))
with StudentSession([Cell(0, "the hog", HOG)], ["probe"], box, cell_timeout=20) as session:
    print(json.dumps({"cgroups": bool(box.cgroups), "errors": session.cell_errors, "names": session._described}))
'''


def test_memfd_is_refused_so_shared_memory_never_escapes_the_cap(mode):
    folder = shared_folder()
    script = folder / "hog.py"
    script.write_text(MEMFD_HOG)
    script.chmod(0o644)
    env = dict(os.environ, HOME=ordinary_user()[2] if mode == "user" else os.environ.get("HOME", "/root"))
    command = [sys.executable, str(script)]
    try:
        done = subprocess.run(as_user(command) if mode == "user" else command, capture_output=True, text=True,
                              cwd=ROOT, env=env, timeout=120, check=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    seen = json.loads(done.stdout)
    assert seen["names"]["probe"] == {"kind": "missing"}, seen
    # memfd is refused by the syscall filter (sandbox/syscall_filter.py); the cgroup would have counted it
    assert "PermissionError" in seen["errors"]["0"], seen


BUDGET = 20
"""The slow notebook's budget in seconds: its softmax alone makes 15 slow calls (90 s)."""


@pytest.fixture(scope="module")
def budgeted(mode):
    subs = shared_folder()
    submission(subs, "0_slow_but_right", SLOW_BUT_RIGHT, 0)
    for i in range(2):
        submission(subs, f"{i + 1}_honest", None, 0)
    try:
        results, elapsed = grade(subs, mode, "--jobs", "1", "--timeout", str(SLOW_CALL + 2), "--budget", str(BUDGET))
        return by_name(results), elapsed
    finally:
        shutil.rmtree(subs, ignore_errors=True)


def test_a_slow_but_right_notebook_stops_at_its_budget(budgeted):
    results, _ = budgeted
    slow = results["0_slow_but_right"]
    softmax, *rest = slow["questions"]
    assert softmax["status"] == "timeout" and "time budget (20 s" in softmax["feedback"][0], softmax
    passed = [c["passed"] for c in softmax["cases"]]
    cut = passed.index(False)
    assert cut >= 1 and not any(passed[cut:]), passed  # right while it ran: each case passed until the budget
    assert 0 < softmax["score"] < softmax["max_score"]
    assert [q["status"] for q in rest] == ["timeout"] * len(rest), rest
    assert all(q["score"] == 0 and "time budget" in q["feedback"][0] for q in rest), rest
    assert any(f"time budget of {BUDGET} s ran out" in e for e in slow["errors"]), slow["errors"]


def test_the_students_behind_a_slow_notebook_keep_full_marks_in_bounded_time(budgeted):
    results, elapsed = budgeted
    honest = [r for name, r in results.items() if "honest" in name]
    assert len(honest) == 2 and all(r["score"] == r["max_score"] > 0 for r in honest), honest
    assert elapsed < BUDGET + 200, elapsed
