"""What the connected Neo4j is, and whether its schema is ready."""

from __future__ import annotations

from neo4j import Driver

COMPONENTS = """
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
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
