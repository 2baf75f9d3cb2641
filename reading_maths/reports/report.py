"""``reading-maths report``: the class's grades for an LMS, and what the class got wrong, from the gradebook.

Everything is read from nbgrader's gradebook (:class:`nbgrader.api.Gradebook`), so the numbers are the
ones ``nbgrader export`` and formgrader show: a submission's score is nbgrader's (hand-marked scores
where an instructor gave one, else the auto scores) minus its late penalty, never below 0.

The mistakes come from the structured results ``reading-maths autograde`` keeps beside each
student's autograded folder (``autograded/<student>/<assignment>.json``, the ``grade --json`` object
of each notebook): the mistakes its graders diagnosed, by id, with the catalogue's message for each
(``mistake_messages``), as grading stored them: no grader runs here.

Outputs, in ``reports/`` under the course root by default:

- ``grades.csv``: one row per student, ``student_id,last_name,first_name,email,<assignment>...,total``;
- ``report.html``: score distributions, per-question difficulty, the most common mistakes (plots
  embedded as base64 PNG) and the tables behind them;
- ``report.json``: the same data, for scripts.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from reading_maths.nbgrader.environment import course_directory, use_nbgrader_env
from reading_maths.reports import spreadsheet


@dataclass
class StudentRow:
    id: str
    last_name: str
    first_name: str
    email: str
    scores: dict[str, float] = field(default_factory=dict)
    """assignment → score after the late penalty (0 when not submitted)"""
    penalties: dict[str, float] = field(default_factory=dict)
    submitted: dict[str, bool] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 6)


@dataclass
class MistakeCount:
    assignment: str
    question: str
    mistake: str
    count: int
    message: str


@dataclass
class ReportData:
    assignments: list[str]
    max_scores: dict[str, float]
    students: list[StudentRow]
    question_max: dict[str, dict[str, float]]
    """assignment → question (grade cell) → points"""
    question_fractions: dict[str, dict[str, list[float]]]
    """assignment → question → each graded submission's score / points"""
    mistakes: list[MistakeCount]
    awaiting: dict[str, dict[str, int]] = field(default_factory=dict)
    """assignment → hand-marked question → submissions not yet marked in formgrader"""
    left_out: list[str] = field(default_factory=list)
    """the gradebook's assignments with no submission yet (not in the report, nor in the LMS CSV)"""

    def difficulty(self) -> dict[str, dict[str, float]]:
        """Mean fraction of the points per question (1 = everyone right); a hand-marked question still
        awaiting marks has no mean yet (its unmarked answers would count as 0)."""
        return {a: {q: round(sum(v) / len(v), 4) for q, v in qs.items() if v and not self.awaiting[a].get(q)}
                for a, qs in self.question_fractions.items()}

    def to_json(self) -> dict:
        return {
            "assignments": self.assignments,
            "max_scores": self.max_scores,
            "students": [asdict(s) | {"total": s.total} for s in self.students],
            "difficulty": self.difficulty(),
            "awaiting_hand_marking": self.awaiting,
            "left_out": self.left_out,
            "mistakes": [asdict(m) for m in self.mistakes],
        }


def diagnosed(coursedir, assignment: str, student: str) -> dict[tuple[str, str], str]:
    """(question, mistake id) -> the mistake's message, for the mistakes the graders diagnosed in a student's
    autograded notebooks, as their results hold them."""
    from reading_maths.nbgrader.recording import results_path

    path = results_path(coursedir, student, assignment)
    try:
        notebooks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # not autograded by reading-maths (yet)
    return {(q["id"], m): q.get("mistake_messages", {}).get(m, "") for result in notebooks.values()
            for q in result.get("questions", []) for m in q.get("mistakes", [])}


