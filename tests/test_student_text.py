"""Student text is data: ``reading-maths grade`` on a folder with a markup-raising answer, an honest
notebook and an unreadable one; every output (terminal table, JSON, JUnit, Markdown summary) keeps it
as text, names no student-made exception class, and the unreadable notebook costs only itself."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import nbformat
import pytest
from hostile.text import LEAKY_ATTENTION

from classroom.builder import answered
from conftest import ROOT

pytestmark = pytest.mark.sandbox

CLI = [sys.executable, "-m", "reading_maths.cli"]
SOURCE = ROOT / "source" / "code" / "code.ipynb"


def folder_of_three(tmp):
    source = nbformat.read(SOURCE, as_version=4)
    nbformat.write(answered(source, source, {"attention": LEAKY_ATTENTION}), tmp / "a_hostile.ipynb")
    nbformat.write(answered(source, source), tmp / "b_right.ipynb")
    (tmp / "c_corrupt.ipynb").write_bytes(b'{"cells": [ \xff\xfe not json')
    return tmp


def grade(*args):
    return subprocess.run([*CLI, "grade", *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})


def test_json_names_no_student_class_and_reports_the_unreadable_notebook(tmp_path):
    folder = folder_of_three(tmp_path)
    done = grade(folder, "--json", "--timeout", "10")
    assert done.returncode == 4, done.stderr
    hostile, right, corrupt = json.loads(done.stdout)
    assert right["score"] == right["max_score"] > 0
    attention = next(q for q in hostile["questions"] if q["id"] == "attention")
    said = json.dumps(hostile["questions"])  # (notes about the notebook's own cells quote its own code's errors)
    assert attention["score"] == 0 and "your code raised an exception" in said and "Leak_" not in said
    assert corrupt["notebook"].endswith("c_corrupt.ipynb") and "not UTF-8" in corrupt["errors"][0]
    assert [q["id"] for q in corrupt["questions"]] == [q["id"] for q in right["questions"]]
    assert {q["status"] for q in corrupt["questions"]} == {"error"} and corrupt["score"] == 0
    assert "c_corrupt.ipynb is not UTF-8" in done.stderr


def test_table_junit_and_summary_keep_student_text_as_text(tmp_path):
    folder = folder_of_three(tmp_path)
    junit, summary = tmp_path / "junit.xml", tmp_path / "summary.md"
    done = grade(folder, "--junit", junit, "--summary", summary, "--timeout", "10")
    assert done.returncode == 4, done.stderr
    # the rich table printed the message as it is, and every notebook's table is there
    assert "[/] [bold]x[/bold]" in done.stdout and "Traceback" not in done.stderr
    for name in ("a_hostile.ipynb", "b_right.ipynb", "c_corrupt.ipynb"):
        assert name in done.stdout
    # JUnit: well-formed XML, one suite per notebook, the failure text kept (invalid characters replaced)
    suites = ET.parse(junit).getroot()
    assert len(suites) == 3
    failures = [f.text or "" for f in suites.iter("failure")]
    assert any('<img src=x onerror="alert(1)">' in f for f in failures)
    assert not any("\x00" in f or "\x07" in f for f in failures)
    # Markdown: no live tag or link, no extra table cell from the pipes
    text = summary.read_text()
    assert "<img" not in text and not re.search(r"(?<!\\)\]\(javascript", text) and "&lt;img" in text
    assert "\x00" not in text and "\x1b" not in text
    rows = [line for line in text.splitlines() if line.startswith("| `attention`")]
    assert rows and all(line.replace("\\|", "").count("|") == 5 for line in rows)
