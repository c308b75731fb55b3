"""Shared fixtures. Integration and e2e tests use the real local Neo4j that
`make test` starts (a separate test instance) and the real embedding model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hippograph.config import Settings
from hippograph.graph import migrations
from hippograph.memory.services import Services, migration_parameters, open_services

# Everything a test may have written; the migration chain and lock stay.
WIPE_DATA = """
MATCH (n) WHERE NOT n:__Neo4jMigration AND NOT n:__Neo4jMigrationsLock
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
"""


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
