"""Every index and constraint the neomodel classes declare exists in the migrated store."""

from __future__ import annotations

import inspect

from neomodel import StructuredNode

from hippograph.graph import models
from hippograph.memory.services import Services


def declared() -> list[tuple[str, str, str]]:
    """(label, property, kind) for every indexed property of every model."""
    found = []
    for _, cls in inspect.getmembers(models, inspect.isclass):
        if not issubclass(cls, StructuredNode) or cls is StructuredNode or cls.__module__ != models.__name__:
            continue
        for name, prop in cls.defined_properties(aliases=False, rels=False).items():
            db_name = prop.get_db_property_name(name)
            if prop.unique_index:
                found.append((cls.__label__, db_name, "UNIQUE"))
            if prop.index:
                found.append((cls.__label__, db_name, "RANGE"))
            if getattr(prop, "fulltext_index", None):
                found.append((cls.__label__, db_name, "FULLTEXT"))
            if getattr(prop, "vector_index", None):
                found.append((cls.__label__, db_name, "VECTOR"))
    return found


def test_models_declare_the_core_indexes() -> None:
    kinds = set(declared())
    assert ("Memory", "id", "UNIQUE") in kinds
    assert ("Memory", "embedding", "VECTOR") in kinds
    assert ("Memory", "content", "FULLTEXT") in kinds
    assert ("Entity", "name", "FULLTEXT") in kinds


def test_every_declared_index_and_constraint_exists(services: Services) -> None:
    db = services.database
    constraints = {
        (r["labels"][0], tuple(r["properties"]))
        for r in services.driver.execute_query(
            "SHOW CONSTRAINTS YIELD type, labelsOrTypes AS labels, properties WHERE type = 'UNIQUENESS' RETURN labels, properties",
            database_=db,
        ).records
    }
    indexes = services.driver.execute_query(
        "SHOW INDEXES YIELD type, labelsOrTypes AS labels, properties, owningConstraint, options "
        "RETURN type, labels, properties, owningConstraint, options",
        database_=db,
    ).records
    missing = []
    for label, prop, kind in declared():
        if kind == "UNIQUE":
            ok = (label, (prop,)) in constraints
        else:
            ok = any(
                r["type"] == kind and r["labels"] == [label] and prop in r["properties"]
                and (kind != "RANGE" or r["properties"] == [prop])
                for r in indexes
            )
        if not ok:
            missing.append((label, prop, kind))
    assert missing == []


def test_vector_index_dimension_follows_the_configured_model(services: Services) -> None:
    record = services.driver.execute_query(
        "SHOW INDEXES YIELD type, labelsOrTypes, properties, options WHERE type = 'VECTOR' AND labelsOrTypes = ['Memory'] "
        "RETURN options.indexConfig['vector.dimensions'] AS dimension",
        database_=services.database,
    ).records[0]
    assert record["dimension"] == services.embedder.dimension
