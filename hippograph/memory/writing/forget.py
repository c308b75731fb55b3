"""Forgetting: a memory, an entity, a turn, a session, a project or a whole user — with everything only they supported.

A turn takes with it the memories extracted from it; a summary of older turns (a turn too) takes the
turns it covers and what was extracted from them. A turn a summary covers is refused: its words live
on in the summary, which goes only whole.

A session takes with it its memories and turns, its node and its document's tasks, and
whatever derives from it: the facts extracted from its turns and the memories promoted
from it, found by their provenance (``sourceSessions``) in whichever tier they are now —
even when the same words were said elsewhere too, since the store cannot tell which
saying a text is — and the long-term rules generalised from any of these. A project
takes its memories, its sessions (each as above), its entities and its node. Deleting
the memories goes through ``DELETE_MEMORIES``, so summaries only they supported and
entities nothing else mentions go too, and no property or index keeps their text.
Each forgetting leaves one audit tombstone: who, what scope, how much — never what — and answers a
receipt (``hippograph.memory.receipts``): counts per label and relationship type, the sorted ids removed
and their digest, checkable later against the live store.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from neo4j import ManagedTransaction

from hippograph.graph import documents as document_cypher
from hippograph.graph import forget as forget_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.graph import sessions as session_cypher
from hippograph.memory.audit import AuditEvent
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.receipts import Ledger, Receipt
from hippograph.memory.services import Services
from hippograph.memory.writing import outcomes


@dataclass
class Forgotten:
    memories: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    receipt: Receipt | None = None
    turns: list[str] = field(default_factory=list)
    # Where a forgotten turn was said.
    session_id: str | None = None
    project_id: str | None = None


@dataclass
class ScopeForgotten:
    """What forgetting a session, a project or a user took: counts, and for a session or a project
    the ids of the memories and entities (a user's are only counted: there may be millions)."""

    memory_ids: list[str] = field(default_factory=list)
    entity_ids: list[str] = field(default_factory=list)
    memories: int = 0
    entities: int = 0
    turns: int = 0
    sessions: int = 0
    projects: int = 0
    api_keys: int = 0
    users: int = 0
    # The project a forgotten session belonged to, or the project forgotten.
    project_id: str | None = None
    receipt: Receipt | None = None

    @property
    def nothing(self) -> bool:
        return not (
            self.memories
            or self.entities
            or self.turns
            or self.sessions
            or self.projects
            or self.api_keys
            or self.users
        )

    def counts(self) -> str:
        """How much went, for the tombstone; never what."""
        return (
            f"memories {self.memories}, entities {self.entities}, turns {self.turns}, sessions {self.sessions}, "
            f"projects {self.projects}, api keys {self.api_keys}"
        )


def forget_memory(services: Services, user_id: str, memory_id: str) -> Forgotten:
    def write(tx: ManagedTransaction) -> Forgotten:
        ledger = Ledger()
        ledger.before(tx, user_id, memory_ids=[memory_id])
        memories, entities = memory_cypher.delete_memories(tx, user_id, [memory_id])
        if memory_id not in memories:
            raise NotFound(f"memory {memory_id} not found")
        ledger.after(tx)
        event = services.audit.record_in(tx, user_id, "forget", memories + entities, "memory")
        return Forgotten(memories, entities, ledger.receipt(user_id, "memory", memory_id, event.at, event.id))

    with services.driver.session(database=services.database) as session:
        return outcomes.write(session, write)


def forget_entity(services: Services, user_id: str, entity_id: str) -> Forgotten:
    """The entity, the memories that record it, and what only those supported; mentions elsewhere just lose the edge."""

    def write(tx: ManagedTransaction) -> Forgotten:
        recording = forget_cypher.recording_memories(tx, user_id, entity_id)
        if recording is None:
            raise NotFound(f"entity {entity_id} not found")
        ledger = Ledger()
        ledger.before(tx, user_id, memory_ids=recording, entity_ids=[entity_id])
        memories, entities = memory_cypher.delete_memories(tx, user_id, recording)
        if entity_id not in entities:
            forget_cypher.delete_entity(tx, user_id, entity_id)
            entities.append(entity_id)
        ledger.after(tx)
        event = services.audit.record_in(tx, user_id, "forget", memories + entities, "entity")
        return Forgotten(memories, entities, ledger.receipt(user_id, "entity", entity_id, event.at, event.id))

    with services.driver.session(database=services.database) as session:
        return outcomes.write(session, write)


def forget_turn(services: Services, user_id: str, turn_id: str) -> Forgotten:
    """The turn (with the turns a summary covers) and the memories extracted from them, with what only
    those supported."""

    def write(tx: ManagedTransaction) -> Forgotten:
        turn = forget_cypher.turn_to_forget(tx, user_id, turn_id)
        if turn is None:
            raise NotFound(f"turn {turn_id} not found")
        if turn["summarisedIn"] is not None:
            raise InvalidInput(
                f"turn {turn_id} is summarised in turn {turn['summarisedIn']}: forget that summary, "
                "which takes the turns it covers",
                field="turn",
            )
        ledger = Ledger()
        ledger.before(tx, user_id, memory_ids=turn["memoryIds"], turn_ids=turn["turnIds"])
        memories, entities = memory_cypher.delete_memories(tx, user_id, turn["memoryIds"])
        forget_cypher.delete_turns(tx, user_id, turn["turnIds"])
        ledger.after(tx)
        event = services.audit.record_in(tx, user_id, "forget", [*turn["turnIds"], *memories, *entities], "turn")
        return Forgotten(
            memories,
            entities,
            ledger.receipt(user_id, "turn", turn_id, event.at, event.id),
            turns=turn["turnIds"],
            session_id=turn["sessionId"],
            project_id=turn["projectId"],
        )

    with services.driver.session(database=services.database) as session:
        return outcomes.write(session, write)


def forget_session(
    services: Services,
    user_id: str,
    session_id: str,
    by: str | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> ScopeForgotten:
    """The session and everything it owns or that derives from it (see the module docstring), in one
    transaction; ``by`` names who asked, for the tombstone. ``progress(done, total)``: none of its memories
    done once they are counted, all once the transaction commits."""

    def write(tx: ManagedTransaction) -> ScopeForgotten:
        memory_cypher.lock_user(tx, user_id)
        session = forget_cypher.session_to_forget(tx, user_id, session_id)
        ledger = Ledger()
        forgotten = _erase_sessions(tx, user_id, [session_id], None, ledger, progress)
        if forgotten.nothing:
            raise NotFound(f"session {session_id} not found")
        forgotten.project_id = session["projectId"]
        ledger.after(tx)
        event = _tombstone(services, tx, user_id, "forget_session", session_id, forgotten, by)
        forgotten.receipt = ledger.receipt(user_id, "session", session_id, event.at, event.id)
        return forgotten

    with services.driver.session(database=services.database) as db:
        return _committed(outcomes.write(db, write), progress)


def forget_project(
    services: Services,
    user_id: str,
    project_id: str,
    by: str | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> ScopeForgotten:
    """The project, its memories and entities, and each of its sessions as ``forget_session`` forgets one
    (``progress`` too)."""

    def write(tx: ManagedTransaction) -> ScopeForgotten:
        memory_cypher.lock_user(tx, user_id)
        project = forget_cypher.project_to_forget(tx, user_id, project_id)
        ledger = Ledger()
        forgotten = _erase_sessions(tx, user_id, project["sessionIds"], project_id, ledger, progress)
        bare = forget_cypher.delete_project_entities(tx, user_id, project_id)
        forgotten.entity_ids.extend(bare)
        forgotten.entities += len(bare)
        forgotten.projects = forget_cypher.delete_project(tx, user_id, project_id)
        if forgotten.nothing:
            raise NotFound(f"project {project_id} not found")
        forgotten.project_id = project_id
        ledger.after(tx)
        event = _tombstone(services, tx, user_id, "forget_project", project_id, forgotten, by)
        forgotten.receipt = ledger.receipt(user_id, "project", project_id, event.at, event.id)
        return forgotten

    with services.driver.session(database=services.database) as db:
        return _committed(outcomes.write(db, write), progress)


def forget_user(
    services: Services,
    user_id: str,
    by: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ScopeForgotten:
    """Delete every node the user owns, then the user and the log of what they did; one tombstone
    with the counts stays. A user who has nothing is left alone (nothing is logged). ``progress(done,
    total)`` after each batch of the user's nodes (counted first only for it)."""
    # Reads logged a moment ago are still on their way to the log: they must land before it goes.
    services.audit.flush()
    forgotten = ScopeForgotten()
    ledger = Ledger()
    with services.driver.session(database=services.database) as session:
        total = session.execute_read(forget_cypher.count_user_nodes, user_id) if progress is not None else 0
        done = 0
        while batch := outcomes.write(session, forget_cypher.delete_user_batch, user_id):
            done += len(batch["removed"])
            if progress is not None:
                progress(done, max(total, done))  # nodes the user added meanwhile go too
            forgotten.memories += batch["memories"]
            forgotten.entities += batch["entities"]
            forgotten.turns += batch["turns"]
            forgotten.sessions += batch["sessions"]
            forgotten.projects += batch["projects"]
            forgotten.api_keys += batch["apiKeys"]
            ledger.add(batch["removed"], Counter(batch["relationships"]))
        forgotten.users, user_relationships = outcomes.write(session, forget_cypher.delete_user_node, user_id)
        if forgotten.nothing:
            return forgotten
        ledger.add([{"id": user_id, "labels": ["User"]}], Counter(user_relationships))
        # The events of the user's past operations go with the user; the deletion itself stays traceable.
        while events := outcomes.write(session, forget_cypher.delete_user_audit_batch, user_id):
            ledger.add([{"id": event_id, "labels": ["AuditEvent"]} for event_id in events], {})
        event = outcomes.write(
            session, lambda tx: _tombstone(services, tx, user_id, "forget_user", user_id, forgotten, by)
        )
        forgotten.receipt = ledger.receipt(user_id, "user", user_id, event.at, event.id)
    return forgotten


def _erase_sessions(
    tx: ManagedTransaction,
    user_id: str,
    session_ids: Sequence[str],
    project_id: str | None,
    ledger: Ledger,
    progress: Callable[[int, int], None],
) -> ScopeForgotten:
    doomed = forget_cypher.scope_memories(tx, user_id, session_ids, project_id)
    # One transaction: none of them is gone until it commits.
    progress(0, len(doomed))
    ledger.before(tx, user_id, memory_ids=doomed, session_ids=session_ids, project_id=project_id)
    memories, entities = memory_cypher.delete_memories(tx, user_id, doomed)
    forgotten = ScopeForgotten(memory_ids=memories, entity_ids=entities, memories=len(memories), entities=len(entities))
    for session_id in session_ids:
        forgotten.turns += session_cypher.delete_turns(tx, user_id, session_id)
        forgotten.sessions += document_cypher.delete_session(tx, user_id, session_id)
    return forgotten


def _committed(forgotten: ScopeForgotten, progress: Callable[[int, int], None]) -> ScopeForgotten:
    progress(forgotten.memories, forgotten.memories)
    return forgotten


def _tombstone(
    services: Services,
    tx: ManagedTransaction,
    user_id: str,
    operation: str,
    scope_id: str,
    forgotten: ScopeForgotten,
    by: str | None,
) -> AuditEvent:
    detail = forgotten.counts() if by is None else f"{forgotten.counts()}; by {by}"
    # The scope, then the ids it took (never what they said): a decision's context dates an erased memory by them.
    return services.audit.record_in(
        tx, user_id, operation, [scope_id, *forgotten.memory_ids, *forgotten.entity_ids], detail
    )
