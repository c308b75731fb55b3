"""What the client sends and gets back, typed: the schema's enums and the result types.

Each result type is a frozen dataclass whose fields are the GraphQL fields it selects, in
snake case (``created_at`` is ``createdAt``; a trailing underscore stands for a Python
keyword: ``from_`` is ``from``). The operation documents are built from these classes
(``hippograph.client.documents``), and a test checks every field against ``schema.graphql``.
A field's ``args`` metadata is the argument list its selection passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any


class Tier(str, Enum):
    SESSION = "SESSION"
    PROJECT = "PROJECT"
    LONG_TERM = "LONG_TERM"


class Priority(str, Enum):
    """The recall budget: critical 3 items / 300 tokens, high 2 / 200, medium 1 / 100, low nothing."""

    CRITICAL = "CRITICAL"
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class RecallProfile(str, Enum):
    IZANAGI = "IZANAGI"
    HANZO = "HANZO"
    HYBRID = "HYBRID"


class RecallMode(str, Enum):
    FULL = "FULL"
    SUMMARY = "SUMMARY"


class MemoryKind(str, Enum):
    NOTE = "NOTE"
    FACT = "FACT"
    SUMMARY = "SUMMARY"
    RULE = "RULE"
    TURN = "TURN"
    DECISION = "DECISION"
    ERROR = "ERROR"
    PATTERN = "PATTERN"
    TECHNOLOGY = "TECHNOLOGY"
    CONCEPT = "CONCEPT"
    PREFERENCE = "PREFERENCE"
    ITEM = "ITEM"


class EntityType(str, Enum):
    DECISION = "DECISION"
    ERROR = "ERROR"
    PATTERN = "PATTERN"
    TECHNOLOGY = "TECHNOLOGY"
    CONCEPT = "CONCEPT"
    USER_PREFERENCE = "USER_PREFERENCE"


class EdgeType(str, Enum):
    LED_TO = "LED_TO"
    CAUSED = "CAUSED"
    SOLVED_BY = "SOLVED_BY"
    RELATED_TO = "RELATED_TO"
    USES = "USES"
    CONFLICTS_WITH = "CONFLICTS_WITH"


class Direction(str, Enum):
    OUT = "OUT"
    IN = "IN"
    BOTH = "BOTH"


class ErrorCode(str, Enum):
    """``extensions.code`` of an error, and ``code`` of a mutation's error member."""

    BAD_USER_INPUT = "BAD_USER_INPUT"
    NOT_FOUND = "NOT_FOUND"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    UNAVAILABLE = "UNAVAILABLE"
    OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN"
    INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR"


def args(text: str) -> dict[str, str]:
    """A field selected with arguments: ``field(metadata=args("first: 100"))``."""
    return {"args": text}


@dataclass(frozen=True)
class ScoreComponents:
    """The score's parts, each in [0, 1]; ``vector`` is None when the profile embeds nothing."""

    vector: float | None
    keyword: float
    recency: float
    relation: float
    time: float
    period: float
    # What the memory carries from a strong match beside it in its session; the score is at least this.
    carried: float


@dataclass(frozen=True)
class Entity:
    id: str
    name: str
    type: EntityType
    project: str | None
    created_at: datetime | None
    valid_from: datetime | None
    valid_until: datetime | None
    attributes: Any | None
    active: bool


@dataclass(frozen=True)
class Memory:
    id: str
    content: str
    summary: str | None
    tier: Tier
    kind: MemoryKind | None
    project: str | None
    session: str | None
    created_at: datetime | None
    relevance: float | None
    access_count: int
    last_accessed_at: datetime | None
    tokens: int | None
    archived: bool
    valid_from: datetime | None
    valid_until: datetime | None
    attributes: Any | None
    labels: list[str]
    entities: list[Entity]
    records: Entity | None


@dataclass(frozen=True)
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@dataclass(frozen=True)
class MemoryPage:
    """A page of the caller's memories, newest first; pass ``page_info.end_cursor`` as ``after`` for the next."""

    nodes: list[Memory]
    page_info: PageInfo


@dataclass(frozen=True)
class RecalledMemory:
    id: str
    content: str
    mode: RecallMode
    tier: Tier
    score: float
    components: ScoreComponents
    tokens: int


@dataclass(frozen=True)
class RankedMemory:
    id: str
    content: str
    tier: Tier
    score: float
    components: ScoreComponents


@dataclass(frozen=True)
class RecallTotals:
    items: int
    tokens: int
    budget_items: int
    budget_tokens: int


@dataclass(frozen=True)
class RecallGates:
    full_above: float
    summary_above: float
    # Nothing under this share of the first item's score is delivered.
    of_top: float


@dataclass(frozen=True)
class RecallWeights:
    """score = (vector·vector + keyword·keyword + recency·recency + relation·relation)
    × (1 + time_boost·time) × (1 + period_boost·period), each term a component, or ``carried`` where that
    is more (a style with ``carry``)."""

    vector: float
    keyword: float
    recency: float
    relation: float
    time_boost: float
    period_boost: float
    # A strong match's session neighbour scores at least this times the match's strength (``carried``).
    carry: float

    def score(self, c: ScoreComponents) -> float:
        """The score these weights give these components."""
        weighted = (
            self.vector * (c.vector or 0.0)
            + self.keyword * c.keyword
            + self.recency * c.recency
            + self.relation * c.relation
        )
        return max(weighted * (1 + self.time_boost * c.time) * (1 + self.period_boost * c.period), c.carried)


