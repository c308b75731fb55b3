"""`hippograph reembed` makes every memory's vector again, for every user, and logs it."""

from __future__ import annotations

import numpy as np
import pytest

from hippograph.memory.writing.reembed import reembed
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j


def test_every_memory_gets_the_current_vector_and_an_audit_line(clean_db: Services) -> None:
    texts = {"alice": "We chose PostgreSQL. The replica lives in Frankfurt.", "bob": "Bo: the deploy failed twice. Then it worked."}
    ids = {user: remember(clean_db, Scope(user, "p"), MemoryInput(text, Tier.PROJECT)).id for user, text in texts.items()}
    # An old-style vector: the whole text embedded at once.
    for user, text in texts.items():
        clean_db.driver.execute_query(
            "MATCH (m:Memory {id: $id}) CALL db.create.setNodeVectorProperty(m, 'embedding', $v)",
            id=ids[user], v=clean_db.embedder.embed([text])[0].tolist(), database_=clean_db.database,
        )

    assert reembed(clean_db, page=1) == 2

    for user, text in texts.items():
        stored = clean_db.driver.execute_query(
            "MATCH (m:Memory {id: $id}) RETURN m.embedding AS e", id=ids[user], database_=clean_db.database,
        ).records[0]["e"]
        assert np.allclose(stored, clean_db.embedder.embed_documents([text])[0], atol=1e-5)
        logged = clean_db.driver.execute_query(
            "MATCH (a:AuditEvent {userId: $user, operation: 'reembed'}) RETURN a.ids AS ids", user=user,
            database_=clean_db.database,
        ).records
        assert [r["ids"] for r in logged] == [[ids[user]]]
