"""Scoring profiles: how recall finds, scores, shows and budgets memories.

A profile is a frozen config; ``PROFILES`` holds the named recipes (the shape of
graphiti's search-config recipes). Three ship:

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
    All four signals, weighted with weights fitted on the LoCoMo development data
    (``hippograph/bench/fit.py``; see ``bench/REPORT.md``), relation counting who
    said a memory (``speaker_match``), with Izanagi's full / summary / skip rule
    and budgets.

The components, each in [0, 1]:

* ``vector`` — cosine similarity of query and memory embeddings, clamped at 0.
* ``keyword`` — the memory's BM25 score for the query's keywords divided by the
  best BM25 score among the caller's in-scope keyword hits (per-branch max
  normalisation, as neo4j-graphrag's hybrid query does): the best keyword match
  in scope scores 1, a memory matching no keyword 0.
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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType

from hippograph.graph.recall import MAX_HOPS_LIMIT
from hippograph.graph.vocabulary import Tier


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
RECALL_BUDGETS: Mapping[Priority, Budget] = MappingProxyType({
    Priority.CRITICAL: Budget(3, 300),
    Priority.HIGH: Budget(2, 200),
    Priority.MEDIUM: Budget(1, 100),
    Priority.LOW: Budget(0, 0),
})


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
class TierSearch:
    """Hanzo's per-tier retrieval: the top ``k`` by cosine, above ``min_cosine``."""

    k: int
    min_cosine: float


@dataclass(frozen=True)
class RecallProfile:
    name: str
    weights: Weights
    sources: frozenset[Source]
    selection: Selection = Selection.THRESHOLD
    # THRESHOLD selection: score > full_above → FULL, score > summary_above → SUMMARY, else skipped.
    full_above: float = 0.5
    summary_above: float = 0.3
    # Take tiers session → project → long term (Izanagi's search order) instead of by score alone.
    tier_first: bool = False
    # Vector branch: per-tier top-k and cosine floor (hanzo), else the best vector_k in scope.
    tier_search: Mapping[Tier, TierSearch] | None = None
    vector_k: int = 60
    keyword_k: int = 100
    # Entities the query names, looked up in the entity_name index: the anchors of relation depth.
    anchor_k: int = 8
    # Memories within max_hops of an anchor that become candidates on that ground alone.
    graph_k: int = 20
    # Neighbouring memories: the seed_k best vector and keyword hits lend relation to the memory
    # right after them in their session (full strength) and right before (preceding_share); 0 = off.
    seed_k: int = 0
    preceding_share: float = 0.5
    max_hops: int = 2
    # Relation's entity part: a memory whose speaker the query names scores 1 (speaker_match), and a
    # graph distance to a named entity scores mention_share of 1 - (d - 1) / max_hops.
    speaker_match: bool = False
    mention_share: float = 1.0
    half_life_days: float = 30.0
    # A memory without a stored summary is shown compressed as its first summary_tokens tokens.
    summary_tokens: int = 40
    # Ranked rows the recall query returns before selection and budgets.
    candidates: int = 50
    # A caller owning at most this many memories gets an exact cosine scan of their scope;
    # a larger one the vector index, asked for overfetch × vector_k × (store / owned), capped.
    exact_scan_limit: int = 5000
    # That scan ranks by each memory's sketch (hippograph.sketch) and takes the exact cosine of the
    # best rescore_k only — per tier when the profile searches per tier. It must cover vector_k.
    rescore_k: int = 100
    overfetch: float = 3.0
    max_fetch: int = 5000
    # Re-rank with the cross-encoder when one is configured.
    rerank: bool = False
    budgets: Mapping[Priority, Budget] = field(default_factory=lambda: RECALL_BUDGETS)

    def __post_init__(self) -> None:
        if not isinstance(self.max_hops, int) or isinstance(self.max_hops, bool) or not 1 <= self.max_hops <= MAX_HOPS_LIMIT:
            raise ProfileError(f"max_hops must be a whole number from 1 to {MAX_HOPS_LIMIT}, got {self.max_hops!r}")
        if self.half_life_days <= 0:
            raise ProfileError(f"half_life_days must be positive, got {self.half_life_days}")
        if self.selection is Selection.TIER_TOP_K and self.tier_search is None:
            raise ProfileError(f"profile {self.name!r} selects per-tier top-k but sets no tier_search")
        if not 0.0 <= self.mention_share <= 1.0:
            raise ProfileError(f"mention_share must be between 0 and 1, got {self.mention_share}")
        if not 0.0 <= self.preceding_share <= 1.0:
            raise ProfileError(f"preceding_share must be between 0 and 1, got {self.preceding_share}")
        for name in ("vector_k", "keyword_k", "anchor_k", "graph_k", "seed_k", "candidates", "summary_tokens", "exact_scan_limit"):
            if getattr(self, name) < 0:
                raise ProfileError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.rescore_k < self.vector_k:
            raise ProfileError(f"rescore_k ({self.rescore_k}) must be at least vector_k ({self.vector_k})")
        if not self.sources:
            raise ProfileError(f"profile {self.name!r} has no candidate source")

    @property
    def uses_embedding(self) -> bool:
        return Source.VECTOR in self.sources or self.weights.vector > 0

    @property
    def floor(self) -> float:
        """Scores at or under the floor are never returned (hanzo's floors are its cosine thresholds)."""
        return self.summary_above if self.selection is Selection.THRESHOLD else float("-inf")

    def with_(self, **changes: object) -> RecallProfile:
        """A copy with some settings changed, e.g. ``PROFILES['hybrid'].with_(max_hops=3)``."""
        return replace(self, **changes)


IZANAGI = RecallProfile(
    name="izanagi",
    weights=Weights(keyword=0.4, recency=0.3, relation=0.3),
    sources=frozenset({Source.KEYWORD, Source.GRAPH}),
    tier_first=True,
)

HANZO = RecallProfile(
    name="hanzo",
    weights=Weights(vector=1.0),
    sources=frozenset({Source.VECTOR}),
    selection=Selection.TIER_TOP_K,
    tier_search=MappingProxyType({
        Tier.SESSION: TierSearch(20, 0.3),
        Tier.PROJECT: TierSearch(10, 0.5),
        Tier.LONG_TERM: TierSearch(5, 0.6),
    }),
    vector_k=35,
    rerank=True,
)

# Fitted on the LoCoMo development data — all five conversations of locomo-dev.json,
# 760 questions — by `hippograph bench fit` (hippograph/bench/fit.py): a grid over the
# simplex (step 0.05) maximising mean Recall@10 + Hit@1 + NDCG@5 of the recall query's
# own candidate rows. In-sample, so bench/REPORT.md also shows leave-one-conversation-out.
# Fitted with the int8 query encoder's vectors (hippograph/encoder.py), which moved the optimum
# from vector 0.60 / keyword 0.15 / relation 0.25.
# Recency earns no weight on LoCoMo (questions there are not about what is recent).
# keyword_k 300: a memory found by its vector but past the keyword branch's cut would score
# keyword 0 however many of the query's words it holds; seed_k 5: only the strongest direct
# matches lend relation to their neighbours. Both were chosen on the same data.
HYBRID = RecallProfile(
    name="hybrid",
    weights=Weights(vector=0.50, keyword=0.20, recency=0.0, relation=0.30),
    sources=frozenset({Source.VECTOR, Source.KEYWORD, Source.GRAPH, Source.NEIGHBOUR}),
    keyword_k=300,
    seed_k=5,
    speaker_match=True,
    mention_share=0.5,
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
