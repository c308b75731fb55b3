"""Recall: the caller's best memories for a query, shown and budgeted by a profile.

``recall`` looks up, in hybrid, which people who speak in the caller's memories the query names,
embeds the query (when the profile uses vectors; also without those names, ``names``) and runs the
one recall statement of ``hippograph.graph.recall``, all in one read transaction; then it re-ranks with the
configured cross-encoder when the profile asks for it, then walks the ranking and
keeps what the profile shows — full entry or compressed summary — while the
priority's item and token budget allows. What it returns is recorded as accessed
by a background writer, off the recall's path.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import numpy as np
from neo4j import ManagedTransaction

from hippograph.graph import recall as recall_cypher
from hippograph.graph.recall import Components
from hippograph.memory.recall import lucene, names, when
from hippograph.memory.recall.analysis import QueryAnalysis, Style, analyse
from hippograph.memory.recall.access_counts import AccessRecorder
from hippograph.memory.recall.profiles import (
    Budget,
    Fusion,
    Priority,
    RecallProfile,
    Selection,
    get_priority,
    get_profile,
)
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.tokens import TokenCounter
from hippograph.memory.services import Services
from hippograph.encoding.protocols import Reranker

ELLIPSIS = "…"
# The text fields of the memory_text and entity_name full-text indexes (migrations V0005, V0007): a
# memory's own text and, for a session memory, the text said right before it.
MEMORY_TEXT_FIELDS = ("content", "summary")
PRECEDING_TEXT_FIELD = "preceding"
ENTITY_NAME_FIELDS = ("name",)


class Mode(str, Enum):
    FULL = "FULL"
    SUMMARY = "SUMMARY"


@dataclass(frozen=True)
class Candidate:
    """One row of the ranking, before selection and budgets."""

    id: str
    tier: Tier
    score: float
    components: Components
    content: str
    summary: str | None
    cosine: float | None
    sources: tuple[str, ...]
    # The two parts of relation: distance to the query's entities, neighbour of a strong match.
    entity_relation: float = 0.0
    neighbour: float = 0.0
    # The strength of the strong match it neighbours (0: none), which a carry multiplies (``carried``).
    strength: float = 0.0


@dataclass(frozen=True)
class RecalledItem:
    id: str
    content: str
    tier: Tier
    mode: Mode
    score: float
    components: Components
    tokens: int


@dataclass(frozen=True)
class Totals:
    items: int
    tokens: int
    budget: Budget


@dataclass(frozen=True)
class Timings:
    embed_ms: float
    query_ms: float
    total_ms: float


@dataclass(frozen=True)
class RecallResult:
    items: list[RecalledItem]
    totals: Totals
    profile: str
    # The profile's ranking above its floor, before the budget: what ``items`` were chosen from, each
    # with its score and components (the explorer draws it; the benchmarks score it).
    ranking: list[Candidate] = field(default_factory=list)
    timings: Timings | None = None
    # What the scores are measured against: the profile's lines (full above, summary above, the share of
    # the first score delivered down to; None when it keeps each tier's top k instead) and its weights and
    # boosts (score = the weighted components times 1 + time_boost·time, times 1 + period_boost·period).
    lines: tuple[float, float, float] | None = None
    weights: dict[str, float] = field(default_factory=dict)
    # The audit event that logged this recall (what it returned): a decision names it as what informed it.
    event_id: str | None = None


def recall(
    services: Services,
    query: str,
    scope: Scope,
    priority: str | Priority = Priority.MEDIUM,
    profile: str | RecallProfile | None = None,
    tiers: Sequence[Tier | str] | None = None,
    now: datetime | None = None,
    *,
    access: AccessRecorder | None = None,
    record_access: bool = True,
    as_of: datetime | None = None,
) -> RecallResult:
    """The memories of ``scope`` that best answer ``query``, within the priority's budget.

    ``tiers`` narrows the tiers searched (default all three); ``now`` is the moment
    recency is measured from (default the current time). ``access`` is the recorder
    that books the returned memories as accessed (default one per ``services``). ``as_of`` answers
    from the store as it was then, recency measured from then; it books no access (a look back is
    not a use).
    """
    started = time.perf_counter()
    chosen = get_profile(profile)
    budget = chosen.gates.budgets[get_priority(priority)]
    now = as_of or now or datetime.now(UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    searched = _tiers(tiers)
    if budget.items <= 0 or budget.tokens <= 0 or not isinstance(query, str) or not query.strip():
        return RecallResult(
            [],
            Totals(0, 0, budget),
            chosen.name,
            timings=Timings(0.0, 0.0, _ms(started)),
            **_measures(chosen, chosen.fusion(Style.QUESTION)),
        )

    # Who the query names and the statement share one read transaction: the lookup then costs one
    # round trip, not a transaction of its own (measured: about 1.5 ms against 3). Its time is the
    # query's, database work like the statement's; the embedding's is the embedding alone.
    analysis = analyse(query, now)
    if chosen.uses_embedding:
        services.writer.settle(scope.user_id)  # the caller's memories still without vectors get them first

    def search(tx: ManagedTransaction) -> tuple[list[dict[str, Any]], float]:
        looks_up = chosen.uses_embedding and chosen.vector.unnamed_query
        speakers = recall_cypher.named_speakers(tx, scope.user_id, analysis.phrases) if looks_up else []
        embedding_started = time.perf_counter()
        vector = query_vector(services, analysis, speakers) if chosen.uses_embedding else None
        embedding = vector.tolist() if vector is not None else None
        embedding_seconds = time.perf_counter() - embedding_started
        request = build_query(
            chosen, scope, analysis, embedding, now, searched, as_of=now if as_of is not None else None
        )
        return recall_cypher.recall_candidates(tx, request), embedding_seconds

    opened = time.perf_counter()
    with services.driver.session(database=services.database, default_access_mode="READ") as session:
        rows, embedding_seconds = session.execute_read(search)
    queried = time.perf_counter()
    embed_ms = embedding_seconds * 1000.0

    ranked = candidates(rows)
    if chosen.gates.rerank and services.cross_encoder is not None and ranked:
        ranked = _rerank(services.cross_encoder, query, ranked)
    items = select(ranked, chosen, budget, services.tokens)
    event_id = None
    if record_access:
        if items and as_of is None:
            (access or services.access).record(scope.user_id, [item.id for item in items], now)
        # A read is logged as a write is: who asked and what came back; never the query, which may hold a secret.
        detail = f"{chosen.name}: {len(items)} items" + (f"; as of {now.isoformat()}" if as_of is not None else "")
        event_id = services.audit.record(scope.user_id, "recall", [item.id for item in items], detail).id
    return RecallResult(
        items=items,
        totals=Totals(len(items), sum(item.tokens for item in items), budget),
        profile=chosen.name,
        ranking=ranked,
        timings=Timings(embed_ms, _ms(opened, queried) - embed_ms, _ms(started)),
        event_id=event_id,
        **_measures(chosen, chosen.fusion(analysis.style)),
    )


def _measures(profile: RecallProfile, fusion: Fusion) -> dict[str, Any]:
    """``RecallResult.lines`` of a profile and ``weights`` of the fusion that weighed the query."""
    gates = profile.gates
    return {
        "lines": (
            (gates.full_above, gates.summary_above, gates.of_top) if gates.selection is Selection.THRESHOLD else None
        ),
        "weights": {
            **fusion.weights.as_params(),
            "time_boost": fusion.time.time_boost,
            "period_boost": fusion.time.period_boost,
            "carry": fusion.carry,
        },
    }


def query_vector(services: Services, analysis: QueryAnalysis, speakers: Sequence[str] = ()) -> np.ndarray:
    """The query's vector; when it names ``speakers`` (people who speak in the caller's memories),
    blended with the query's said without them (``hippograph.memory.recall.names``)."""
    unnamed = analysis.without(speakers) if speakers else ""
    # A query that is nothing but a name asks about that person: its own vector says it best.
    if not lucene.words(unnamed):
        return services.embedder.embed_query(analysis.text)
    vector, without = services.embedder.embed_queries([analysis.text, unnamed])
    return names.blend(vector, without)


