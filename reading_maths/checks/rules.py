"""The limits an instructor sets on checks, per assignment, in the course's ``checks.toml``::

    [defaults]                 # every assignment, unless its own table says otherwise
    attempts = 3               # checks allowed per window (0: no checks at all)
    window = "1d"              # the sliding window: "90s", "30m", "1h", "2d" (or seconds, as a number)
    per = "notebook"           # "notebook": each check counts once; "question": each question checked counts
    show = "both"              # what a student sees: "scores", "messages" or "both"
    closes = "2026-12-15T23:59:00+00:00"   # no check accepted from then on (ISO 8601; no time zone = UTC)
    budget = "30s"             # a check's wall-clock budget for all its cells and calls (default: a batch's, 8 times
                               # the reference solution's own grading time and at least 30 s)

    [assignments.code]
    attempts = 1
    window = "24h"

A course without the file gets the defaults above (with no closing time) for every assignment.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

FILE = "checks.toml"
SHOWN = ("both", "scores", "messages")
COUNTED = ("notebook", "question")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_BUDGET = timedelta(seconds=300)


class BadRules(ValueError):
    """checks.toml says something that is not a limit."""


@dataclass(frozen=True)
class Rules:
    """One assignment's limits (see the module docstring for what each means)."""

    attempts: int = 3
    window: timedelta = timedelta(days=1)
    """3 checks a day by default: what checks reveal of the hidden tests stays small (docs/security.md)"""
    per: str = "notebook"
    show: str = "both"
    closes: datetime | None = None
    budget: timedelta | None = None
    """A check's whole-notebook time budget; None: a batch's (:func:`reading_maths.grading.budget.budget_for`, a
    multiple of the reference's own grading time), so that a slow notebook cannot hold a worker for minutes."""

    def closed(self, now: datetime) -> bool:
        return self.closes is not None and now >= self.closes


def duration(value, name: str = "window") -> timedelta:
    """``"30m"``, ``"1h"``, ``"2d"``, ``"90s"`` or a number of seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return timedelta(seconds=value)
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*", str(value))
    if not match or float(match[1]) <= 0:
        raise BadRules(f"{name} {value!r} is not a duration such as '30m', '1h' or '2d'")
    return timedelta(seconds=float(match[1]) * _UNITS[match[2]])


def spoken(window: timedelta) -> str:
    """A window as checks.toml would say it: ``"1h"``, ``"30m"``, ``"2d"``, ``"90s"``."""
    seconds = window.total_seconds()
    unit = next(u for u in "dhms" if seconds % _UNITS[u] == 0 or u == "s")
    return f"{seconds / _UNITS[unit]:g}{unit}"


def moment(value) -> datetime:
    """An ISO 8601 time (a TOML date-time too); without a time zone it is UTC."""
    when = value if isinstance(value, datetime) else None
    if when is None:
        try:
            when = datetime.fromisoformat(str(value))
        except ValueError:
            raise BadRules(f"closes {value!r} is not an ISO 8601 time such as 2026-12-15T23:59:00+00:00") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _apply(base: Rules, table: dict, where: str) -> Rules:
    known = {f.name for f in fields(Rules)}
    unknown = set(table) - known
    if unknown:
        raise BadRules(f"{where}: unknown setting(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
    changes = dict(table)
    if "attempts" in changes and (not isinstance(changes["attempts"], int) or changes["attempts"] < 0):
        raise BadRules(f"{where}: attempts must be a whole number, 0 or more")
    if "window" in changes:
        changes["window"] = duration(changes["window"])
    if "budget" in changes:
        changes["budget"] = duration(changes["budget"], "budget")
        if changes["budget"] > MAX_BUDGET:
            raise BadRules(f"{where}: budget must be at most {spoken(MAX_BUDGET)} (a batch's own budget)")
    if "closes" in changes:
        changes["closes"] = moment(changes["closes"]) if changes["closes"] not in ("", None) else None
    for name, allowed in (("per", COUNTED), ("show", SHOWN)):
        if name in changes and changes[name] not in allowed:
            raise BadRules(f"{where}: {name} must be one of {', '.join(allowed)}, not {changes[name]!r}")
    return replace(base, **changes)


@dataclass(frozen=True)
class CourseRules:
    """Every assignment's rules: the defaults, and each assignment's own table over them."""

    defaults: Rules
    own: dict[str, Rules]

    def of(self, assignment: str) -> Rules:
        return self.own.get(assignment, self.defaults)


def parse(text: str) -> CourseRules:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadRules(f"{FILE}: {exc}") from None
    unknown = set(data) - {"defaults", "assignments"}
    if unknown:
        raise BadRules(f"{FILE}: unknown table(s) {', '.join(sorted(unknown))} (known: defaults, assignments)")
    defaults = _apply(Rules(), data.get("defaults", {}), "[defaults]")
    own = {name: _apply(defaults, table, f"[assignments.{name}]")
           for name, table in data.get("assignments", {}).items()}
    return CourseRules(defaults, own)


def load(root: Path) -> CourseRules:
    """The rules of the course at ``root`` (read each time: an instructor's edit applies to the next request;
    parsed again only when the file's bytes differ from the last ones parsed)."""
    path = Path(root) / FILE
    if not path.is_file():
        return CourseRules(Rules(), {})
    data = path.read_bytes()
    kept = _parsed.get(path)
    if kept is not None and kept[0] == data:
        return kept[1]
    rules = parse(data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))  # as read_text() reads it
    _parsed[path] = (data, rules)
    return rules


_parsed: dict[Path, tuple[bytes, CourseRules]] = {}
"""Each course's checks.toml as last read, and its rules (frozen: shared by every request until it changes)."""
