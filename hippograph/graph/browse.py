"""Cypher for browsing a user's graph: pages of memories and entities, their
neighbourhoods, paths through the knowledge graph, and decision → error → fix chains.

Every statement matches each node on ``userId`` as well as on its id, so a
caller never reaches another user's node, whatever id it names. Pages are
keyset-paginated (``createdAt, id`` for memories, ``normName, id`` for entities).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import history
from hippograph.graph.entities import ENTITY_FIELDS
from hippograph.graph.memories import MEMORY_FIELDS
from hippograph.graph.vocabulary import EdgeType

# The six knowledge-graph relationship types, from the allow-list; never from input.
KNOWLEDGE_EDGES = "|".join(edge.value for edge in EdgeType)
MAX_TRACE_DEPTH = 6

EDGE_FIELDS = "type: type(r), from: startNode(r).id, to: endNode(r).id, note: r.note, createdAt: r.createdAt"
# An edge recorded by $asOf (an unlinked edge is gone from every moment: unlinking deletes it).
EDGE_THEN = "($asOf IS NULL OR r.createdAt <= $asOf)"
# An entity's fields, closed as it was at $asOf.
ENTITY_THEN = history.closed_field(ENTITY_FIELDS, "e")

# As of $asOf (null: now, ``hippograph.graph.history``): the memories recorded by then, archived and
# closed as they were then, each with the text it had then. Those of given request ids are read from
# the index of request ids (``memory_request``), whatever the size of the user's store.
ALL_MEMORIES = "MATCH (m:Memory {userId: $userId})"
REQUESTED_MEMORIES = "UNWIND $requestIds AS requestId MATCH (m:Memory {userId: $userId, requestId: requestId})"
MEMORIES_PAGE = (
    f"""
WHERE ($tiers IS NULL OR m.tier IN $tiers)
  AND ($projectId IS NULL OR m.projectId = $projectId)
  AND ($sessionId IS NULL OR m.sessionId = $sessionId)
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND {history.recorded_by("m")}
  AND ($includeArchived OR NOT ({history.archived_then("m")}))
  AND ($includeClosed OR NOT ({history.closed_then("m")}))
  AND ($afterSeconds IS NULL
       OR m.createdAt < datetime({{epochSeconds: $afterSeconds, nanosecond: $afterNanos}})
       OR (m.createdAt = datetime({{epochSeconds: $afterSeconds, nanosecond: $afterNanos}}) AND m.id < $afterId))
WITH m ORDER BY m.createdAt DESC, m.id DESC LIMIT $limit
"""
    + history.VERSION_THEN
    + f"""
RETURN m {{ {history.closed_field(MEMORY_FIELDS, "m")}, cursorSeconds: m.createdAt.epochSeconds,
            cursorNanos: m.createdAt.nanosecond }} AS memory,
       {history.VERSION_FIELDS} AS version, {history.archived_then("m")} AS archivedThen
"""
)

ENTITIES_PAGE = f"""
MATCH (e:Entity {{userId: $userId}})
WHERE ($type IS NULL OR e.type = $type)
  AND ($search IS NULL OR e.normName CONTAINS $search)
  AND ($scopeKey IS NULL OR e.scopeKey = $scopeKey)
  AND ($afterName IS NULL OR e.normName > $afterName OR (e.normName = $afterName AND e.id > $afterId))
WITH e ORDER BY e.normName, e.id LIMIT $limit
RETURN e {{ {ENTITY_FIELDS}, normName: e.normName }} AS entity
"""

# Knowledge-graph edges touching each entity, both directions; the caller picks a side.
EDGES_OF = f"""
UNWIND $ids AS id
MATCH (e:Entity {{id: id, userId: $userId}})
OPTIONAL MATCH (e)-[r:{KNOWLEDGE_EDGES}]-(other:Entity {{userId: $userId}})
WITH id, r ORDER BY r.createdAt, startNode(r).id, endNode(r).id
RETURN id, collect(CASE WHEN r IS NULL THEN null ELSE {{ {EDGE_FIELDS} }} END) AS edges
"""

# The memories that mention or record each entity, newest first.
MEMORIES_OF_ENTITIES = f"""
UNWIND $ids AS id
MATCH (e:Entity {{id: id, userId: $userId}})
OPTIONAL MATCH (m:Memory {{userId: $userId}})-[rel:MENTIONS|RECORDS]->(e)
WITH id, m, rel ORDER BY m.createdAt DESC, m.id
WITH id, collect(CASE WHEN m IS NULL THEN null
                     ELSE {{relation: type(rel), memory: m {{ {MEMORY_FIELDS} }} }} END) AS rows
