"""Feedback HTML a student reads: formulas as MathML, each message once, the course's plumbing folded away.

``nbgrader generate_feedback`` renders with nbgrader's ``feedback`` template, whose MathJax comes from a
CDN (a student offline sees raw ``$...$``); inlining MathJax made every file 2.3 MB. Instead,
:class:`StudentView` turns each formula into MathML when the feedback is generated (``latex2mathml``;
current browsers typeset MathML themselves, with no script and no network), so a file is the notebook
and a stylesheet. It also prepares what the course's template (``templates/reading-maths-feedback``)
shows: a title per graded cell naming its question, the read-only course code folded under a summary,
the grade cells' hidden-test call hidden, and each grader message once, with the hidden inputs it
was found on listed after it. ``nbgrader_config.py`` calls :func:`configure`. The page carries the course's
Content-Security-Policy (no script, nothing loaded: :data:`reading_maths.reports.escape.PAGE_POLICY`) as the first
thing in its head. Formgrader, the instructor's page, keeps MathJax, inlined and locked down by
:mod:`reading_maths.nbgrader.inert`.
"""

from __future__ import annotations

import re
from pathlib import Path

import bleach
import markupsafe
from latex2mathml.converter import convert
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
TEMPLATE = "reading-maths-feedback"

MATHML_TAGS = {"math", "mrow", "mi", "mo", "mn", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac",
               "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded",
               "mphantom", "menclose", "merror", "mmultiscripts", "mprescripts", "none"}
MATHML_ATTRIBUTES = ["display", "mathvariant", "stretchy", "accent", "accentunder", "linebreak", "columnalign",
                     "rowspacing", "columnspacing", "columnlines", "rowlines", "displaystyle", "scriptlevel", "fence",
                     "separator", "lspace", "rspace", "width", "height", "depth", "notation", "form",
                     "movablelimits", "largeop", "symmetric", "minsize", "maxsize", "frame", "rowalign",
                     "mathsize", "open", "close", "bevelled", "linethickness"]

# code (fenced, then inline) is left alone; then display math, then inline math ($ not escaped, not $$)
PIECES = re.compile(r"(?P<code>```.*?```|`[^`\n]*`)"
                    r"|\$\$(?P<display>.+?)\$\$|\\\[(?P<display2>.+?)\\\]"
                    r"|\\\((?P<inline2>.+?)\\\)|(?<![\\$])\$(?P<inline>[^$\n]+?)\$(?!\$)", re.DOTALL)
CASE_LINE = re.compile(r"^ - (?P<case>`[^`]+` on [^:]+): (?P<message>.+)$")


