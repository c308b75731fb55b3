"""Summaries and facts from conversation turns: two small protocols and their offline defaults.

The defaults are extractive. They keep the concrete content — names, dates,
numbers, decisions, errors and their fixes — and drop filler (greetings,
thanks, small talk). They need no network and no model beyond the embedder
already loaded: turn embeddings pick the sentences that cover the passage.
``hippograph.memory.lifecycle.llm_summarizer`` implements the same protocols against any
OpenAI-compatible endpoint.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import numpy as np

from hippograph.memory.writing.entities import extract_mentions
from hippograph.memory.tokens import TokenCounter


@dataclass(frozen=True)
class TurnText:
    id: str
    speaker: str
    text: str
    at: str | None = None
    embedding: np.ndarray | None = None


@dataclass(frozen=True)
class Fact:
    content: str
    source_turn_ids: tuple[str, ...]
    kind: str = "fact"  # fact | decision
    at: str | None = None  # when it was said: the fact's creation time
    speaker: str | None = None  # who said it, when one turn did: recall matches it against the query


class Summarizer(Protocol):
    def summarize(self, turns: Sequence[TurnText], max_tokens: int) -> str: ...


class FactExtractor(Protocol):
    def extract(self, turns: Sequence[TurnText]) -> list[Fact]: ...


_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_FILLER = re.compile(
    r"^(hi|hey|hello|yo|good (morning|afternoon|evening|night)|bye|goodbye|see (you|ya)|take care|"
    r"thanks?( you)?|thank you|"
    r"ty|cheers|no problem|np|you're welcome|sure|ok(ay)?|cool|nice|great|awesome|wow|lol|haha+|yeah|yep|yes|no|"
    r"i see|got it|sounds good|that's (great|awesome|amazing|cool|nice|so cool)|me too|same here|totally|absolutely|"
    r"how are you|how's it going|what's up|glad to hear( that)?|good to hear|love (that|it)|so (cool|nice|great)|"
    r"congrats|congratulations)\b[\s!.,?\w']{0,24}$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\b\d[\d,.:/-]*\b")
_DATE = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|"
    r"jul|aug|sep|sept|oct|nov|dec|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|tomorrow|"
    r"(last|next|this|that) (night|morning|weekend|week|month|year|summer|winter|spring|fall|autumn)|weekend|tonight|"
    r"today|ago|\d{4})\b",
    re.IGNORECASE,
)
# Something that happened: "I went", "we've adopted", "I just finished" — what questions are later asked about.
_EVENT = re.compile(
    r"\b(i|we)('ve| have| had|'d)?\s+(just |finally |recently |also |even |already )?"
    r"(\w+ed|went|got|made|took|did|saw|met|ran|won|bought|began|found|gave|wrote|read|built|left|joined|started|"
    r"finished|tried|had|threw|drew|sang|taught|brought|caught|held|kept|lost|paid|sold|spent|told|felt|came)\b",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(decided|decide|decision|chose|choose|going with|we'll use|switch(ed)? to|adopt(ed)?|plan(ned)? to)\b",
    re.IGNORECASE,
)
_ERROR = re.compile(
    r"\b(error|bug|crash(ed)?|fail(ed|ure|s)?|broke(n)?|exception|issue|problem|fix(ed)?|solved|workaround)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|we'd|we'll|us|our|ours)\b", re.IGNORECASE)
_SECOND_PERSON = re.compile(r"\b(you|you're|you've|you'd|you'll|your|yours)\b", re.IGNORECASE)
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "so",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "about",
        "from",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "i",
        "you",
        "he",
        "she",
        "it",
        "we",
        "they",
        "me",
        "my",
        "your",
        "his",
        "her",
        "our",
        "their",
        "this",
        "that",
        "these",
        "those",
        "just",
        "really",
        "very",
        "too",
        "also",
        "have",
        "has",
        "had",
        "do",
        "did",
        "does",
        "not",
        "no",
        "yes",
        "what",
        "how",
        "why",
        "when",
        "where",
        "who",
        "which",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "oh",
        "wow",
        "well",
        "like",
        "get",
        "got",
    ]
)


# Words that say how someone feels about something, not what happened.
_GENERIC = frozenset(
    [
        "great",
        "good",
        "nice",
        "cool",
        "awesome",
        "amazing",
        "wonderful",
        "fantastic",
        "incredible",
        "lovely",
        "love",
        "loved",
        "loves",
        "happy",
        "glad",
        "sorry",
        "thanks",
        "thank",
        "really",
        "so",
        "totally",
        "definitely",
        "super",
        "pretty",
        "quite",
        "lot",
        "lots",
        "thing",
        "things",
        "stuff",
        "something",
        "anything",
        "everything",
        "feel",
        "feeling",
        "felt",
        "know",
        "think",
        "thought",
        "mean",
        "guess",
        "hope",
        "hoping",
        "sure",
        "always",
        "never",
        "ever",
        "even",
        "still",
        "much",
        "many",
        "keep",
        "kind",
        "sort",
        "bit",
        "little",
        "yeah",
        "yep",
        "hey",
        "hi",
        "wow",
        "oh",
        "cute",
        "sweet",
        "fun",
        "exciting",
        "excited",
        "proud",
        "it's",
        "that's",
        "i'm",
        "i've",
        "i'll",
        "you're",
        "you've",
        "what's",
        "there's",
        "let's",
        "don't",
        "can't",
        "didn't",
    ]
)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text.strip()) if s.strip()]


def is_filler(sentence: str) -> bool:
    """Greetings, thanks and small talk: nothing concrete worth keeping."""
    bare = sentence.strip().strip("!.?,;: ")
    if not bare or _FILLER.match(bare):
        return True
    content = [w for w in _WORD.findall(bare) if w.lower() not in _STOPWORDS]
    concrete = _NUMBER.search(bare) or _DATE.search(bare) or extract_mentions(bare, limit=1)
    return len(content) < 3 and not concrete


def salience(sentence: str) -> float:
    """How much concrete content a sentence carries."""
    score = 0.0
    score += 1.5 * min(3, len(_NUMBER.findall(sentence)))
    score += 1.5 * min(2, len(_DATE.findall(sentence)))
    score += 1.0 * min(4, len(names(sentence)))
    score += 2.0 if _DECISION.search(sentence) else 0.0
    score += 2.0 if _ERROR.search(sentence) else 0.0
    score += 1.0 if _EVENT.search(sentence) else 0.0
    score += 0.3 * min(20, len(concrete_words(sentence)))
    # About the listener and not the speaker ("You're so talented!"): a reaction, not news.
    if _SECOND_PERSON.search(sentence) and not _FIRST_PERSON.search(sentence):
        score -= 1.0
    return score


def names(sentence: str) -> list[str]:
    """Proper names in a sentence; its first word counts only inside a longer name ("Yum!" is no name)."""
    opening = sentence.lstrip()
    lowered = opening[:1].lower() + opening[1:]
    return [mention.name for mention in extract_mentions(lowered, limit=4)]


def concrete_words(sentence: str) -> list[str]:
    """Words that carry content: neither function words nor the generic words of small talk."""
    return [w for w in _WORD.findall(sentence) if w.lower() not in _STOPWORDS and w.lower() not in _GENERIC]


@dataclass
class ExtractiveSummarizer:
    """Keeps the most salient, most central sentences, in their original order, within the budget."""

    tokens: TokenCounter
    header: bool = True
    _cache: dict[str, float] = field(default_factory=dict, repr=False)

    def summarize(self, turns: Sequence[TurnText], max_tokens: int) -> str:
        if not turns or max_tokens <= 0:
            return ""
        centre = _centroid(turns)
        scored: list[tuple[float, int, str]] = []
        position = 0
        for turn in turns:
            closeness = float(turn.embedding @ centre) if centre is not None and turn.embedding is not None else 0.0
            for sentence in sentences(turn.text):
                position += 1
                if is_filler(sentence):
                    continue
                scored.append((salience(sentence) + 2.0 * closeness, position, f"{turn.speaker}: {sentence}"))
        prefix = ""
        if self.header:
            span = f" ({turns[0].at} – {turns[-1].at})" if turns[0].at and turns[-1].at else ""
            prefix = f"Earlier in this conversation{span}: "
        budget = max_tokens - self.tokens.count(prefix)
        chosen: list[tuple[int, str]] = []
        used = 0
        for _, position, line in sorted(scored, key=lambda s: (-s[0], s[1])):
            cost = self.tokens.count(line) + 1
            if used + cost <= budget:
                chosen.append((position, line))
                used += cost
        if not chosen:
            return self.tokens.truncate(prefix + "(small talk only)", max_tokens)
        return prefix + " ".join(line for _, line in sorted(chosen))


@dataclass
class ExtractiveFactExtractor:
    """One fact per turn that says something concrete: its salient sentences, attributed to the speaker.

    Sentences are chosen across the whole passage, not a fixed number per turn: first the
    most salient sentence of every turn whose best reaches ``min_salience`` (so that each
    turn with content keeps a fact), then the other sentences of those turns by salience
    per token while the facts hold at most ``token_share`` of the passage's tokens. Filler sentences,
    and the interjections and forms of address that open a sentence ("Yeah, Maria, …"), are never
    kept.
    """

    tokens: TokenCounter
    # Measured on LoCoMo: 0.56 of each passage keeps the facts under half of all turn tokens (0.497),
    # since passages of small talk leave part of their share unused (0.57 passed half: 0.506).
    token_share: float = 0.56
    # A turn keeps a fact when its best sentence reaches min_salience; a turn that keeps one may add
    # any sentence of at least min_added, while the share allows. A higher bar to open a fact spends
    # the share on what the turns with news said rather than on a line of every reaction (on LoCoMo,
    # 1.5 against 1.1: fewer, fuller facts, and better recall at the same tokens).
    min_salience: float = 1.5
    min_added: float = 0.0

    def extract(self, turns: Sequence[TurnText]) -> list[Fact]:
        speakers = {t.speaker for t in turns}
        units: list[_Unit] = []
        for index, turn in enumerate(turns):
            for place, sentence in enumerate(_units(turn.text)):
                if is_filler(sentence):
                    continue
                text = trim(sentence, speakers)
                if not text or is_filler(text):
                    continue
                # A question asks for content rather than giving it.
                score = salience(text) * (0.5 if text.endswith("?") else 1.0)
                if score >= self.min_added:
                    units.append(_Unit(index, place, text, score, self.tokens.count(text) + 1))
        budget = self.token_share * sum(self.tokens.count(f"{t.speaker}: {t.text}") for t in turns)
        prefix = [self.tokens.count(f"{t.speaker}: ") for t in turns]
        chosen: set[tuple[int, int]] = set()
        spent = [0] * len(turns)

        def take(unit: _Unit, limit: float) -> None:
            cost = unit.tokens + (0 if spent[unit.turn] else prefix[unit.turn])
            if sum(spent) + cost <= limit:
                chosen.add((unit.turn, unit.place))
                spent[unit.turn] += cost

        for unit in sorted(units, key=lambda u: -u.salience):  # each turn's best sentence, whatever it costs
            if not spent[unit.turn] and unit.salience >= self.min_salience:
                take(unit, float("inf"))
        for unit in sorted(
            units, key=lambda u: (-u.salience / u.tokens, u.turn, u.place)
        ):  # then the most content per token
            if spent[unit.turn] and (unit.turn, unit.place) not in chosen:
                take(unit, budget)
        facts: list[Fact] = []
        for index, turn in enumerate(turns):
            kept = [u.text for u in units if u.turn == index and (index, u.place) in chosen]
            if not kept:
                continue
            text = " ".join(kept)
            # "Which database did we decide on?" asks about a decision; only a statement makes one.
            kind = "decision" if any(_DECISION.search(k) and not k.endswith("?") for k in kept) else "fact"
            facts.append(Fact(f"{turn.speaker}: {text}", (turn.id,), kind, turn.at, turn.speaker))
        return facts


class _Unit(NamedTuple):
    turn: int
    place: int
    text: str
    salience: float
    tokens: int


_CAPTION = re.compile(r"\s*(\[shares? [^\]]*\])\s*")
_OPENER = re.compile(
    r"^(?:(?:oh|ooh|wow|whoa|yeah|yes|yep|yup|hey|hi|hello|well|so|haha+|lol|omg|aw+|ah|um|hmm|thanks|thank you|"
    r"congrats|congratulations|ok|okay|sure|totally|absolutely|true|right|definitely|gosh|man|dude|cool|nice|"
    r"great|awesome|exactly|agreed|indeed)\b[\s,!.]*)+",
    re.IGNORECASE,
)
_INTENSIFIER = re.compile(
    r"\b(really|so|just|super|pretty|totally|actually|kinda|definitely|very|quite|truly|honestly|basically|literally)"
    r"\s+(?=[a-z])",
    re.IGNORECASE,
)


def _units(text: str) -> list[str]:
    """A turn's sentences, with a shared photo's caption (``[shares …]``) as a unit of its own."""
    parts: list[str] = []
    for piece in _CAPTION.split(text):
        if piece.startswith("[share"):
            parts.append(piece)
        elif piece.strip():
            parts.extend(sentences(piece))
    return parts


def trim(sentence: str, speakers: set[str] | frozenset[str] = frozenset()) -> str:
    """A sentence without the interjections and forms of address that open it ("Yeah John, it …" → "It …")
    and without intensifiers ("it was really so good" → "it was good")."""
    text = _OPENER.sub("", _INTENSIFIER.sub("", sentence.strip()))
    for name in speakers:
        text = re.sub(rf"^{re.escape(name)}\b[\s,!.]*", "", text)
        text = re.sub(rf",\s*{re.escape(name)}(?=[!.?]*$)", "", text)
        text = _OPENER.sub("", text)
    if not text:
        return ""
    return text[0].upper() + text[1:] if text != sentence.strip() else text


def _centroid(turns: Sequence[TurnText]) -> np.ndarray | None:
    vectors = [t.embedding for t in turns if t.embedding is not None]
    if not vectors:
        return None
    centre = np.mean(np.stack(vectors), axis=0)
    norm = float(np.linalg.norm(centre))
    return centre / norm if norm > 0 else None