RETURN id, rows[..$limit] AS rows
"""

# The entities each memory mentions or records.
ENTITIES_OF_MEMORIES = f"""
UNWIND $ids AS id
MATCH (m:Memory {{id: id, userId: $userId}})
OPTIONAL MATCH (m)-[rel:MENTIONS|RECORDS]->(e:Entity {{userId: $userId}})
WITH id, e, rel ORDER BY e.normName, e.id
RETURN id, collect(CASE WHEN e IS NULL THEN null
                       ELSE {{relation: type(rel), entity: e {{ {ENTITY_FIELDS} }} }} END) AS rows
"""

ENTITY_EXISTS = """
MATCH (e:Entity {id: $id, userId: $userId})
RETURN count(e) > 0 AS found
"""

# A path pattern's length bound cannot be a parameter: ``__HOPS__`` is a whole number
# from 1 to MAX_TRACE_DEPTH, checked before it is written in. The arrows come from
# a fixed table. Paths are enumerated up to ``$scan`` before they are ordered, so a
# dense neighbourhood costs a bounded amount of work.
TRACE_TEMPLATE = f"""
MATCH (start:Entity {{id: $fromId, userId: $userId}})
WHERE {history.recorded_by("start")}
MATCH p = (start)__LEFT__[rels:{KNOWLEDGE_EDGES}*1..__HOPS__]__RIGHT__(:Entity)
WHERE all(r IN rels WHERE type(r) IN $types AND {EDGE_THEN})
  AND all(n IN nodes(p) WHERE n.userId = $userId AND {history.recorded_by("n")})
WITH p, rels LIMIT $scan
WITH p, rels ORDER BY length(p), [n IN nodes(p) | n.normName]
LIMIT $limit
RETURN [e IN nodes(p) | e {{ {ENTITY_THEN} }}] AS nodes,
       [r IN rels | {{ {EDGE_FIELDS} }}] AS edges
"""
_ARROWS = {"OUT": ("-", "->"), "IN": ("<-", "-"), "BOTH": ("-", "-")}

# decision -[:CAUSED]-> error -[:SOLVED_BY]-> fix, with either end possibly missing
# (an error nobody traced to a decision, or one not fixed yet), but never both.
# As of $asOf: the entities and edges recorded by then, each decision open or closed as it was then.
CHAINS = """
MATCH (error:Entity:Error {userId: $userId})
WHERE ($scopeKey IS NULL OR error.scopeKey = $scopeKey) AND __RECORDED__error__
OPTIONAL MATCH (decision:Entity:Decision {userId: $userId})-[caused:CAUSED]->(error)
WHERE __RECORDED__decision__ AND __EDGE_THEN__caused__
OPTIONAL MATCH (error)-[solved:SOLVED_BY]->(fix:Entity {userId: $userId})
WHERE __RECORDED__fix__ AND __EDGE_THEN__solved__
WITH decision, error, fix
WHERE decision IS NOT NULL OR fix IS NOT NULL
WITH decision, error, fix ORDER BY error.createdAt, error.id, decision.id, fix.id
LIMIT $limit
RETURN head([e IN [decision] WHERE e IS NOT NULL | e { __ENTITY__ }]) AS decision,
       head([e IN [error] | e { __ENTITY__ }]) AS error,
       head([e IN [fix] WHERE e IS NOT NULL | e { __ENTITY__ }]) AS fix
