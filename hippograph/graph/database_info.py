"""What the connected Neo4j is, and whether its schema is ready."""

from __future__ import annotations

import re

from neo4j import Driver

# Recall's vector search filters inside the index (SEARCH ... WHERE), a clause of Neo4j 2026.08.
MINIMUM_NEO4J = (2026, 8)
# The properties recall's filtered vector search needs memory_embedding to hold.
VECTOR_FILTERS = ("userId", "tier", "projectId", "sessionId", "archived", "validUntil")

COMPONENTS = """
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
"""

VECTOR_INDEX_PROPERTIES = """
SHOW VECTOR INDEXES YIELD name, properties
WHERE name = $name
RETURN properties
"""

VECTOR_INDEX_DIMENSION = """
SHOW VECTOR INDEXES YIELD name, options
WHERE name = $name
RETURN options.indexConfig['vector.dimensions'] AS dimension
"""


def neo4j_version(driver: Driver, database: str) -> tuple[str, str]:
    records, _, _ = driver.execute_query(COMPONENTS, database_=database, routing_="r")
    kernel = next((r for r in records if r["name"] == "Neo4j Kernel"), records[0])
    return kernel["version"], kernel["edition"]


def vector_index_dimension(driver: Driver, database: str, name: str = "memory_embedding") -> int | None:
    records, _, _ = driver.execute_query(VECTOR_INDEX_DIMENSION, name=name, database_=database, routing_="r")
    return int(records[0]["dimension"]) if records else None


def unsupported_server(driver: Driver, database: str) -> str | None:
    """Why the connected Neo4j cannot hold hippograph's schema, or None if it can."""
    version, edition = neo4j_version(driver, database)
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:2])
    if numbers >= MINIMUM_NEO4J:
        return None
    needed = ".".join(str(n).zfill(2) if i else str(n) for i, n in enumerate(MINIMUM_NEO4J))
    return (
        f"Neo4j {version} ({edition}) is too old: hippograph needs Neo4j {needed} or newer, whose vector index "
        "filters by tenant inside the index; upgrade the server (`hippograph neo4j start` runs a new enough local one, "
        "and dumps an older local store before upgrading it)"
    )


def missing_vector_filters(driver: Driver, database: str, name: str = "memory_embedding") -> list[str]:
    """The filter properties recall needs that the vector index does not hold (all of them if it is absent)."""
    records, _, _ = driver.execute_query(VECTOR_INDEX_PROPERTIES, name=name, database_=database, routing_="r")
    held = set(records[0]["properties"]) if records else set()
    return [prop for prop in VECTOR_FILTERS if prop not in held]
