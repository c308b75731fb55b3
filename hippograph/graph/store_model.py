"""Which embedding model made a store's vectors, and where they live.

One ``(:StoreModel {id: 'store'})`` node records the model (``model``, ``dimension``) and the
slot its vectors are in (``vectors``: a property of every memory and memory version, searched
through that slot's vector index). There are two slots; ``hippograph reembed`` fills the one
not in use with the next model's vectors (``nextModel``, ``nextDimension`` while it runs), so
that a server of the current model keeps reading its own, and the switch is one write: the
record names the other slot. Slot names are an allow-list: the only names ever written into a
statement (an index name cannot be a parameter).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import Driver, ManagedTransaction

from hippograph.graph.database_info import VECTOR_FILTERS


@dataclass(frozen=True)
class VectorSlot:
    property: str
    index: str


SLOTS = (VectorSlot("embedding", "memory_embedding"), VectorSlot("embedding2", "memory_embedding2"))
SLOT_PROPERTIES = [slot.property for slot in SLOTS]


def slot(name: str | None) -> VectorSlot:
    """The slot whose property is ``name`` (a store that records none uses the first)."""
    return next((s for s in SLOTS if s.property == name), SLOTS[0])


def other(current: VectorSlot) -> VectorSlot:
    return SLOTS[1] if current == SLOTS[0] else SLOTS[0]


READ = """
MATCH (store:StoreModel {id: 'store'})
RETURN store.model AS model, store.dimension AS dimension, store.vectors AS vectors,
       store.nextModel AS nextModel, store.nextDimension AS nextDimension
"""

RECORD = """
MERGE (store:StoreModel {id: 'store'})
ON CREATE SET store.model = $model, store.dimension = $dimension, store.vectors = $vectors,
              store.recordedAt = datetime()
"""

BEGIN_NEXT = """
MATCH (store:StoreModel {id: 'store'})
SET store.nextModel = $model, store.nextDimension = $dimension
"""

# The switch, taken only when no memory lacks the next slot's vector (a server of the current model may
# have written one since the last pass): the record names the next model and slot, in one write.
SWITCH = """
MATCH (store:StoreModel {id: 'store'})
WHERE store.nextModel IS NOT NULL AND NOT EXISTS { MATCH (m:Memory) WHERE m[$next] IS NULL }
SET store.model = store.nextModel, store.dimension = store.nextDimension, store.vectors = $next,
    store.switchedAt = datetime()
REMOVE store.nextModel, store.nextDimension
RETURN store.model AS model
"""

# A write's vector goes to the slot of the store's model, and only if the writer's model (row.model, which the
# writer always gives) is that one: a server of another model (one left running after a switch) writes no
# vector rather than a wrong one. A row that names no model (a test's, a tool's) is taken as the store's.
# A new vector makes the other slot's stale: it is removed, so `hippograph reembed` makes that one again.
# A row without a vector (HIPPOGRAPH_WRITE_VECTORS=after: it comes later, by FILL) sets none.
# A fragment for `m` and its `row` (embedding, model).
SET_VECTORS = """
CALL (m, row) {
  OPTIONAL MATCH (store:StoreModel {id: 'store'})
  WITH m, row, store WHERE (store IS NULL OR row.model IS NULL OR store.model = row.model) AND row.embedding IS NOT NULL
  WITH m, row, coalesce(store.vectors, 'embedding') AS slot
  CALL db.create.setNodeVectorProperty(m, slot, row.embedding)
  FOREACH (stale IN [p IN __SLOTS__ WHERE p <> slot] | SET m[stale] = null)
}
""".replace("__SLOTS__", repr(SLOT_PROPERTIES))

# A vector given after its write (``hippograph.memory.writing.late_vectors``): to the store's slot, only while
# the store is `$model`'s, and only where the memory still holds the text encoded and still lacks a vector
# (one forgotten meanwhile is not matched; one edited meanwhile has its own vector, made by the edit).
FILL = """
OPTIONAL MATCH (store:StoreModel {id: 'store'})
WITH store WHERE store IS NULL OR store.model = $model
WITH coalesce(store.vectors, 'embedding') AS slot
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, userId: row.userId})
WHERE coalesce(m.content, '') = row.content AND m[slot] IS NULL
CALL db.create.setNodeVectorProperty(m, slot, row.embedding)
RETURN count(m) AS written
"""

# Every memory that lacks the store's vector: what a crash left between a write and its vector.
LACKING = """
OPTIONAL MATCH (store:StoreModel {id: 'store'})
WITH coalesce(store.vectors, 'embedding') AS slot
MATCH (m:Memory) WHERE m[slot] IS NULL
RETURN m.id AS id, m.userId AS userId, coalesce(m.content, '') AS content
ORDER BY m.id
"""

# The property of the store's vectors, as `vectors`, for statements that read them.
CURRENT = """
OPTIONAL MATCH (store:StoreModel {id: 'store'})
WITH coalesce(store.vectors, 'embedding') AS vectors
"""

# Re-embedding into `$next`: memories after `$after` (id order) that lack its vector, a page at a time,
# and their vectors written only where the text is still the one embedded (an edit meanwhile removed
# the next vector, and a later pass makes it again).
PAGE_LACKING = """
MATCH (m:Memory) WHERE m.id > $after AND m[$next] IS NULL
RETURN m.id AS id, m.userId AS userId, coalesce(m.content, '') AS content
ORDER BY m.id
LIMIT $limit
"""

SET_NEXT = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, userId: row.userId})
WHERE coalesce(m.content, '') = row.content
CALL db.create.setNodeVectorProperty(m, $next, row.embedding)
RETURN count(m) AS written
"""

