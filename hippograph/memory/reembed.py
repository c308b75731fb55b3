"""Re-embedding a store: every memory's vector made again by the current embedder.

A store written before memory vectors became the mean of their passages
(``hippograph.embedding.passages``), or with another model of the same dimension,
holds vectors recall would compare with differently made ones. ``reembed`` walks
every memory in id order, a page at a time, and sets each vector anew, one write
transaction and one audit line per user per page. It can run while the service
serves: a memory written meanwhile already has a current vector, and one deleted
meanwhile is simply not matched.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import memories as memory_cypher
from hippograph.services import Services

PAGE = 256


def reembed(services: Services, page: int = PAGE, progress: Callable[[int], None] = lambda _: None) -> int:
    """Re-embed every memory; returns how many were re-embedded."""
    done = 0
    after = ""
    while True:
        with services.driver.session(database=services.database) as session:
            rows = session.execute_read(memory_cypher.page_by_id, after, page)
            if not rows:
                return done
            vectors = services.embedder.embed_documents([row["content"] or "" for row in rows])
            by_user: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for row, vector in zip(rows, vectors):
                by_user[row["userId"]].append({"id": row["id"], "userId": row["userId"], "embedding": vector.tolist()})
            for user_id, updates in by_user.items():
                def write(tx: ManagedTransaction, updates: list[dict[str, Any]] = updates, user_id: str = user_id) -> None:
                    memory_cypher.set_embeddings(tx, updates)
                    services.audit.record_in(tx, user_id, "reembed", [u["id"] for u in updates],
                                             f"{len(updates)} memory vectors made again")
                session.execute_write(write)
        done += len(rows)
        after = rows[-1]["id"]
        progress(done)
