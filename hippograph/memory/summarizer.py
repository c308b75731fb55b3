"""Summaries and facts from conversation turns: two small protocols and their offline defaults.

The defaults are extractive. They keep the concrete content — names, dates,
numbers, decisions, errors and their fixes — and drop filler (greetings,
thanks, small talk). They need no network and no model beyond the embedder
already loaded: turn embeddings pick the sentences that cover the passage.
``hippograph.memory.llm`` implements the same protocols against any
OpenAI-compatible endpoint.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from hippograph.memory.entities import extract_mentions
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


class Summarizer(Protocol):
    def summarize(self, turns: Sequence[TurnText], max_tokens: int) -> str: ...


class FactExtractor(Protocol):
    def extract(self, turns: Sequence[TurnText]) -> list[Fact]: ...


_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_FILLER = re.compile(
    r"^(hi|hey|hello|yo|good (morning|afternoon|evening|night)|bye|goodbye|see (you|ya)|take care|thanks?( you)?|thank you|"
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
    r"last (week|month|year)|next (week|month|year)|\d{4})\b",
    re.IGNORECASE,
)
_DECISION = re.compile(r"\b(decided|decide|decision|chose|choose|going with|we'll use|switch(ed)? to|adopt(ed)?|plan(ned)? to)\b", re.IGNORECASE)
_ERROR = re.compile(r"\b(error|bug|crash(ed)?|fail(ed|ure|s)?|broke(n)?|exception|issue|problem|fix(ed)?|solved|workaround)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_STOPWORDS = frozenset(
    "a an the and or but so to of in on at for with about from by is are was were be been am i you he she it we they "
    "me my your his her our their this that these those just really very too also have has had do did does not no yes "
    "what how why when where who which can could would should will shall may might must oh wow well like get got".split()
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
    score += 1.0 * min(4, len(extract_mentions(sentence, limit=4)))
    score += 2.0 if _DECISION.search(sentence) else 0.0
    score += 2.0 if _ERROR.search(sentence) else 0.0
    score += 0.1 * min(20, len([w for w in _WORD.findall(sentence) if w.lower() not in _STOPWORDS]))
    return score


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
    """One fact per turn that says something concrete: its salient sentences, attributed to the speaker."""

    # One sentence a turn keeps the facts under half the transcript's tokens (measured on LoCoMo: 0.37).
    max_sentences: int = 1
    min_salience: float = 1.0

    def extract(self, turns: Sequence[TurnText]) -> list[Fact]:
        facts: list[Fact] = []
        for turn in turns:
            kept = [s for s in sentences(turn.text) if not is_filler(s) and salience(s) >= self.min_salience]
            if not kept:
                continue
            best = sorted(kept, key=lambda s: -salience(s))[: self.max_sentences]
            ordered = [s for s in kept if s in best]
            text = " ".join(ordered)
            kind = "decision" if _DECISION.search(text) else "fact"
            facts.append(Fact(f"{turn.speaker}: {text}", (turn.id,), kind, turn.at))
        return facts


def _centroid(turns: Sequence[TurnText]) -> np.ndarray | None:
    vectors = [t.embedding for t in turns if t.embedding is not None]
    if not vectors:
        return None
    centre = np.mean(np.stack(vectors), axis=0)
    norm = float(np.linalg.norm(centre))
    return centre / norm if norm > 0 else None
