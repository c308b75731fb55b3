"""The long-lived parts every operation needs, opened once and passed along: the driver, the
embedder, the token counter, the audit log and the access recorder (both write in the background),
the cross-encoder when one is configured, and the writer every memory write goes through."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

from neo4j import Driver

from hippograph.config import Settings
from hippograph.embedding import Embedder
from hippograph.graph import migrations
from hippograph.graph import database_info, store_model
from hippograph.graph.driver import Neo4jUnavailable, connect, verify_connectivity
from hippograph.memory.bounded import BoundedDriver
from hippograph.memory.recall.access_counts import AccessRecorder
from hippograph.memory.audit import AuditLog
from hippograph.memory.tokens import TokenCounter, token_counter
from hippograph.memory.writing.writer import Writer
from hippograph.reranking import CrossEncoder


@dataclass
class Services:
    settings: Settings
    driver: Driver
    embedder: Embedder
    tokens: TokenCounter
    audit: AuditLog
    access: AccessRecorder
    writer: Writer
    cross_encoder: CrossEncoder | None = None

    @property
    def database(self) -> str:
        return self.settings.neo4j_database

    def neo4j_version(self) -> tuple[str, str]:
        """The version and edition of the Neo4j behind the driver."""
        return database_info.neo4j_version(self.driver, self.database)

    def readiness(self) -> str | None:
        """None when ready to serve, else the reason it is not."""
        try:
            verify_connectivity(self.driver, self.settings)
            if todo := migrations.pending(self.driver, self.database, self.settings.migrations_dir):
                return f"migrations not applied: {', '.join('V' + m.version for m in todo)} (run `hippograph migrate`)"
            check_model(self.driver, self.database, self.embedder)
        except (Neo4jUnavailable, migrations.MigrationError) as exc:
            return str(exc)
        except Exception as exc:  # readiness must answer, whatever broke
            return f"{type(exc).__name__}: {exc}"
        return None


def check_model(driver: Driver, database: str, embedder: Embedder) -> None:
    """Refuse a store of another model's vectors (``Embedder.check_store``); a store that records no model
    (written before stores did) whose vector index fits the embedder is recorded as this model's."""
    recorded = store_model.read(driver, database)
    if recorded is not None:
        embedder.check_store(recorded["model"], recorded["dimension"])
        return
    dimension = database_info.vector_index_dimension(driver, database)
    embedder.check_store(None, dimension)
    if dimension is not None:  # with no index yet, `hippograph migrate` makes it, then records the model
        store_model.record(driver, database, embedder.name, embedder.dimension)


def migration_parameters(embedder: Embedder) -> dict[str, object]:
    return {"embedding_dimension": embedder.dimension}


def open_embedder(settings: Settings) -> Embedder:
    return Embedder(settings.embedding_model, settings.embedding_batch_size, threads=settings.embedding_threads,
                    documents=settings.document_vectors)


@contextmanager
def open_services(settings: Settings, verify: bool = True, check: bool = True) -> Iterator[Services]:
    """The services; ``check``: refuse a store of another model's vectors (`hippograph reembed` opens it anyway)."""
    unbounded = connect(settings, verify=verify)
    # A Driver to everything that uses it; a request's sessions end at its deadline.
    driver = cast(Driver, BoundedDriver(unbounded))
    try:
        embedder = open_embedder(settings)
        if check:
            check_model(driver, settings.neo4j_database, embedder)
        tokens = token_counter(settings.token_encoding)
        cross_encoder = CrossEncoder(settings.cross_encoder) if settings.cross_encoder else None
        audit = AuditLog(driver, settings.neo4j_database)
        access = AccessRecorder(driver, settings.neo4j_database)
        writer = Writer(driver, settings.neo4j_database, embedder, tokens, audit)
        try:
            yield Services(settings, driver, embedder, tokens, audit, access, writer, cross_encoder)
        finally:
            access.close()
            audit.close()
    finally:
        unbounded.close()
