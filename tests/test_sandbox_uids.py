"""Sandbox uids are reserved: a range checked free, a block per grader, and no other account's process is killed.

- the default range lies outside every subordinate-id grant Debian's ``useradd`` can make, and a range holding
  an account, a group or a grant is refused, saying which (``reading-maths doctor``, and a warning from ``grade``);
- ``reading-maths doctor`` shows the range in use;
- a process of another account running as a uid of the range survives a batch (its uid block is skipped), and
  one running as a uid of this process's own block survives its sandboxes being stopped: the kill path signals
  only the sandbox's PID namespace (by pidfd), its process group and its cgroup, never a uid.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile.attacks import ATTACKS

from reading_maths.sandbox import uids
from reading_maths.sandbox.child_starter import Starter
from reading_maths.sandbox.process import choose, sandbox_uid
from reading_maths.sandbox.session import Cell, StudentSession
from test_hostile import grade, processes, run_cli, shared_folder, submission

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="host uids of their own are given only as root")
SMALL = uids.UidRange(1879113728, 1879113728 + 5 * uids.BLOCK - 1)
"""Five blocks just above the default range: the batch test's own."""


@contextlib.contextmanager
def running_as(*uids_: int) -> Iterator[list[subprocess.Popen]]:
    """A ``sleep`` as each uid: another account's processes (started here, stopped when the block ends)."""
    victims = [subprocess.Popen(["/usr/bin/setpriv", f"--reuid={u}", f"--regid={u}", "--clear-groups", "sleep", "600"])
               for u in uids_]
    try:
        yield victims
    finally:
        for victim in victims:
            victim.kill()
            victim.wait()


def debian_grants(path: Path) -> Path:
    """Every grant ``useradd`` makes with Debian's login.defs (SUB_UID_MIN 100000, COUNT 65536, MAX 600100000)."""
    lines = [f"user{n}:{start}:65536" for n, start in enumerate(range(100_000, 600_100_000 - 65_535, 65_536))]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_default_range_is_outside_every_debian_grant(tmp_path, monkeypatch):
    grants = debian_grants(tmp_path / "subuid")
    monkeypatch.setenv("READING_MATHS_SUBUID", str(grants))
    monkeypatch.setenv("READING_MATHS_SUBGID", str(grants))
    monkeypatch.delenv("READING_MATHS_UIDS", raising=False)
    assert [p for p in uids.problems(uids.configured()) if "grants" in p] == []
    assert uids.configured().first > 1879048191, "above systemd's container range too"
    old = uids.problems(uids.UidRange(200_000, 249_999))  # the range sandboxes used to run in
    assert old and all("grants user" in p for p in old), old


def test_a_range_holding_an_account_or_a_group_is_refused():
    found = uids.problems(uids.UidRange(65_530, 65_540))
    assert any("user nobody has uid 65534" in p for p in found), found
    assert any("has gid 65534" in p for p in found), found


@pytest.mark.sandbox
@root_only
def test_doctor_shows_the_range_in_use(monkeypatch):
    monkeypatch.delenv("READING_MATHS_UIDS", raising=False)
    line = next(x for x in run_cli("root", "doctor").stdout.splitlines() if "sandbox uids reserved" in x)
    assert line.startswith("  [held]") and f"range {uids.configured()}" in line, line
    monkeypatch.setenv("READING_MATHS_UIDS", str(SMALL))
    line = next(x for x in run_cli("root", "doctor").stdout.splitlines() if "sandbox uids reserved" in x)
    assert line.startswith("  [held]") and f"range {SMALL}" in line, line


@pytest.mark.sandbox
@root_only
def test_a_range_overlapping_a_subuid_grant_is_refused_with_a_clear_message(tmp_path, monkeypatch):
    grants = tmp_path / "subuid"
    grants.write_text(f"alice:{uids.configured().first + 1000}:65536\n")
    grants.chmod(0o644)
    monkeypatch.setenv("READING_MATHS_SUBUID", str(grants))
    doctor = run_cli("root", "doctor").stdout
    line = next(x for x in doctor.splitlines() if "sandbox uids reserved" in x)
    assert line.startswith("  [NOT held]") and f"{grants} grants alice" in line and "READING_MATHS_UIDS" in line
    folder = shared_folder()
    submission(folder, "honest", None, 0)
    try:
        done = run_cli("root", "grade", str(folder), "--json")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode == 0 and f"{grants} grants alice" in done.stderr, done.stderr
    assert '"status": "passed"' in done.stdout  # still graded, in a user namespace


@pytest.mark.sandbox
@root_only
def test_a_range_whose_every_block_is_in_use_is_refused(monkeypatch):
    one = uids.UidRange(SMALL.first, SMALL.first + uids.BLOCK - 1)
    monkeypatch.setenv("READING_MATHS_UIDS", str(one))
    with running_as(one.first + 1) as victims:
        doctor = run_cli("root", "doctor").stdout
        assert all(v.poll() is None for v in victims)
    assert "in use" in next(x for x in doctor.splitlines() if "sandbox uids reserved" in x), doctor


class UidsSeen:
    """The uids of ``within`` that processes have while the block runs (sampled every 20 ms)."""

    def __init__(self, within: uids.UidRange):
        self.within, self.seen = within, set()
        self._stop = threading.Event()

    def __enter__(self) -> UidsSeen:
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.seen |= {info["uid"] for info in processes().values() if info["uid"] in self.within}
            self._stop.wait(0.02)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.mark.sandbox
@root_only
def test_another_accounts_processes_in_the_range_survive_a_batch(monkeypatch):
    monkeypatch.setenv("READING_MATHS_UIDS", str(SMALL))
    taken = [SMALL.first + block * uids.BLOCK for block in range(3)]  # blocks 0-2 of 5: the graders get 3 and 4
    folder = shared_folder()
    submission(folder, "a_kill_everything", ATTACKS["kill_everything"], 0)
    for i in range(2):
        submission(folder, f"b_honest_{i}", None, 0)
    try:
        with running_as(*taken) as victims, UidsSeen(SMALL) as seen:
            results, _ = grade(folder, "root", "--jobs", "1")
            alive = [v.poll() is None for v in victims]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert alive == [True] * 3, "another account's process was killed"
    honest = [r for r in results if "honest" in r["notebook"]]
    assert len(honest) == 2 and all(r["score"] == r["max_score"] > 0 for r in honest), honest
    graders = seen.seen - set(taken)
    assert graders and all(u >= SMALL.first + 3 * uids.BLOCK for u in graders), sorted(seen.seen)


@pytest.mark.sandbox
@root_only
def test_stopping_sandboxes_never_kills_another_process_of_their_uid():
    sandbox = choose()
    assert sandbox.mode == "bwrap"
    mine = [sandbox_uid(slot) for slot in range(uids.BLOCK)]
    cells = [Cell(0, "cell 1", "probe = 1"), Cell(1, "cell 2", "import os\ntry:\n    os.kill(-1, 9)\nexcept OSError:\n"
                                                              "    pass")]
    with running_as(*mine) as victims:
        with StudentSession(cells, ["probe"], sandbox, cell_timeout=10) as alone:  # bubblewrap starts it
            assert alone.env()["probe"] == 1
        starter = Starter(sandbox)  # the fork server forks them
        try:
            for _ in range(uids.SLOTS + 1):
                with StudentSession(cells, ["probe"], sandbox, cell_timeout=10, starter=starter) as forked:
                    assert forked.env()["probe"] == 1
        finally:
            starter.close()
        assert [v.poll() for v in victims] == [None] * len(mine), "a process of a sandbox uid was killed"
