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

import numpy as np
from neo4j import ManagedTransaction

from hippograph.graph import memories as memory_cypher
from hippograph.services import Services

PAGE = 256
SKETCH_PAGE = 2000


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
            for row, vector, sketch in zip(rows, vectors, services.embedder.sketches(vectors)):
                by_user[row["userId"]].append(
                    {"id": row["id"], "userId": row["userId"], "embedding": vector.tolist(), "sketch": sketch})
            for user_id, updates in by_user.items():
                def write(tx: ManagedTransaction, updates: list[dict[str, Any]] = updates, user_id: str = user_id) -> None:
                    memory_cypher.set_embeddings(tx, updates)
                    services.audit.record_in(tx, user_id, "reembed", [u["id"] for u in updates],
                                             f"{len(updates)} memory vectors made again")
                session.execute_write(write)
        done += len(rows)
        after = rows[-1]["id"]
        progress(done)


def sketch_missing(services: Services, page: int = SKETCH_PAGE) -> int:
    """Give every memory that has a vector and no sketch its sketch; returns how many.

    A store written before sketches (``hippograph.sketch``) is still recalled right —
    recall ranks a memory without one by its vector — but the scan is slower until
    this has run; ``hippograph migrate`` runs it, a page in one transaction with one
    audit line per user. Nothing happens for a model without a sketch basis.
    """
    sketcher = services.embedder.sketcher
    if sketcher is None:
        return 0
    done = 0
    after = ""
    while True:
        with services.driver.session(database=services.database) as session:
            rows = session.execute_read(memory_cypher.page_unsketched, after, page)
            if not rows:
                return done
            sketches = sketcher.project(np.array([row["embedding"] for row in rows], dtype=np.float32)).tolist()
            by_user: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for row, sketch in zip(rows, sketches):
                by_user[row["userId"]].append({"id": row["id"], "userId": row["userId"], "sketch": sketch})

            def write(tx: ManagedTransaction) -> None:
                memory_cypher.set_sketches(tx, [u for updates in by_user.values() for u in updates])
                for user_id, updates in by_user.items():
                    services.audit.record_in(tx, user_id, "sketch", [u["id"] for u in updates],
                                             f"{len(updates)} memory sketches made")
            session.execute_write(write)
        done += len(rows)
        after = rows[-1]["id"]