COUNT_LACKING = """
MATCH (m:Memory) WHERE m[$next] IS NULL
RETURN count(m) AS memories
"""

COUNT_MEMORIES = """
MATCH (m:Memory) RETURN count(m) AS memories
"""

# Versions (``hippograph.graph.history``) never change: a page of those lacking the vector, by element id.
PAGE_VERSIONS_LACKING = """
MATCH (version:MemoryVersion) WHERE elementId(version) > $after AND version[$next] IS NULL
RETURN elementId(version) AS element, coalesce(version.content, '') AS content
ORDER BY element
LIMIT $limit
"""

SET_VERSIONS_NEXT = """
UNWIND $rows AS row
MATCH (version:MemoryVersion) WHERE elementId(version) = row.element
CALL db.create.setNodeVectorProperty(version, $next, row.embedding)
"""

# Removing a slot's vectors (the old one after a switch, or what an abandoned reembed left), in one pass.
CLEAR = """
MATCH (node) WHERE (node:Memory OR node:MemoryVersion) AND node[$slot] IS NOT NULL
CALL (node) { SET node[$slot] = null } IN TRANSACTIONS OF 5000 ROWS
"""

# The slot's vector index, of the model's dimension, holding the properties recall filters on
# (migrations/V0006__tenant_filtered_vectors.cypher).
CREATE_INDEX = """
CYPHER 25 CREATE VECTOR INDEX __INDEX__ IF NOT EXISTS
FOR (memory:Memory) ON memory.__PROPERTY__
WITH [__FILTERS__]
OPTIONS {indexConfig: {`vector.dimensions`: __DIMENSION__, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false, `vector.default_search_expansion_factor`: 4.0}}
"""

AWAIT_INDEX = "CALL db.awaitIndex($name, $seconds)"

DROP_INDEX = "DROP INDEX __INDEX__ IF EXISTS"


def read(driver: Driver, database: str) -> dict[str, Any] | None:
    records, _, _ = driver.execute_query(READ, database_=database, routing_="r")
    return dict(records[0]) if records else None


def record(driver: Driver, database: str, model: str, dimension: int, vectors: VectorSlot = SLOTS[0]) -> None:
    """Record the store's model, unless one is recorded already."""
    driver.execute_query(RECORD, model=model, dimension=dimension, vectors=vectors.property, database_=database)


def begin_next(driver: Driver, database: str, model: str, dimension: int) -> None:
    driver.execute_query(BEGIN_NEXT, model=model, dimension=dimension, database_=database)


def switch(driver: Driver, database: str, to: VectorSlot) -> bool:
    """Make ``to`` the store's slot and its next model the store's; False while a memory lacks its vector."""
    records, _, _ = driver.execute_query(SWITCH, next=to.property, database_=database)
    return bool(records)


def current_vectors(tx: ManagedTransaction) -> VectorSlot:
    return slot(tx.run(CURRENT + "RETURN vectors").single(strict=True)["vectors"])


def page_lacking(tx: ManagedTransaction, to: VectorSlot, after: str, limit: int) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(PAGE_LACKING, next=to.property, after=after, limit=limit)]


def set_next(tx: ManagedTransaction, to: VectorSlot, rows: Sequence[dict[str, Any]]) -> int:
    return int(tx.run(SET_NEXT, next=to.property, rows=list(rows)).single(strict=True)["written"])


def count_lacking(tx: ManagedTransaction, to: VectorSlot) -> int:
    return int(tx.run(COUNT_LACKING, next=to.property).single(strict=True)["memories"])


def fill(tx: ManagedTransaction, model: str, rows: Sequence[dict[str, Any]]) -> int:
    return int(tx.run(FILL, model=model, rows=list(rows)).single(strict=True)["written"])


def lacking(tx: ManagedTransaction) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(LACKING)]


def count_memories(tx: ManagedTransaction) -> int:
    return int(tx.run(COUNT_MEMORIES).single(strict=True)["memories"])


def page_versions_lacking(tx: ManagedTransaction, to: VectorSlot, after: str, limit: int) -> list[dict[str, Any]]:
    return [dict(r) for r in tx.run(PAGE_VERSIONS_LACKING, next=to.property, after=after, limit=limit)]


def set_versions_next(tx: ManagedTransaction, to: VectorSlot, rows: Sequence[dict[str, Any]]) -> None:
    tx.run(SET_VERSIONS_NEXT, next=to.property, rows=list(rows)).consume()


def clear(driver: Driver, database: str, vectors: VectorSlot) -> None:
    """Remove every vector of a slot (in transactions of its own: an auto-commit statement)."""
    with driver.session(database=database) as session:
        session.run(CLEAR, slot=vectors.property).consume()


def create_index(driver: Driver, database: str, vectors: VectorSlot, dimension: int, seconds: int) -> None:
    """The slot's vector index for ``dimension``-dimensional vectors, online (waited for up to ``seconds``)."""
    statement = (
        CREATE_INDEX.replace("__INDEX__", vectors.index)
        .replace("__PROPERTY__", vectors.property)
        .replace("__FILTERS__", ", ".join(f"memory.{p}" for p in VECTOR_FILTERS))
        .replace("__DIMENSION__", str(int(dimension)))
    )
    driver.execute_query(statement, database_=database)
    driver.execute_query(AWAIT_INDEX, name=vectors.index, seconds=seconds, database_=database)


def drop_index(driver: Driver, database: str, vectors: VectorSlot) -> None:
    driver.execute_query(DROP_INDEX.replace("__INDEX__", vectors.index), database_=database)
