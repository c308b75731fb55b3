"""The long-lived parts every operation needs, opened once and passed along: the driver, the
embedder, the token counter, the audit log and the access recorder (both write in the background),
the cross-encoder when one is configured, and the writer every memory write goes through.

This is the type the rules take; the parts are built by ``hippograph.operations.services``, the one
module that may import every rule. So the writer and the access recorder are named here for the type
checker alone, and the models by what the rules call on them (``hippograph.encoding.protocols``): a rule
that takes ``Services`` imports nothing of writing/, recall/ or the models with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from neo4j import Driver

from hippograph.config import Settings
from hippograph.encoding.protocols import Reranker, TextEncoder
from hippograph.graph import migrations
from hippograph.graph import database_info, store_model
from hippograph.graph.driver import Neo4jUnavailable, verify_connectivity
from hippograph.memory.audit import AuditLog
from hippograph.memory.tokens import TokenCounter

if TYPE_CHECKING:
    from hippograph.memory.recall.access_counts import AccessRecorder
    from hippograph.memory.writing.writer import Writer


@dataclass
class Services:
    settings: Settings
    driver: Driver
    embedder: TextEncoder
    tokens: TokenCounter
    audit: AuditLog
    access: AccessRecorder
    writer: Writer
    cross_encoder: Reranker | None = None

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


def check_model(driver: Driver, database: str, embedder: TextEncoder) -> None:
    """Refuse a store of another model's vectors (``TextEncoder.check_store``); a store that records no model
    (written before stores did) whose vector index fits the embedder is recorded as this model's."""
    recorded = store_model.read(driver, database)
    if recorded is not None:
        embedder.check_store(recorded["model"], recorded["dimension"])
        return
    dimension = database_info.vector_index_dimension(driver, database)
    embedder.check_store(None, dimension)
    if dimension is not None:  # with no index yet, `hippograph migrate` makes it, then records the model
        store_model.record(driver, database, embedder.name, embedder.dimension)


def migration_parameters(embedder: TextEncoder) -> dict[str, object]:
    return {"embedding_dimension": embedder.dimension}
