"""The long-lived parts every operation needs, opened once and passed along: the driver, the
embedder, the token counter, the audit log and the access recorder (both write in the background),
the cross-encoder when one is configured, and the queues that group concurrent writes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from neo4j import Driver

from hippograph.config import Settings
from hippograph.embedding import Embedder
from hippograph.graph import migrations
from hippograph.graph import database_info
from hippograph.graph.driver import Neo4jUnavailable, connect, verify_connectivity
from hippograph.memory.recall.access_counts import AccessRecorder
from hippograph.memory.audit import AuditLog
from hippograph.memory.grouping import Grouped
from hippograph.memory.tokens import TokenCounter, token_counter
from hippograph.reranking import CrossEncoder


# The most writes one group carries: enough for every client of a busy server, small enough that
# one group's transaction stays short.
GROUP_LIMIT = 64


@dataclass
class WriteCounts:
    """What grouped writes did since the service opened (``/metrics`` reads it): the transactions
    committed, the writes they carried, and the times Neo4j made one run again (a deadlock or
    another transient error; the driver retries it). Only the group running changes them."""

    groups: int = 0
    writes: int = 0
    retries: int = 0


@dataclass
class Services:
    settings: Settings
    driver: Driver
    embedder: Embedder
    tokens: TokenCounter
    audit: AuditLog
    access: AccessRecorder
    cross_encoder: CrossEncoder | None = None
    # Writes that arrive together share one embedding pass and one transaction (``remember``).
    embeddings: Grouped = field(default_factory=lambda: Grouped(GROUP_LIMIT))
    writes: Grouped = field(default_factory=lambda: Grouped(GROUP_LIMIT))
    write_counts: WriteCounts = field(default_factory=WriteCounts)

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
            self.embedder.check_dimension(database_info.vector_index_dimension(self.driver, self.database))
        except (Neo4jUnavailable, migrations.MigrationError) as exc:
            return str(exc)
        except Exception as exc:  # readiness must answer, whatever broke
            return f"{type(exc).__name__}: {exc}"
        return None


def migration_parameters(embedder: Embedder) -> dict[str, object]:
    return {"embedding_dimension": embedder.dimension}


def open_embedder(settings: Settings) -> Embedder:
    return Embedder(settings.embedding_model, settings.embedding_batch_size, threads=settings.embedding_threads,
                    sketch_basis=settings.sketch_basis, documents=settings.document_vectors)


@contextmanager
def open_services(settings: Settings, verify: bool = True) -> Iterator[Services]:
    driver = connect(settings, verify=verify)
    try:
        embedder = open_embedder(settings)
        cross_encoder = CrossEncoder(settings.cross_encoder) if settings.cross_encoder else None
        audit = AuditLog(driver, settings.neo4j_database)
        access = AccessRecorder(driver, settings.neo4j_database)
        try:
            yield Services(settings, driver, embedder, token_counter(settings.token_encoding), audit, access, cross_encoder)
        finally:
            access.close()
            audit.close()
    finally:
        driver.close()
