"""Transcripts that never overflow — Algorithm 1 of the Hanzo paper.

    while tokens(H) > TRANSCRIPT_TRIGGER · B:      (hippograph.config)
        oldest  ← H[1 : ⌊T/3⌋]                 (the oldest third)
        summary ← Summarize(oldest)
        F       ← ExtractFacts(oldest); store F in project memory
        H       ← [summary] ∪ H[⌊T/3⌋+1 : T]

``H`` counts a standing summary as its first element, so an old summary is
folded into the next. Summarised turns leave the transcript but stay in the
graph until the session ends, because the facts point at them
(``DERIVED_FROM``). Facts go to project memory (long-term memory when the
session has no project) through the ordinary write path and its rules, and
keep where they were said: ``sessionId`` is their session, ``createdAt`` the
time of their turn, ``attributes.sourceTurns`` / ``sourceRefs`` the turns whose
text they carry. A fact said again gains the new turns' provenance.

A turn may carry an *item*: its host's own structure (an Agents SDK item, as JSON), kept beside its
text and given back as it was added. Only the text is read by summaries, facts and recall; the item
is scrubbed as the text is, and goes with its turn.
"""

from __future__ import annotations

import json
import logging
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any, cast

from neo4j import ManagedTransaction

from hippograph.config import MAX_TURN_CHARS, TRANSCRIPT_TRIGGER
from hippograph.graph import memories as memory_cypher
from hippograph.graph import transcript as transcript_cypher
from hippograph.memory.ids import check_id
from hippograph.memory.writing import scrubbing
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.lifecycle.llm_summarizer import LLMError, OpenAICompatibleClient
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from hippograph.memory.writing.writer import Remembered
from hippograph.memory.lifecycle.summarizing import (
    ExtractiveFactExtractor,
    ExtractiveSummarizer,
    FactExtractor,
    Summarizer,
    TurnText,
)
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services
from hippograph.memory.writing import outcomes

log = logging.getLogger(__name__)

# A summary may take this share of the tokens it replaces (the rest is what summarising saves).
SUMMARY_SHARE = 0.25
MAX_ROUNDS = 64


@dataclass
class Round:
    summary_id: str
    covered: list[str]
    tokens_before: int
    tokens_after: int
    facts: list[str] = field(default_factory=list)


@dataclass
class Appended:
    turn_id: str
    position: int
    transcript_tokens: int
    redacted: list[str] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)


@dataclass(frozen=True)
class TranscriptEntry:
    id: str
    role: str
    content: str
    tokens: int
    at: str | None
    is_summary: bool
    position: int
    ref: str | None = None
    item: dict[str, Any] | None = None


def append_turn(
    services: Services,
    scope: Scope,
    role: str,
    content: str,
    at: datetime | None = None,
    ref: str | None = None,
    summarizer: Summarizer | None = None,
    extractor: FactExtractor | None = None,
    item: str | None = None,
) -> Appended:
    """Append a turn; if the transcript passes its trigger (``TRANSCRIPT_TRIGGER`` of its budget), summarise
    until it is under.

    ``item`` is the turn's structure in its host (a JSON object, as text), kept beside ``content``."""
    if scope.session_id is None:
        raise InvalidInput("a turn belongs to a session: give a session id")
    if not isinstance(content, str) or not content.strip():
        raise InvalidInput("a turn needs non-empty content")
    if len(content) > MAX_TURN_CHARS:
        raise InvalidInput(f"a turn has at most {MAX_TURN_CHARS} characters, got {len(content)}")
    role = (role or "").strip()
    if not role or len(role) > 64:
        raise InvalidInput("a turn needs a role (speaker) of 1-64 characters")
    if ref is not None:
        check_id("ref", ref)
    policy = services.settings.secret_policy
    scrubbed = scrubbing.enforce(content, policy)
    speaker = scrubbing.enforce(role, policy)
    structure = None if item is None else scrubbing.enforce_data(parse_item(item), policy)
    stamp = (at or datetime.now(UTC)).isoformat()
    turn_id = str(uuid.uuid4())
    row = {
        "id": turn_id,
        "userId": scope.user_id,
        "sessionId": scope.session_id,
        "role": speaker.text,
        "content": scrubbed.text,
        "at": stamp,
        "tokens": services.tokens.count(scrubbed.text),
        "ref": ref,
        "item": None if structure is None else stored_item(structure.value),
    }

    def write(tx: ManagedTransaction) -> int:
        position = transcript_cypher.append_turn(tx, row)
        if position is None:
            state = transcript_cypher.session_state(
                tx, scope.user_id, cast(str, scope.session_id)
            )  # a turn's scope names its session
            if state is None:
                raise NotFound(f"session {scope.session_id} not found")
            raise InvalidInput(f"session {scope.session_id} has ended")
        services.audit.record_in(tx, scope.user_id, "append_turn", [turn_id], f"session={scope.session_id}")
        return position

    with services.driver.session(database=services.database) as session:
        position = outcomes.write(session, write)
    appended = Appended(
        turn_id,
        position,
        0,
        redacted=sorted({*scrubbed.kinds, *speaker.kinds, *(structure.kinds if structure else ())}),
    )
    appended.rounds = compact(services, scope, summarizer, extractor)
    appended.transcript_tokens = sum(e.tokens for e in read_transcript(services, scope))
    return appended


