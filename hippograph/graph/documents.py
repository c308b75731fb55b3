"""Cypher for the three Izanagi documents: placing imported memories, and reading a document back.

A document's memories hang from its owner node by ``HAS_ENTRY`` edges that say
where each sits in the document: ``section`` (``tech_stack``,
``architecture.decisions`` …), ``position`` in that section, ``key`` for the
entries of an object section, and ``keys`` (the entry's own key order) for
object entries. Owners: ``(:Project)`` for a project document, ``(:User)`` for
the long-term one, ``(:Task)`` nodes under ``(:Session)-[:HAS_TASK]->`` for a
session. The order of a document's own keys is kept on its owner node
(``documentKeys`` …), so an export gives them back in the order they came.

Owner nodes written in the same transaction are addressed by ``elementId``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import ManagedTransaction

# --- before the writes: what the import will find -----------------------------

# Which of the document's texts are already stored (then the write path reuses them), and whether the user exists.
EXISTING_HASHES = """
OPTIONAL MATCH (user:User {id: $userId})
RETURN user IS NOT NULL AS userExists,
       COLLECT { UNWIND $hashes AS hash
                 MATCH (m:Memory {userId: $userId, contentHash: hash})
                 WHERE m.archived = false
                 RETURN DISTINCT hash } AS existing
"""

SESSION_STATE = """
OPTIONAL MATCH (session:Session {userId: $userId, id: $sessionId})
OPTIONAL MATCH (project:Project {userId: $userId, id: $projectId})
RETURN session IS NOT NULL AS sessionExists, project IS NOT NULL AS projectExists
"""

# --- the final transaction: owners, entries, what the previous import left -----

SAVE_PROJECT = """
MERGE (user:User {id: $userId})
  ON CREATE SET user.createdAt = datetime()
MERGE (project:Project {userId: $userId, id: $projectId})
MERGE (user)-[:HAS_PROJECT]->(project)
SET project.type = $type, project.lastUpdated = $lastUpdated,
    project.documentKeys = $documentKeys, project.architectureKeys = $architectureKeys,
    project.importedAt = datetime()
RETURN elementId(project) AS owner
"""

SAVE_LONG_TERM = """
MERGE (user:User {id: $userId})
  ON CREATE SET user.createdAt = datetime()
SET user.longTermKeys = $documentKeys, user.learningProgressKeys = $learningProgressKeys,
    user.longTermUpdated = $lastUpdated, user.longTermImportedAt = datetime()
RETURN elementId(user) AS owner
"""

# The session exists (``start_session`` made it); its previous tasks go, the document's come.
SAVE_SESSION = """
MATCH (session:Session {userId: $userId, id: $sessionId})
SET session.documentKeys = $documentKeys, session.documentStartedAt = $startedAtText,
    session.startedAt = datetime($startedAt), session.activeContext = $activeContext,
    session.importedAt = datetime()
WITH session
OPTIONAL MATCH (session)-[:HAS_TASK]->(old:Task)
OPTIONAL MATCH (old)-[:HAS_ENTRY]->(m:Memory)
WITH session, collect(DISTINCT old) AS olds, collect(DISTINCT m.id) AS before
FOREACH (old IN olds | DETACH DELETE old)
WITH session, before
CALL (session) {
  UNWIND $tasks AS row
  CREATE (session)-[:HAS_TASK]->(task:Task {
    userId: $userId, sessionId: $sessionId, id: row.id, classification: row.classification,
    position: row.position, keys: row.keys
  })
  RETURN collect([row.position, elementId(task)]) AS tasks
}
RETURN elementId(session) AS owner, before, tasks
"""

# The entries an owner had before this import: their edges go, their memories are returned.
DETACH_ENTRIES = """
MATCH (owner)-[entry:HAS_ENTRY]->(m:Memory)
WHERE elementId(owner) = $owner
DELETE entry
RETURN collect(DISTINCT m.id) AS before
"""

# The attributes are the entry's fields, scrubbed; they are what an export reads back.
LINK_ENTRIES = """
UNWIND $rows AS row
MATCH (owner) WHERE elementId(owner) = row.owner
MATCH (m:Memory {id: row.memoryId, userId: $userId})
WHERE m.archived = false
CREATE (owner)-[:HAS_ENTRY {section: row.section, position: row.position, key: row.key, keys: row.keys}]->(m)
SET m.attributes = row.attributes
RETURN count(*) AS linked
"""

# (Project)-[:USES]->(Technology) for each technology of its tech stack, and no other.
PROJECT_USES = """
MATCH (project:Project {userId: $userId})
WHERE elementId(project) = $owner
OPTIONAL MATCH (project)-[old:USES]->(:Entity)
DELETE old
WITH DISTINCT project
MATCH (project)-[:HAS_ENTRY {section: 'tech_stack'}]->(:Memory)-[:RECORDS]->(tech:Entity:Technology)
MERGE (project)-[uses:USES]->(tech)
  ON CREATE SET uses.userId = $userId, uses.createdAt = datetime()
