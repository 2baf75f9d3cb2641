"""Memory is bounded without cgroups (issue 19, deliverable 3), as root and as the ordinary user.

With no cgroup (an ordinary user whose administrator delegated none), a sandbox's memory is bounded by its
rlimits and tmpfs sizes (``reading_maths.sandbox.limits``) and the syscall filter (memfd, SysV IPC). A
notebook that tries several GiB through processes, memfd, SysV shared memory and its tmpfs
(``tests/hostile/memory.py``) holds no more than the bound ``reading-maths doctor`` states, on both start
paths; graded in a batch, its question gets 0, the notebook's errors say which cell ran out of memory, and the
honest notebook after it in the same worker gets full marks.
"""

from __future__ import annotations

import pytest
from hostile.memory import HOLD
from hostile.ordinary import MODES, call_in_mode

from conftest import ROOT
from reading_maths.sandbox.limits import Limits
from test_sandbox import needs_isolation

pytestmark = pytest.mark.sandbox

CAP = 1 << 30
BOMB = HOLD.replace("probe = held", "raise MemoryError(f'held {sum(held.values()) >> 20} MiB')")


def uncounted_sandbox():
    """This user's sandbox as it is where no cgroup can be had, with a 1 GiB cap."""
    from reading_maths.sandbox.process import Sandbox, choose

    return Sandbox(choose().mode, Limits(memory_bytes=CAP).uncounted(), ())


def held(path: str) -> dict:
    """What :data:`HOLD` holds in a child started ``path`` (forked, or spawned by bubblewrap)."""
    from reading_maths.sandbox.child_starter import Starter
    from reading_maths.sandbox.session import Cell, StudentSession

    sandbox = uncounted_sandbox()
    starter = Starter(sandbox) if path == "forked" else None
    try:
        with StudentSession([Cell(0, "the hog", HOLD)], ["probe"], sandbox, starter=starter, cell_timeout=120,
                            call_timeout=10) as s:
            assert s.start_error is None and not s.cell_errors, (s.start_error, s.cell_errors)
            return {"held": s.env()["probe"], "bound": sandbox.limits.bound(), "kind": type(s._child.process).__name__}
    finally:
        if starter is not None:
            starter.close()


def batch(_: str) -> list[dict]:
    """The bomb, then an honest notebook, graded by one worker of a batch in the uncounted sandbox."""
    import shutil
    import tempfile
    from pathlib import Path

    from reading_maths.grading.batch import grade_many
    from reading_maths.grading.engine import Settings
    from test_hostile import submission

    folder = Path(tempfile.mkdtemp(prefix="rm-memory-"))
    try:
        bomb = submission(folder, "a_bomb", None, 0, softmax=BOMB)
        honest = submission(folder, "b_honest", None, 0)
        settings = Settings(uncounted_sandbox(), cell_timeout=120, call_timeout=10, ahead=True)
        return [r.to_json() for r in grade_many([bomb, honest], settings, jobs=1, root=ROOT, progress=False)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def in_mode(mode: str, function: str, argument: str):
    """``function(argument)`` of this module, in a process of its own, as root or as the ordinary user."""
    return call_in_mode(mode, "test_memory_bound", function, argument, timeout=900)


@needs_isolation
@pytest.mark.parametrize("path", ["forked", "spawned"])
@pytest.mark.parametrize("mode", MODES)
def test_a_notebook_holds_no_more_than_the_stated_bound(mode, path):
    found = in_mode(mode, "held", path)
    assert found["kind"] == ("Forked" if path == "forked" else "Popen")
    held, bound = found["held"], found["bound"]
    assert bound <= CAP
    assert held["memfd"] == held["sysv"] == 0, "memfd and SysV shared memory are refused"
    assert sum(held.values()) <= bound, held
    assert sum(held.values()) >= 256 << 20, f"the hog held what it could: {held}"


@needs_isolation
@pytest.mark.parametrize("mode", MODES)
def test_the_bomb_gets_zero_with_its_reason_and_the_batch_goes_on(mode):
    bomb, honest = in_mode(mode, "batch", "")
    softmax = next(q for q in bomb["questions"] if q["id"] == "softmax")
    assert softmax["score"] == 0 and softmax["feedback"], softmax
    assert any("softmax-answer" in e and "MemoryError" in e for e in bomb["errors"]), bomb["errors"]
    assert honest["score"] == honest["max_score"] > 0, honest
