"""Feedback HTML that shows its formulas offline: MathJax inlined from a package instead of a CDN.

``nbgrader generate_feedback`` renders with nbgrader's ``feedback`` template, whose MathJax comes
from cdnjs: a student without the internet (or behind a strict proxy) sees raw ``$...$``. The
course's template, ``templates/reading-maths-feedback``, is nbgrader's own with one file changed:
its ``mathjax`` macro inlines MathJax 3's single-file TeX-to-SVG build (fonts included) from the
``django-static-mathjax`` package, so the HTML needs nothing beside itself, whether it is opened
from disk, from JupyterHub or from an e-mail. ``nbgrader_config.py`` calls :func:`configure`.
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import markupsafe

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
TEMPLATE = "reading-maths-feedback"
PACKAGE = "django-static-mathjax"

CONFIG = {
    "tex": {"inlineMath": [["$", "$"], ["\\(", "\\)"]], "displayMath": [["$$", "$$"], ["\\[", "\\]"]],
            "processEscapes": True, "processEnvironments": True, "tags": "ams",
            # nothing loaded on demand (from the network) and nothing that makes links or runs code:
            # \require and autoload's \href, \class, \style, \unicode are left out
            "packages": {"[-]": ["require", "autoload"]}},
    "svg": {"fontCache": "global"},
    # no context menu: its accessibility options would load more of MathJax, from the network
    "options": {"enableMenu": False},
}
"""MathJax 3's configuration: the delimiters and AMS numbering nbconvert's MathJax 2 set-up uses."""


def mathjax_file(component: str = "tex-svg.js") -> Path:
    """A MathJax 3 component file (``es5/<component>``) as the ``django-static-mathjax`` package installs it."""
    path = Path(str(importlib.metadata.distribution(PACKAGE).locate_file(f"mathjax/static/mathjax/es5/{component}")))
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: pip install {PACKAGE}")
    return path


def offline_mathjax(component: str) -> markupsafe.Markup:
    """Jinja filter: MathJax's configuration and the whole ``component`` script, as inline ``<script>`` tags."""
    code = mathjax_file(component).read_text(encoding="utf-8").replace("</script", "<\\/script")
    version = importlib.metadata.version(PACKAGE)
    return markupsafe.Markup(  # noqa: S704 - our own configuration and the package's script, not user text
        f"<script>window.MathJax = {json.dumps(CONFIG)};</script>\n"
        f'<script id="MathJax-script" data-source="{PACKAGE} {version}: es5/{component}">\n{code}\n</script>'
    )


def configure(c) -> None:
    """Make ``nbgrader generate_feedback`` use the course's template (``c``: nbgrader's config object).

    The settings are scoped to the exporter of ``GenerateFeedback`` (traitlets' ``Parent.Child``
    config): formgrader renders submissions with an ``HTMLExporter`` of its own, whose template
    must stay nbgrader's ``formgrade``.
    """
    import nbgrader

    formgrader = Path(nbgrader.__file__).resolve().parent / "server_extensions" / "formgrader" / "templates"
    exporter = c.GenerateFeedback.HTMLExporter
    exporter.template_name = TEMPLATE
    exporter.extra_template_basedirs = [str(TEMPLATES), str(formgrader)]
    exporter.filters = {"offline_mathjax": "reading_maths.nbgrader.feedback.offline_mathjax"}
