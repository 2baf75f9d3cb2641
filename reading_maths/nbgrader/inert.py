"""Submissions shown to the instructor as inert HTML: nothing a student wrote runs in the instructor's browser.

Formgrader's manual-grading page renders a submitted notebook with nbconvert inside the instructor's
logged-in Jupyter page, and ``generate_feedback`` renders the same notebook into HTML the instructor may open.
nbgrader's ``formgrade`` template passes Markdown cells through as raw HTML and nbconvert's own
``sanitize_html`` option leaves holes (isolated iframes, attribute-carrying ids and classes, relative image
URLs), so the course renders submissions through three steps, configured by :func:`configure` from
``nbgrader_config.py`` (and the hub's instructor config):

- :class:`InertNotebook`, a preprocessor that rebuilds the notebook from what can be shown: known cell
  types, the nbgrader metadata with checked types, outputs reduced to text, sanitised HTML, LaTeX and
  validated images (every other MIME type becomes a line of text saying it is not shown), attachments that
  decode as images, and the page's own strings (student id and names) HTML-escaped;
- :func:`markdown2html` and :func:`inert_html`, the Markdown and HTML filters: nbconvert's renderer
  (formulas kept for MathJax) followed by bleach with an allowlist: no script, style, event handler, form,
  frame or embed, links only to http(s), mailto or the page, images only from ``data:`` URLs, no ids;
- MathJax inlined from a package (no CDN), with the TeX extensions that load code or make links
  (``require``, ``autoload``: ``\\href``, ``\\class``, ``\\style``, ``\\unicode``) left out.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from pathlib import Path

import bleach
import jinja2
import nbformat
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor

from reading_maths.nbgrader.feedback import MATHML_ATTRIBUTES, MATHML_TAGS, TEMPLATES

TEMPLATE = "reading-maths-formgrade"
TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "q", "s", "samp", "small", "span",
    "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul"})
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif")
ATTACHED_TYPES = ("image/svg+xml", *IMAGE_TYPES)  # shown as <img src="data:...">, where SVG runs no script
SHOWN_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex", "image/svg+xml", *IMAGE_TYPES)
SAFE_NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,100}$")
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|svg\+xml);base64,[A-Za-z0-9+/=\s]*$")
_LINK = re.compile(r"^(https?://|mailto:|#)", re.IGNORECASE)
_HIGHLIGHT_CLASS = re.compile(r"^([a-z]{1,3}|highlight|hl-[a-z0-9]+|math)$")
PAGE_STRINGS = ("assignment_id", "notebook_id", "student", "last_name", "first_name", "notebook_path")


def _attribute(tag: str, name: str, value: str) -> bool:
    if tag in MATHML_TAGS:  # the feedback's formulas, MathML made from TeX (feedback.mathml): no links, no script
        return name in MATHML_ATTRIBUTES
    if tag == "a" and name in ("href", "title"):
        return name == "title" or bool(_LINK.match(value.strip()))
    if tag == "img" and name in ("src", "alt", "title", "width", "height"):
        return name != "src" or bool(_DATA_IMAGE.match(value.strip()))
    if tag in ("td", "th") and name in ("colspan", "rowspan", "align"):
        return True
    if tag == "ol" and name == "start":
        return value.isdigit()
    return name == "class" and all(_HIGHLIGHT_CLASS.match(token) for token in value.split())


_CLEANER = bleach.Cleaner(tags=TAGS | MATHML_TAGS, attributes=_attribute, protocols=["http", "https", "mailto", "data"],
                          strip=False, strip_comments=True)


def inert_html(text) -> str:
    """``text`` (HTML a student controls) with only inert markup left: see the module docstring."""
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return _CLEANER.clean(text)


class _Attachments(dict):
    """A cell's attachments where a missing name is an empty image (nbconvert raises on it, failing the page)."""

    def __contains__(self, name) -> bool:
        return True

    def __missing__(self, name):
        return {"image/png": ""}


def render_markdown(source: str, attachments: dict | None = None) -> str:
    """Markdown to inert HTML, formulas left for MathJax (nbconvert's renderer, then :func:`inert_html`)."""
    renderer = IPythonRenderer(escape=False, attachments=_Attachments(attachments or {}), exclude_anchor_links=True)
    return inert_html(MarkdownWithMath(renderer=renderer).render(str(source)))


@jinja2.pass_context
def markdown2html(context, source) -> str:
    """Jinja filter replacing the exporter's ``markdown2html``: the cell's attachments, then inert HTML."""
    cell = context.get("cell") or {}
    return render_markdown(source, cell.get("attachments"))


def _image(data) -> str | None:
    """Base64 image data, re-encoded, or None when it is not base64."""
    try:
        return base64.b64encode(base64.b64decode("".join(str(data).split()), validate=True)).decode("ascii")
    except (binascii.Error, ValueError):
        return None


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _bundle(data: dict) -> dict:
    """What of a MIME bundle can be shown: text, inert HTML, LaTeX and images; a note for the rest."""
    shown = {}
    for mime, value in data.items():
        if mime in IMAGE_TYPES:
            if (image := _image(value)) is not None:
                shown[mime] = image
        elif mime == "text/html":
            shown[mime] = inert_html(_text(value))
        elif mime == "text/markdown":
            shown["text/html"] = shown.get("text/html") or render_markdown(_text(value))
        elif mime in SHOWN_TYPES:
            shown[mime] = _text(value)
    hidden = sorted(m for m in data if m not in shown)
    if hidden and "text/plain" not in shown:
        shown["text/plain"] = f"(output of type {', '.join(hidden)}: not shown)"
    return shown


