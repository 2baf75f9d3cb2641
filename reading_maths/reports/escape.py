"""Student text as data: escaping for each place it is shown (Markdown/HTML, XML, rich markup).

Feedback lines mix the grader's words with what a student's code said (an exception message, a
name); every output format escapes the whole line, so nothing a student writes becomes markup.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable

from rich.text import Text

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MARKDOWN_LINKS = re.compile(r"([\\\[\]])")
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def markdown_text(text: str) -> str:
    """``text`` for a Markdown field that nbgrader renders as HTML: no tags, entities, links or images.

    ``&``, ``<`` and ``>`` become entities; backslashes and square brackets are escaped (no link or
    image syntax). Emphasis and code spans stay, as they cannot carry markup.
    """
    return _MARKDOWN_LINKS.sub(r"\\\1", html.escape(text, quote=False))


def table_cell(text: str) -> str:
    """``text`` for one cell of a Markdown table: escaped as :func:`markdown_text`, on one line, no pipes,
    no control characters."""
    return markdown_text(terminal_text(xml_text(" ".join(text.splitlines())))).replace("|", "\\|")


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold (control characters, lone surrogates) as U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def terminal_text(text: str) -> str:
    """``text`` for a terminal: control characters other than newline and tab (the escapes that move the
    cursor, colour, make hyperlinks, set the title or write the clipboard) as U+FFFD."""
    return _TERMINAL_CONTROLS.sub("\ufffd", str(text))


def rich_text(text: str) -> Text:
    """``text`` for a rich table cell or line, shown as it is: no markup, no terminal escape (:func:`terminal_text`)."""
    return Text(terminal_text(text))



# -- Content-Security-Policy: the one policy of every page the course serves or writes ----------------------

def script_hash(code: str) -> str:
    """A CSP source allowing the inline script (or event handler) whose text is ``code``, by its SHA-256."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: Iterable[str] = (), handlers: Iterable[str] = (),
                            same_origin: bool = False) -> str:
    """The policy of a page that shows student text: nothing loaded from another origin, no inline script but
    ``scripts`` (their texts, allowed by hash) and ``handlers`` (inline event handlers' texts, by hash), no
    ``<base>``, no form submission, no plugin or frame. ``same_origin``: the page's own server's files (scripts,
    styles, fonts, images) and API may be used (formgrader's page); otherwise (a file written to disk, the checks
    pages) the page loads nothing at all: styles inline, images as ``data:`` URLs."""
    own = ["'self'"] if same_origin else []
    handlers = [script_hash(h) for h in handlers]
    script = own + [script_hash(s) for s in scripts] + (["'unsafe-hashes'", *handlers] if handlers else [])
    directives = {
        "default-src": ["'none'"],
        "script-src": script or ["'none'"],
        "style-src": [*own, "'unsafe-inline'"],  # inline styles cannot run script; what they load, below, cannot come
        "img-src": [*own, "data:"],
        "font-src": [*own, "data:"],
        "connect-src": own or ["'none'"],
        "object-src": ["'none'"], "frame-src": ["'none'"], "base-uri": ["'none'"], "form-action": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


PAGE_POLICY = content_security_policy()
"""The policy of a page with no script at all: the feedback pages, the report, the checks service's pages."""
HEADER_POLICY = PAGE_POLICY + "; frame-ancestors 'none'"
""":data:`PAGE_POLICY` as an HTTP header (where ``frame-ancestors`` counts: nobody frames the page)."""

_HEAD = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)


def csp_meta(policy: str = PAGE_POLICY) -> str:
    """``policy`` as a ``<meta http-equiv>`` tag, for a page written to a file."""
    return f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy, quote=True)}">'


def with_policy(page: str, policy: str = PAGE_POLICY) -> str:
    """``page`` (HTML holding its ``<head>``) with :func:`csp_meta` as the first thing in its head."""
    found = _HEAD.search(page)
    if found is None:
        raise ValueError("no <head> to put the Content-Security-Policy in")
    return page[:found.end()] + csp_meta(policy) + page[found.end():]
