"""The graph's vocabulary, declared once: the tiers, the six entity types, the six edge types, the
labels and relationship types. It sits at the bottom of the layers, so every other place — the
Cypher of ``graph/``, the rules of ``memory/``, the GraphQL enums of ``schema/`` — takes it from here.
"""

from __future__ import annotations

from enum import Enum


class Tier(str, Enum):
    """Where a memory lives (its rules — capacity, trigger — are ``hippograph.memory.tiers``)."""

    SESSION = "SESSION"
    PROJECT = "PROJECT"
    LONG_TERM = "LONG_TERM"


class EntityType(str, Enum):
    """The six entity types; each is also a label of its node (``:Entity:Technology``)."""

    DECISION = "Decision"
    ERROR = "Error"
    PATTERN = "Pattern"
    TECHNOLOGY = "Technology"
    CONCEPT = "Concept"
    USER_PREFERENCE = "UserPreference"


class EdgeType(str, Enum):
    """The six knowledge-graph edges between entities."""

    LED_TO = "LED_TO"
    CAUSED = "CAUSED"
    SOLVED_BY = "SOLVED_BY"
    RELATED_TO = "RELATED_TO"
    USES = "USES"
    CONFLICTS_WITH = "CONFLICTS_WITH"


# A memory names an entity; a memory records the entity it is about (a decision, an error…);
# a summary or fact is derived from memories and turns.
MENTIONS = "MENTIONS"
RECORDS = "RECORDS"
DERIVED_FROM = "DERIVED_FROM"

# What relation depth walks in recall: mentions, the six edges, provenance.
RELATION_TYPES = (MENTIONS, RECORDS, *(edge.value for edge in EdgeType), DERIVED_FROM)

# A host's stored item (a LangGraph store's): the caller's data, kept until the caller deletes it. It
# is recalled, scrubbed, audited and erased like any memory, but takes no part in a tier's lifecycle:
# it counts in no capacity, and no compression, eviction or consolidation touches it.
ITEM_KIND = "item"


def in_lifecycle(var: str) -> str:
    """The Cypher condition that the memory ``var`` is one a tier's lifecycle governs (no stored item)."""
    return f"coalesce({var}.kind, '') <> '{ITEM_KIND}'"
