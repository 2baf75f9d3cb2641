"""Times and results as a student reads them on the checks service's pages (reading_maths/checks/words.py): in
their own zone and in words, and a result's mark in words, never in colour alone."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from tornado import template

from reading_maths.checks import words

LONDON, NEW_YORK = ZoneInfo("Europe/London"), ZoneInfo("America/New_York")
NOW = datetime(2026, 12, 6, 17, 30, tzinfo=UTC)
PAGES = Path(__file__).resolve().parents[1] / "hub" / "checks_pages"


def test_times_in_words_from_now():
    said = {when: words.in_words(datetime.fromisoformat(when), LONDON, NOW) for when in (
        "2026-12-06T17:29:40+00:00", "2026-12-06T16:48:00+00:00", "2026-12-06T18:12:00+00:00",
        "2026-12-06T09:03:00+00:00", "2026-12-05T17:03:00+00:00", "2026-12-07T09:00:00+00:00",
        "2026-12-01T17:03:00+00:00", "2025-11-03T17:03:00+00:00")}
    assert list(said.values()) == ["just now", "42 minutes ago", "in 42 minutes", "today 09:03", "yesterday 17:03",
                                   "tomorrow 09:00", "Tue 1 Dec 17:03", "Mon 3 Nov 2025 17:03"]


def test_the_students_zone_decides_the_day():
    late = "2026-12-07T02:00:00+00:00"  # tomorrow in London, still today in New York
    assert words.in_words(late, LONDON, NOW) == "tomorrow 02:00"
    assert words.in_words(late, NEW_YORK, NOW) == "today 21:00"
    assert words.full(late, NEW_YORK) == "Sun 6 Dec 2026, 21:00 (America/New_York)"


def test_a_zone_comes_only_from_a_zone_name():
    assert words.zone("Europe/London") == LONDON == words.zone("Europe%2FLondon")
    for bad in (None, "", "../../etc/passwd", "Nowhere/Town", "x" * 100, "Europe/London\n"):
        assert words.zone(bad) is UTC
    assert words.zone_label(UTC) == "UTC" and words.zone_label(LONDON) == "Europe/London"


def test_marks_say_it_in_words():
    assert words.mark({"score": 2, "max_score": 2, "status": "passed"}) == ("full", "✓ full marks")
    assert words.mark({"score": 1, "max_score": 2, "status": "passed"}) == ("part", "◐ some points")
    assert words.mark({"score": 0, "max_score": 2, "status": "passed"}) == ("none", "✗ no points")
    assert words.mark({"score": 0, "max_score": 2, "status": "timeout"}) == ("timeout", "⚠ timed out")
    assert words.mark({"max_score": 2, "status": None}) == ("hidden", "—")


def test_a_checks_page_in_the_readers_zone_one_row_per_question():
    row = {"id": 7, "user": "ada", "assignment": "code", "notebook": "code/code.ipynb",
           "asked_at": "2026-12-06T16:48:00+00:00", "outcome": "graded", "refusal": None, "next_allowed": None,
           "shown": {"score": 3, "max_score": 4, "questions": [
               {"id": "softmax", "score": 2, "max_score": 2, "status": "passed", "feedback": ["All 14 checks passed."]},
               {"id": "adam", "score": 1, "max_score": 2, "status": "passed", "feedback": ["<b>not bold</b>"]}]}}
    page = template.Loader(str(PAGES), autoescape="xhtml_escape").load("one.html").generate(
        prefix="/services/checks/", me="ada", instructor=False, row=row, mark=words.mark,
        when=lambda m: words.in_words(m, NEW_YORK, NOW), full=lambda m: words.full(m, NEW_YORK),
        zone_label="America/New_York").decode()
    assert "42 minutes ago" in page and "Sun 6 Dec 2026, 11:48 (America/New_York)" in page
    assert 'data-result="full"' in page and "✓ full marks" in page and "◐ some points" in page
    assert "&lt;b&gt;not bold&lt;/b&gt;" in page and "<b>not bold</b>" not in page
    assert "times in America/New_York" in page
