"""The enumerations the operations take, each member said by its NAME on every interface (GraphQL's
rule for enum values, which MCP follows): ``CRITICAL``, ``PROJECT``, ``NOTE``, ``HYBRID``, ``CAUSED``.

The graph's own (``Tier``, ``EntityType``, ``EdgeType``) are ``hippograph.graph.vocabulary``'s and the
recall priority is ``hippograph.memory.recall.profiles.Priority``; what has no enumeration below the
operations — a memory's kind, a profile's name, which way to follow edges — is declared here, from
the lists the rules keep, so a kind or profile added there is offered by both interfaces at once.
"""

from __future__ import annotations

from enum import Enum

from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.writing.admission import KIND_LABELS

# Made from the labels and profiles at import; mypy reads only literal Enum() calls (`type: ignore[misc]`), and
# so a default member elsewhere (`MemoryKind.NOTE`, `ProfileName.HYBRID`) carries `type: ignore[attr-defined]`.
MemoryKind = Enum("MemoryKind", {kind.upper(): kind for kind in KIND_LABELS}, type=str)  # type: ignore[misc]
ProfileName = Enum("ProfileName", {name.upper(): name for name in PROFILES}, type=str)  # type: ignore[misc]


class Direction(str, Enum):
    """Which edges to follow from a node."""

    OUT = "OUT"
    IN = "IN"
    BOTH = "BOTH"
