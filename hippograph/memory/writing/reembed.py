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
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from neo4j import ManagedTransaction, Session

from hippograph.graph import memories as memory_cypher
from hippograph.memory.services import Services

PAGE = 256
SKETCH_PAGE = 2000


def reembed(services: Services, page: int = PAGE, progress: Callable[[int], None] = lambda _: None) -> int:
    """Re-embed every memory; returns how many were re-embedded."""
    done = 0
    for session, rows in _pages(services, memory_cypher.page_by_id, page):
        vectors = services.embedder.embed_documents([row["content"] or "" for row in rows])
        updates = [{"id": row["id"], "userId": row["userId"], "embedding": vector.tolist(), "sketch": sketch}
                   for row, vector, sketch in zip(rows, vectors, services.embedder.sketches(vectors))]
        for user_id, mine in _by_user(updates).items():
            def write(tx: ManagedTransaction, mine: list[dict[str, Any]] = mine, user_id: str = user_id) -> None:
                memory_cypher.set_embeddings(tx, mine)
                services.audit.record_in(tx, user_id, "reembed", [u["id"] for u in mine],
                                         f"{len(mine)} memory vectors made again")
            session.execute_write(write)
        done += len(rows)
        progress(done)
    return done


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
    for session, rows in _pages(services, memory_cypher.page_unsketched, page):
        sketches = sketcher.project(np.array([row["embedding"] for row in rows], dtype=np.float32)).tolist()
        updates = [{"id": row["id"], "userId": row["userId"], "sketch": sketch} for row, sketch in zip(rows, sketches)]

        def write(tx: ManagedTransaction) -> None:
            memory_cypher.set_sketches(tx, updates)
            for user_id, mine in _by_user(updates).items():
                services.audit.record_in(tx, user_id, "sketch", [u["id"] for u in mine], f"{len(mine)} memory sketches made")
        session.execute_write(write)
        done += len(rows)
    return done


def _pages(
    services: Services, read: Callable[[ManagedTransaction, str, int], list[dict[str, Any]]], page: int,
) -> Iterator[tuple[Session, list[dict[str, Any]]]]:
    """Memories a page at a time in id order (as ``read`` finds them), each page with a session to write it in."""
    after = ""
    while True:
        with services.driver.session(database=services.database) as session:
            rows = session.execute_read(read, after, page)
            if not rows:
                return
            yield session, rows
        after = rows[-1]["id"]


def _by_user(updates: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for update in updates:
        grouped[update["userId"]].append(update)
    return grouped