RETURN count(DISTINCT tech) AS linked
"""

# Of these memories, those no document links any more.
UNLINKED = """
UNWIND $ids AS id
MATCH (m:Memory {id: id, userId: $userId})
WHERE NOT EXISTS { MATCH ()-[:HAS_ENTRY]->(m) }
RETURN collect(m.id) AS ids
"""

# The fix an error memory's entity is SOLVED_BY is recorded by no memory, so deleting the
# error leaves it bare; these are the candidates to sweep after a deletion.
FIX_ENTITIES = """
UNWIND $ids AS id
MATCH (:Memory {id: id, userId: $userId})-[:RECORDS]->(:Entity)-[:SOLVED_BY]->(fix:Entity {userId: $userId})
RETURN collect(DISTINCT fix.id) AS ids
"""

DELETE_BARE_ENTITIES = """
UNWIND $ids AS id
MATCH (e:Entity {id: id, userId: $userId})
WHERE NOT EXISTS { MATCH (e)--() }
DELETE e
RETURN count(e) AS deleted
"""

# --- undoing a failed import -----------------------------------------------------

# Preferences the import closed (``validUntil`` = the import's time) are active again.
REOPEN_ENTITIES = """
UNWIND $ids AS id
MATCH (e:Entity {id: id, userId: $userId})
WHERE e.validUntil = datetime($at)
SET e.validUntil = null, e.closedAt = null
WITH e
OPTIONAL MATCH (m:Memory)-[:RECORDS]->(e)
WHERE m.validUntil = datetime($at)
SET m.validUntil = null, m.closedAt = null
RETURN count(DISTINCT e) AS reopened
"""

DELETE_SESSION = """
MATCH (session:Session {userId: $userId, id: $sessionId})
OPTIONAL MATCH (session)-[:HAS_TASK]->(task:Task)
WITH session, collect(task) AS tasks
FOREACH (task IN tasks | DETACH DELETE task)
DETACH DELETE session
RETURN count(*) AS deleted
"""

DELETE_BARE_PROJECT = """
MATCH (project:Project {userId: $userId, id: $projectId})
WHERE NOT EXISTS { MATCH (project)--() }
DELETE project
"""

# A user the failed import created, holding nothing now (links to the audit log aside: the log outlives it).
DELETE_BARE_USER = """
MATCH (user:User {id: $userId})
WHERE NOT EXISTS { MATCH (user)--(other) WHERE NOT other:AuditEvent }
DETACH DELETE user
"""

# --- export ------------------------------------------------------------------------

_ENTRIES = """[(owner)-[entry:HAS_ENTRY]->(m:Memory) WHERE m.archived = false |
  entry {.section, .position, .key, .keys, id: m.id, attributes: m.attributes}]"""

PROJECT_DOCUMENT = f"""
MATCH (owner:Project {{userId: $userId, id: $projectId}})
WHERE owner.documentKeys IS NOT NULL
RETURN owner {{.id, .type, .lastUpdated, .documentKeys, .architectureKeys}} AS owner,
       {_ENTRIES} AS entries
"""

LONG_TERM_DOCUMENT = f"""
MATCH (owner:User {{id: $userId}})
WHERE owner.longTermKeys IS NOT NULL
RETURN owner {{.id, documentKeys: owner.longTermKeys, .learningProgressKeys,
               lastUpdated: owner.longTermUpdated}} AS owner,
       {_ENTRIES} AS entries
"""

SESSION_DOCUMENT = f"""
MATCH (session:Session {{userId: $userId, id: $sessionId}})
WHERE session.documentKeys IS NOT NULL
RETURN session {{.id, .projectId, .documentKeys, .documentStartedAt, .activeContext}} AS owner,
       [(session)-[:HAS_TASK]->(owner:Task) |
         owner {{.id, .classification, .position, .keys, entries: {_ENTRIES}}}] AS tasks
