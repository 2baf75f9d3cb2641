"""The demo's workflow on a small class, and `reading-maths report` on what it leaves in the gradebook.

Four students on the `code` assignment (right, wrong, blank, late), through nbgrader's exchange, the real
`reading-maths autograde`, feedback and export; then the report's CSV and HTML are checked against the
gradebook.  Three more students hand in the `build` assignment (good, weak-test and broken entries, from its
corpora), which the report shows too.
"""

import csv
import os
import sys
from pathlib import Path

import pytest

from classroom import demo, roster
from conftest import ROOT
from reading_maths.nbgrader.environment import course_directory
from reading_maths.reports.report import build_report

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

STUDENTS = [
    roster.Student("ada", "Ada", "Lovelace", "right"),
    roster.Student("alan", "Alan", "Turing", "wrong"),
    roster.Student("grace", "Grace", "Hopper", "blank"),
    roster.Student("emmy", "Emmy", "Noether", "late"),
]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    work = tmp_path_factory.mktemp("demo") / "course"
    found = demo.prepare(ROOT, work, ["code"])
    assert found == ["code"]
    old = os.environ.get("READING_MATHS_COURSE")
    try:
        timings = demo.run_class(work, STUDENTS, found, log=lambda _: None)
    finally:
        os.environ["READING_MATHS_COURSE"] = old or str(ROOT)
    assert "reading-maths report" in timings
    return work


def _gradebook(work: Path, assignment: str = "code") -> dict[str, tuple[float, float]]:
    from nbgrader.api import Gradebook, MissingEntry

    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    scores = {}
    with Gradebook(course_directory(work).db_url) as gb:
        for s in gb.students:
            try:
                sub = gb.find_submission(assignment, s.id)
            except MissingEntry:
                scores[s.id] = (0.0, 0.0)
                continue
            scores[s.id] = (float(sub.score), float(sub.late_submission_penalty or 0.0))
    return scores


def test_workflow_leaves_every_artefact(course):
    for name, path in demo.artefacts(course).items():
        assert path.exists(), name
    for s in STUDENTS:
        assert (course / "submitted" / s.id / "code" / "code.ipynb").is_file()
        assert (course / "autograded" / s.id / "code" / "code.ipynb").is_file()
        assert (course / "feedback" / s.id / "code" / "code.html").is_file()
    assert not (ROOT / "demo" / "course").exists()


def test_grades_csv_matches_the_gradebook(course, tmp_path):
    paths = build_report(course, tmp_path / "out")
    with paths["csv"].open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["student_id", "last_name", "first_name", "email", "code", "total"]
    assert sorted(r["student_id"] for r in rows) == sorted(s.id for s in STUDENTS)
    gradebook = _gradebook(course)
    for row in rows:
        raw, penalty = gradebook[row["student_id"]]
        assert float(row["total"]) == pytest.approx(max(0.0, raw - penalty))
        assert float(row["code"]) == float(row["total"])
    by_id = {r["student_id"]: r for r in rows}
    assert by_id["ada"]["first_name"] == "Ada" and by_id["ada"]["email"] == "ada@example.edu"
    assert float(by_id["grace"]["total"]) == 0.0
    assert float(by_id["ada"]["total"]) > float(by_id["alan"]["total"])
    assert gradebook["emmy"][1] > 0, "the late student has a late penalty"
    assert gradebook["ada"][1] == 0


def test_html_has_plots_and_a_mistake_table(course, tmp_path):
    paths = build_report(course, tmp_path / "out", "code")
    page = paths["html"].read_text(encoding="utf-8")
    # the course's Content-Security-Policy first in the head: no script, nothing loaded (the plots are data: URLs)
    from reading_maths.reports.escape import csp_meta

    assert page.startswith(f"<!doctype html><html lang='en'><head>{csp_meta()}<meta charset='utf-8'>")
    assert page.count("<img ") == 3 and page.count("data:image/png;base64,") == 3
    assert "Most common mistakes" in page and "<div class='mistakes'>" in page
    table = page.split("<div class='mistakes'>")[1]
    assert "<th>count</th>" in table
    import json

    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["mistakes"], "the wrong student's catalogued mistakes are counted"
    for m in data["mistakes"]:
        assert m["count"] >= 1 and f"<td>{m['mistake']}</td><td>{m['count']}</td>" in table
    assert set(data["difficulty"]["code"]) == {"softmax", "attention", "adam_step", "adam", "dpo_loss"}
    # the similar answers section links each assignment's integrity pages, written beside the report
    assert "<h2 id='integrity'>Similar answers</h2>" in page and "href='integrity/code/index.html'" in page
    index = (tmp_path / "out" / "integrity" / "code" / "index.html").read_text(encoding="utf-8")
    assert index.startswith(f"<!doctype html><html lang='en'><head>{csp_meta()}") and "4 submissions compared" in index


