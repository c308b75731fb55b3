"""User text made safe for Lucene: keyword tokenising and escaping.

Recall never hands the user's text to Lucene's query parser. The text is cut
into keywords (runs of letters and digits, lower-cased, stop words dropped),
each keyword is escaped, and the keywords are OR-ed. Whatever the user typed —
``title:x``, ``*``, ``a AND b``, quotes, brackets — reaches the index as plain
terms, so it can neither break the query nor widen it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

# Characters the classic query parser treats as syntax (``&&`` and ``||`` are
# covered by escaping every ``&`` and ``|``).
SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')

# What Lucene's ``english`` analyzer drops (memory_text is indexed with it).
ENGLISH_ANALYZER_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)

# Keywords leave out those and question and function words too: "what did she say about X" is a question about X.
STOP_WORDS = ENGLISH_ANALYZER_STOP_WORDS | frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "any",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "down",
        "during",
        "each",
        "else",
        "ever",
        "few",
        "from",
        "further",
        "get",
        "got",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "might",
        "more",
        "most",
        "must",
        "my",
        "myself",
        "nor",
        "now",
        "off",
        "once",
        "only",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "shall",
        "she",
        "should",
        "so",
        "some",
        "than",
        "them",
        "themselves",
        "those",
        "through",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)

MAX_KEYWORDS = 32
MAX_WORDS = 256
MAX_KEYWORD_LENGTH = 64
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def escape(text: str) -> str:
    """``text`` with every Lucene query-syntax character backslash-escaped."""
    return "".join("\\" + ch if ch in SPECIAL else ch for ch in text)


def keywords(text: str) -> list[str]:
    """The keywords of ``text`` (``keywords_among`` its ``words``)."""
    return keywords_among(words(text))


def keywords_among(words: Iterable[str]) -> list[str]:
    """The keywords among a text's ``words``, in order: the words that are not stop words.

    Single letters are dropped (the ``s`` of "Caroline's"), single digits kept. At most
    ``MAX_KEYWORDS`` keywords of at most ``MAX_KEYWORD_LENGTH`` characters each, so a
    pasted essay cannot make a query of thousands of clauses.
    """
    kept = (word for word in words if word not in STOP_WORDS and (len(word) > 1 or word.isdigit()))
    return list(islice(kept, MAX_KEYWORDS))


def owned_query(user_id: str, words: Iterable[str], fields: Sequence[str]) -> str:
    """A Lucene query for ``words`` in ``fields`` only, within the nodes of ``user_id``; '' when there are no words.

    The full-text indexes hold ``userId`` too (migration V0005), so the owner is a clause of
    the query and Lucene never reads another user's hits. Its boost is 0: it filters and
    adds no score, so BM25 is what the keywords alone give. It is a phrase of the id's
    analysed tokens, so it may also let through an id that contains the caller's (recall
    still matches ``userId`` exactly), never shut out the caller's own nodes. An id that
    the analyser would reduce to nothing gets no clause: the search is then as wide as the
    index, which is slower and just as correct.
    """
    terms = keyword_query(words)
    if not terms:
        return ""
    search = " OR ".join(f"{field}:({terms})" for field in fields)
    if not any(token not in ENGLISH_ANALYZER_STOP_WORDS for token in _WORD.findall(user_id.casefold())):
        return search
    return f'userId:"{escape(user_id)}"^0 AND ({search})'


def words(text: str) -> list[str]:
    """The words of ``text``, lower-cased, in order, each once, stop words kept (at most ``MAX_WORDS``):
    what a name is matched against."""
    return list(islice(_distinct_words(text), MAX_WORDS))


def _distinct_words(text: str) -> Iterator[str]:
    """Runs of letters and digits, lower-cased and cut to ``MAX_KEYWORD_LENGTH``, each the first time it comes."""
    seen: set[str] = set()
    for match in _WORD.finditer(text.casefold()):
        word = match.group(0)[:MAX_KEYWORD_LENGTH]
        if word not in seen:
            seen.add(word)
            yield word


def keyword_query(words: Iterable[str]) -> str:
    """A Lucene query matching any of ``words`` as plain terms; '' when there are none.

    Keywords are lower-case, so the parser's upper-case operators (AND, OR, NOT, TO)
    cannot appear; escaping covers every other piece of syntax.
    """
    return " ".join(escape(word.casefold()) for word in words if word)