""".replace("__ENTITY__", ENTITY_THEN)
for _node in ("error", "decision", "fix"):
    CHAINS = CHAINS.replace(f"__RECORDED__{_node}__", history.recorded_by(_node))
CHAINS = CHAINS.replace("__EDGE_THEN__caused__", EDGE_THEN.replace("r.", "caused.")).replace(
    "__EDGE_THEN__solved__", EDGE_THEN.replace("r.", "solved.")
)


@cache
def trace_statement(direction: str, hops: int) -> str:
    """The trace statement for a direction (OUT, IN or BOTH) and a depth bound."""
    if not isinstance(hops, int) or isinstance(hops, bool) or not 1 <= hops <= MAX_TRACE_DEPTH:
        raise ValueError(f"trace depth must be a whole number from 1 to {MAX_TRACE_DEPTH}, got {hops!r}")
    left, right = _ARROWS[direction]
    return TRACE_TEMPLATE.replace("__LEFT__", left).replace("__RIGHT__", right).replace("__HOPS__", str(hops))


def memories_page(
    tx: ManagedTransaction,
    user_id: str,
    *,
    tiers: Sequence[str] | None,
    project_id: str | None,
    session_id: str | None,
    kinds: Sequence[str] | None,
    include_archived: bool,
    include_closed: bool,
    after: tuple[int, int, str] | None,
    limit: int,
    as_of: datetime | None = None,
    request_ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    seconds, nanos, after_id = after if after is not None else (None, None, None)
    result = tx.run(
        (ALL_MEMORIES if request_ids is None else REQUESTED_MEMORIES) + MEMORIES_PAGE,
        requestIds=request_ids,
        userId=user_id,
        tiers=list(tiers) if tiers is not None else None,
        projectId=project_id,
        sessionId=session_id,
        kinds=list(kinds) if kinds is not None else None,
        includeArchived=include_archived,
        includeClosed=include_closed,
        afterSeconds=seconds,
        afterNanos=nanos,
        afterId=after_id,
        limit=limit,
        asOf=as_of,
    )
    return [history.as_it_was(dict(r["memory"]), r["version"], r["archivedThen"]) for r in result]


def entities_page(
    tx: ManagedTransaction,
    user_id: str,
    *,
    entity_type: str | None,
    search: str | None,
    scope_key: str | None,
    after: tuple[str, str] | None,
    limit: int,
) -> list[dict[str, Any]]:
    after_name, after_id = after if after is not None else (None, None)
    result = tx.run(
        ENTITIES_PAGE,
        userId=user_id,
        type=entity_type,
        search=search,
        scopeKey=scope_key,
        afterName=after_name,
        afterId=after_id,
        limit=limit,
    )
    return [dict(r["entity"]) for r in result]


def edges_of(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    return {r["id"]: [dict(e) for e in r["edges"]] for r in tx.run(EDGES_OF, userId=user_id, ids=list(ids))}


def memories_of_entities(
    tx: ManagedTransaction, user_id: str, ids: Sequence[str], limit: int
) -> dict[str, list[dict[str, Any]]]:
    result = tx.run(MEMORIES_OF_ENTITIES, userId=user_id, ids=list(ids), limit=limit)
    return {r["id"]: [dict(row) for row in r["rows"]] for r in result}


def entities_of_memories(tx: ManagedTransaction, user_id: str, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    result = tx.run(ENTITIES_OF_MEMORIES, userId=user_id, ids=list(ids))
    return {r["id"]: [dict(row) for row in r["rows"]] for r in result}


def entity_exists(tx: ManagedTransaction, user_id: str, entity_id: str) -> bool:
    return bool(tx.run(ENTITY_EXISTS, userId=user_id, id=entity_id).single(strict=True)["found"])


def trace(
    tx: ManagedTransaction,
    user_id: str,
    from_id: str,
    types: Sequence[str],
    direction: str,
    max_depth: int,
    limit: int,
    scan: int,
    as_of: datetime | None = None,
) -> list[dict[str, Any]]:
    result = tx.run(
        trace_statement(direction, max_depth),
        userId=user_id,
        fromId=from_id,
        types=list(types),
        limit=limit,
        scan=scan,
        asOf=as_of,
    )
    return [{"nodes": [dict(n) for n in r["nodes"]], "edges": [dict(e) for e in r["edges"]]} for r in result]


def chains(
    tx: ManagedTransaction, user_id: str, scope_key: str | None, limit: int, as_of: datetime | None = None
) -> list[dict[str, Any]]:
    result = tx.run(CHAINS, userId=user_id, scopeKey=scope_key, limit=limit, asOf=as_of)
    return [
        {
            "decision": dict(r["decision"]) if r["decision"] else None,
            "error": dict(r["error"]),
            "fix": dict(r["fix"]) if r["fix"] else None,
        }
        for r in result
    ]
