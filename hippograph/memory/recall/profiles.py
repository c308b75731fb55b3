"""Scoring profiles: how recall finds, scores, shows and budgets memories.

A profile is a frozen config grouped by what each part configures — one settings object per
branch of the recall statement (``VectorBranch``, ``KeywordBranch``, ``RelationBranch``,
``NeighbourBranch``, ``Recency``: declared beside the Cypher fragment they feed, in
``hippograph.graph.recall``, each turning itself into its fragment's parameters), the weights,
and the ``Gates`` that decide what reaches the caller. ``PROFILES`` holds the named recipes
(the shape of graphiti's search-config recipes). Three ship:

``izanagi``
    The Izanagi memory manager, exactly: ``keyword·0.4 + recency·0.3 +
    relation_depth·0.3``; above 0.5 the full entry, above 0.3 its compressed
    summary, otherwise skipped; tiers taken session → project → long term (each
    by score); at most the priority's items and tokens. No embeddings.

``hanzo``
    The Hanzo Chat paper, exactly: per tier the top 20 / 10 / 5 memories by cosine
    above 0.3 / 0.5 / 0.6 (session / project / long term); their union re-ranked by
    a cross-encoder when one is given, else by the fused score (for hanzo that is
    its only signal, the cosine); truncated to the priority's budget.

``hybrid`` (default)
    Vector, keyword and relation, weighted with weights fitted on the development sets for the default
    encoder (all-mpnet-base-v2) and shipped as data (``hippograph/resources/hybrid_fit.json``, from
    ``hippograph bench fit --ship FILE``; recency earned nothing there, so no style weighs it), relation counting who
    said a memory (``speaker_match``), the vector asking also without the names of who speaks
    (``unnamed_query``), for a query that asks when, the memories that say when boosted by the
    fitted ``time_boost`` and, for a query that names a day, month or year, the memories written
    then boosted by the fitted ``period_boost``, with Izanagi's full / summary / skip rule
    and budgets.

The components, each in [0, 1]:

* ``vector`` — cosine similarity of query and memory embeddings, clamped at 0. In hybrid
  (``unnamed_query``) the query's embedding is the mean of the query's and the query's said
  without the people it names who speak in the caller's memories (``names``).
* ``keyword`` — the memory's BM25 score for the query's keywords (the idf of each
  keyword it holds, from the caller's own memories: see ``KEYWORD_BRANCH``; in hybrid a
  session memory holds the words of the text said right before it too, as an answer its question's) divided
  by the sum of the idfs of the query's keywords that some memory of the caller holds: a memory holding
  them all scores 1, a memory matching no keyword 0. Not divided by the best match's score (neo4j-graphrag's
  max normalisation), which gave a memory holding one common word of ten 1 whenever nothing held more, so a
  keyword branch that found next to nothing outvoted a vector branch that found the answer (held out, on
  LongMemEval and LoCoMo-Plus: the figures in the README's Recall section).
* ``recency`` — ``0.5 ** (age_days / half_life_days)`` with age from ``createdAt``
  to ``now`` (a parameter, so tests are deterministic); a memory created at
  ``now`` scores 1, one half-life old 0.5. Default half-life: 30 days.
* ``relation`` — how close the memory is to what the query reaches: the
  graph distance ``d`` to the nearest entity the query names, over mentions,
  knowledge-graph edges and provenance, explored to at most ``max_hops``:
  ``1 - (d - 1) / max_hops`` for ``d <= max_hops``, else 0 (one hop — the memory
  mentions the entity — scores 1), times ``mention_share``; with ``speaker_match``,
  a memory said by someone the query names (its ``speaker``, e.g. "Caroline" in
  "What did Caroline research?") scores 1, the nearest a memory can be to a
  person. When ``seed_k > 0`` that entity part is averaged with being the
  neighbour of a strong direct match in its session's timeline: the strength of
  that match relative to the strongest (the memory right after it at full share,
  the one right before at ``preceding_share``). Izanagi and hanzo use the
  distance alone. (Averaged, not the larger: an entity every memory mentions —
  a conversation partner's name — would otherwise saturate it.)
* ``time`` — 1 when the query asks when (how long, what year: ``when.asks_when``) and the
  memory's content carries a time expression (``when.SAYS_WHEN``), else 0. Not a weight: it
  multiplies the weighted sum by ``1 + time_boost``, so it reorders what the other signals found
  and lifts nothing they did not (the score can then exceed 1).
* ``period`` — 1 when the query names a day, a month or a year ("on October 13, 2023", "in
  December 2023", "in June": ``when.named_periods``; a day reaches from the day before to the day
  after, a month without its year is the last one up to ``now``) and
  the memory was written (``createdAt``) in it, else 0. Like ``time``, not a weight: it multiplies
  the weighted sum by ``1 + period_boost``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from hippograph.config import RESOURCES

from hippograph.graph.recall import (
    MAX_HOPS_LIMIT,
    KeywordBranch,
    NeighbourBranch,
    Recency,
    RelationBranch,
    TierSearch,
    TimeMatch,
    VectorBranch,
)
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.analysis import Style


class ProfileError(ValueError):
    """A profile name or setting cannot be used; the message says which and why."""


class Priority(str, Enum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True)
class Budget:
    items: int
    tokens: int


# The Izanagi recall budget. Every profile honours it: never more items or tokens.
RECALL_BUDGETS: Mapping[Priority, Budget] = MappingProxyType(
    {
        Priority.CRITICAL: Budget(3, 300),
        Priority.HIGH: Budget(2, 200),
        Priority.MEDIUM: Budget(1, 100),
        Priority.LOW: Budget(0, 0),
    }
)


def describe_budgets(budgets: Mapping[Priority, Budget] = RECALL_BUDGETS) -> str:
    """The budget table in words, as the GraphQL schema and the Python client say it."""
    said = []
    for priority, budget in budgets.items():
        if not budget.items:
            said.append(f"{priority.value} nothing")
        elif not said:
            said.append(f"{priority.value} {budget.items} items / {budget.tokens} tokens")
        else:
            said.append(f"{priority.value} {budget.items} / {budget.tokens}")
    return f"The recall budget: {', '.join(said)}."


# What the GraphQL schema says of a priority, and the Python client too (a test holds it to this).
BUDGETS_SAID = describe_budgets()


class Selection(str, Enum):
    # Full entry above full_above, compressed summary above summary_above, otherwise skipped.
    THRESHOLD = "threshold"
    # Full entries of the per-tier top-k above each tier's cosine threshold.
    TIER_TOP_K = "tier_top_k"


class Source(str, Enum):
    """Where candidates come from; every candidate gets every component that was measured."""

    VECTOR = "vector"
    KEYWORD = "keyword"
    GRAPH = "graph"
    NEIGHBOUR = "neighbour"


@dataclass(frozen=True)
class Weights:
    vector: float = 0.0
    keyword: float = 0.0
    recency: float = 0.0
    relation: float = 0.0

    def __post_init__(self) -> None:
        for name in ("vector", "keyword", "recency", "relation"):
            if getattr(self, name) < 0:
                raise ProfileError(f"weight {name} must not be negative, got {getattr(self, name)}")

    def as_params(self) -> dict[str, float]:
        return {"vector": self.vector, "keyword": self.keyword, "recency": self.recency, "relation": self.relation}


@dataclass(frozen=True)
class Fusion:
    """How a query of one style weighs what the branches measured: the weights, the time and period boosts,
    and what a strong match's session neighbour carries of its strength (``Components.carried``)."""

    weights: Weights
    time: TimeMatch = TimeMatch()
    carry: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.carry <= 1.0:
            raise ProfileError(f"carry must be between 0 and 1, got {self.carry}")
        if self.time.time_boost < 0:
            raise ProfileError(f"time_boost must not be negative, got {self.time.time_boost}")
        if self.time.period_boost < 0:
            raise ProfileError(f"period_boost must not be negative, got {self.time.period_boost}")


