"""Times and results as a student reads them: in their own time zone and in words, a result's mark in words too.

The checks service's pages carry no script (the course's Content-Security-Policy), so the student's zone comes
from the hub's JupyterLab extension, which keeps the browser's zone in a cookie for the service
(:data:`ZONE_COOKIE`); without it, times are in UTC and say so.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ZONE_COOKIE = "reading_maths_tz"
_ZONE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}$")


def zone(name: str | None) -> tzinfo:
    """The IANA zone ``name`` (from a cookie, %-quoted or not: anything else gives UTC)."""
    name = unquote(name) if name else name
    if not name or len(name) > 64 or not _ZONE_NAME.match(name):
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return UTC


def zone_label(where: tzinfo) -> str:
    return "UTC" if where is UTC else str(getattr(where, "key", where))


def _clock(moment: datetime) -> str:
    return f"{moment:%H:%M}"


def _span(seconds: float) -> str:
    minutes = int(abs(seconds) // 60)
    if minutes < 60:
        return f"{minutes} minute{'s' * (minutes != 1)}"
    hours = minutes // 60
    return f"{hours} hour{'s' * (hours != 1)}" + (f" {minutes % 60} minutes" if minutes % 60 else "")


def _aware(moment: datetime | str) -> datetime:
    """``moment`` as an aware datetime (an ISO text read; a naive one taken as UTC)."""
    moment = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def in_words(moment: datetime | str | None, where: tzinfo = UTC, now: datetime | None = None) -> str:
    """``moment`` in words, seen from ``now`` in zone ``where``: "just now", "42 minutes ago", "in 42 minutes",
    "today 17:03", "yesterday 17:03", "tomorrow 09:00", "Mon 3 Feb 17:03", "Mon 3 Feb 2025 17:03"."""
    if moment is None:
        return ""
    moment = _aware(moment)
    now = (now or datetime.now(UTC)).astimezone(where)
    local = moment.astimezone(where)
    seconds = (local - now).total_seconds()
    if abs(seconds) < 60:
        return "just now" if seconds <= 0 else "in less than a minute"
    if abs(seconds) < 3600:
        return f"in {_span(seconds)}" if seconds > 0 else f"{_span(seconds)} ago"
    days = (local.date() - now.date()).days
    named = {0: "today", -1: "yesterday", 1: "tomorrow"}
    if days in named:
        return f"{named[days]} {_clock(local)}"
    year = f" {local.year}" if local.year != now.year or abs(days) > 300 else ""
    return f"{local:%a} {local.day} {local:%b}{year} {_clock(local)}"


def full(moment: datetime | str | None, where: tzinfo = UTC) -> str:
    """``moment`` in full in zone ``where``: "Sun 6 Dec 2026, 07:12 (Europe/London)"."""
    if moment is None:
        return ""
    moment = _aware(moment)
    local = moment.astimezone(where)
    return f"{local:%a} {local.day} {local:%b} {local.year}, {_clock(local)} ({zone_label(where)})"


def mark(question: dict) -> tuple[str, str]:
    """A question's result as ``(kind, words)``, never colour alone: ``full``, ``part``, ``none`` (its points), or
    ``error``, ``timeout``, ``missing`` (not graded normally), or ``hidden`` (the instructor shows no points)."""
    status = question.get("status")
    if status in ("error", "timeout", "missing"):
        return status, {"error": "⚠ error", "timeout": "⚠ timed out", "missing": "⚠ missing"}[status]
    if "score" not in question:
        return "hidden", "—"
    score, top = float(question["score"]), float(question["max_score"])
    if score >= top:
        return "full", "✓ full marks"
    if score > 0:
        return "part", "◐ some points"
    return "none", "✗ no points"

