"""The Neo4j driver's lifecycle: open it, prove it answers, close it."""

from __future__ import annotations

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import AuthError, ServiceUnavailable

from hippograph.config import Settings


# How long a session waits for a connection, and retries a failed transaction, at most; a request's
# sessions wait less, within its deadline (``hippograph.memory.bounded``).
ACQUISITION_TIMEOUT = 10.0
# A request in flight when Neo4j goes away should fail soon (UNAVAILABLE), not hang for 30 s.
RETRY_TIME = 5.0
# The driver's own first pause between tries (then twice as long each time).
FIRST_PAUSE = 1.0


class Neo4jUnavailable(RuntimeError):
    """Neo4j cannot be reached or refuses our credentials; the message is one line saying which."""


def connect(settings: Settings, verify: bool = True) -> Driver:
    """Open a driver for the configured database; with ``verify`` fail fast if Neo4j does not answer."""
    driver = GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.neo4j_password),
        max_connection_pool_size=64,
        connection_acquisition_timeout=ACQUISITION_TIMEOUT,
        max_transaction_retry_time=RETRY_TIME,
        initial_retry_delay=FIRST_PAUSE,
        # Schema-discovery warnings ("label does not exist" on an empty store) are noise in logs.
        notifications_min_severity="OFF",
    )
    if verify:
        try:
            verify_connectivity(driver, settings)
        except Neo4jUnavailable:
            driver.close()
            raise
    return driver


def verify_connectivity(driver: Driver, settings: Settings) -> None:
    try:
        driver.verify_connectivity()
    except AuthError:
        raise Neo4jUnavailable(
            f"Neo4j at {settings.neo4j_uri} refused user {settings.neo4j_user!r}: wrong NEO4J_USER or NEO4J_PASSWORD"
        ) from None
    except (ServiceUnavailable, OSError) as exc:
        raise Neo4jUnavailable(
            f"Neo4j is not reachable at {settings.neo4j_uri} ({type(exc).__name__}); "
            "start it with `hippograph neo4j start` or set NEO4J_URI"
        ) from None
