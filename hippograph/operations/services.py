"""The composition root: the one place the services are built, and so the one module that imports the
parts of every layer below it — the driver, the embedder and the cross-encoder, the writer, the access
recorder, the audit log, and the thread that gives memories their vectors after the write when so set.
Every rule receives them already built (``hippograph.memory.services``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from neo4j import Driver

from hippograph.config import Settings
from hippograph.encoding.embedding import Embedder
from hippograph.encoding.protocols import TextEncoder
from hippograph.encoding.reranking import CrossEncoder
from hippograph.graph.driver import connect
from hippograph.memory.audit import AuditLog
from hippograph.memory.bounded import BoundedDriver
from hippograph.memory.recall.access_counts import AccessRecorder
from hippograph.memory.services import Services, check_model
from hippograph.memory.tokens import token_counter
from hippograph.memory.writing.late_vectors import LateVectors
from hippograph.memory.writing.writer import Writer


def open_embedder(settings: Settings) -> Embedder:
    return Embedder(
        settings.embedding_model,
        settings.embedding_batch_size,
        threads=settings.embedding_threads,
        documents=settings.document_vectors,
        queries=settings.query_encoder,
    )


@contextmanager
def open_services(
    settings: Settings,
    verify: bool = True,
    check: bool = True,
    embedder: TextEncoder | None = None,
    recover_vectors: bool = False,
) -> Iterator[Services]:
    """The services; ``check``: refuse a store of another model's vectors (`hippograph reembed` opens it anyway);
    ``embedder``: an encoder to use instead of the configured model (a test's stand-in for it);
    ``recover_vectors``: a server's start, which gives the memories a crash left without vectors theirs
    (``hippograph.memory.writing.late_vectors``); a command's start does not look."""
    unbounded = connect(settings, verify=verify)
    # A Driver to everything that uses it; a request's sessions end at its deadline.
    driver = cast(Driver, BoundedDriver(unbounded))
    try:
        embedder = embedder if embedder is not None else open_embedder(settings)
        if check:
            check_model(driver, settings.neo4j_database, embedder)
        tokens = token_counter(settings.token_encoding)
        cross_encoder = CrossEncoder(settings.cross_encoder) if settings.cross_encoder else None
        audit = AuditLog(driver, settings.neo4j_database)
        access = AccessRecorder(driver, settings.neo4j_database)
        late = (
            LateVectors(driver, settings.neo4j_database, embedder, recover=recover_vectors)
            if settings.write_vectors == "after"
            else None
        )
        writer = Writer(driver, settings.neo4j_database, embedder, tokens, audit, late)
        try:
            yield Services(settings, driver, embedder, tokens, audit, access, writer, cross_encoder)
        finally:
            if late is not None:
                late.close()
            access.close()
            audit.close()
    finally:
        unbounded.close()
