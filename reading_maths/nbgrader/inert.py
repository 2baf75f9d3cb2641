"""Submissions shown to the instructor as inert HTML: nothing a student wrote runs in the instructor's browser.

Formgrader's manual-grading page renders a submitted notebook with nbconvert inside the instructor's
logged-in Jupyter page, and ``generate_feedback`` renders the same notebook into HTML the instructor may open.
nbgrader's ``formgrade`` template passes Markdown cells through as raw HTML and nbconvert's own
``sanitize_html`` option leaves holes (isolated iframes, attribute-carrying ids and classes, relative image
URLs), so the course renders submissions as follows, configured by :func:`configure` from
``nbgrader_config.py`` (and the hub's instructor config):

- :class:`InertNotebook`, a preprocessor that rebuilds the notebook from what can be shown: known cell
  types, the nbgrader metadata with checked types, outputs reduced to text, sanitised HTML, LaTeX and
  validated images (every other MIME type becomes a line of text saying it is not shown), attachments that
  decode as images, and the page's own strings (student id and names) HTML-escaped;
- :func:`markdown2html` and :func:`inert_html`, the Markdown and HTML filters: nbconvert's renderer
  (formulas kept for MathJax) followed by bleach with an allowlist: no script, style, event handler, form,
  frame or embed, links only to http(s), mailto or the page, images only from ``data:`` URLs, no ids;
- MathJax inlined from a package (no CDN) with typesetting that cannot act: an explicit list of TeX packages
  (none that loads code or makes links, styles, classes, ids or HTML), every macro of :data:`REFUSED_MACROS` taken
  out of every macro table before any student TeX is read (MathJax typesets nothing if one is left), and
  MathJax's ``safe`` extension dropping every URL, class, id and style from the typeset math;
- the page's Content-Security-Policy (:func:`with_csp`) as the first thing in its head: formgrader's own scripts
  and files only, inline scripts by hash, nothing from anywhere else.
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import importlib.metadata
import json
import re
from pathlib import Path

import bleach
import jinja2
import markupsafe
import nbformat
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor

from reading_maths.nbgrader.feedback import MATHML_ATTRIBUTES, MATHML_TAGS, TEMPLATES
from reading_maths.reports.escape import PAGE_POLICY, content_security_policy, with_policy

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


# -- formgrader's MathJax: typesetting that cannot act ---------------------------------------------------------

PACKAGE = "django-static-mathjax"
TEX_PACKAGES = ["base", "ams", "newcommand", "noundefined", "configmacros"]
"""The TeX packages formgrader's MathJax runs, all of them (an allowlist: ``require``, ``autoload`` and every
package they would load, ``html``, ``action``, ``bbox``, ``unicode``, ``color``, ... are not among them)."""

REFUSED_MACROS = ("mmlToken", "href", "class", "cssId", "style", "data", "unicode", "require", "texttip",
                  "mathtip", "toggle", "bbox", "color", "colorbox", "fcolorbox", "definecolor", "Newextarrow",
                  "setOptions", "verb")
"""TeX macros that make links, styles, classes, ids or HTML, load code or set options (``\\\\mmlToken`` takes any
attribute: ``href``, ``style``, ``class``, ``id``): taken out of every macro table of the TeX input before any
student TeX is read, so that neither a formula nor a ``\\\\def``/``\\\\newcommand``/``\\\\let`` can reach them (an
undefined macro is shown in red, as its name). Only ``\\\\mmlToken`` is in the packages of :data:`TEX_PACKAGES`; the
rest are listed so that a package added to them one day cannot bring one back."""

WITHOUT_MMLTOKEN = {  # the base and AMS macros written with \mmlToken, written without it
    "bmod": "\\mathbin{\\mathrm{mod}}", "pmod": ["\\pod{\\mathrm{mod}\\kern 6mu #1}", 1],
    "mod": ["\\mathchoice{\\kern18mu}{\\kern12mu}{\\kern12mu}{\\kern12mu}\\mathrm{mod}\\,\\,#1", 1],
    "varliminf": "\\mathop{\\underline{\\mathrm{lim}}}", "varlimsup": "\\mathop{\\overline{\\mathrm{lim}}}",
    "varinjlim": "\\mathop{\\underrightarrow{\\mathrm{lim}}}",
    "varprojlim": "\\mathop{\\underleftarrow{\\mathrm{lim}}}",
}

CONFIG = {
    "tex": {"inlineMath": [["$", "$"], ["\\(", "\\)"]], "displayMath": [["$$", "$$"], ["\\[", "\\]"]],
            "processEscapes": True, "processEnvironments": True, "tags": "ams",
            "packages": TEX_PACKAGES, "macros": WITHOUT_MMLTOKEN},
    "svg": {"fontCache": "global"},
    # no context menu (its accessibility options would load more of MathJax, from the network); the safe
    # extension drops every URL, class, id and style a formula could still carry
    "options": {"enableMenu": False,
                "safeOptions": {"allow": {"URLs": "none", "classes": "none", "cssIDs": "none", "styles": "none"}}},
}
"""MathJax 3's configuration: nbconvert's delimiters and AMS numbering, and the locks above."""

_REFUSE = """
  startup: {pageReady: function () {
    // before anything is typeset: the safe extension must be on, and no refused macro left in any macro table
    if (!MathJax.startup.document.safe) throw new Error('MathJax without its safe extension: nothing typeset');
    var macros = MathJax.startup.input[0].parseOptions.handlers.get('macro');
    REFUSED.forEach(function (name) {
      for (var map = macros.applicable(name); map; map = macros.applicable(name)) {
        if (typeof map.remove !== 'function') throw new Error('cannot refuse \\\\' + name + ': nothing typeset');
        map.remove(name);
      }
    });
    return MathJax.startup.defaultPageReady();
  }}"""


def mathjax_file(component: str = "tex-svg.js") -> Path:
    """A MathJax 3 component file (``es5/<component>``) as the ``django-static-mathjax`` package installs it."""
    path = Path(str(importlib.metadata.distribution(PACKAGE).locate_file(f"mathjax/static/mathjax/es5/{component}")))
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: pip install {PACKAGE}")
    return path


def mathjax_config(config: dict | None = None) -> str:
    """The script that configures MathJax: :data:`CONFIG` and the refusal of :data:`REFUSED_MACROS` (``config``:
    another configuration, without the refusal: the tests' control)."""
    if config is not None:
        return f"window.MathJax = {json.dumps(config)};"
    settings = json.dumps(CONFIG)[:-1] + "," + _REFUSE.replace("REFUSED", json.dumps(REFUSED_MACROS)) + "}"
    return f"window.MathJax = {settings};"


@functools.cache
def mathjax_code(component: str = "tex-svg.js", safe: bool = True) -> str:
    """MathJax's ``component`` followed by its ``safe`` extension (``ui/safe.js``), as the text of one script: the
    extension registers itself before MathJax starts (a promise later), with nothing loaded."""
    files = [mathjax_file(component)] + ([mathjax_file("ui/safe.js")] if safe else [])
    code = "\n".join(f.read_text(encoding="utf-8") for f in files).replace("</script", "<\\/script")
    return f"\n{code}\n"


def offline_mathjax(component: str, config: dict | None = None) -> markupsafe.Markup:
    """Jinja filter: MathJax's configuration and code (:func:`mathjax_config`, :func:`mathjax_code`), as inline
    ``<script>`` tags (allowed by their hashes: :func:`with_csp`). ``config``: the tests' control, stock MathJax."""
    version = importlib.metadata.version(PACKAGE)
    return markupsafe.Markup(  # noqa: S704 - our own configuration and the package's script, not user text
        f"<script>{mathjax_config(config)}</script>\n"
        f'<script id="MathJax-script" data-source="{PACKAGE} {version}: es5/{component}">'
        f"{mathjax_code(component, safe=config is None)}</script>"
    )


FORMGRADER_HANDLERS = ("toggle_name(true);", "toggle_name(false);")
"""The inline event handlers of nbgrader's formgrade page (its student-name toggle), allowed by hash."""
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.DOTALL | re.IGNORECASE)


