"""Sessions: the volatile tier's lifetime.

Ending a session evicts it: the facts of turns no summary covered yet are
extracted into project memory; session memories that qualify are promoted — facts,
decisions, errors and patterns, and anything accessed more than 3 times
(the paper's promotion rule) — into project memory (long-term memory when the
session has no project), with provenance (``promotedFrom``, ``session``); the
rest, and the raw turns, are deleted. The facts and the copies keep the session
(``sourceSessions``, and the facts their turns' positions, ``sourceTurns``) after
the turns are gone, so that forgetting the session still finds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import memories as memory_cypher
from hippograph.graph import sessions as session_cypher
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from hippograph.memory.writing.writer import Remembered
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.lifecycle.transcript import extract_remaining_facts, parse_attributes
from hippograph.memory.services import Services
from hippograph.memory.writing import outcomes

PROMOTE_AFTER_ACCESSES = 3
PROMOTED_KINDS = frozenset({"fact", "decision", "error", "pattern", "rule", "preference"})


@dataclass
class SessionEnded:
    session_id: str
    promoted: dict[str, str] = field(default_factory=dict)  # session memory id -> new memory id
    evicted: list[str] = field(default_factory=list)
    turns_deleted: int = 0
    facts: list[str] = field(default_factory=list)  # facts extracted from the remaining turns


def start_session(services: Services, scope: Scope, now: datetime | None = None) -> dict[str, Any]:
    if scope.session_id is None:
        raise InvalidInput("starting a session needs a session id")
    at = (now or datetime.now(UTC)).isoformat()
    session_id = scope.session_id

    def write(tx: ManagedTransaction) -> dict[str, Any]:
        session = session_cypher.start_session(tx, scope.user_id, session_id, scope.project_id, at)
        if not session.pop("sameProject"):
            raise InvalidInput(f"session {scope.session_id} already belongs to another project")
        if session["status"] != "active":
            raise InvalidInput(f"session {scope.session_id} has ended; start a new one")
        services.audit.record_in(tx, scope.user_id, "start_session", [session_id], scope.project_id)
        return session

    with services.driver.session(database=services.database) as db:
        return outcomes.write(db, write)


def qualifies(kind: str | None, access_count: int | None) -> bool:
    return (kind or "note") in PROMOTED_KINDS or (access_count or 0) > PROMOTE_AFTER_ACCESSES


def promote(
    services: Services, user_id: str, session_id: str | None, project_id: str | None, memory: dict[str, Any]
) -> Remembered:
    """A copy of a session memory in project memory (long-term without a project; preferences always),
    through the write path, with its provenance: ``promotedFrom``, ``session``, ``accessCount`` in its
    attributes, and the session in ``sourceSessions``, so that forgetting the session finds the copy."""
    kind = memory["kind"] if memory["kind"] in PROMOTED_KINDS else "fact"
    if kind == "preference" or not project_id:
        scope, tier = Scope(user_id), Tier.LONG_TERM
    else:
        scope, tier = Scope(user_id, project_id), Tier.PROJECT
    attributes = parse_attributes(memory["attributes"])

    def keep_source(tx: ManagedTransaction, stored: Remembered) -> None:
        if session_id is not None:
            memory_cypher.record_source(tx, user_id, stored.id, session_id)

    return remember(
        services,
        scope,
        MemoryInput(
            content=memory["content"],
            tier=tier,
            kind=kind,
            relevance=float(memory["relevance"] if memory["relevance"] is not None else 1.0),
            attributes={
                **attributes,
                "promotedFrom": memory["id"],
                "session": session_id,
                "accessCount": memory["accessCount"] or 0,
            },
        ),
        then=keep_source,
    )


def end_session(services: Services, user_id: str, session_id: str, now: datetime | None = None) -> SessionEnded:
    at = (now or datetime.now(UTC)).isoformat()
    with services.driver.session(database=services.database) as db:
        session = db.execute_read(session_cypher.get_session, user_id, session_id)
        if session is None:
            raise NotFound(f"session {session_id} not found")
        if session["status"] != "active":
            raise InvalidInput(f"session {session_id} has already ended")
        memories = db.execute_read(session_cypher.session_memories, user_id, session_id)
    project_id = session.get("projectId")
    # The turns no summary has covered yet still hold facts: they go to project memory before the turns go.
    facts = extract_remaining_facts(services, Scope(user_id, project_id, session_id))
    result = SessionEnded(session_id, facts=facts)
    for memory in memories:
        if qualifies(memory["kind"], memory["accessCount"]):
            result.promoted[memory["id"]] = promote(services, user_id, session_id, project_id, memory).id

    def evict(tx: ManagedTransaction) -> None:
        removed, _ = memory_cypher.delete_memories(tx, user_id, [m["id"] for m in memories])
        result.evicted.extend(removed)
        result.turns_deleted = session_cypher.delete_turns(tx, user_id, session_id)
        session_cypher.end_session(tx, user_id, session_id, at)
        services.audit.record_in(
            tx,
            user_id,
            "end_session",
            [session_id, *result.promoted.values()],
            f"facts {len(result.facts)}, promoted {len(result.promoted)}, evicted {len(result.evicted)}, "
            f"turns deleted {result.turns_deleted}",
        )

    with services.driver.session(database=services.database) as db:
        outcomes.write(db, evict)
    return result
