"""Progress over time from the checks record (reading_maths/checks/progress.py) and the history page that shows it:
a student's points per question over their checks, what changed since the last, the attempts left; the class's for
the instructor: who checked, the median points per question day by day, who has not started."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tornado import template

from reading_maths.checks import progress, rules, words

PAGES = Path(__file__).resolve().parents[1] / "hub" / "checks_pages"
NOW = datetime(2026, 12, 6, 17, 30, tzinfo=UTC)


def row(check_id: int, user: str, asked: datetime, scores: dict[str, float] | None, outcome: str = "graded") -> dict:
    shown = {"questions": [{"id": q, "score": s, "max_score": 10.0, "status": "passed"} for q, s in scores.items()]
             } if scores is not None else None
    return {"id": check_id, "user": user, "assignment": "code", "notebook": "code/code.ipynb",
            "asked_at": asked.isoformat(timespec="seconds"), "outcome": outcome, "refusal": None,
            "next_allowed": None, "shown": shown, "sha256": "0" * 64}


ADA = [row(1, "ada", NOW - timedelta(days=1, hours=2), {"softmax": 4, "adam": 0}),
       row(2, "ada", NOW - timedelta(hours=3), {"softmax": 10, "adam": 0}),
       row(3, "ada", NOW - timedelta(minutes=30), None, outcome="refused"),
       row(4, "ada", NOW - timedelta(minutes=20), {"softmax": 8, "adam": 5})]
BOB = [row(5, "bob", NOW - timedelta(hours=2), {"softmax": 2, "adam": 10})]


def limits(tmp_path: Path, text: str):
    (tmp_path / rules.FILE).write_text(text)
    return rules.load(tmp_path)


def counted(rows):
    def used(assignment, since):
        return [(datetime.fromisoformat(r["asked_at"]), ["softmax", "adam"]) for r in rows
                if r["assignment"] == assignment and r["outcome"] in ("graded", "pending")
                and datetime.fromisoformat(r["asked_at"]) >= since]
    return used


def test_a_students_points_over_their_checks_and_the_change_since_the_last(tmp_path):
    course = limits(tmp_path, '[assignments.code]\nattempts = 3\nwindow = "1d"\n')
    [code] = progress.student(list(reversed(ADA)), course, counted(ADA), NOW)
    assert [c["id"] for c in code.checks] == [1, 2, 4] and code.questions == ["softmax", "adam"]
    assert [c["scores"]["softmax"] for c in code.checks] == [4, 10, 8]
    assert code.change == {"softmax": -2, "adam": 5}
    assert [progress.change_words(code.change[q]) for q in code.questions] == ["−2", "+5"]
    assert progress.change_words(0) == "no change" and progress.change_words(None) == "—"
    # checks 2 and 4 are in the day's window (check 1 left it two hours ago): one of three left
    assert code.attempts.left == {None: 1} and code.attempts.next_at is None
    assert code.attempts.words() == "1 of 3 per day left"


def test_none_left_says_when_the_next_one_is(tmp_path):
    course = limits(tmp_path, '[assignments.code]\nattempts = 2\nwindow = "1d"\n')
    [code] = progress.student(ADA, course, counted(ADA), NOW)
    assert code.attempts.left == {None: 0}
    assert code.attempts.next_at == datetime.fromisoformat(ADA[1]["asked_at"]) + timedelta(days=1)


def test_per_question_attempts(tmp_path):
    course = limits(tmp_path, '[assignments.code]\nattempts = 2\nwindow = "1d"\nper = "question"\n')
    [code] = progress.student(BOB, course, counted(BOB), NOW)
    assert code.attempts.left == {"softmax": 1, "adam": 1}
    assert code.attempts.words() == "left per question (2 per day): softmax: 1, adam: 1"


def test_the_class_day_by_day_and_who_has_not_started():
    rows = ADA + BOB + [row(6, "teacher", NOW, {"softmax": 10, "adam": 10})]
    [code] = progress.whole_class(rows, ["ada", "bob", "eve"], UTC)
    assert code.checked == ["ada", "bob", "teacher"] and (code.on_list, code.roster) == (2, 3)
    assert code.not_started == ["eve"]
    assert [d["day"].isoformat() for d in code.days] == ["2026-12-05", "2026-12-06"]
    assert code.days[0] == {"day": code.days[0]["day"], "students": 1, "median": {"softmax": 4, "adam": 0}}
    # the 6th: ada's latest (8, 5), bob's (2, 10), the teacher's (10, 10)
    assert code.days[1]["students"] == 3 and code.days[1]["median"] == {"softmax": 8, "adam": 10}


def render(**values) -> str:
    loader = template.Loader(str(PAGES), autoescape="xhtml_escape")
    return loader.load("list.html").generate(
        prefix="/services/checks/", mark=words.mark, when=lambda m: words.in_words(m, UTC, NOW),
        full=lambda m: words.full(m, UTC), zone_label="UTC", change_words=progress.change_words,
        **values).decode().replace("\n", " ")


def test_the_history_pages(tmp_path):
    course = limits(tmp_path, '[assignments.code]\nattempts = 3\nwindow = "1d"\n')
    mine = progress.student(ADA, course, counted(ADA), NOW)
    page = render(me="ada", instructor=False, rows=list(reversed(ADA)), mine=mine, klass=[], class_list=[])
    assert "code: your points over your checks" in page and "1 of 3 per day left" in page
    assert "4 / 10" in page and "yesterday 15:30" in page and "−2" in page and "+5" in page
    refused = row(7, "ada", NOW, None, outcome="refused") | {"next_allowed": "2026-12-06T18:10:00+00:00", "refusal": (
        "you have used your checks of code (3 per 1d); the next check is allowed at 2026-12-06T18:10:00+00:00")}
    page = render(me="ada", instructor=False, rows=[refused], mine=[], klass=[], class_list=[])
    assert "the next check is allowed in 40 minutes (Sun 6 Dec 2026, 18:10 (UTC))" in page
    assert "2026-12-06T18:10:00+00:00</" not in page  # the stamp stays only in the time element's datetime
    klass = progress.whole_class(ADA + BOB, ["ada", "bob", "eve"], UTC)
    page = render(me="teacher", instructor=True, rows=ADA + BOB, mine=[], klass=klass, class_list=["ada", "bob", "eve"])
    assert "2 of the 3 students on the class list have checked code" in page
    assert "Not started (no check asked): eve." in page and "Sun 06 Dec 2026" in page