@pytest.mark.browser
def test_the_report_and_its_integrity_pages_pass_axe_core(course, tmp_path):
    """The report and its similar-answers index, as Chromium opens them (no network): no serious or critical
    axe-core violation; screenshots and results in tests/screenshots/report*.{png,axe.json}."""
    import a11y
    import browser as b

    a11y.require_axe()
    paths = build_report(course, tmp_path / "out", "code")
    shots = Path(__file__).resolve().parent / "screenshots"
    blocking = {}
    with b.chromium() as ctx:
        ctx.route(lambda url: not url.startswith(("file:", "data:")), lambda route: route.abort())
        for name, page_path in (("report", paths["html"]),
                                ("report-integrity-code", tmp_path / "out" / "integrity" / "code" / "index.html")):
            page = ctx.new_page()
            page.goto(page_path.as_uri())
            page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
            blocking[name] = a11y.audit(page, shots, name)
            page.close()
    assert not any(blocking.values()), blocking


def test_report_command_writes_to_out(course, tmp_path):
    from click.testing import CliRunner

    from reading_maths.cli import main

    os.environ["READING_MATHS_COURSE"] = str(course)
    try:
        result = CliRunner().invoke(main, ["report", "code", "--out", str(tmp_path / "r")])
    finally:
        os.environ["READING_MATHS_COURSE"] = str(ROOT)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r" / "grades.csv").is_file() and (tmp_path / "r" / "report.html").is_file()
    bad = CliRunner().invoke(main, ["report", "nope", "--out", str(tmp_path / "r2")],
                             env={"READING_MATHS_COURSE": str(course)})
    assert bad.exit_code != 0 and "no assignment" in bad.output


BUILDERS = [roster.Student("ada", "Ada", "Lovelace", "right"), roster.Student("alan", "Alan", "Turing", "wrong"),
            roster.Student("sofia", "Sofia", "Kovalevskaya", "mixed")]


@pytest.fixture(scope="module")
def build_class(tmp_path_factory):
    work = tmp_path_factory.mktemp("demo-build") / "course"
    assert demo.prepare(ROOT, work, ["build"]) == ["build"]
    old = os.environ.pop("READING_MATHS_COURSE", None)  # the demo's commands find the course from their folder
    try:
        demo.run_class(work, BUILDERS, ["build"], log=lambda _: None)
    finally:
        if old is not None:
            os.environ["READING_MATHS_COURSE"] = old
    return work


def test_the_class_hands_in_build_and_the_report_shows_it(build_class, tmp_path):
    import json

    gradebook = _gradebook(build_class, "build")
    assert gradebook["ada"][0] == 33, "good entries earn every automatic point (the meanings and reasons wait)"
    assert 0 < gradebook["alan"][0] < 33 and 0 < gradebook["sofia"][0] < 33
    graded = {s.id: json.loads((build_class / "autograded" / s.id / "build.json").read_text())["build"]
              for s in BUILDERS}
    feedback = " ".join(line for q in graded["alan"]["questions"] for line in q["feedback"])
    assert "mutants" in feedback or "your test" in feedback or "the output you worked by hand" in feedback
    paths = build_report(build_class, tmp_path / "out", "build")
    with paths["csv"].open(encoding="utf-8") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert {s: float(r["build"]) for s, r in rows.items()} == {s: g[0] for s, g in gradebook.items()}
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert set(data["difficulty"]["build"]) == {"entry_1", "entry_2", "entry_3"}
    from reading_maths.kit import FAILURES
    from reading_maths.kit.build import MISTAKES

    catalogue = {m.name: m.message for m in (*MISTAKES, *FAILURES)}
    counted = [m for m in data["mistakes"] if m["assignment"] == "build"]
    assert counted, "the weak and broken entries' failures are among the common mistakes"
    assert all(catalogue[m["mistake"]] == m["message"] for m in counted), counted
    page = paths["html"].read_text(encoding="utf-8")
    assert "entry_1" in page and "build" in page
