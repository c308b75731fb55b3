"""Questions that ask when, and memories that say when.

"When did Caroline go to the support group?" is answered by the turn that says "I went to a
support group yesterday", not by the turns that talk about the group. So when a query asks when
(or how long, or what year), recall boosts the memories that carry a time expression: hybrid's
score times ``1 + time_boost`` for them (``hippograph.graph.recall.TimeMatch``). The memory side
is a regular expression the recall statement matches (``=~``, Java's regex syntax, which these
patterns share with Python's), so a memory stored before this rule counts as one stored after.
"""

from __future__ import annotations

import re

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# A time expression: a relative day or period, a month, a weekday (and a year, below). "last week"
# or "next month" need no entry of their own: "week" and "month" are ones.
TIME_WORDS = ("yesterday", "today", "tonight", "tomorrow", "ago", "recently", "since", "weekend", "weeks?",
              "months?", "years?", *MONTHS, *DAYS, "last (?:night|summer|winter|spring|fall)",
              "this (?:morning|summer)")
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

