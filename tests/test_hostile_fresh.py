"""A fresh student's attacks, tried without reading the rest of the hostile suite: each grades real notebooks
with ``reading-maths grade`` (as root and, where the sandbox differs, as an ordinary user) and asserts that
the attack is contained.  Those that worked when written say so (terminal escapes in the table, a notebook
of a million cells; ``/dev/shm`` and keyrings shared between children, closed meanwhile on main)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from hostile.ordinary import as_user, ordinary_user

from classroom.builder import answered
from conftest import ROOT

pytestmark = pytest.mark.sandbox

SOURCE = ROOT / "source" / "code" / "code.ipynb"
ESCAPES = "\x1b[2J\x1b[1;1Hsoftmax 17 / 17\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1b]52;c;ZWNobyBwd25lZA==\x07\x9b31m"

TERMINAL = f"""def softmax(z, T=1.0):
    raise ValueError({ESCAPES!r} + "<kept>")
"""
LEAKS = '''import numpy as np
def softmax(z, T=1.0):
    a = np.asarray(z, dtype=float).ravel()
    code = "_".join(("m" if x < 0 else "") + str(abs(int(x * 100))) if np.isfinite(x) else "inf" for x in a[:6])
    raise type("Leak_" + code, (ValueError,), {})("LEAK" + repr(a[:8].tolist()))
'''
LIAR = '''import numpy as np
class Liar(np.ndarray):
    def __eq__(self, other): return np.ones(np.shape(other), bool)
    __ne__ = lambda self, other: np.zeros(np.shape(other), bool)
    def __float__(self): return 1.0
np.allclose = np.array_equal = np.isclose = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
def softmax(z, T=1.0):
    return np.zeros(np.shape(z)).view(Liar)
'''
GARBAGE_FRAME = '''import gc, os
def softmax(z, T=1.0):
    pipes = [o for o in gc.get_objects() if type(o).__name__ == "GraderPipes"][0]
    os.write(pipes.out, b"\\x7f\\xff\\xff\\xff" + b"[" * 4096)
    return z
'''
PLANT = '''import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
DONE = []
for folder in ("/dev/shm", "/tmp", "/var/tmp", "/work/scratch", os.path.expanduser("~"), os.getcwd()):
    try:
        with open(os.path.join(folder, "PLANTED_MARK"), "w") as f:
            f.write("x")
        DONE.append(folder)
    except OSError:
        pass
for ring in (-3, -4, -5):  # the session, user and user-session keyrings (add_key)
    if libc.syscall(248, b"user", b"PLANTED_MARK", b"secret", 6, ctypes.c_int(ring)) > 0:
        DONE.append(f"key {ring}")
if libc.msgget(0x5EED, 0o1666) >= 0:
    DONE.append("msg")
def softmax(z, T=1.0):
    raise ValueError("PLANTED" + repr(DONE))
'''
FIND = '''import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
FOUND = [f for f in ("/dev/shm", "/tmp", "/var/tmp", "/work/scratch", os.path.expanduser("~"), os.getcwd())
         if os.path.exists(os.path.join(f, "PLANTED_MARK"))]
for ring in (-3, -4, -5):  # keyctl(KEYCTL_SEARCH, ring, "user", description, 0)
    if libc.syscall(250, ctypes.c_long(10), ctypes.c_long(ring), b"user", b"PLANTED_MARK", ctypes.c_long(0)) > 0:
        FOUND.append(f"key {ring}")
if libc.msgget(0x5EED, 0o666) >= 0:
    FOUND.append("msg")
def softmax(z, T=1.0):
    raise ValueError("FOUND" + json.dumps(FOUND))
'''


def write(folder: Path, name: str, answers: dict[str, str] | None = None, edit=None) -> None:
    source = nbformat.read(SOURCE, as_version=4)
    nb = answered(source, source, answers or {})
    if edit:
        edit(nb)
    nbformat.write(nb, folder / name)


def grade(folder: Path, *args: str, user: str = "root") -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "reading_maths.cli", "grade", str(folder), "-j", "1", *args]
    env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
    if user == "ordinary":
        env["HOME"] = ordinary_user()[2]
        command = as_user(command)
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=900, check=False)


@pytest.fixture
def folder():
    path = Path(tempfile.mkdtemp(prefix="rm-fresh-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def by_name(done: subprocess.CompletedProcess) -> dict[str, dict]:
    return {Path(r["notebook"]).name: r for r in json.loads(done.stdout)}


def test_the_terminal_table_shows_no_terminal_escape_a_student_wrote(folder):
    """Worked: rich kept ESC and C1 controls, so an exception message moved the teacher's cursor, rewrote a
    score, made hyperlinks or wrote the clipboard (OSC 52); a submitted file's name did the same on stderr."""
    write(folder, "a_escapes.ipynb", {"softmax": TERMINAL})
    (folder / "b_\x1b[2J\x1b]0;title\x07.ipynb").write_text("not json")
    done = grade(folder, "--timeout", "10")
    assert done.returncode == 4, done.stderr
    assert "<kept>" in done.stdout and "a_escapes.ipynb" in done.stdout
    shown = done.stdout + done.stderr
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", shown.replace("\n", "")), repr(shown[-2000:])


