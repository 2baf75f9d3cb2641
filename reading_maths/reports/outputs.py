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


def gradescope(result: GradeResult) -> str:
    """Gradescope's ``results.json``: one test per question (visible feedback only)."""
    tests = [{
        "name": q.id, "score": q.score, "max_score": q.max_score,
        "status": "passed" if q.score == q.max_score else "failed",
        "output": "\n".join(q.feedback), "visibility": "visible",
    } for q in result.questions]
    return json.dumps({"score": result.score, "tests": tests,
                       "output": "\n".join(result.errors) or "Graded by reading-maths."}, indent=2)


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
