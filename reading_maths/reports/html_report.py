"""``report.html``: score distributions, per-question difficulty and the most common mistakes, as plots
(base64 PNG, embedded) and the tables behind them. It typesets nothing (student text is escaped) and carries the
course's Content-Security-Policy (:data:`reading_maths.reports.escape.PAGE_POLICY`: no script, nothing loaded)."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from reading_maths.integrity.run import Result
from reading_maths.reports.class_data import ReportData
from reading_maths.reports.escape import csp_meta


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()  # the labels inside the figure's own width
    fig.savefig(buffer, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


WIDTH = 10.5
"""inches: the plots' width at 90 dpi fits a laptop's browser window (about 950 pixels)"""


def plots(data: ReportData) -> dict[str, str]:
    """Base64 PNGs: score distributions, per-question difficulty, most common mistakes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    images: dict[str, str] = {}
    columns = min(3, max(1, len(data.assignments)))
    rows = -(-max(1, len(data.assignments)) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(WIDTH, 2.8 * rows), squeeze=False)
    for ax in axes.flat[len(data.assignments):]:
        ax.set_visible(False)
    for ax, a in zip(axes.flat, data.assignments, strict=False):
        scores = [s.scores[a] for s in data.students if s.submitted.get(a)]
        top = data.max_scores[a] or 1
        ax.hist(scores, bins=min(10, max(3, len(set(scores)))), range=(0, top), color="#4472c4", edgecolor="white")
        ax.set_xlim(0, top)
        ax.set_ylim(bottom=0, top=max(1, ax.get_ylim()[1]))
        ax.yaxis.get_major_locator().set_params(integer=True)
        pending = sum(data.awaiting.get(a, {}).values())
        ax.set_title(f"{a} (max {top:g})" + (", hand-marking pending" if pending else ""), fontsize=10)
        ax.set_xlabel("score")
        ax.set_ylabel("students")
    images["distribution"] = _png(fig)

    difficulty = [(f"{a}/{q}", v) for a, qs in data.difficulty().items() for q, v in qs.items()]
    fig, ax = plt.subplots(figsize=(WIDTH, max(1.5, 0.28 * len(difficulty) + 0.8)))
    ax.barh([k for k, _ in difficulty][::-1], [v for _, v in difficulty][::-1], color="#70ad47")
    ax.set_xlim(0, 1)
    ax.set_xlabel("mean fraction of the points (low = hard)")
    ax.set_title("per-question difficulty" + (" (questions awaiting hand-marking left out)"
                                                 if any(any(q.values()) for q in data.awaiting.values()) else ""))
    ax.tick_params(axis="y", labelsize=8)
    images["difficulty"] = _png(fig)

    common = data.mistakes[:15]
    if not common:
        return images
    fig, ax = plt.subplots(figsize=(WIDTH, 0.3 * len(common) + 0.8))
    labels = [_short(f"{m.assignment}/{m.question}: {m.mistake}") for m in common][::-1]
    ax.barh(labels, [m.count for m in common][::-1], color="#c00000")
    ax.set_xlabel("students")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("most common diagnosed mistakes")
    ax.tick_params(axis="y", labelsize=8)
    images["mistakes"] = _png(fig)
    return images