def with_csp(head: str, page: str = "static", *more: str) -> markupsafe.Markup:
    """Jinja filter: ``head`` (the template's ``header`` block, ``<head>`` and all) with the page's
    Content-Security-Policy as the first thing in its head. ``page="formgrader"``: formgrader's own files and API
    ('self'), the inline scripts of ``head`` and of ``more`` (formgrader's navigation bar, rendered by its own macro:
    nbgrader's and MathJax's scripts, never student text) by hash and :data:`FORMGRADER_HANDLERS`; otherwise
    :data:`PAGE_POLICY` (no script, nothing loaded)."""
    if page == "formgrader":
        scripts = [code for part in (head, *more) for code in _INLINE_SCRIPT.findall(str(part))]
        policy = content_security_policy(scripts=scripts, handlers=FORMGRADER_HANDLERS, same_origin=True)
    else:
        policy = PAGE_POLICY
    return markupsafe.Markup(with_policy(str(head), policy))  # noqa: S704 - the template's own head


FILTERS = {"highlight_code": f"{__name__}.InertHighlight", "markdown2html": f"{__name__}.markdown2html",
           "clean_html": f"{__name__}.inert_html",
           "offline_mathjax": f"{__name__}.offline_mathjax", "with_csp": f"{__name__}.with_csp"}


def configure(c) -> None:
    """Render submissions inertly in formgrader (nbgrader's ``formgrade`` template, offline MathJax) and in
    ``generate_feedback``; ``c`` is nbgrader's config object. Call it after
    :func:`reading_maths.nbgrader.feedback.configure`, whose exporter settings it extends."""
    import nbgrader

    formgrader = Path(nbgrader.__file__).resolve().parent / "server_extensions" / "formgrader" / "templates"
    c.HTMLExporter.template_name = TEMPLATE
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(formgrader)]
    c.HTMLExporter.extra_template_paths = [str(formgrader)]  # our index.html.j2 extends formgrade/index.html.j2
    for exporter in (c.HTMLExporter, c.GenerateFeedback.HTMLExporter):
        exporter.sanitize_html = True
        exporter.skip_svg_encoding = False
        exporter.embed_images = False
        exporter.preprocessors = [f"{__name__}.InertNotebook"]
        exporter.filters.update(FILTERS)
