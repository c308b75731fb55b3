"""Re-embedding a store: every memory's vector made again by the configured embedder, a model
different from the store's or the same one.

A store's vectors live in one of two slots (``hippograph.graph.store_model``). ``reembed``
writes the configured model's vectors into the other slot, beside the current ones, with that
slot's own vector index of the model's dimension, so a server of the store's model keeps
recalling from its own vectors all the while. It walks the memories lacking the new vector in
id order, a page at a time (one write transaction and one audit line per user per page), then
the memories' past versions; a run stopped midway and started again carries on where it stopped.
A memory written or edited meanwhile has no new vector (a write removes the other slot's), so
passes repeat until none lacks it, and the switch — one write that makes the record name the
new model and slot, refused while any memory still lacks its vector — follows. Then the old slot's
index and vectors are dropped.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from neo4j import ManagedTransaction, Session

from hippograph.encoding.embedding import EmbeddingError
from hippograph.graph import database_info, store_model
from hippograph.graph.store_model import VectorSlot
from hippograph.memory.services import Services
from hippograph.progress import Progress

PAGE = 256
# How long the new slot's index may take to come online (it is empty when made: seconds).
INDEX_SECONDS = 600


@dataclass(frozen=True)
class Reembedded:
    """What a run did: memories and versions embedded, and whether the store switched (then how long the
    switch's write took, in seconds); not switched when ``pages`` stopped it first."""

    memories: int
    versions: int
    switched: bool
    switch_seconds: float | None = None


def reembed(services: Services, page: int = PAGE, pages: int | None = None) -> Reembedded:
    """Move the store to the configured model's vectors (or make them again with the same model); ``pages``:
    stop after that many pages of memories, without switching (a later run carries on)."""
    driver, database, embedder = services.driver, services.database, services.embedder
    recorded = _recorded(services)
    target = store_model.other(store_model.slot(recorded["vectors"]))
    if (recorded["nextModel"], recorded["nextDimension"]) != (embedder.name, embedder.dimension):
        # Nothing under way, or a run toward another model left unfinished: that slot starts empty.
        store_model.drop_index(driver, database, target)
        store_model.clear(driver, database, target)
        store_model.begin_next(driver, database, embedder.name, embedder.dimension)
    store_model.create_index(driver, database, target, embedder.dimension, INDEX_SECONDS)
    memories = versions = 0
    done, total = _counts(services, target)
    with Progress(f"reembed with {embedder.name}", total, "memories", done=done) as shown:
        while True:
            embedded, stopped = _memories(services, target, page, pages, shown)
            memories += embedded
            if stopped:
                return Reembedded(memories, versions, switched=False)
            versions += _versions(services, target, page)
            started = time.perf_counter()
            if store_model.switch(driver, database, target):
                switch_seconds = time.perf_counter() - started
                break
            # Memories written since the pass began: another pass, counted again, then the switch again.
            shown(*_counts(services, target))
    old = store_model.other(target)
    store_model.drop_index(driver, database, old)
    store_model.clear(driver, database, old)
    return Reembedded(memories, versions, switched=True, switch_seconds=switch_seconds)


def _counts(services: Services, target: VectorSlot) -> tuple[int, int]:
    """(memories that have ``target``'s vector, memories)."""
    with services.driver.session(database=services.database) as session:
        total = session.execute_read(store_model.count_memories)
        return total - session.execute_read(store_model.count_lacking, target), total


def _recorded(services: Services) -> dict[str, Any]:
    """The store's record; a store that has none (written before stores did) is recorded as the configured
    model's when its vector index fits that model, as serving it would."""
    recorded = store_model.read(services.driver, services.database)
    if recorded is None:
        dimension = database_info.vector_index_dimension(services.driver, services.database)
        if dimension is not None and dimension != services.embedder.dimension:
            raise EmbeddingError(
                f"the store records no model and its vector index holds {dimension}-dimensional vectors: serve it "
                "once (or run `hippograph migrate`) with the model that made them, so that it records that model, "
                "then reembed"
            )
        store_model.record(services.driver, services.database, services.embedder.name, services.embedder.dimension)
        recorded = store_model.read(services.driver, services.database)
        assert recorded is not None
    return recorded


def _memories(
    services: Services, target: VectorSlot, page: int, pages: int | None, shown: Progress
) -> tuple[int, bool]:
    """One pass over the memories lacking ``target``'s vector; (how many got it, whether ``pages`` stopped it)."""
    done = 0
    for count, (session, rows) in enumerate(
        _pages(services, lambda tx, after, limit: store_model.page_lacking(tx, target, after, limit), page)
    ):
        if pages is not None and count >= pages:
            return done, True
        vectors = services.embedder.embed_documents([row["content"] for row in rows])
        updates = [
            {"id": row["id"], "userId": row["userId"], "content": row["content"], "embedding": vector.tolist()}
            for row, vector in zip(rows, vectors)
        ]
        for user_id, mine in _by_user(updates).items():

            def write(tx: ManagedTransaction, mine: list[dict[str, Any]] = mine, user_id: str = user_id) -> None:
                store_model.set_next(tx, target, mine)
                services.audit.record_in(
                    tx,
                    user_id,
                    "reembed",
                    [u["id"] for u in mine],
                    f"{len(mine)} memory vectors made by {services.embedder.name}",
                )

            session.execute_write(write)
        done += len(rows)
        # A memory written since the pass began is in the store's count too; one edited since it got its new
        # vector is embedded again, and counted once.
        total = session.execute_read(store_model.count_memories)
        shown(min(shown.done + len(rows), total), total)
    return done, False


def _versions(services: Services, target: VectorSlot, page: int) -> int:
    """Every past version lacking ``target``'s vector gets it (an as-of recall scores a version's own text)."""
    done = 0
    for session, rows in _pages(
        services,
        lambda tx, after, limit: store_model.page_versions_lacking(tx, target, after, limit),
        page,
        key="element",
    ):
        vectors = services.embedder.embed_documents([row["content"] for row in rows])
        updates = [{"element": row["element"], "embedding": vector.tolist()} for row, vector in zip(rows, vectors)]
        session.execute_write(store_model.set_versions_next, target, updates)
        done += len(rows)
    return done


def _pages(
    services: Services,
    read: Callable[[ManagedTransaction, str, int], list[dict[str, Any]]],
    page: int,
    key: str = "id",
) -> Iterator[tuple[Session, list[dict[str, Any]]]]:
    """Rows a page at a time in ``key`` order (as ``read`` finds them), each page with a session to write it in."""
    after = ""
    while True:
        with services.driver.session(database=services.database) as session:
            rows = session.execute_read(read, after, page)
            if not rows:
                return
            yield session, rows
        after = rows[-1][key]


def _by_user(updates: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for update in updates:
        grouped[update["userId"]].append(update)
    return grouped