def _output(output: dict) -> nbformat.NotebookNode | None:
    kind = output.get("output_type")
    if kind == "stream":
        return nbformat.v4.new_output("stream", name="stderr" if output.get("name") == "stderr" else "stdout",
                                      text=_text(output.get("text", "")))
    if kind == "error":
        return nbformat.v4.new_output("error", ename=_text(output.get("ename", "")),
                                      evalue=_text(output.get("evalue", "")),
                                      traceback=[_text(line) for line in output.get("traceback", [])])
    if kind in ("display_data", "execute_result"):
        data = _bundle(dict(output.get("data") or {}))
        shown = nbformat.v4.new_output("display_data", data=data)
        if kind == "execute_result":
            shown.output_type, shown.execution_count = kind, None
        return shown
    return None


def _nbgrader(meta) -> dict | None:
    """nbgrader's cell metadata with its types checked (formgrader writes ``grade_id`` into ids and scripts)."""
    if not isinstance(meta, dict) or not SAFE_NAME.match(str(meta.get("grade_id", ""))):
        return None
    checked: dict[str, bool | float] = {k: bool(meta.get(k)) for k in ("grade", "solution", "locked", "task")}
    try:
        checked["points"] = float(meta.get("points") or 0)
    except (TypeError, ValueError):
        checked["points"] = 0.0
    return {**checked, "grade_id": meta["grade_id"], "schema_version": 3}


def inert_cell(cell: dict) -> nbformat.NotebookNode:
    """A cell rebuilt from what can be shown (raw cells become code: their text, never their markup)."""
    source = _text(cell.get("source", ""))
    if cell.get("cell_type") == "markdown":
        shown = nbformat.v4.new_markdown_cell(source)
        attachments = {}
        for name, bundle in (cell.get("attachments") or {}).items():
            bundle = bundle if isinstance(bundle, dict) else {}
            images = {m: v for m, v in ((m, _image(v)) for m, v in bundle.items() if m in ATTACHED_TYPES) if v}
            if SAFE_NAME.match(str(name)) and images:
                attachments[name] = images
        if attachments:
            shown.attachments = attachments
    else:
        shown = nbformat.v4.new_code_cell(source)
        if cell.get("cell_type") == "code":
            shown.outputs = [o for o in map(_output, cell.get("outputs") or []) if o is not None]
            count = cell.get("execution_count")
            shown.execution_count = count if isinstance(count, int) and not isinstance(count, bool) else None
    if (meta := _nbgrader((cell.get("metadata") or {}).get("nbgrader"))) is not None:
        shown.metadata["nbgrader"] = meta
    return shown


def _language(meta) -> str:
    name = str((meta or {}).get("name", "python")) if isinstance(meta, dict) else "python"
    return name if SAFE_NAME.match(name) else "python"


class InertNotebook(Preprocessor):
    """Rebuild a submitted notebook from what can be shown inertly; escape the page's strings."""

    def preprocess(self, nb, resources):
        language = _language(nb.metadata.get("language_info"))
        shown = nbformat.v4.new_notebook(cells=[inert_cell(c) for c in nb.cells if c.get("cell_type") in
                                                ("markdown", "code", "raw")])
        shown.metadata = {"language_info": {"name": language},
                          "kernelspec": {"name": language, "display_name": language, "language": language}}
        for key in PAGE_STRINGS:
            if isinstance(resources.get(key), str):
                resources[key] = html.escape(resources[key], quote=True)
        return shown, resources


class InertHighlight(Highlight2HTML):
    """Code highlighted as Python: nbconvert would take the lexer's name from the notebook's metadata as the
    student left it (before any preprocessor), and write it into the page."""

    def __call__(self, source, language=None, metadata=None):
        return super().__call__(source, language if language and SAFE_NAME.match(language) else "ipython3",
                                metadata)


FILTERS = {"highlight_code": f"{__name__}.InertHighlight", "markdown2html": f"{__name__}.markdown2html",
           "clean_html": f"{__name__}.inert_html",
           "offline_mathjax": "reading_maths.nbgrader.feedback.offline_mathjax"}


def configure(c) -> None:
    """Render submissions inertly in formgrader (nbgrader's ``formgrade`` template, offline MathJax) and in
    ``generate_feedback``; ``c`` is nbgrader's config object. Call it after
    :func:`reading_maths.nbgrader.feedback.configure`, whose exporter settings it extends."""
    import nbgrader

    formgrader = Path(nbgrader.__file__).resolve().parent / "server_extensions" / "formgrader" / "templates"
    c.HTMLExporter.template_name = TEMPLATE
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(formgrader)]
    for exporter in (c.HTMLExporter, c.GenerateFeedback.HTMLExporter):
        exporter.sanitize_html = True
        exporter.skip_svg_encoding = False
        exporter.embed_images = False
        exporter.preprocessors = [f"{__name__}.InertNotebook"]
        exporter.filters.update(FILTERS)