def test_feedback_metadata_and_lying_objects_change_no_grade(folder):
    """Contained: hidden inputs through exception texts and class names; extra or duplicate grade cells and
    inflated points in the student's metadata; an ndarray subclass whose ``==`` always agrees with NumPy's
    comparisons patched in the child; a garbage protocol frame (that notebook only, the next one graded)."""
    write(folder, "a_leaks.ipynb", {"softmax": LEAKS})

    def inflate(nb):
        graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        for cell in graded:
            cell.metadata.nbgrader.points = 1000
        bonus = nbformat.from_dict(json.loads(json.dumps(graded[0])))
        bonus.metadata.nbgrader.grade_id, bonus.id = "bonus", "bonus-cell"
        twin = nbformat.from_dict(json.loads(json.dumps(graded[0])))
        twin.id = "twin-cell"
        nb.cells += [bonus, twin]

    write(folder, "b_inflated.ipynb", edit=inflate)
    write(folder, "c_liar.ipynb", {"softmax": LIAR})
    write(folder, "d_garbage_frame.ipynb", {"softmax": GARBAGE_FRAME})
    write(folder, "e_right.ipynb")
    done = grade(folder, "--json", "--timeout", "20")
    assert done.returncode == 0, done.stderr
    results = by_name(done)
    right = results["e_right.ipynb"]
    assert right["score"] == right["max_score"] > 0
    inflated = results["b_inflated.ipynb"]
    assert (inflated["score"], inflated["max_score"]) == (right["score"], right["max_score"])
    assert [q["id"] for q in inflated["questions"]] == [q["id"] for q in right["questions"]]
    leaks = results["a_leaks.ipynb"]["questions"][0]
    assert leaks["score"] == 0
    hidden = [c["message"] for c in leaks["cases"] if c["hidden"]]
    assert hidden and not any("LEAK" in m or "Leak_" in m for m in hidden)
    for name in ("c_liar.ipynb", "d_garbage_frame.ipynb"):
        softmax = results[name]["questions"][0]
        assert softmax["id"] == "softmax" and softmax["score"] == 0, (name, softmax)


def _found(result: dict, prefix: str) -> list[str]:
    message = result["questions"][0]["cases"][0]["message"]
    return json.loads(message.split(prefix, 1)[1].rsplit(".", 1)[0]) if prefix == "FOUND" else message