def build_query(
    profile: RecallProfile,
    scope: Scope,
    analysis: QueryAnalysis,
    embedding: Sequence[float] | None,
    now: datetime,
    tiers: Sequence[Tier],
    as_of: datetime | None = None,
) -> recall_cypher.RecallQuery:
    """The recall statement for a profile, scope and analysed query: the profile's branch settings as they
    are, weighed as the profile weighs the query's style."""
    fusion = profile.fusion(analysis.style)
    # A style that weighs keywords or relation at nothing does not search for them: its keyword and
    # entity searches would cost time and find nothing that counts.
    keywords = analysis.keywords if fusion.weights.keyword > 0 else ()
    anchors = analysis.keywords if fusion.weights.relation > 0 else ()
    text_fields = MEMORY_TEXT_FIELDS + ((PRECEDING_TEXT_FIELD,) if profile.keyword.preceding else ())
    return recall_cypher.RecallQuery(
        user_id=scope.user_id,
        project_id=scope.project_id,
        session_id=scope.session_id,
        tiers=[tier.value for tier in tiers],
        embedding=embedding,
        memory_text_queries=[lucene.owned_query(scope.user_id, [word], text_fields) for word in keywords],
        entity_name_queries=[lucene.owned_query(scope.user_id, [word], ENTITY_NAME_FIELDS) for word in anchors],
        query_words=analysis.words,
        says_when=when.SAYS_WHEN if analysis.asks_when else None,
        periods=[(period.start, period.end) for period in analysis.periods],
        now=now,
        weights=fusion.weights.as_params(),
        sources=sorted(source.value for source in profile.sources),
        vector=profile.vector,
        keyword=profile.keyword,
        relation=profile.relation,
        neighbours=profile.neighbours,
        recency=profile.recency,
        time=fusion.time,
        carry=fusion.carry,
        floor=profile.floor,
        tier_first=profile.gates.tier_first,
        limit=profile.gates.candidates,
        as_of=as_of,
    )


