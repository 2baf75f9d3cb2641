"""Grade results in the forms CI reads: JUnit XML, Gradescope JSON, a Markdown summary."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

from reading_maths.reports.escape import table_cell, xml_text
from reading_maths.results import GradeResult


def junit(results: list[GradeResult]) -> str:
    """JUnit XML: one test suite per notebook, one test case per question (text XML cannot hold replaced)."""
    suites = ET.Element("testsuites")
    for res in results:
        failed = [q for q in res.questions if q.score < q.max_score]
        suite = ET.SubElement(suites, "testsuite", name=xml_text(f"{res.assignment}:{Path(res.notebook).name}"),
                              tests=str(len(res.questions)), failures=str(len(failed)))
        for q in res.questions:
            case = ET.SubElement(suite, "testcase", classname=xml_text(str(res.assignment)), name=xml_text(q.id))
            ET.SubElement(case, "system-out").text = f"score {q.score:g} / {q.max_score:g}"
            if q.score < q.max_score:
                failure = ET.SubElement(case, "failure", message=f"{q.status}: {q.score:g} / {q.max_score:g}")
                failure.text = xml_text("\n".join(q.feedback))
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)


VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
"""Gradescope's visibility settings, from the least shown to the most."""


def _cases_test(question: str, kind: str, number: str, cases: list, problem: str, visibility: str) -> dict:
    """One Gradescope test: the points of ``cases``; as output, ``problem`` and the failed cases' messages."""
    failed = [c for c in cases if not c.passed]
    lines = ([problem] if problem else []) + list(dict.fromkeys(c.message for c in failed if c.message))
    if not lines:
        lines = [f"All {len(cases)} {kind} passed."] if cases else [f"No {kind} for this question."]
    return {
        "name": f"{question}: {kind}", "name_format": "text", "number": number,
        "score": round(sum(c.points for c in cases if c.passed), 6),
        "max_score": round(sum(c.points for c in cases), 6),
        "status": "failed" if failed or problem else "passed",
        "output": "\n".join(lines), "output_format": "text", "visibility": visibility,
    }


def gradescope(result: GradeResult, hidden: str = "after_published") -> str:
    """Gradescope's ``results.json`` for one graded notebook, as its autograder specification has it.

    Each question gives two tests: its public checks (always visible: the text's own examples, and
    why the question could not be graded, if so) and its hidden tests, shown with ``hidden``
    visibility (``after_published`` by default: the specification asks that tests that carry points
    be hidden only until publication, or students lose sight of their total). A hidden test's
    output is its cases' messages, which never hold hidden inputs or expected values. Every text is
    ``text`` format, so what a student wrote is shown as written, never as HTML or Markdown. No
    ``execution_time``: how long the hidden tests took is a channel out of the hidden run
    (:mod:`reading_maths.sandbox.disclosure`).
    """
    if hidden not in VISIBILITIES:
        raise ValueError(f"visibility {hidden!r} is not one of {', '.join(VISIBILITIES)}")
    tests = []
    for number, q in enumerate(result.questions, start=1):
        public = [c for c in q.cases if not c.hidden]
        secret = [c for c in q.cases if c.hidden]
        tests.append(_cases_test(q.id, "public checks", f"{number}.1", public, q.problem, "visible"))
        if secret:
            tests.append(_cases_test(q.id, "hidden tests", f"{number}.2", secret, q.problem, hidden))
    notes = result.errors or [f"{result.assignment}: graded by reading-maths."]
    data = {
        "score": result.score, "output": "\n".join(notes), "output_format": "text",
        "test_output_format": "text", "test_name_format": "text", "stdout_visibility": "hidden",
        "extra_data": {"assignment": result.assignment, "max_score": result.max_score}, "tests": tests,
    }
    return json.dumps(data, indent=2)


def gradescope_refusal(reason: str) -> str:
    """``results.json`` for a submission that could not be graded: 0 points and the one-line reason."""
    return json.dumps({
        "score": 0, "output": f"Your submission could not be graded: {reason}", "output_format": "text",
        "stdout_visibility": "hidden", "tests": [],
    }, indent=2)


def markdown(results: list[GradeResult]) -> str:
    """A Markdown summary for a CI job summary page (student text escaped: no HTML, links or broken rows)."""
    lines: list[str] = []
    for res in results:
        title = f"{Path(res.notebook).name} ({res.assignment}): {res.score:g} / {res.max_score:g}"
        lines += [f"### {table_cell(title)}", "",
                  "| question | score | status | feedback |", "|---|---|---|---|"]
        for q in res.questions:
            feedback = "<br>".join(map(table_cell, q.feedback))
            lines.append(f"| `{q.id}` | {q.score:g} / {q.max_score:g} | {q.status} | {feedback} |")
        lines += [f"- note: {table_cell(e)}" for e in res.errors] + [""]
    return "\n".join(lines)
