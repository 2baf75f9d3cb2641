"""The integrity report: planted copies ranked above every honest pair (the calibration), the command on real
notebooks, the pages inert against hostile answers, identical notebooks apart, the checks trail and the times."""

import html
import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from classroom.disguises import DISGUISES
from classroom.planted import measure, planted_class
from conftest import ROOT
from reading_maths.checks.store import Store
from reading_maths.integrity.pages import write
from reading_maths.integrity.run import CALIBRATION, THRESHOLD, integrity
from reading_maths.notebook import grade_id
from reading_maths.reports.escape import PAGE_POLICY

HOSTILE = ("</pre><script>alert('code')</script><img src=x onerror=alert(1)>"
           "<a href='javascript:alert(2)'>x</a><style>body{display:none}</style>")
MALLORY = "<img src=x onerror=alert(9)>"  # a student id (a folder name) that is markup
HOSTILE_EQUATION = r"\href{javascript:alert(3)}{y} = \style{color:red}{x} <script>alert(4)</script>"


def _course(tmp_path: Path, assignment: str, notebooks: dict) -> Path:
    """A course folder with ``notebooks`` (student → notebook) submitted for ``assignment``."""
    course = tmp_path / "course"
    for folder in ("source", "release"):
        shutil.copytree(ROOT / folder / assignment, course / folder / assignment)
    (course / "graders" / assignment).mkdir(parents=True)
    for i, (student, nb) in enumerate(sorted(notebooks.items())):
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{assignment}.ipynb")
        (folder / "timestamp.txt").write_text(f"2027-02-12 16:{i:02d}:00.000000 UTC\n", encoding="utf-8")
    return course


def _with_answer(nb, cell_id: str, text: str):
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if grade_id(cell) == cell_id:
            cell.source = text
    return nb


@pytest.mark.slow  # a few seconds of CPU: the corpora read, every pair compared
@pytest.mark.parametrize("assignment", ["code", "build"])
def test_planted_copies_rank_above_every_honest_pair(assignment):
    figures = measure(ROOT, assignment)
    assert figures["copies_above_every_honest_pair"], figures
    assert figures["copies_flagged"] == 1.0 and figures["honest_flagged"] == 0.0, figures
    assert figures["lowest_copy"] >= THRESHOLD > figures["highest_honest"], figures
    stored = json.loads(CALIBRATION.read_text(encoding="utf-8"))[assignment]  # what the report states
    for key in ("students", "copies", "honest_pairs", "copies_flagged", "honest_flagged", "threshold"):
        assert stored[key] == figures[key], f"{key}: the corpora changed; run benchmarks/integrity.py calibrate"
    assert abs(stored["lowest_copy"] - figures["lowest_copy"]) < 0.1  # winnowing's choice varies with the hash seed
    assert abs(stored["highest_honest"] - figures["highest_honest"]) < 0.1


@pytest.fixture(scope="module")
def planted():
    return planted_class(ROOT, "code", honest=6)