def mathml(tex: str, display: bool) -> str | None:
    """``tex`` as sanitised MathML (text a student wrote stays text), or None when it cannot be converted."""
    tex = tex.replace(r"\begin{aligned}", r"\begin{align*}").replace(r"\end{aligned}", r"\end{align*}")
    try:
        converted = convert(tex.strip(), display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - a formula latex2mathml cannot read is shown as its TeX
        return None
    converted = converted.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")  # HTML needs no namespace
    cleaned = bleach.clean(converted, tags=MATHML_TAGS, attributes=dict.fromkeys(MATHML_TAGS, MATHML_ATTRIBUTES))
    # the cell's Markdown is rendered after this: an address in a formula's text must not become a link
    return cleaned.replace("://", "&#58;//")


def tex_to_mathml(markdown: str) -> str:
    """Every formula of a Markdown text as MathML; code and formulas that cannot be converted unchanged."""
    def replace(match: re.Match) -> str:
        if match["code"]:
            return match["code"]
        display = match["display"] or match["display2"]
        found = mathml(display if display is not None else (match["inline"] or match["inline2"]), display is not None)
        return found if found is not None else match[0]

    return PIECES.sub(replace, markdown)


def once(text: str) -> str:
    """A grader's printout with each message once, followed by the inputs it was seen on.

    A message is a line `` - `name` on <input>: <message>`` and the lines below it up to the next `` - ``."""
    items: list[list] = []  # [message, inputs] or [line, None]
    for line in text.splitlines():
        found = CASE_LINE.match(line)
        if found:
            items.append([found["message"], [found["case"].split(" on ", 1)[1]]])
        elif items and items[-1][1] is not None and not line.startswith(" - "):
            items[-1][0] += "\n" + line  # a message's continuation (an array printed over several lines)
        else:
            items.append([line, None])
    merged: dict[str, list | None] = {}
    for message, inputs in items:
        if inputs is not None and merged.get(message) is not None:
            merged[message] += inputs
        else:
            merged.setdefault(message, inputs)
    lines = [message if inputs is None else f" - {message}\n   (seen on: {'; '.join(inputs)})"
             for message, inputs in merged.items()]
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def _heading(markdown: str) -> str | None:
    found = re.search(r"^#{1,4}\s+(.+)$", markdown, re.MULTILINE)
    return re.sub(r"[*_`$\\]", "", found[1]).strip() if found else None


class StudentView(Preprocessor):
    """Prepares a graded notebook for the course's feedback template (see the module's docstring); runs after
    nbgrader's ``GetGrades``, which puts each answer's comment (the grader's messages) in its metadata."""

    enabled = Bool(True)

    def preprocess(self, nb, resources):
        section, comment = "", ""
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            view: dict[str, str] = {}
            if cell.cell_type == "markdown":
                section = _heading(cell.source) or section
                cell.source = tex_to_mathml(cell.source)
            if meta.get("comment"):
                meta["comment"] = comment = once(meta["comment"])
            if meta.get("grade") or meta.get("task"):
                kind = "hidden tests" if cell.cell_type == "code" and not meta.get("solution") else "hand-marked answer"
                view["title"] = f"{meta.get('grade_id')}: {kind}" + (f" ({section})" if section else "")
            if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
                view["hide_source"] = "the hidden tests of this question"
                cell.outputs = [_shown(o, comment) for o in cell.outputs if o.get("output_type") == "stream"]
                comment = ""
            elif cell.cell_type == "code" and meta.get("locked") and not meta.get("solution"):
                view["fold"] = f"read-only course code ({meta.get('grade_id') or 'setup'})"
            if view:
                cell.metadata["reading_maths"] = view
        return nb, resources


def _shown(output: dict, comment: str) -> dict:
    """A grade cell's printout, each message once; only its score line when the comment under the answer
    above (the same results, as recorded in the gradebook) says the rest."""
    text = once(output.get("text", ""))
    first, _, rest = text.partition("\n")
    if rest.strip() and first.strip() and first.strip() in comment:
        text = f"{first}\n(what the tests found: in the comment under your answer above)\n"
    return dict(output, text=text)


def replace_toc(page: str, toc: str) -> markupsafe.Markup:
    """Jinja filter: nbgrader's table of contents in ``page`` ("Test cell", "Comment") replaced by ``toc``."""
    return markupsafe.Markup(re.sub(r'<div id="toc">.*?</div>', lambda _: toc, page, count=1, flags=re.DOTALL))  # noqa: S704


def configure(c) -> None:
    """Make ``nbgrader generate_feedback`` use the course's template (``c``: nbgrader's config object).

    The settings are scoped to the exporter of ``GenerateFeedback`` (traitlets' ``Parent.Child``
    config): formgrader renders submissions with an ``HTMLExporter`` of its own, whose template
    must stay nbgrader's ``formgrade``.
    """
    import nbgrader

    formgrader = Path(nbgrader.__file__).resolve().parent / "server_extensions" / "formgrader"
    templates = formgrader / "templates"
    css = formgrader / "static" / "node_modules" / "bootstrap" / "dist" / "css"  # nbgrader's own setting, kept
    exporter = c.GenerateFeedback.HTMLExporter
    exporter.template_name = TEMPLATE
    exporter.extra_template_basedirs = [str(TEMPLATES), str(templates)]
    exporter.extra_template_paths = [str(templates), str(css)]  # the course's template extends feedback/index.html.j2
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, StudentView]  # nbgrader's, then ours
    exporter.filters = {"replace_toc": "reading_maths.nbgrader.feedback.replace_toc",
                        "with_csp": "reading_maths.nbgrader.inert.with_csp"}