@dataclass(frozen=True)
class Gates:
    """What reaches the caller: the selection rule and its thresholds, the search order, how a
    memory without a summary is shortened, how many ranked rows come back, the re-rank, the budgets."""

    selection: Selection = Selection.THRESHOLD
    # THRESHOLD selection: score > full_above → FULL, score > summary_above → SUMMARY, else skipped.
    full_above: float = 0.5
    summary_above: float = 0.3
    # THRESHOLD selection: a memory scoring under this share of the first one's score is not delivered,
    # however much budget is left. A question one memory answers well gets that memory, not two weak
    # ones beside it; 0 delivers the whole budget. (The bench's gate table shows what each share gives.)
    of_top: float = 0.0
    # Take tiers session → project → long term (Izanagi's search order) instead of by score alone.
    tier_first: bool = False
    # A memory without a stored summary is shown compressed as its first summary_tokens tokens.
    summary_tokens: int = 40
    # Ranked rows the recall query returns before selection and budgets.
    candidates: int = 50
    # Re-rank with the cross-encoder when one is configured.
    rerank: bool = False
    budgets: Mapping[Priority, Budget] = field(default_factory=lambda: RECALL_BUDGETS)


@dataclass(frozen=True)
class RecallProfile:
    """How recall finds (one settings object per branch of the recall statement, from
    ``hippograph.graph.recall``), weighs and shows (``gates``) memories."""

    name: str
    weights: Weights
    sources: frozenset[Source]
    vector: VectorBranch = VectorBranch()
    keyword: KeywordBranch = KeywordBranch()
    relation: RelationBranch = RelationBranch()
    neighbours: NeighbourBranch = NeighbourBranch()
    recency: Recency = Recency()
    time: TimeMatch = TimeMatch()
    gates: Gates = Gates()
    # A style of query weighed its own way (``Fusion``); a style not listed is weighed by ``weights`` and ``time``.
    styles: Mapping[Style, Fusion] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        relation, vector, gates = self.relation, self.vector, self.gates
        if (
            not isinstance(relation.max_hops, int)
            or isinstance(relation.max_hops, bool)
            or not 1 <= relation.max_hops <= MAX_HOPS_LIMIT
        ):
            raise ProfileError(f"max_hops must be a whole number from 1 to {MAX_HOPS_LIMIT}, got {relation.max_hops!r}")
        if self.recency.half_life_days <= 0:
            raise ProfileError(f"half_life_days must be positive, got {self.recency.half_life_days}")
        Fusion(self.weights, self.time)
        if gates.selection is Selection.TIER_TOP_K and vector.tiers is None:
            raise ProfileError(f"profile {self.name!r} selects per-tier top-k but its vector branch searches no tiers")
        if not 0.0 <= relation.mention_share <= 1.0:
            raise ProfileError(f"mention_share must be between 0 and 1, got {relation.mention_share}")
        if not 0.0 <= self.neighbours.preceding_share <= 1.0:
            raise ProfileError(f"preceding_share must be between 0 and 1, got {self.neighbours.preceding_share}")
        counts = {
            "vector k": vector.k,
            "keyword k": self.keyword.k,
            "anchor_k": relation.anchor_k,
            "graph_k": relation.graph_k,
            "seed_k": self.neighbours.seed_k,
            "candidates": gates.candidates,
            "summary_tokens": gates.summary_tokens,
            "exact_scan_limit": vector.exact_scan_limit,
        }
        for name, value in counts.items():
            if value < 0:
                raise ProfileError(f"{name} must not be negative, got {value}")
        if not self.sources:
            raise ProfileError(f"profile {self.name!r} has no candidate source")

    def fusion(self, style: Style) -> Fusion:
        """How a query of ``style`` is weighed."""
        return self.styles.get(style) or Fusion(self.weights, self.time)

    @property
    def uses_embedding(self) -> bool:
        return Source.VECTOR in self.sources or any(self.fusion(style).weights.vector > 0 for style in Style)

    @property
    def floor(self) -> float:
        """Scores at or under the floor are never returned (hanzo's floors are its cosine thresholds)."""
        return self.gates.summary_above if self.gates.selection is Selection.THRESHOLD else float("-inf")

    def with_(self, **changes: object) -> RecallProfile:
        """A copy with some settings changed, each by its own name — ``with_(max_hops=3,
        summary_above=-1.0)`` — the two branches' ``k`` as ``vector_k`` and ``keyword_k``."""
        groups = {f.name: getattr(self, f.name) for f in fields(self) if is_dataclass(getattr(self, f.name))}
        owner = {setting.name: name for name, settings in groups.items() for setting in fields(settings)}
        owner.pop("k")
        own: dict[str, Any] = {}
        grouped: dict[str, dict[str, Any]] = {name: {} for name in groups}
        for key, value in changes.items():
            if key in ("vector_k", "keyword_k"):
                grouped[key.removesuffix("_k")]["k"] = value
            elif key in owner:
                grouped[owner[key]][key] = value
            else:
                own[key] = value
        return replace(self, **own, **{name: replace(groups[name], **c) for name, c in grouped.items() if c})


