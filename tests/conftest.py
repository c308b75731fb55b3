"""Shared fixtures. Integration and e2e tests use the real local Neo4j that
`make test` starts (a separate test instance) and the real embedding model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

# Collection imports test modules that import transformers, and transformers reads these once, at its
# import; set them first, as a CLI process has them when hippograph.encoding.embedding loads the model,
# so that the commands tests run in-process (hippograph_here) print what the CLI prints and no progress bar.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from encoders import HashingEncoder
from hippograph.config import Settings
from hippograph.local import neo4j_server
from hippograph.encoding.protocols import TextEncoder
from hippograph.graph.driver import connect
from hippograph.graph import database_info, migrations, store_model
from hippograph.memory.services import Services, migration_parameters
from hippograph.operations.services import open_services

# Everything a test may have written; the migration chain and lock stay.
WIPE_DATA = """
MATCH (n) WHERE NOT n:__Neo4jMigration AND NOT n:__Neo4jMigrationsLock
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
"""


# `make test` runs the suite on two workers (pytest-xdist, each file on one of them). The e2e tests wipe the
# store, kill Neo4j and restart it, so each worker has a Neo4j of its own: the first uses the one `make test`
# started; another starts one beside it, in its own state folder and on its own ports, and stops it at the end.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
PORTS_APART = 100
STARTED: list[Settings] = []


def pytest_configure(config: pytest.Config) -> None:
    if WORKER == "gw0":
        return
    shared = Settings.from_env()
    apart = PORTS_APART * int(WORKER.removeprefix("gw"))
    bolt = shared.neo4j_bolt_port + apart
    os.environ.update(
        HIPPOGRAPH_STATE_DIR=f"{shared.state_dir}-{WORKER}",
        HIPPOGRAPH_NEO4J_BOLT_PORT=str(bolt),
        HIPPOGRAPH_NEO4J_HTTP_PORT=str(shared.neo4j_http_port + apart),
        NEO4J_URI=f"bolt://127.0.0.1:{bolt}",
    )
    own = Settings.from_env()
    if not neo4j_server.status(own).running:
        neo4j_server.start(own, log=lambda _: None)
        STARTED.append(own)


def pytest_unconfigure(config: pytest.Config) -> None:
    for own in STARTED:
        neo4j_server.stop(own, log=lambda _: None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that reaches Neo4j through the services carries the ``neo4j`` marker, so that
    ``pytest -m "not neo4j"`` runs without a database; one that does not is refused here."""
    unmarked = [item.nodeid for item in items
                if {"services", "hashed"} & set(getattr(item, "fixturenames", ())) and item.get_closest_marker("neo4j") is None]
    if unmarked:
        raise pytest.UsageError("these tests use Neo4j (the services or hashed fixture) without the neo4j marker "
                                "(pytestmark = pytest.mark.neo4j): " + ", ".join(unmarked))


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings.from_env()


# The services the session opened (with the model, with its stand-in): the audit lines of each land before a wipe.
OPENED: list[Services] = []


@contextmanager
def migrated(settings: Settings, embedder: TextEncoder | None = None) -> Iterator[Services]:
    # The store records the model's name, which a stand-in does not have: it is not held to it.
    with open_services(settings, check=embedder is None, embedder=embedder) as opened:
        migrations.migrate(
            opened.driver, opened.database, settings.migrations_dir, migration_parameters(opened.embedder), log=lambda _: None
        )
        OPENED.append(opened)
        try:
            yield opened
        finally:
            OPENED.remove(opened)


@pytest.fixture(scope="session")
def services(settings: Settings) -> Iterator[Services]:
    with migrated(settings) as opened:
        yield opened


@pytest.fixture(scope="session")
def hashed(settings: Settings) -> Iterator[Services]:
    """The services with a test double for the model (``tests/encoders.py``), for tests of rules that are not
    about the model: they run without loading it. Its vectors have the dimension of the store's index."""
    with connect(settings) as driver:
        dimension = database_info.vector_index_dimension(driver, settings.neo4j_database)
    with migrated(settings, HashingEncoder(dimension or HashingEncoder().dimension)) as opened:
        yield opened


def wiped(services: Services) -> Services:
    # Read events of the previous test are still on their way: let them land before wiping.
    for opened in OPENED:
        opened.audit.flush()
    with services.driver.session(database=services.database) as session:
        session.run(WIPE_DATA).consume()
    return services


@pytest.fixture
def clean_db(services: Services) -> Services:
    """A store with no data (schema kept), for tests that count what they wrote."""
    return wiped(services)


@pytest.fixture
def clean_hashed(hashed: Services) -> Services:
    """``clean_db`` with the test double for the model (``hashed``)."""
    return wiped(hashed)


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
