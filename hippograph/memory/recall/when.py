"""Questions that ask when, memories that say when, and the days, months and years a question names.

"When did Caroline go to the support group?" is answered by the turn that says "I went to a
support group yesterday", not by the turns that talk about the group. So when a query asks when
(or how long, or what year), recall boosts the memories that carry a time expression: hybrid's
score times ``1 + time_boost`` for them (``hippograph.graph.recall.TimeMatch``). The memory side
is a regular expression the recall statement matches (``=~``, Java's regex syntax, which these
patterns share with Python's), so a memory stored before this rule counts as one stored after.

"What did Maria donate in December 2023?" names when its answer was said. So when a query names a
day, a month or a year (``named_periods``), the memories written then (``createdAt``) score
``1 + period_boost`` times theirs. A named day reaches from the day before to the day after: the
asker's calendar and the memory's clock may sit in different time zones. A month named without a
year ("in June") is the last June up to the moment of asking, as a person means it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# A time expression: a relative day or period, a month, a weekday (and a year, below). "last week"
# or "next month" need no entry of their own: "week" and "month" are ones.
TIME_WORDS = (
    "yesterday",
    "today",
    "tonight",
    "tomorrow",
    "ago",
    "recently",
    "since",
    "weekend",
    "weeks?",
    "months?",
    "years?",
    *MONTHS,
    *DAYS,
    "last (?:night|summer|winter|spring|fall)",
    "this (?:morning|summer)",
)
YEAR = r"(?:19|20)\d\d"


def _by_first_letter(words: tuple[str, ...]) -> str:
    """One alternative per first letter: matched at every word start of a candidate, the pattern then
    tries one branch there, not every word (measured in Neo4j on 2,000 memories: 46 ms against 64)."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(word[1:])
    return "|".join(f"{letter}(?:{'|'.join(rests)})" for letter, rests in sorted(groups.items()))


# What the recall statement matches a memory's content against: Cypher's =~ matches the whole string.
SAYS_WHEN = rf"(?is).*\b(?:{_by_first_letter(TIME_WORDS)}|{YEAR})\b.*"

ASKS_WHEN = re.compile(
    r"^\s*(?:when|how long|since when|what (?:year|month|date|day|time))\b|\bhow many (?:years|months|weeks|days)\b",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """Whether ``query`` asks for a time: when, how long, since when, what year, how many weeks."""
    return ASKS_WHEN.search(query) is not None


@dataclass(frozen=True)
class Period:
    """``[start, end)``: a stretch of time a query names."""

    start: datetime
    end: datetime


# MONTHS and their three-letter forms ("sept" too), each with its number; longest first in the pattern,
# so that "june" wins over "jun".
_MONTH_NUMBERS = {name: n for n, name in enumerate(MONTHS, 1)} | {name[:3]: n for n, name in enumerate(MONTHS, 1)}
_MONTH_NUMBERS["sept"] = 9
_MONTH = "(?P<month>" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = rf"(?P<year>{YEAR})"
# Most precise first: a day ("October 13, 2023", "13 October 2023"), a month ("July 2023"), a year, and
# last a month without its year, after "in" or "during" ("in June"; "may" alone is a verb as often).
NAMED = (
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_YEAR}\b"),
    re.compile(rf"\b(?:in|during)\s+(?:the\s+month\s+of\s+)?{_MONTH}(?![\w-])", re.IGNORECASE),
)
DAY_SLACK = timedelta(days=1)


def named_periods(query: str, now: datetime) -> list[Period]:
    """The days, months and years ``query`` names, each once, in the order found (a date that does not
    exist, "February 30, 2023", names nothing); a month without its year is its last one up to ``now``."""
    periods: list[Period] = []
    rest = query
    for pattern in NAMED:
        for match in pattern.finditer(rest):
            period = _period(match, now)
            if period is not None and period not in periods:
                periods.append(period)
        # What one pattern read is not read again by a coarser one: "13 October 2023" names no month.
        rest = pattern.sub(" ", rest)
    return periods


def _period(match: re.Match[str], now: datetime) -> Period | None:
    found = match.groupdict()
    month = _MONTH_NUMBERS[found["month"].lower()] if found.get("month") else None
    if found.get("year"):
        year = int(found["year"])
    else:  # a month without its year: the last one up to now, this month included
        year = now.year if month is not None and month <= now.month else now.year - 1
    try:
        if found.get("day"):
            day = datetime(year, month or 1, int(found["day"]), tzinfo=UTC)
            return Period(day - DAY_SLACK, day + timedelta(days=1) + DAY_SLACK)
        if month is not None:
            return Period(
                datetime(year, month, 1, tzinfo=UTC), datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
            )
    except ValueError:
        return None
    return Period(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