def gather(root: Path, only: str | None = None) -> ReportData:
    """Read the gradebook of the course at ``root``: one assignment, or every one with a submission,
    in the order they are due."""
    from nbgrader.api import Gradebook, MissingEntry

    root = Path(root).resolve()
    # nbgrader's Gradebook runs the `alembic` script that lives beside this interpreter
    use_nbgrader_env()
    coursedir = course_directory(root)
    with Gradebook(coursedir.db_url) as gb:
        known = sorted(gb.assignments, key=lambda a: (a.duedate is None, a.duedate or 0, a.name))
        found = [a for a in known if a.name == only or (only is None and a.submissions)]
        if only is not None and not found:
            raise LookupError(f"the gradebook has no assignment {only!r}; it has: "
                              + ", ".join(a.name for a in known))
        names = [a.name for a in found]
        left_out = [a.name for a in known if a.name not in names and only is None]
        max_scores = {a.name: float(a.max_score or 0) for a in found}
        question_max: dict[str, dict[str, float]] = {a: {} for a in names}
        fractions: dict[str, dict[str, list[float]]] = {a: {} for a in names}
        awaiting: dict[str, Counter[str]] = {a: Counter() for a in names}
        counts: Counter[tuple[str, str, str]] = Counter()
        messages: dict[tuple[str, str, str], str] = {}
        rows: list[StudentRow] = []
        for student in sorted(gb.students, key=lambda s: s.id):
            row = StudentRow(student.id, student.last_name or "", student.first_name or "", student.email or "")
            for a in names:
                try:
                    sub = gb.find_submission(a, student.id)
                except MissingEntry:
                    row.scores[a], row.penalties[a], row.submitted[a] = 0.0, 0.0, False
                    continue
                penalty = float(sub.late_submission_penalty or 0.0)
                row.scores[a] = round(max(0.0, float(sub.score or 0.0) - penalty), 6)
                row.penalties[a], row.submitted[a] = penalty, True
                for notebook in sub.notebooks:
                    for grade in notebook.grades:
                        points = float(grade.max_score or 0)
                        question_max[a][grade.name] = points
                        ungraded = grade.needs_manual_grade and grade.manual_score is None
                        if ungraded:
                            awaiting[a][grade.name] += 1
                        elif grade.score is not None and points > 0:
                            fractions[a].setdefault(grade.name, []).append(float(grade.score) / points)
                for (q, m), message in diagnosed(coursedir, a, student.id).items():  # once per student and mistake
                    counts[(a, q, m)] += 1
                    messages[(a, q, m)] = messages.get((a, q, m)) or message
            rows.append(row)
    mistakes = [MistakeCount(a, q, m, n, messages.get((a, q, m), ""))
                for (a, q, m), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return ReportData(names, max_scores, rows, question_max, fractions, mistakes,
                      {a: dict(c) for a, c in awaiting.items()}, left_out)


# -- outputs ----------------------------------------------------------------------------------------

def write_csv(data: ReportData, path: Path) -> None:
    """The LMS import: one row per student, score per assignment (late penalty applied), total."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = spreadsheet.writer(fh)  # every field quoted, no cell a spreadsheet would run as a formula
        out.writerow(spreadsheet.row(["student_id", "last_name", "first_name", "email", *data.assignments, "total"]))
        for s in data.students:
            out.writerow(spreadsheet.row([s.id, s.last_name, s.first_name, s.email,
                                          *(float(s.scores[a]) for a in data.assignments), float(s.total)]))


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


def write_html(data: ReportData, path: Path, title: str = "reading-maths: class report") -> None:
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
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
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
        "</div></body></html>",
    ]
    path.write_text("\n".join(parts), encoding="utf-8")


def build_report(root: Path, out: Path | None = None, assignment: str | None = None) -> dict[str, Path]:
    """Write ``grades.csv``, ``report.html`` and ``report.json`` to ``out`` (``<root>/reports``)."""
    root = Path(root).resolve()
    out = Path(out) if out else root / "reports"
    out.mkdir(parents=True, exist_ok=True)
    data = gather(root, assignment)
    paths = {"csv": out / "grades.csv", "html": out / "report.html", "json": out / "report.json"}
    write_csv(data, paths["csv"])
    write_html(data, paths["html"])
    paths["json"].write_text(json.dumps(data.to_json(), indent=2), encoding="utf-8")
    return paths
