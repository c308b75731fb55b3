"""What a query says, read once: its words and keywords, the phrases that may name someone, the periods
it names, whether it asks when, and its style.

Recall reads the query through this one analysis: the keyword branch takes its keywords, the names
lookup its phrases, the speaker match its words, the time boost whether it asks when, the period
boost its periods, and the weights its style. None of them takes the text apart again.

A query's style says how it asks. Agents recall with what the user just said, which is as often a
statement ("I ended up volunteering and now I'm overwhelmed") as a question ("When did Caroline go to
the support group?"); a person searching types keywords ("support group caroline"). The signals do
not serve the three alike: a statement shares few words with what it recalls, so its keywords are
mostly noise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from hippograph.memory.recall import lucene, names, when


class Style(str, Enum):
    QUESTION = "question"
    REQUEST = "request"
    STATEMENT = "statement"
    KEYWORDS = "keywords"


# A sentence that opens with one of these asks, with or without its question mark; so does any that
# ends with one ("Was it a good month? Answer yes or no.").
QUESTION_WORDS = frozenset(["what", "when", "where", "which", "who", "whom", "whose", "why", "how"])
# Asking the listener for suggestions, advice or help ("Can you suggest a hotel for my trip?", "Any
# tips?", "What should I bake?"): what answers it is what the asker likes and has said, seldom in the
# request's own words.
_REQUESTS = re.compile(
    r"\b(?:can|could|would|will) you (?:please )?"
    r"(?:suggest|recommend|help|advise|give me|share|think of|come up with)\b"
    r"|\bdo you (?:have|know) any\b|\bany (?:ideas|suggestions|tips|recommendations|advice)\b"
    r"|\bwhat (?:should|can) i\b|^\W*(?:please )?(?:suggest|recommend)\b|\bwould it be a good idea\b",
    re.IGNORECASE,
)
# Nothing but keywords and a few words: a search, not a sentence.
MOST_KEYWORD_WORDS = 8
_ASKS = re.compile(r"[^\W_]\W*\?")


@dataclass(frozen=True)
class QueryAnalysis:
    """The query's text and what recall reads in it (``analyse``)."""

    text: str
    # Lower-cased, each once, in order: what a speaker's name is matched against.
    words: tuple[str, ...]
    # The words that are not stop words: what the keyword branch and the entity anchors search for.
    keywords: tuple[str, ...]
    # Runs of one to three words, as a speaker is written: the names lookup settles which name someone.
    phrases: tuple[str, ...]
    asks_when: bool
    periods: tuple[when.Period, ...]
    style: Style

    def without(self, named: Sequence[str]) -> str:
        """The query said without the people it names (``names.without``)."""
        return names.without(self.text, named)


def analyse(text: str, now: datetime) -> QueryAnalysis:
    """Read ``text`` once; ``now`` places a month named without its year."""
    words = tuple(lucene.words(text))
    keywords = tuple(lucene.keywords_among(words))
    return QueryAnalysis(
        text=text,
        words=words,
        keywords=keywords,
        phrases=tuple(names.phrases_among(words)),
        asks_when=when.asks_when(text),
        periods=tuple(when.named_periods(text, now)),
        style=style(text, words, keywords),
    )


def style(text: str, words: Sequence[str], keywords: Sequence[str]) -> Style:
    """A request asks for suggestions, advice or help; a question has a question mark after a word or
    opens with a question word; a run of at most
    ``MOST_KEYWORD_WORDS`` words none of which is a stop word is keywords; the rest are statements."""
    if _REQUESTS.search(text):
        return Style.REQUEST
    if _ASKS.search(text) or (words and words[0] in QUESTION_WORDS):
        return Style.QUESTION
    if words and len(words) <= MOST_KEYWORD_WORDS and all(word not in lucene.STOP_WORDS for word in words):
        return Style.KEYWORDS
    return Style.STATEMENT