@pytest.fixture(scope="module", params=["root", "ordinary"])
def left_behind(request):
    """One worker grades a notebook that leaves files, keys and a message queue everywhere it can, two
    honest notebooks (the sandbox's uids rotate through three slots), then three that look for them."""
    path = Path(tempfile.mkdtemp(prefix="rm-fresh-left-"))
    write(path, "a_plant.ipynb", {"softmax": PLANT})
    for name in ("b_right.ipynb", "c_right.ipynb"):
        write(path, name)
    for name in ("d_find.ipynb", "e_find.ipynb", "f_find.ipynb"):
        write(path, name, {"softmax": FIND})
    if request.param == "ordinary":
        uid, gid, _ = ordinary_user()
        for item in [path, *path.iterdir()]:
            os.chown(item, uid, gid)
    done = grade(path, "--json", "--timeout", "20", user=request.param)
    shutil.rmtree(path, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    results = by_name(done)
    assert "/tmp" in _found(results["a_plant.ipynb"], "PLANTED")  # the plant did write
    return request.param, [x for n in ("d_find.ipynb", "e_find.ipynb", "f_find.ipynb")
                           for x in _found(results[n], "FOUND")]


def test_a_later_child_finds_no_file_or_queue_an_earlier_one_left(left_behind):
    _, found = left_behind
    assert [f for f in found if f != "/dev/shm" and not f.startswith("key")] == []


def test_a_later_child_finds_nothing_in_dev_shm(left_behind):
    """Worked before the fork server's children got a /dev/shm of their own (they shared bubblewrap's --dev)."""
    _, found = left_behind
    assert "/dev/shm" not in found


def test_a_later_child_finds_no_key_an_earlier_one_left(left_behind):
    """Worked as root before the syscall filter: the user keyring is the host uid's, which the notebook after
    next but one gets again (three slots)."""
    _, found = left_behind
    assert [f for f in found if f.startswith("key")] == []


def test_a_notebook_of_a_million_cells_is_refused_before_the_grader_checks_it(folder):
    """Worked: 49 MiB of empty raw cells (under the 50 MiB cap) cost the grader about a minute of its own time
    per read (nbformat's validation), twice per notebook, outside every budget; now refused with its reason."""
    source = json.loads(SOURCE.read_text())
    cell = '{"cell_type":"raw","id":"%07d","metadata":{},"source":""}'
    body = json.dumps(source)
    start = body.index('"cells": [') + len('"cells": [')
    many = ",".join(cell % i for i in range(49 * 2**20 // (len(cell % 0) + 1) - 1000))
    (folder / "a_cells.ipynb").write_text(body[:start] + many + "," + body[start:])
    write(folder, "b_right.ipynb")
    done = grade(folder, "--json", "--timeout", "20")
    assert done.returncode == 4, done.stderr
    assert "more than 20000 cells and outputs" in done.stderr
    right = by_name(done)["b_right.ipynb"]
    assert right["score"] == right["max_score"] > 0


def test_file_names_with_markup_stay_text_in_junit_and_markdown(folder):
    """Contained: a submitted file's name with quotes, tags, CDATA ends, entities and control characters is
    one JUnit suite name (well-formed XML) and plain text in the Markdown summary."""
    import xml.etree.ElementTree as ET

    write(folder, 'a"><x a=\x01\x1b[31m]]>&amp;.ipynb', {"softmax": TERMINAL})
    (folder / 'b"\x02<y>.ipynb').write_text("not json")
    junit, summary = folder / "junit.xml", folder / "summary.md"
    done = grade(folder, "--junit", str(junit), "--summary", str(summary), "--timeout", "10")
    assert done.returncode == 4, done.stderr
    names = [suite.get("name") for suite in ET.parse(junit).getroot()]
    assert len(names) == 2 and all(n.startswith("code:") for n in names)
    assert any('"><x a=' in n and "]]>&amp;" in n for n in names)
    text = summary.read_text()
    assert "<x" not in text and "<y>" not in text and "&lt;x a=" in text
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text.replace("\n", ""))
