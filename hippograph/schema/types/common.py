"""Enums shared across the schema, and conversions from stored values."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, cast

import strawberry

from hippograph.graph.vocabulary import EdgeType as _EdgeType
from hippograph.graph.vocabulary import EntityType as _EntityType
from hippograph.graph.vocabulary import Tier as _Tier
from hippograph.memory.recall.profiles import BUDGETS_SAID
from hippograph.memory.recall.profiles import Priority as _Priority
from hippograph.operations import vocabulary

# strawberry.enum registers the GraphQL enum on the class itself and returns that class; called as a statement
# and the class named after it, mypy sees a type (the call's result would be a variable to it).
strawberry.enum(_Tier, description="Where a memory lives: this session, a project, or the user's long-term memory.")
Tier = _Tier
strawberry.enum(_Priority, description=BUDGETS_SAID)
Priority = _Priority
strawberry.enum(_EntityType, description="The six entity types of the knowledge graph.")
EntityType = _EntityType
strawberry.enum(_EdgeType, description="The six edge types of the knowledge graph.")
EdgeType = _EdgeType
strawberry.enum(
    vocabulary.ProfileName,
    name="RecallProfile",
    description=(
        "How recall scores: `izanagi` and `hanzo` exactly as their sources, `hybrid` (default) vector, "
        "keyword and relation, weighed by the query's style."
    ),
)
ProfileName = vocabulary.ProfileName
strawberry.enum(
    vocabulary.MemoryKind,
    description="What a memory records; decisions, errors, patterns … also carry an entity label in the graph.",
)
MemoryKind = vocabulary.MemoryKind
strawberry.enum(vocabulary.Direction, description="Which edges to follow from a node.")
Direction = vocabulary.Direction

# Every read an analyst makes takes it: the store as it was at that moment.
AsOf = Annotated[
    datetime | None,
    strawberry.argument(
        description=(
            "Read the store as it was at this moment: what was recorded by then, with the text it had then, the "
            "decisions still open then, recency measured from then (hippograph's docs/analysts.md). Null (the "
            "default): as it is now. A time without a zone is UTC; a moment to come, or a UTC offset past ±18:00, is "
            "refused (BAD_USER_INPUT). An as-of read counts no access."
        )
    ),
]


def native_time(value: Any) -> datetime | None:
    """A stored time (Neo4j DateTime, ISO text or None) as an aware datetime."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, str):
        value = _parse_iso(value)
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return cast("datetime | None", value)


def _parse_iso(text: str) -> datetime:
    # Neo4j prints up to nine fractional digits and may append a zone id; Python takes six.
    text = text.split("[", 1)[0].replace("Z", "+00:00")
    if "." in text:
        head, rest = text.split(".", 1)
        digits = len(rest) - len(rest.lstrip("0123456789"))
        text = f"{head}.{rest[: min(digits, 6)]}{rest[digits:]}"
    return datetime.fromisoformat(text)


def parse_attributes(value: str | None) -> Any:
    if value is None:
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def request_id_field() -> strawberry.ID | None:
    """A write input's optional ``requestId``: a retry that sends it again gets the first attempt's answer."""
    # The dataclass field strawberry reads, typed as the value it declares (as `x: T = field(...)` is).
    return cast(
        "strawberry.ID | None",
        strawberry.field(
            default=None,
            description=(
                "Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, an "
                "`OUTCOME_UNKNOWN`, a lost connection — it answers with what the first attempt stored "
                "and stores nothing twice."
            ),
        ),
    )
