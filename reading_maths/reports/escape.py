"""Student text as data: escaping for each place it is shown (Markdown/HTML, XML, rich markup).

Feedback lines mix the grader's words with what a student's code said (an exception message, a
name); every output format escapes the whole line, so nothing a student writes becomes markup.
"""

from __future__ import annotations

import html
import re

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