def _short(label: str, limit: int = 60) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _table(header: list[str], rows: list[list[object]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _times_section(data: ReportData) -> list[str]:
    """The submissions whose student-written times disagree with the recorded one (every cell escaped)."""
    head = ["<h2 id='submission-times'>Submission times the students' own disagree with</h2>"]
    if not data.time_disagreements:
        return [*head, "<p>None: every collected submission's own times agree with the recorded one "
                "(within a minute).</p>"]
    rows: list[list[object]] = [[t.assignment, t.student, f"{t.recorded} ({t.source})",
             "; ".join(f"{where}: {said}" for where, said in t.claimed.items())] for t in data.time_disagreements]
    return [*head, ("<p>The late penalty follows the recorded time, which the student cannot set; the student "
                    "wrote another (a back-dated exchange entry, or a clock that was wrong).</p>"),
            "<div class='submission-times'>",
            _table(["assignment", "student", "recorded (late penalty's)", "the student's own times"], rows),
            "</div>"]


def _integrity_section(similar: dict[str, Result]) -> list[str]:
    """The pairs most alike per assignment, linked to their side-by-side pages (``integrity/<assignment>/``)."""
    parts = ["<h2 id='integrity'>Similar answers</h2>",
             "<p>Every pair of submissions compared, code and \"Build this\" entries; evidence to read, not a verdict "
             "(how to read it, its limits and its calibration: each assignment's page).</p>"]
    for a, result in similar.items():
        rows: list[list[object]] = [[rank, f"{p.a}, {p.b}", f"{p.score:.2f}", p.reason()]
                                    for rank, p in enumerate(result.pairs[:5], 1)]
        parts += [f"<h3><a href='integrity/{html.escape(a)}/index.html'>{html.escape(a)}</a>: "
                  f"{len(result.flagged())} pair(s) at or above {result.threshold:.2f}"
                  + (f", {len(result.identical)} group(s) of identical notebooks" if result.identical else "")
                  + "</h3>", _table(["rank", "students", "score", "what matches"], rows) if rows else
                  "<p>No two submissions share code.</p>"]
    return parts


def write_html(data: ReportData, path: Path, title: str = "reading-maths: class report",
               similar: dict[str, Result] | None = None) -> None:
    images = plots(data)
    summary_rows = []
    for a in data.assignments:
        scores = sorted(s.scores[a] for s in data.students if s.submitted.get(a))
        late = sum(1 for s in data.students if s.penalties.get(a))
        mean = sum(scores) / len(scores) if scores else 0.0
        median = scores[len(scores) // 2] if scores else 0.0
        pending = data.awaiting.get(a, {})
        waiting = (f"{max(pending.values())} submission(s): {', '.join(pending)}" if pending else "none")
        summary_rows.append([a, f"{data.max_scores[a]:g}", len(scores), f"{mean:.2f}", f"{median:g}", late, waiting])
    means = data.difficulty()
    difficulty_rows = [[a, q, f"{data.question_max[a].get(q, 0):g}",
                        f"{means[a][q]:.2f}" if q in means[a] else "awaiting hand-marking",
                        len(data.question_fractions[a].get(q, [])), data.awaiting[a].get(q, 0)]
                       for a in data.assignments for q in data.question_max[a]
                       if q in means[a] or data.awaiting[a].get(q)]
    left_out = (f" Not in this report (no submission yet): {', '.join(data.left_out)}." if data.left_out else "")
    mistake_rows = [[m.assignment, m.question, m.mistake, m.count, m.message.split(". ")[0]] for m in data.mistakes]
    parts = [
        # the course's Content-Security-Policy first (no script, nothing loaded), then the page
        f"<!doctype html><html lang='en'><head>{csp_meta()}<meta charset='utf-8'><title>{html.escape(title)}</title>",
        ("<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}img{max-width:100%}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
        "th{background:#eee}</style></head><body>"),
        f"<h1>{html.escape(title)}</h1>",
        (f"<p>{len(data.students)} students; from the nbgrader gradebook (late penalties and hand-marked scores "
         "included; a hand-marked answer not yet marked counts 0 until it is)." + html.escape(left_out) + "</p>"),
        "<h2>Scores</h2>",
        _table(["assignment", "max", "submitted", "mean", "median", "late", "awaiting hand-marking"], summary_rows),
        f"<img alt='score distribution per assignment' src='data:image/png;base64,{images['distribution']}'>",
        "<h2>Per-question difficulty</h2>",
        f"<img alt='per-question difficulty' src='data:image/png;base64,{images['difficulty']}'>",
        _table(["assignment", "question", "points", "mean fraction", "graded", "awaiting hand-marking"],
               difficulty_rows),
        "<h2 id='mistakes'>Most common mistakes</h2>",
        (f"<img alt='most common mistakes' src='data:image/png;base64,{images['mistakes']}'>" if "mistakes" in images
         else "<p>No catalogued mistake was diagnosed.</p>"),
        "<div class='mistakes'>",
        _table(["assignment", "question", "mistake", "count", "what the feedback says"], mistake_rows),
        "</div>",
        *_times_section(data),
        *_integrity_section(similar or {}),
        "</body></html>",
    ]
    path.write_text("\n".join(parts), encoding="utf-8")