IZANAGI = RecallProfile(
    name="izanagi",
    weights=Weights(keyword=0.4, recency=0.3, relation=0.3),
    sources=frozenset({Source.KEYWORD, Source.GRAPH}),
    gates=Gates(tier_first=True),
)

HANZO = RecallProfile(
    name="hanzo",
    weights=Weights(vector=1.0),
    sources=frozenset({Source.VECTOR}),
    vector=VectorBranch(
        k=35,
        tiers=MappingProxyType(
            {
                Tier.SESSION: TierSearch(20, 0.3),
                Tier.PROJECT: TierSearch(10, 0.5),
                Tier.LONG_TERM: TierSearch(5, 0.6),
            }
        ),
    ),
    gates=Gates(selection=Selection.TIER_TOP_K, rerank=True),
)

# The hybrid fit ships as data: hybrid_fit.json, with the figures that chose it. Its top-level weights and
# boosts weigh questions (and any style it does not list); "styles" holds the styles weighed otherwise, each
# with its weights, boosts and how it was chosen. `hippograph bench fit --ship FILE` fits the top level, held
# out on every development set and chosen by the worst set, and writes it with the styles FILE holds.
HYBRID_FIT = RESOURCES / "hybrid_fit.json"


@dataclass(frozen=True)
class Fitted:
    """What a fit file holds for recall: the default fusion and the styles weighed otherwise."""

    weights: Weights
    time: TimeMatch
    styles: Mapping[Style, Fusion]


