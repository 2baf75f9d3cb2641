"""The integrity report as pages: the ranked pairs (``index.html``) and one side-by-side page per pair.

Every page shows student text, so every page is inert: each piece of it escaped, the code panes passed through the
course's allowlist (:func:`reading_maths.nbgrader.inert.inert_html`), no formula typeset, and the course's
Content-Security-Policy (:func:`reading_maths.reports.escape.csp_meta`: no script, nothing loaded) first in the head.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from reading_maths.integrity.fingerprints import all_hashes, fingerprint, regions
from reading_maths.integrity.run import Pair, Result
from reading_maths.nbgrader.inert import inert_html
from reading_maths.reports.escape import csp_meta

SHOWN = 30
"""Pairs given a page of their own when fewer than this many are at or above the threshold."""
STYLE = ("body{font-family:sans-serif;margin:2em auto;max-width:1300px;padding:0 1em}"
         "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
         "vertical-align:top}th{background:#eee}.sides{display:grid;grid-template-columns:1fr 1fr;gap:1em}"
         "pre{background:#f8f8f8;padding:.5em;overflow-x:auto;white-space:pre-wrap;font-size:12px}"
         ".hl-a{background:#ffe08a}.flag{background:#fde2e2}")
HOW_TO_READ = (
    "<p>Each pair's score is the share of their answers' code they have in common, over the parts both answered "
    "(renamed variables, comments, spacing and reordered functions make no difference; what the template, the "
    "course's helper cells and most of the class share is left out). It is evidence to read, not a verdict: open "
    "the pair, read the highlighted code side by side, and weigh the checks trail and the submission times.</p>"
    "<p>Limits: short answers look alike whoever writes them (parts under a few lines are not compared); code the "
    "equation dictates (an Adam step) is alike in honest answers; the text's own examples are shared on purpose; "
    "a copy rewritten line by line, or help given in words, is not seen. Nothing here is sent to anyone.</p>")


def _page(title: str, body: list[str]) -> str:
    return "\n".join([f"<!doctype html><html lang='en'><head>{csp_meta()}<meta charset='utf-8'>",
                      f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
                      f"<h1>{html.escape(title)}</h1>", *body, "</body></html>"])


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A table whose cells are already HTML (each escaped by the caller)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    return f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(
        "<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows) + "</tbody></table>"


def _calibration(result: Result) -> str:
    from reading_maths.integrity.run import calibration

    figures = calibration()
    if not figures:
        return "<p>Calibration: not measured on this installation.</p>"
    lines = [f"{a}: {f['copies']} planted copies ({', '.join(f['copy_scores'])}) scored {f['lowest_copy']:.2f} or "
             f"more, every one of them flagged ({f['copies_flagged']:.0%}); {f['honest_pairs']} pairs of honest, "
             f"independent answers scored at most {f['highest_honest']:.2f}, {f['honest_flagged']:.0%} flagged"
             for a, f in figures.items()]
    return (f"<p>Calibration (planted copies in a class built from the graders' corpora, threshold "
            f"{result.threshold:.2f}): " + html.escape("; ".join(lines)) + ".</p>")


def _pair_rows(pairs: list[Pair], start: int, pages: dict[tuple[str, str], str], threshold: float) -> list[list[str]]:
    rows = []
    for rank, pair in enumerate(pairs, start):
        page = pages.get((pair.a, pair.b))
        link = f"<a href='{page}'>side by side</a>" if page else ""
        flag = " class='flag'" if pair.score >= threshold else ""
        rows.append([str(rank), html.escape(pair.a), html.escape(pair.b), f"<span{flag}>{pair.score:.2f}</span>",
                     html.escape(pair.reason()), link])
    return rows


def _highlighted(text: str, spans: list[tuple[int, int]]) -> str:
    out, at = [], 0
    for start, end in sorted(spans):
        start = max(start, at)
        if end <= start:
            continue
        out += [html.escape(text[at:start]), "<span class='hl-a'>", html.escape(text[start:end]), "</span>"]
        at = end
    out.append(html.escape(text[at:]))
    return inert_html("<pre>" + "".join(out) + "</pre>")


def _trail_rows(result: Result, pair: Pair) -> list[list[str]]:
    rows = []
    for who in (pair.a, pair.b):
        trail = result.trails.get(who)
        if trail is None:
            rows.append([html.escape(who), "(not a student)", "", ""])
            continue
        full = "; ".join(f"{q}: {when}" for q, when in sorted(trail.first_full.items(), key=lambda x: x[1]))
        rows.append([html.escape(who), html.escape(trail.submitted or "unknown") +
                     (f" ({html.escape(trail.source)})" if trail.source else ""), str(trail.checks),
                     html.escape(full or "never, in a check")])
    return rows


def pair_page(result: Result, pair: Pair, rank: int) -> str:
    """One pair side by side: the score and reason, the evidence table, and each matched part highlighted."""
    body = [f"<p>Rank {rank}, score {pair.score:.2f}: {html.escape(pair.reason())}.</p>",
            f"<p>Compared parts: {html.escape(', '.join(pair.compared) or 'none')}. <a href='index.html'>All pairs"
            "</a></p>", "<h2>Checks and submission times</h2>",
            _table(["student", "submitted (recorded)", "checks asked", "first full marks in a check, by question"],
                   _trail_rows(result, pair))]
    boilerplate = all_hashes(result.given)
    for match in sorted(pair.matches, key=lambda m: -m.containment * m.weight):
        docs = result.documents[match.part]
        left, right = docs[pair.a], docs[pair.b]
        drop = (boilerplate if left.kind == "python" else set()) | result.common.get(match.part, set())
        spans = regions(fingerprint(left, drop), fingerprint(right, drop))
        body += [f"<h2>{html.escape(match.part)}: {match.containment:.0%} of {match.weight} characters</h2>",
                 "<div class='sides'>",
                 f"<div><h3>{html.escape(pair.a)}</h3>{_highlighted(left.text, spans[0])}</div>",
                 f"<div><h3>{html.escape(pair.b)}</h3>{_highlighted(right.text, spans[1])}</div>", "</div>"]
    return _page(f"{result.assignment}: {pair.a} and {pair.b}", body)


def write(result: Result, out: Path) -> Path:
    """``out/index.html``, ``out/pair-NNN.html`` for the flagged pairs (at least the first :data:`SHOWN`) and
    ``out/integrity.json`` (the same data, for scripts)."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("pair-*.html"):
        old.unlink()
    shown = max(len(result.flagged()), min(SHOWN, len(result.pairs)))
    pages: dict[tuple[str, str], str] = {}
    for rank, pair in enumerate(result.pairs[:shown] + result.sources[:SHOWN], 1):
        name = f"pair-{rank:03d}.html"
        pages[(pair.a, pair.b)] = name
        (out / name).write_text(pair_page(result, pair, rank), encoding="utf-8")
    body = [f"<p>{len(result.students)} submissions compared, every pair; {len(result.flagged())} pair(s) at or "
            f"above {result.threshold:.2f}.</p>", HOW_TO_READ, _calibration(result), "<h2>Pairs, most alike first</h2>",
            _table(["rank", "student", "student", "score", "what matches", ""],
                   _pair_rows(result.pairs[:max(shown, 100)], 1, pages, result.threshold))]
    if result.sources:
        body += ["<h2>Entries like the worked entry or the course's formulas</h2>",
                 _table(["rank", "student", "source", "score", "what matches", ""],
                        _pair_rows(result.sources[:SHOWN], shown + 1, pages, result.threshold))]
    body += ["<h2>Identical notebooks (the same answer cells)</h2>",
             _table(["students"], [[html.escape(", ".join(g))] for g in result.identical]) if result.identical
             else "<p>None.</p>"]
    if result.unread:
        body += ["<h2>Submissions not read</h2>",
                 _table(["student", "why"], [[html.escape(s), html.escape(w)] for s, w in result.unread.items()])]
    (out / "integrity.json").write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")
    index = out / "index.html"
    index.write_text(_page(f"{result.assignment}: similar answers", body), encoding="utf-8")
    return index