def transcript(services: Services, scope: Scope) -> list[TranscriptEntry]:
    """The transcript as a caller reads it (``read_transcript``), the read logged as every read is: the turns
    given back, never their text."""
    entries = read_transcript(services, scope)
    services.audit.record(scope.user_id, "transcript", [e.id for e in entries], f"session={scope.session_id}")
    return entries


def read_transcript(services: Services, scope: Scope) -> list[TranscriptEntry]:
    """The standing summary (if any), then the recent turns: the conversation as it continues."""
    if scope.session_id is None:
        raise InvalidInput("a transcript belongs to a session: give a session id")
    with services.driver.session(database=services.database) as session:
        rows = session.execute_read(transcript_cypher.live_transcript, scope.user_id, scope.session_id)
    return [
        TranscriptEntry(
            r["id"],
            r["role"],
            r["content"],
            int(r["tokens"]),
            r["at"],
            bool(r["isSummary"]),
            int(r["position"]),
            r["ref"],
            json.loads(r["item"]) if r["item"] is not None else None,
        )
        for r in rows
    ]


def parse_item(text: str) -> dict[str, Any]:
    """A turn's item: a JSON object, every string of it valid Unicode (Neo4j stores no lone surrogate).
    Its strings may hold control characters (a tool's coloured output): kept as JSON, they are escapes."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as bad:
        raise InvalidInput(f"item is not JSON ({bad.msg} at character {bad.pos})", "item") from None
    if not isinstance(value, dict):
        raise InvalidInput("item is a JSON object (the host's structure of the turn)", "item")
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("item is not valid Unicode (a lone surrogate)", "item") from None
    return value


def stored_item(value: dict[str, Any]) -> str:
    """An item as the turn keeps it: JSON text with no control character left raw (DEL, which JSON
    leaves as it is, escaped too), so it reads back exactly."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def compact(
    services: Services,
    scope: Scope,
    summarizer: Summarizer | None = None,
    extractor: FactExtractor | None = None,
) -> list[Round]:
    """Algorithm 1: summarise the oldest third while the transcript is over its trigger."""
    configured = _configured(services)
    summarizer = summarizer or configured[0]
    extractor = extractor or configured[1]
    budget = services.settings.transcript_budget
    rounds: list[Round] = []
    for _ in range(MAX_ROUNDS):
        history = read_transcript(services, scope)
        tokens = sum(e.tokens for e in history)
        if tokens <= TRANSCRIPT_TRIGGER * budget or not history:
            break
        oldest = history[: max(1, math.floor(len(history) / 3))]
        if len(oldest) == 1 and oldest[0].is_summary:
            oldest = history[:2]  # a lone summary cannot shrink by summarising only itself
        rounds.append(_summarise_round(services, scope, oldest, tokens, summarizer, extractor))
    return rounds


def _summarise_round(
    services: Services,
    scope: Scope,
    oldest: Sequence[TranscriptEntry],
    tokens_before: int,
    summarizer: Summarizer,
    extractor: FactExtractor,
) -> Round:
    vectors = services.embedder.embed([e.content for e in oldest])
    turns = [TurnText(e.id, e.role, e.content, e.at, v) for e, v in zip(oldest, vectors)]
    covered_tokens = sum(e.tokens for e in oldest)
    budget = max(16, math.floor(covered_tokens * SUMMARY_SHARE))
    spoken = [t for t in turns if t.speaker != "summary"]
    text, facts = _summarize(services, summarizer, turns, budget), _extract(services, extractor, spoken)
    # Whatever a summarizer returns (an LLM may overrun), the summary is scrubbed and fits its budget.
    summary = services.tokens.truncate(scrubbing.enforce(text, "redact").text, budget)
    stored = _store_facts(services, scope, facts, {e.id: e.ref for e in oldest if e.ref}, said_before(oldest))
    summary_id = str(uuid.uuid4())
    row: dict[str, Any] = {
        "id": summary_id,
        "userId": scope.user_id,
        "sessionId": scope.session_id,
        "content": summary,
        "position": min(e.position for e in oldest),
        "at": oldest[-1].at or datetime.now(UTC).isoformat(),
        "tokens": services.tokens.count(summary),
    }

    def write(tx: ManagedTransaction) -> None:
        transcript_cypher.replace_with_summary(tx, row, [e.id for e in oldest])
        services.audit.record_in(
            tx,
            scope.user_id,
            "summarize",
            [summary_id, *(e.id for e in oldest)],
            f"session={scope.session_id} facts={len(stored)}",
        )

    with services.driver.session(database=services.database) as session:
        outcomes.write(session, write)
    return Round(
        summary_id, [e.id for e in oldest], tokens_before, tokens_before - covered_tokens + row["tokens"], stored
    )


