"""Cypher for the tier capacities a store keeps (``hippograph capacity``): one ``(:StoreSettings {id: 'store'})``
node, a property per tier set (``session_capacity`` …, the settings' own names), read by every process
that writes, so that the server and each command apply one capacity."""

from __future__ import annotations

from neo4j import ManagedTransaction

READ = """
OPTIONAL MATCH (kept:StoreSettings {id: 'store'})
RETURN CASE WHEN kept IS NULL THEN {} ELSE properties(kept) END AS kept
"""

# `$name` is one of the allow-listed setting names (``hippograph.memory.tiers.CAPACITIES``); null removes it.
SET = """
MERGE (kept:StoreSettings {id: 'store'})
SET kept[$name] = $tokens, kept.updatedAt = datetime()
"""


def read(tx: ManagedTransaction) -> dict[str, int]:
    """The capacities the store keeps, by setting name (only those set)."""
    kept = tx.run(READ).single(strict=True)["kept"]
    return {name: int(value) for name, value in kept.items() if name.endswith("_capacity")}


def set_capacity(tx: ManagedTransaction, name: str, tokens: int | None) -> None:
    tx.run(SET, name=name, tokens=tokens).consume()
