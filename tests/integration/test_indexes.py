"""The search indexes the migrations create, used for real."""

from __future__ import annotations

import uuid

import pytest

from hippograph.graph import database_info
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j


def test_vector_index_has_the_models_dimension(services: Services) -> None:
    assert services.embedder.dimension == 384
    assert database_info.vector_index_dimension(services.driver, services.database) == services.embedder.dimension
    records = services.driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'memory_embedding' "
        "RETURN options.indexConfig['vector.similarity_function'] AS fn",
        database_=services.database,
    ).records
    assert records[0]["fn"].lower() == "cosine"


def test_fulltext_indexes_exist(services: Services) -> None:
    records = services.driver.execute_query(
        "SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, properties RETURN name, labelsOrTypes, properties",
        database_=services.database,
    ).records
    found = {r["name"]: (r["labelsOrTypes"], r["properties"]) for r in records}
    # userId too, so that a search can be kept to one user's nodes (migration V0005).
    assert found["memory_text"] == (["Memory"], ["content", "summary", "preceding", "userId"])
    assert found["entity_name"] == (["Entity"], ["name", "userId"])


def test_memory_written_with_a_real_embedding_is_found_by_both_indexes(clean_db: Services) -> None:
    services = clean_db
    texts = {
        "jwt": "We decided to keep JWT access tokens in httpOnly cookies to protect against XSS.",
        "pg": "The project database is PostgreSQL 16 with read replicas.",
        "cats": "The user's cat is called Miso and likes sleeping on keyboards.",
    }
    vectors = services.embedder.embed(list(texts.values()))
    ids = {}
    for (key, text), vector in zip(texts.items(), vectors):
        ids[key] = str(uuid.uuid4())
        services.driver.execute_query(
            "CREATE (m:Memory {id: $id, content: $content, userId: 'u1', tier: 'PROJECT', createdAt: datetime()}) "
            "WITH m CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)",
            id=ids[key], content=text, embedding=vector.tolist(), database_=services.database,
        )
    query = services.embedder.embed_query("where do we store the authentication token?")
    hits = services.driver.execute_query(
        "CALL db.index.vector.queryNodes('memory_embedding', 3, $q) YIELD node, score RETURN node.id AS id, score",
        q=query.tolist(), database_=services.database,
    ).records
    assert hits[0]["id"] == ids["jwt"]
    assert hits[0]["score"] > hits[1]["score"]

    words = services.driver.execute_query(
        "CALL db.index.fulltext.queryNodes('memory_text', 'postgresql') YIELD node, score RETURN node.id AS id",
        database_=services.database,
    ).records
    assert [r["id"] for r in words] == [ids["pg"]]
    # The english analyzer stems: "sleeps" finds "sleeping".
    stemmed = services.driver.execute_query(
        "CALL db.index.fulltext.queryNodes('memory_text', 'sleeps') YIELD node RETURN node.id AS id",
        database_=services.database,
    ).records
    assert [r["id"] for r in stemmed] == [ids["cats"]]