def extract_remaining_facts(services: Services, scope: Scope, extractor: FactExtractor | None = None) -> list[str]:
    """At the end of a session: the facts of the turns no summary has covered yet, into project memory."""
    transcript = read_transcript(services, scope)
    live = [e for e in transcript if not e.is_summary]
    if not live:
        return []
    facts = _extract(
        services, extractor or _configured(services)[1], [TurnText(e.id, e.role, e.content, e.at) for e in live]
    )
    return _store_facts(services, scope, facts, {e.id: e.ref for e in live if e.ref}, said_before(transcript))


def said_before(entries: Sequence[TranscriptEntry]) -> dict[str, str]:
    """Each entry's id → the entry right before it in the transcript (a turn, or the summary standing for
    the turns before), as ``role: content``: what a fact of that turn keeps as its ``preceding`` text."""
    return {after.id: f"{before.role}: {before.content}" for before, after in pairwise(entries)}


def _configured(services: Services) -> tuple[Summarizer, FactExtractor]:
    """The endpoint's client when one is configured, else the offline extractive pair."""
    remote = OpenAICompatibleClient.from_settings(services.settings)
    return (
        (remote, remote)
        if remote
        else (ExtractiveSummarizer(services.tokens), ExtractiveFactExtractor(services.tokens))
    )


# An unreachable endpoint must not stop the conversation: the offline extractive pair stands in.
def _summarize(services: Services, summarizer: Summarizer, turns: Sequence[TurnText], budget: int) -> str:
    try:
        return summarizer.summarize(turns, budget)
    except LLMError as failed:
        log.warning("summarising with the configured endpoint failed (%s); used the extractive summarizer", failed)
        return ExtractiveSummarizer(services.tokens).summarize(turns, budget)


def _extract(services: Services, extractor: FactExtractor, turns: Sequence[TurnText]) -> list[Any]:
    try:
        return extractor.extract(turns)
    except LLMError as failed:
        log.warning("fact extraction with the configured endpoint failed (%s); used the extractive one", failed)
        return ExtractiveFactExtractor(services.tokens).extract(turns)


def _store_facts(
    services: Services, scope: Scope, facts: Sequence[Any], refs: dict[str, str], said: dict[str, str]
) -> list[str]:
    with services.driver.session(database=services.database) as session:
        state = session.execute_read(transcript_cypher.session_state, scope.user_id, cast(str, scope.session_id))
    project_id = (state or {}).get("projectId") or scope.project_id
    target, tier = (
        (Scope(scope.user_id, project_id), Tier.PROJECT) if project_id else (Scope(scope.user_id), Tier.LONG_TERM)
    )
    ids: list[str] = []
    for fact in facts:
        turns = list(fact.source_turn_ids)
        attributes = {
            "session": scope.session_id,
            "sourceTurns": turns,
            **({"sourceRefs": [refs[t] for t in turns if t in refs]} if refs else {}),
            **({"speaker": fact.speaker} if getattr(fact, "speaker", None) else {}),
        }

        def place(
            tx: ManagedTransaction,
            stored: Remembered,
            attributes: dict[str, Any] = attributes,
            turns: list[str] = turns,
        ) -> None:
            merged = None
            if not stored.created:  # the same text again: it now derives from these turns too
                memory_cypher.derive(tx, scope.user_id, stored.id, turns)
                before = memory_cypher.attributes(tx, scope.user_id, [stored.id]).get(stored.id)
                merged = json.dumps(merge_provenance(parse_attributes(before), attributes), sort_keys=True)
            transcript_cypher.set_fact_provenance(
                tx, scope.user_id, stored.id, scope.session_id, merged, said.get(turns[0]) if turns else None
            )

        stored = remember(
            services,
            target,
            MemoryInput(
                content=fact.content,
                tier=tier,
                kind=fact.kind if fact.kind in ("fact", "decision") else "fact",
                created_at=datetime.fromisoformat(fact.at) if getattr(fact, "at", None) else None,
                derived_from=turns,
                attributes=attributes,
            ),
            then=place,
        )
        ids.append(stored.id)
    return ids


def parse_attributes(stored: str | None) -> dict[str, Any]:
    """A memory's stored attributes (JSON text) as a dict; nothing stored, or not an object, is empty."""
    value = json.loads(stored) if stored else {}
    return value if isinstance(value, dict) else {}


# Provenance that is a list (the turns and LoCoMo-style refs a fact derives from) is united.
def merge_provenance(kept: dict[str, Any], merged: dict[str, Any]) -> dict[str, Any]:
    """The attributes of a memory that absorbs another: lists united in order, the survivor's values otherwise."""
    result = dict(kept)
    for key, value in merged.items():
        if key not in result:
            result[key] = value
        elif isinstance(result[key], list) and isinstance(value, list):
            result[key] = [*result[key], *(item for item in value if item not in result[key])]
    return result