"""


def existing_hashes(tx: ManagedTransaction, user_id: str, hashes: Sequence[str]) -> tuple[bool, set[str]]:
    """(whether the user exists, which of ``hashes`` an active memory of theirs already has)."""
    record = tx.run(EXISTING_HASHES, userId=user_id, hashes=list(hashes)).single(strict=True)
    return bool(record["userExists"]), set(record["existing"])


def session_state(tx: ManagedTransaction, user_id: str, session_id: str, project_id: str | None) -> tuple[bool, bool]:
    record = tx.run(SESSION_STATE, userId=user_id, sessionId=session_id, projectId=project_id).single(strict=True)
    return bool(record["sessionExists"]), bool(record["projectExists"])


def save_project(tx: ManagedTransaction, user_id: str, project_id: str, properties: dict[str, Any]) -> str:
    return str(tx.run(SAVE_PROJECT, userId=user_id, projectId=project_id, **properties).single(strict=True)["owner"])


def save_long_term(tx: ManagedTransaction, user_id: str, properties: dict[str, Any]) -> str:
    return str(tx.run(SAVE_LONG_TERM, userId=user_id, **properties).single(strict=True)["owner"])


def save_session(
    tx: ManagedTransaction, user_id: str, session_id: str, properties: dict[str, Any], tasks: Sequence[dict[str, Any]]
) -> tuple[str, dict[int, str], list[str]] | None:
    """(session elementId, task position → elementId, memory ids the previous tasks held), or None
    without the session."""
    record = tx.run(SAVE_SESSION, userId=user_id, sessionId=session_id, tasks=list(tasks), **properties).single()
    if record is None:
        return None
    return record["owner"], {int(position): ref for position, ref in record["tasks"]}, list(record["before"])


def detach_entries(tx: ManagedTransaction, owner: str) -> list[str]:
    return list(tx.run(DETACH_ENTRIES, owner=owner).single(strict=True)["before"])


def link_entries(tx: ManagedTransaction, user_id: str, rows: Sequence[dict[str, Any]]) -> int:
    """Link memories to their owners; returns how many were linked (an archived or missing memory is not)."""
    if not rows:
        return 0
    return int(tx.run(LINK_ENTRIES, userId=user_id, rows=list(rows)).single(strict=True)["linked"])


def project_uses(tx: ManagedTransaction, user_id: str, owner: str) -> int:
    record = tx.run(PROJECT_USES, userId=user_id, owner=owner).single()
    return int(record["linked"]) if record else 0


def unlinked(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> list[str]:
    if not ids:
        return []
    return list(tx.run(UNLINKED, userId=user_id, ids=list(ids)).single(strict=True)["ids"])


def fix_entities(tx: ManagedTransaction, user_id: str, memory_ids: Sequence[str]) -> list[str]:
    if not memory_ids:
        return []
    return list(tx.run(FIX_ENTITIES, userId=user_id, ids=list(memory_ids)).single(strict=True)["ids"])


def delete_bare_entities(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> int:
    if not ids:
        return 0
    return int(tx.run(DELETE_BARE_ENTITIES, userId=user_id, ids=list(ids)).single(strict=True)["deleted"])


def reopen_entities(tx: ManagedTransaction, user_id: str, ids: Sequence[str], at: str) -> int:
    if not ids:
        return 0
    return int(tx.run(REOPEN_ENTITIES, userId=user_id, ids=list(ids), at=at).single(strict=True)["reopened"])


def delete_session(tx: ManagedTransaction, user_id: str, session_id: str) -> int:
    """Delete the session node and its tasks; returns 1, or 0 when there was no such session."""
    return int(tx.run(DELETE_SESSION, userId=user_id, sessionId=session_id).single(strict=True)["deleted"])


def delete_bare_project(tx: ManagedTransaction, user_id: str, project_id: str) -> None:
    tx.run(DELETE_BARE_PROJECT, userId=user_id, projectId=project_id).consume()


def delete_bare_user(tx: ManagedTransaction, user_id: str) -> None:
    tx.run(DELETE_BARE_USER, userId=user_id).consume()


def project_document(
    tx: ManagedTransaction, user_id: str, project_id: str
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(the project's properties, its entries), or None when the user has no document for that project."""
    record = tx.run(PROJECT_DOCUMENT, userId=user_id, projectId=project_id).single()
    return (dict(record["owner"]), [dict(e) for e in record["entries"]]) if record else None


def long_term_document(tx: ManagedTransaction, user_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    record = tx.run(LONG_TERM_DOCUMENT, userId=user_id).single()
    return (dict(record["owner"]), [dict(e) for e in record["entries"]]) if record else None


def session_document(
    tx: ManagedTransaction, user_id: str, session_id: str
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(the session's properties, its tasks each with ``entries``), or None."""
    record = tx.run(SESSION_DOCUMENT, userId=user_id, sessionId=session_id).single()
    if record is None:
        return None
    tasks = [{**task, "entries": [dict(e) for e in task["entries"]]} for task in record["tasks"]]
    return dict(record["owner"]), tasks