@dataclass(frozen=True)
class RecallTimings:
    embed_ms: float
    query_ms: float
    total_ms: float


@dataclass(frozen=True)
class RecallResult:
    """The delivered ``items``, the ``ranking`` they were chosen from (before the budget), the budget
    used, the profile's gates (None for hanzo) and its weights."""

    items: list[RecalledMemory]
    ranking: list[RankedMemory] = field(metadata=args("first: $ranking"))
    totals: RecallTotals
    profile: str
    gates: RecallGates | None
    weights: RecallWeights
    timings: RecallTimings | None
    # The audit event that logged this recall and what it returned.
    recall_id: str | None


@dataclass(frozen=True)
class Edge:
    type: EdgeType
    from_id: str
    to_id: str
    note: str | None
    created_at: datetime | None


@dataclass(frozen=True)
class Path:
    nodes: list[Entity]
    edges: list[Edge]
    length: int


@dataclass(frozen=True)
class Chain:
    """decision -CAUSED-> error -SOLVED_BY-> fix; either end may be missing."""

    decision: Entity | None
    error: Entity
    fix: Entity | None


@dataclass(frozen=True)
class TranscriptEntry:
    id: str
    role: str
    content: str
    tokens: int
    at: datetime | None
    is_summary: bool
    position: int
    ref: str | None
    item: Any | None


@dataclass(frozen=True)
class SessionInfo:
    id: str
    project: str | None
    status: str
    started_at: datetime | None
    ended_at: datetime | None


@dataclass(frozen=True)
class Session(SessionInfo):
    """A session with its own memories (the newest 100) and its transcript (the standing summary first)."""

    memories: list[Memory] = field(metadata=args("first: 100"))
    transcript: list[TranscriptEntry]


@dataclass(frozen=True)
class SessionTranscript:
    """A session's transcript alone: the standing summary of older turns (if any), then the recent turns."""

    id: str
    transcript: list[TranscriptEntry]


@dataclass(frozen=True)
class ItemScore:
    memory: str
    score: float


@dataclass(frozen=True)
class TierUsage:
    tier: Tier
    used_tokens: int
    items: int
    capacity: int
    trigger: float
    fill: float
    project: str | None
    session: str | None


@dataclass(frozen=True)
class CompressionReport:
    steps: list[str]
    deleted: list[str]
    summarised: list[str]
    archived: list[str]


@dataclass(frozen=True)
class Remembered:
    """What ``remember`` stored: the memory, or the one already holding the same text (``duplicate_of``)."""

    memory: Memory | None
    created: bool
    duplicate_of: str | None
    redacted: list[str]
    compression: CompressionReport | None


@dataclass(frozen=True)
class Recorded:
    """A recorded decision, error, pattern or preference: the memory that says it and its entity."""

    memory: Memory | None
    entity: Entity | None
    created: bool
    duplicate_of: str | None
    redacted: list[str]
    closed: list[str]
    fix: Entity | None
    caused_by: Entity | None


@dataclass(frozen=True)
class SessionStarted:
    session: SessionInfo


@dataclass(frozen=True)
class Promotion:
    from_: str
    to: str


@dataclass(frozen=True)
class SessionEnded:
    session: SessionInfo
    promoted: list[Promotion]
    evicted: list[str]
    turns_deleted: int


@dataclass(frozen=True)
class SummaryRound:
    summary_id: str
    covered: list[str]
    tokens_before: int
    tokens_after: int
    facts: list[str]


@dataclass(frozen=True)
class TurnAppended:
    turn_id: str
    position: int
    transcript_tokens: int
    redacted: list[str]
    rounds: list[SummaryRound]


@dataclass(frozen=True)
class ErasedCount:
    name: str
    count: int


@dataclass(frozen=True)
class ErasureReceipt:
    """What an erasure removed, without its content; ``verify_erasure(receipt)`` checks it against the store."""

    user_id: str
    scope: str
    scope_id: str
    at: datetime
    tombstone_id: str
    nodes: list[ErasedCount]
    relationships: list[ErasedCount]
    ids: list[str]
    digest: str


@dataclass(frozen=True)
class ErasureCheck:
    """A receipt checked: ``erased`` when it is intact and nothing it names (nor, for a user, anything of
    theirs) remains."""

    erased: bool
    intact: bool
    remaining: list[str]
    user_remains: list[ErasedCount]


@dataclass(frozen=True)
class Forgotten:
    """What ``forget`` deleted: the memories (with summaries only they supported), orphaned entities and turns."""

    memories: list[str]
    entities: list[str]
    turns: list[str]
    receipt: ErasureReceipt


@dataclass(frozen=True)
class ScopeForgotten:
    memories: int
    entities: int
    turns: int
    sessions: int
    projects: int
    api_keys: int
    receipt: ErasureReceipt


@dataclass(frozen=True)
class MemoryEvent:
    kind: str
    project: str | None
    session: str | None
    memory_ids: list[str]
    entity_ids: list[str]
    at: datetime