def select(
    ranked: Sequence[Candidate], profile: RecallProfile, budget: Budget, tokens: TokenCounter
) -> list[RecalledItem]:
    """Walk the ranking and keep what the profile shows, never past the budget's items or tokens.

    An entry due in full that no longer fits is shown as its summary if that fits;
    one that fits in neither form is passed over for the next.
    """
    items: list[RecalledItem] = []
    used = 0
    gates = profile.gates
    least = (
        gates.of_top * max(c.score for c in ranked)
        if ranked and gates.selection is Selection.THRESHOLD
        else float("-inf")
    )
    for candidate in ranked:
        if len(items) >= budget.items or candidate.score < least:
            break
        for mode in _modes(candidate, profile):
            text = candidate.content if mode is Mode.FULL else summary_text(candidate, profile, tokens)
            cost = tokens.count(text)
            if used + cost <= budget.tokens:
                items.append(
                    RecalledItem(
                        candidate.id,
                        text,
                        candidate.tier,
                        mode,
                        candidate.score,
                        candidate.components,
                        cost,
                    )
                )
                used += cost
                break
    return items


def summary_text(candidate: Candidate, profile: RecallProfile, tokens: TokenCounter) -> str:
    """The compressed form: the stored summary, else the content cut to ``summary_tokens`` tokens."""
    if candidate.summary:
        return candidate.summary
    if tokens.count(candidate.content) <= profile.gates.summary_tokens:
        return candidate.content
    cut = tokens.truncate(candidate.content, max(profile.gates.summary_tokens - tokens.count(ELLIPSIS), 1)).rstrip()
    return cut + ELLIPSIS


def _modes(candidate: Candidate, profile: RecallProfile) -> tuple[Mode, ...]:
    if profile.gates.selection is Selection.TIER_TOP_K:
        return (Mode.FULL,)
    if candidate.score > profile.gates.full_above:
        return (Mode.FULL, Mode.SUMMARY)
    if candidate.score > profile.gates.summary_above:
        return (Mode.SUMMARY,)
    return ()


def _rerank(cross_encoder: Reranker, query: str, ranked: list[Candidate]) -> list[Candidate]:
    scores = cross_encoder.rank(query, [c.content for c in ranked])
    order = sorted(range(len(ranked)), key=lambda i: scores[i], reverse=True)
    return [ranked[i] for i in order]


def candidates(rows: Sequence[dict[str, Any]]) -> list[Candidate]:
    """The statement's rows as candidates, less the memories forgotten while it read them: Neo4j reads what
    is committed as it goes, not a snapshot, so a memory deleted meanwhile comes back without its
    properties (seen in the soak, about once in 300 to 2,000 recalls racing forgets). It is gone."""
    return [_candidate(row) for row in rows if row["tier"] is not None]


def _candidate(row: dict[str, Any]) -> Candidate:
    return Candidate(
        id=row["id"],
        tier=Tier(row["tier"]),
        score=float(row["score"]),
        components=Components.from_row(row),
        content=row["content"] or "",
        summary=row["summary"],
        cosine=None if row["cosine"] is None else float(row["cosine"]),
        sources=tuple(sorted(set(row["sources"]))),
        entity_relation=float(row["entityRelation"]),
        neighbour=float(row["neighbour"]),
        strength=float(row["strength"]),
    )


def _tiers(tiers: Sequence[Tier | str] | None) -> list[Tier]:
    if tiers is None:
        return list(Tier)
    return [Tier(t) if not isinstance(t, Tier) else t for t in tiers]


def _ms(start: float, end: float | None = None) -> float:
    return ((end if end is not None else time.perf_counter()) - start) * 1000.0
