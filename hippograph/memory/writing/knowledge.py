"""The knowledge graph's rules: decisions, errors and fixes, patterns, preferences, links.

Each record is a memory (recallable, counted in its tier) that ``RECORDS`` an
entity (``:Entity:Decision`` …) in the graph analysts explore. Facts change:
a decision that conflicts with active ones closes them (``validUntil``) — only
the entities named as conflicting, never unrelated facts.

Texts (names, reasons, fixes, values, an edge's note) go through the secret
policy; ids and a preference's key are refused when they hold a secret, since
a redacted id would name another thing. A record is a ``remember``: with a
``request_id``, a retry answers with the memory the first attempt stored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import entities as entity_cypher
from hippograph.graph import history
from hippograph.graph.vocabulary import EdgeType, EntityType, Tier
from hippograph.memory.ids import check_id
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import outcomes, scrubbing
from hippograph.memory.writing.admission import MemoryInput, entity_row
from hippograph.memory.writing.entities import FIXED_BY
from hippograph.memory.writing.store import remember
from hippograph.memory.writing.writer import Remembered


PREFERENCE_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass
class Recorded:
    memory: Remembered
    entity_id: str
    closed: list[str] = field(default_factory=list)
    related: dict[str, str] = field(default_factory=dict)


def record_decision(
    services: Services,
    scope: Scope,
    decision: str,
    reason: str | None = None,
    conflicts_with: Sequence[str] = (),
    tier: Tier = Tier.PROJECT,
    attributes: dict[str, Any] | None = None,
    now: datetime | None = None,
    request_id: str | None = None,
    informed_by: str | None = None,
) -> Recorded:
    """Store a decision at once; close the active decisions it names as conflicting. ``informed_by`` is the
    id of the caller's recall (its audit event) that informed it: the decision keeps it, and its context
    reads what that recall returned as it was then."""
    at = (now or datetime.now(UTC)).isoformat()
    content = decision if not reason else f"{decision} — because {reason}"
    conflicts_with = [check_id("conflictsWith", other) for other in conflicts_with]
    closed: list[str] = []

    if informed_by is not None:
        informed_by = check_id("informedBy", informed_by)
        # The recall's event is logged in the background: it must be in the store to be named.
        services.audit.flush()

    def supersede(tx: ManagedTransaction, stored: Remembered) -> None:
        assert stored.records_entity_id is not None
        if informed_by is not None:
            if not history.recall_event_exists(tx, scope.user_id, informed_by):
                raise NotFound(f"recall {informed_by} not found")
            history.inform(tx, scope.user_id, stored.id, informed_by)
        for other in conflicts_with:
            if other == stored.records_entity_id:
                raise InvalidInput("a decision cannot conflict with itself")
            if entity_cypher.link(tx, scope.user_id, stored.records_entity_id, other, EdgeType.CONFLICTS_WITH) is None:
                raise NotFound(f"entity {other} not found")
        if conflicts_with:
            # Assigned, not extended: a retried transaction runs this again.
            closed[:] = entity_cypher.close_entities(tx, scope.user_id, list(conflicts_with), at)[0]

    stored = remember(
        services,
        scope,
        MemoryInput(
            content=content,
            tier=tier,
            kind="decision",
            records_entity=(EntityType.DECISION, decision),
            attributes={**(attributes or {}), **({"reason": reason} if reason else {})},
        ),
        now=now,
        then=supersede,
        request_id=request_id,
    )
    return Recorded(stored, stored.records_entity_id or "", closed=closed)


def record_error(
    services: Services,
    scope: Scope,
    error: str,
    fix: str | None = None,
    caused_by: str | None = None,
    tier: Tier = Tier.PROJECT,
    attributes: dict[str, Any] | None = None,
    now: datetime | None = None,
    request_id: str | None = None,
) -> Recorded:
    """Store an error; with ``fix`` add (error)-[:SOLVED_BY]->(fix decision); with ``caused_by``
    (decision)-[:CAUSED]->(error)."""
    content = error if not fix else f"{error}{FIXED_BY}{fix}"
    if caused_by:
        check_id("causedBy", caused_by)
    related: dict[str, str] = {}

    def connect(tx: ManagedTransaction, stored: Remembered) -> None:
        assert stored.records_entity_id is not None
        if fix:
            fix_ids = entity_cypher.upsert_entities(
                tx, scope.user_id, [entity_row(scope, tier, EntityType.DECISION, fix)]
            )
            related["fix"] = next(iter(fix_ids.values()))
            entity_cypher.link(tx, scope.user_id, stored.records_entity_id, related["fix"], EdgeType.SOLVED_BY)
        if caused_by:
            if entity_cypher.link(tx, scope.user_id, caused_by, stored.records_entity_id, EdgeType.CAUSED) is None:
                raise NotFound(f"entity {caused_by} not found")
            related["causedBy"] = caused_by

    stored = remember(
        services,
        scope,
        MemoryInput(
            content=content,
            tier=tier,
            kind="error",
            records_entity=(EntityType.ERROR, error),
            attributes={**(attributes or {}), **({"fix": fix} if fix else {})},
        ),
        now=now,
        then=connect,
        request_id=request_id,
    )
    return Recorded(stored, stored.records_entity_id or "", related=related)


def record_pattern(
    services: Services,
    scope: Scope,
    pattern: str,
    count: int = 1,
    tier: Tier = Tier.LONG_TERM,
    attributes: dict[str, Any] | None = None,
    now: datetime | None = None,
    request_id: str | None = None,
) -> Recorded:
    if count < 0:
        raise InvalidInput("a pattern's count cannot be negative")
    stored = remember(
        services,
        scope,
        MemoryInput(
            content=pattern,
            tier=tier,
            kind="pattern",
            records_entity=(EntityType.PATTERN, pattern),
            attributes={**(attributes or {}), "count": count},
        ),
        now=now,
        request_id=request_id,
    )
    return Recorded(stored, stored.records_entity_id or "")


def set_preference(
    services: Services,
    scope: Scope,
    key: str,
    value: str,
    now: datetime | None = None,
    request_id: str | None = None,
) -> Recorded:
    """A long-term preference; a new value for the same key closes the previous one."""
    check_id("a preference key", key)
    if not PREFERENCE_KEY.match(key):
        raise InvalidInput("a preference key is 1-64 letters, digits, '_', '.' or '-'")
    # The key names the value ("db_password"): the value is scrubbed as it reads after it.
    scrubbed = scrubbing.enforce(value, services.settings.secret_policy, label=key)
    value = scrubbed.text
    at = (now or datetime.now(UTC)).isoformat()
    name = f"{key}: {value}"
    closed: list[str] = []

    def replace(tx: ManagedTransaction, stored: Remembered) -> None:
        ids = entity_cypher.active_preferences(tx, scope.user_id, f"{key}: ", keep=stored.records_entity_id)
        if ids:
            # Assigned, not extended: a retried transaction runs this again.
            closed[:] = entity_cypher.close_entities(tx, scope.user_id, ids, at)[0]

    stored = remember(
        services,
        Scope(scope.user_id),
        MemoryInput(
            content=f"User preference — {name}",
            tier=Tier.LONG_TERM,
            kind="preference",
            records_entity=(EntityType.USER_PREFERENCE, name),
            attributes={"key": key, "value": value},
            extract_entities=False,
        ),
        now=now,
        then=replace,
        request_id=request_id,
    )
    stored.redacted = sorted(set(stored.redacted) | set(scrubbed.kinds))
    return Recorded(stored, stored.records_entity_id or "", closed=closed)


def link(
    services: Services, user_id: str, from_id: str, to_id: str, edge: EdgeType, note: str | None = None
) -> dict[str, Any]:
    """The edge, with its note as stored (scrubbed); an edge that was already there keeps its note."""
    check_id("from", from_id)
    check_id("to", to_id)
    if from_id == to_id:
        raise InvalidInput("an edge needs two different entities")
    scrubbed = scrubbing.enforce(note, services.settings.secret_policy) if note is not None else None
    detail = EdgeType(edge).value + (f" redacted={','.join(scrubbed.kinds)}" if scrubbed and scrubbed.kinds else "")

    def write(tx: ManagedTransaction) -> dict[str, Any]:
        created = entity_cypher.link(tx, user_id, from_id, to_id, edge, scrubbed.text if scrubbed else None)
        if created is None:
            raise NotFound("one or both entities not found")
        services.audit.record_in(tx, user_id, "link", [from_id, to_id], detail)
        return created

    with services.driver.session(database=services.database) as session:
        return outcomes.write(session, write)


def unlink(services: Services, user_id: str, from_id: str, to_id: str, edge: EdgeType) -> int:
    check_id("from", from_id)
    check_id("to", to_id)

    def write(tx: ManagedTransaction) -> int:
        removed = entity_cypher.unlink(tx, user_id, from_id, to_id, edge)
        if removed == 0:
            raise NotFound("no such edge")
        services.audit.record_in(tx, user_id, "unlink", [from_id, to_id], EdgeType(edge).value)
        return removed

    with services.driver.session(database=services.database) as session:
        return outcomes.write(session, write)