@pytest.mark.slow  # runs reading-maths
def test_command_ranks_the_copies_first_on_real_notebooks(tmp_path, planted):
    notebooks = dict(planted.notebooks)
    notebooks["twin"] = notebooks["honest00"]  # handed in the very same notebook
    course = _course(tmp_path, "code", notebooks)
    done = subprocess.run([sys.executable, "-m", "reading_maths.cli", "--course", str(course), "integrity", "code",
                           "--top", "9"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "identical answer cells: honest00, twin" in done.stdout
    index = course / "reports" / "integrity" / "code" / "index.html"
    assert str(index) in done.stdout.replace("\n", "")
    data = json.loads((index.parent / "integrity.json").read_text(encoding="utf-8"))
    copied = {tuple(sorted(p)) for p in planted.copied()} | {("honest00", "twin")}
    top = {tuple(sorted((p["a"], p["b"]))) for p in data["pairs"][:len(copied)]}
    assert top == copied
    assert all(p["score"] < THRESHOLD for p in data["pairs"][len(copied):])
    assert (index.parent / "pair-001.html").is_file()


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.links, self.scripts = set(), [], 0

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.links += [v for k, v in attrs if k in ("href", "src")]
        self.scripts += any(k.startswith("on") for k, _ in attrs)


PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "table", "thead", "tbody", "tr",
             "th", "td", "a", "span", "pre", "div"}


def _inert(page: str) -> _Tags:
    head = page.split("<head>", 1)[1]
    assert head.startswith(f'<meta http-equiv="Content-Security-Policy" content="{html.escape(PAGE_POLICY)}">')
    found = _Tags()
    found.feed(page)
    assert found.tags <= PAGE_TAGS, found.tags - PAGE_TAGS
    assert found.scripts == 0
    assert all(link == "index.html" or link.startswith("pair-") for link in found.links), found.links
    return found


def test_pages_are_inert_against_hostile_answers(tmp_path, planted):
    """A copied answer carrying markup, and a student id that is markup: shown as text, on every page."""
    original = planted.notebooks["honest01"]
    code = next(c.source for c in original.cells if grade_id(c) == "softmax-answer")
    notebooks = {"honest01": _with_answer(original, "softmax-answer", f"# {HOSTILE}\n{code}\ns = '{HOSTILE}'\n"),
                 MALLORY: _with_answer(original, "softmax-answer", f"{code}\ns = '{HOSTILE}'  # \\href\n"),
                 "honest02": planted.notebooks["honest02"]}
    course = _course(tmp_path, "code", notebooks)
    result = integrity(course, "code", jobs=1)
    assert (result.pairs[0].a, result.pairs[0].b) == (MALLORY, "honest01")
    index = write(result, tmp_path / "out")
    pages = [index, *sorted(index.parent.glob("pair-*.html"))]
    for page in pages:
        _inert(page.read_text(encoding="utf-8"))
    first = (index.parent / "pair-001.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&#x27;code&#x27;)&lt;/script&gt;" in first and "\\href" in first
    assert html.escape(MALLORY) in first and "<span class='hl-a'>" in first.replace('"', "'")


def test_build_entries_compared_with_each_other_and_the_worked_entry(tmp_path):
    """A "Build this" entry copied from the worked one, and an equation that is markup: found, and inert."""
    release = nbformat.read(ROOT / "release" / "build" / "build.ipynb", as_version=4)
    worked = next(c.source for c in release.cells if grade_id(c) == "entry_0")
    copied = worked.replace("entry_0", "entry_1").replace("implementation_0", "implementation_1") \
        .replace("test_0", "test_1").replace("mu", "centre")
    hostile = copied.replace(r"y = \gamma", HOSTILE_EQUATION + r" \gamma")
    notebooks = {"kim": _with_answer(release, "meanings_1", copied), "lee": _with_answer(release, "meanings_2",
                                                                                          hostile.replace("_1", "_2"))}
    course = _course(tmp_path, "build", notebooks)
    result = integrity(course, "build", jobs=1)
    assert result.pairs and result.pairs[0].score >= THRESHOLD
    assert {m.part for m in result.pairs[0].matches} >= {"entries: code", "entries: equations", "entries: examples"}
    against = {(p.a, p.b) for p in result.sources if p.score >= THRESHOLD}
    assert {("kim", "worked entry (entry_0)"), ("lee", "worked entry (entry_0)")} <= against
    index = write(result, tmp_path / "out")
    for page in [index, *index.parent.glob("pair-*.html")]:
        text = page.read_text(encoding="utf-8")
        _inert(text)
    assert any("\\href{javascript:alert(3)}" in p.read_text(encoding="utf-8") for p in index.parent.glob("pair-*"))


def test_checks_trail_and_submission_times_on_the_pair_page(tmp_path, planted):
    course = _course(tmp_path, "code", {s: planted.notebooks[s] for s in ("honest01", "copier00", "honest02")})
    store = Store(course / "checks.sqlite")
    full = {"questions": [{"id": "softmax", "score": 17, "max_score": 17}, {"id": "adam", "score": 0,
                                                                             "max_score": 12}]}
    for user, when, result in [("honest01", "2027-02-10T09:00:00+00:00", {"questions": []}),
                               ("honest01", "2027-02-11T10:30:00+00:00", full),
                               ("copier00", "2027-02-12T15:59:00+00:00", full)]:
        store.add(user=user, assignment="code", notebook="code.ipynb", sha256="0" * 64, asked_at=when,
                  outcome="graded", result=result, questions=[])
    store.close()
    result = integrity(course, "code", jobs=1)
    assert result.trails["honest01"].checks == 2
    assert result.trails["honest01"].first_full == {"softmax": "2027-02-11T10:30:00+00:00"}
    index = write(result, tmp_path / "out")
    page = (index.parent / "pair-001.html").read_text(encoding="utf-8")
    assert "softmax: 2027-02-11T10:30:00+00:00" in page and "softmax: 2027-02-12T15:59:00+00:00" in page
    assert "2027-02-12 16:00:00.000000 UTC" in page  # copier00's recorded submission time
    assert "never, in a check" in page or "honest02" not in page


@pytest.mark.slow  # the class builder reads the graders and corpora (about 10 s)
@pytest.mark.parametrize("assignment", ["code", "build"])
def test_the_demo_class_copies_rank_first(assignment):
    """The demo's class of 30, as it hands in `assignment`: its two planted copies are the first two pairs."""
    from classroom.builder import ClassBuilder, fill
    from classroom.roster import answers_of, copied_from, roster
    from reading_maths.course import Assignment
    from reading_maths.integrity import answers as reading
    from reading_maths.integrity.run import compare_documents

    students = roster(30)
    pool = ClassBuilder(Assignment(assignment, ROOT)).pool()
    release = nbformat.read(ROOT / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    layout = reading.layout(Assignment(assignment, ROOT))
    documents: dict = {}
    for index, student in enumerate(students):
        nb = fill(release, answers_of(students, index, pool))
        for doc in reading.documents(layout.read(student.id, nb)):
            documents.setdefault(doc.part, {})[doc.owner] = doc
    pairs = compare_documents(documents, layout.given, jobs=1)[0]
    planted = {tuple(sorted((s.id, students[copied_from(students, i)[0]].id)))
               for i, s in enumerate(students) if s.profile == "copy"}
    assert len(planted) == 2
    assert {(p.a, p.b) for p in pairs[:2]} == planted


@pytest.mark.parametrize("how", sorted(DISGUISES))
def test_each_disguise_keeps_what_the_answer_computes(how):
    """A planted copy is a working answer: each disguise changes the text, not the function."""
    import numpy as np

    source = '''import numpy as np
import math

def _rows(z, T=1.0):
    arr = np.asarray(z, dtype=float)  # one row per distribution
    rows = []
    for row in arr.reshape(-1, arr.shape[-1]):
        rows.append(_one(row, T))
    return np.array(rows).reshape(arr.shape)

def _one(row, T):
    top = max(row)
    exps = [math.exp((x - top) / T) for x in row]
    return [e / sum(exps) for e in exps]

softmax = _rows
'''
    changed = DISGUISES[how](source)
    assert changed != source
    mine, theirs = {}, {}
    exec(source, mine)  # noqa: S102 - the test's own code
    exec(changed, theirs)  # noqa: S102
    z = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
    assert np.allclose(mine["softmax"](z, T=2.0), theirs["softmax"](z, T=2.0))