def fitted(path: Path = HYBRID_FIT) -> Fitted:
    """The fit in ``path``, read once."""
    data = json.loads(path.read_text())
    return Fitted(
        weights=Weights(**data["weights"]),
        time=TimeMatch(time_boost=data.get("time_boost", 0.0), period_boost=data.get("period_boost", 0.0)),
        styles=MappingProxyType(
            {
                Style(name): Fusion(
                    Weights(**style["weights"]),
                    TimeMatch(time_boost=style.get("time_boost", 0.0), period_boost=style.get("period_boost", 0.0)),
                    style.get("carry", 0.0),
                )
                for name, style in data.get("styles", {}).items()
            }
        ),
    )


_FIT = fitted()

# preceding: a session memory holds the keywords said right before it (an answer its question's);
# the single-signal rankings keep to a memory's own text, where an answer would tie with its question.
# keyword_k 300: a memory found by its vector but past the keyword branch's cut would score
# keyword 0 however many of the query's words it holds; seed_k 5: only the strongest direct
# matches lend relation to their neighbours. Each number's class and what remains to measure: bench/ranking.md.
HYBRID = RecallProfile(
    name="hybrid",
    weights=_FIT.weights,
    sources=frozenset({Source.VECTOR, Source.KEYWORD, Source.GRAPH, Source.NEIGHBOUR}),
    vector=VectorBranch(unnamed_query=True),
    keyword=KeywordBranch(k=300, preceding=True),
    relation=RelationBranch(speaker_match=True, mention_share=0.5),
    neighbours=NeighbourBranch(seed_k=5),
    time=_FIT.time,
    styles=_FIT.styles,
    # A statement or a request is weighed by its vector mostly, and a cosine of 0.2 may be what it recalls:
    # the floor (summary_above) sits under that (the fit's figures were taken above 0.1).
    # of_top 0.75: the largest share of the first item's score that gives up at most 3 points of critical's
    # delivered recall on each dev set (LoCoMo, LoCoMo-Plus, LongMemEval) against the whole budget; on
    # LoCoMo dev it raised precision from 0.258 to 0.304 for recall 0.660 to 0.645 (bench/REPORT.md).
    gates=Gates(summary_above=0.1, of_top=0.75),
)

PROFILES: Mapping[str, RecallProfile] = MappingProxyType({p.name: p for p in (IZANAGI, HANZO, HYBRID)})
DEFAULT_PROFILE = "hybrid"


def get_profile(profile: str | RecallProfile | None) -> RecallProfile:
    """A named preset (None means the default) or the profile itself."""
    if isinstance(profile, RecallProfile):
        return profile
    name = DEFAULT_PROFILE if profile is None else profile
    try:
        return PROFILES[name]
    except KeyError:
        raise ProfileError(f"unknown recall profile {name!r}; one of {', '.join(PROFILES)}") from None


def get_priority(priority: str | Priority) -> Priority:
    try:
        return Priority(priority.lower() if isinstance(priority, str) else priority)
    except ValueError:
        raise ProfileError(f"unknown priority {priority!r}; one of {', '.join(p.value for p in Priority)}") from None
