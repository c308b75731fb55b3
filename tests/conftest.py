"""Shared fixtures. Integration and e2e tests use the real local Neo4j that
`make test` starts (a separate test instance) and the real embedding model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hippograph.config import Settings
from hippograph.graph import database_info, migrations, store_model
from hippograph.memory.services import Services, migration_parameters, open_services

# Everything a test may have written; the migration chain and lock stay.
WIPE_DATA = """
MATCH (n) WHERE NOT n:__Neo4jMigration AND NOT n:__Neo4jMigrationsLock
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
"""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that reaches Neo4j through the services carries the ``neo4j`` marker, so that
    ``pytest -m "not neo4j"`` runs without a database; one that does not is refused here."""
    unmarked = [item.nodeid for item in items
                if "services" in getattr(item, "fixturenames", ()) and item.get_closest_marker("neo4j") is None]
    if unmarked:
        raise pytest.UsageError("these tests use Neo4j (the services fixture) without the neo4j marker "
                                "(pytestmark = pytest.mark.neo4j): " + ", ".join(unmarked))


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings.from_env()


@pytest.fixture(scope="session")
def services(settings: Settings) -> Iterator[Services]:
    with open_services(settings) as opened:
        migrations.migrate(
            opened.driver, opened.database, settings.migrations_dir, migration_parameters(opened.embedder), log=lambda _: None
        )
        yield opened


@pytest.fixture
def clean_db(services: Services) -> Services:
    """A store with no data (schema kept), for tests that count what they wrote."""
    # Read events of the previous test are still on their way: let them land before wiping.
    services.audit.flush()
    with services.driver.session(database=services.database) as session:
        session.run(WIPE_DATA).consume()
    return services


@pytest.fixture
def first_slot(clean_db: Services) -> Iterator[Services]:
    """For a test that reembeds, which moves the store's vectors to the other slot
    (``hippograph.graph.store_model``): afterwards the store is empty and in its first slot again,
    with the index of the session's model, as every other test expects."""
    yield clean_db
    clean_db.audit.flush()
    with clean_db.driver.session(database=clean_db.database) as session:
        session.run(WIPE_DATA).consume()
    store_model.drop_index(clean_db.driver, clean_db.database, store_model.SLOTS[1])
    if database_info.vector_index_dimension(clean_db.driver, clean_db.database) != clean_db.embedder.dimension:
        store_model.drop_index(clean_db.driver, clean_db.database, store_model.SLOTS[0])
    store_model.create_index(clean_db.driver, clean_db.database, store_model.SLOTS[0], clean_db.embedder.dimension, 600)
