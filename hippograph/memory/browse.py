"""Reading a user's memory as it is stored: single nodes, pages, neighbourhoods,
paths, chains and how full each tier is.

Everything here runs in read transactions and is scoped to ``user_id``: an id
that belongs to someone else reads exactly like an id that does not exist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from neo4j import READ_ACCESS, ManagedTransaction

from hippograph.graph import browse as browse_cypher
from hippograph.graph import history
from hippograph.graph import entities as entity_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.graph import sessions as session_cypher
from hippograph.graph.vocabulary import EdgeType, EntityType
from hippograph.memory.writing.entities import USER_SCOPE, normalise_name
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope, capacity, kept_capacities
from hippograph.memory.services import Services

MAX_TRACE_DEPTH = browse_cypher.MAX_TRACE_DEPTH
# Paths enumerated before ordering: a dense neighbourhood costs bounded work.
TRACE_SCAN = 5000

T = TypeVar("T")


@dataclass(frozen=True)
class MemoryFilter:
    tiers: Sequence[Tier] | None = None
    project_id: str | None = None
    session_id: str | None = None
    kinds: Sequence[str] | None = None
    include_archived: bool = False
    include_closed: bool = True
    request_ids: Sequence[str] | None = None


@dataclass(frozen=True)
class Page:
    """Up to ``first`` rows and whether more follow."""

    rows: list[dict[str, Any]]
    has_next: bool


@dataclass(frozen=True)
class ContextItem:
    """One memory a decision's recall returned: as it read when the decision was recorded (``memory``), or,
    forgotten since, only when (``erased_at``; None when no tombstone names it)."""

    id: str
    memory: dict[str, Any] | None
    erased_at: datetime | None = None


@dataclass(frozen=True)
class DecisionContext:
    """What informed a decision: its recall (the audit event's id), when the decision was recorded, and
    what that recall returned, in its order."""

    recall_id: str
    recorded_at: datetime
    items: list[ContextItem]


@dataclass(frozen=True)
class TierUsage:
    tier: Tier
    used_tokens: int
    items: int
    capacity: int
    project_id: str | None
    session_id: str | None

    @property
    def fill(self) -> float:
        return self.used_tokens / self.capacity if self.capacity else 0.0


def _read(services: Services, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    with services.driver.session(database=services.database, default_access_mode=READ_ACCESS) as session:
        return session.execute_read(work, *args, **kwargs)


def get_memories(
    services: Services, user_id: str, ids: Sequence[str], as_of: datetime | None = None
) -> dict[str, dict[str, Any]]:
    """The caller's memories among ``ids``, by id; ids that are not theirs are absent. As of ``as_of``:
    those recorded by then, as they read then (``hippograph.graph.history``)."""
    rows = _read(services, memory_cypher.get_memories, user_id, list(ids), as_of)
    return {row["id"]: dict(row) for row in rows}


def decision_context(services: Services, user_id: str, entity_id: str) -> DecisionContext | None:
    """The memories the recall that informed a decision returned, as they were when it was recorded; a
    memory forgotten since shows only when it was erased, never what it said. None without such a recall."""

    def work(tx: ManagedTransaction) -> DecisionContext | None:
        informed = history.informed_by(tx, user_id, entity_id)
        if informed is None or informed["recallId"] is None:
            return None
        at = informed["at"].to_native()
        ids = list(informed["ids"])
        then = {row["id"]: row for row in memory_cypher.get_memories(tx, user_id, ids, at)}
        erased = history.erased_at(tx, user_id, [i for i in ids if i not in then])
        items = [ContextItem(i, then[i]) if i in then else ContextItem(i, None, _native(erased.get(i))) for i in ids]
        return DecisionContext(informed["recallId"], at, items)

    return _read(services, work)


def _native(value: Any) -> datetime | None:
    return value.to_native() if value is not None else None


def get_entities(services: Services, user_id: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    rows = _read(services, entity_cypher.get_entities, user_id, list(ids))
    return {row["id"]: dict(row) for row in rows}


def edges_of(services: Services, user_id: str, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Knowledge-graph edges touching each entity (both directions)."""
    return _read(services, browse_cypher.edges_of, user_id, list(ids))


def memories_of_entities(
    services: Services, user_id: str, ids: Sequence[str], limit: int = 100
) -> dict[str, list[dict[str, Any]]]:
    """Per entity, the newest ``limit`` memories that mention or record it: ``{relation, memory}`` rows."""
    return _read(services, browse_cypher.memories_of_entities, user_id, list(ids), limit)


def entities_of_memories(services: Services, user_id: str, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Per memory, the entities it mentions or records: ``{relation, entity}`` rows."""
    return _read(services, browse_cypher.entities_of_memories, user_id, list(ids))


def memories_page(
    services: Services,
    user_id: str,
    where: MemoryFilter,
    first: int,
    after: tuple[int, int, str] | None = None,
    as_of: datetime | None = None,
) -> Page:
    """Newest first; ``after`` is the (epoch seconds, nanosecond, id) of the last row already seen; as of
    ``as_of``, the page of the store as it was then."""
    Scope(user_id, where.project_id, where.session_id)  # checks the ids' form
    rows = _read(
        services,
        browse_cypher.memories_page,
        user_id,
        tiers=[t.value for t in where.tiers] if where.tiers is not None else None,
        project_id=where.project_id,
        session_id=where.session_id,
        kinds=list(where.kinds) if where.kinds is not None else None,
        include_archived=where.include_archived,
        include_closed=where.include_closed,
        after=after,
        limit=first + 1,
        as_of=as_of,
        request_ids=list(where.request_ids) if where.request_ids is not None else None,
    )
    return Page(rows[:first], len(rows) > first)


def entities_page(
    services: Services,
    user_id: str,
    first: int,
    entity_type: EntityType | None = None,
    search: str | None = None,
    project_id: str | None = None,
    after: tuple[str, str] | None = None,
    user_level: bool = False,
) -> Page:
    """By normalised name; ``search`` matches anywhere in the name, case-insensitively.

    ``project_id`` keeps a project's entities; ``user_level`` the user's own, outside any project.
    """
    Scope(user_id, project_id)
    needle = normalise_name(search) if search is not None else None
    rows = _read(
        services,
        browse_cypher.entities_page,
        user_id,
        entity_type=EntityType(entity_type).value if entity_type is not None else None,
        search=needle or None,
        scope_key=USER_SCOPE if user_level else project_id,
        after=after,
        limit=first + 1,
    )
    return Page(rows[:first], len(rows) > first)


def trace(
    services: Services,
    user_id: str,
    from_id: str,
    edge_types: Sequence[EdgeType] | None = None,
    direction: str = "OUT",
    max_depth: int = 3,
    limit: int = 100,
    as_of: datetime | None = None,
) -> list[dict[str, Any]]:
    """Paths of knowledge-graph edges from an entity, shortest first: ``{nodes, edges}`` rows; as of
    ``as_of``, over the entities and edges recorded by then."""
    if direction not in ("OUT", "IN", "BOTH"):
        raise InvalidInput(f"direction must be OUT, IN or BOTH, got {direction!r}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
        raise InvalidInput(f"maxDepth must be a whole number from 1 to {MAX_TRACE_DEPTH}")
    types = sorted({EdgeType(t).value for t in (edge_types or list(EdgeType))})

    def work(tx: ManagedTransaction) -> list[dict[str, Any]] | None:
        if not browse_cypher.entity_exists(tx, user_id, from_id):
            return None
        return browse_cypher.trace(tx, user_id, from_id, types, direction, max_depth, limit, TRACE_SCAN, as_of)

    paths = _read(services, work)
    if paths is None:
        raise NotFound(f"entity {from_id} not found")
    return paths


def chains(
    services: Services, user_id: str, project_id: str | None = None, limit: int = 100, as_of: datetime | None = None
) -> list[dict[str, Any]]:
    """decision → CAUSED → error → SOLVED_BY → fix, per error of the project (or of every scope); as of
    ``as_of``, the chains recorded by then, each decision open or closed as it was then."""
    Scope(user_id, project_id)
    return _read(services, browse_cypher.chains, user_id, project_id, limit, as_of)


def tier_usage(services: Services, scope: Scope, as_of: datetime | None = None) -> list[TierUsage]:
    """How full each tier of the scope is: long term always, project and session when the scope names them;
    as of ``as_of``, with the memories stored and not archived then."""
    tiers = [Tier.LONG_TERM]
    if scope.project_id is not None:
        tiers.insert(0, Tier.PROJECT)
    if scope.session_id is not None:
        tiers.insert(0, Tier.SESSION)

    def work(tx: ManagedTransaction) -> list[TierUsage]:
        usage = []
        settings = kept_capacities(services.settings, tx)
        for tier in tiers:
            keyed = scope.for_tier(tier)
            used, items = memory_cypher.tier_usage(
                tx, scope.user_id, tier.value, keyed.project_id, keyed.session_id, as_of
            )
            usage.append(TierUsage(tier, used, items, capacity(settings, tier), keyed.project_id, keyed.session_id))
        return usage

    return _read(services, work)


def get_session(services: Services, user_id: str, session_id: str) -> dict[str, Any]:
    Scope(user_id, session_id=session_id)
    session = _read(services, session_cypher.get_session, user_id, session_id)
    if session is None:
        raise NotFound(f"session {session_id} not found")
    return session


def entity_project(entity: dict[str, Any]) -> str | None:
    """The project an entity belongs to, or None for one kept at the user's level."""
    scope_key = entity.get("scopeKey")
    return None if scope_key in (None, USER_SCOPE) else scope_key
