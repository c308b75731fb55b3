"""A request's wait for a connection ends before its deadline, as the store's absence (UNAVAILABLE).

Neo4j while it starts takes a connection and says nothing until it is ready; a listening socket
that never answers is that server, held in that state for as long as the test needs (a stand-in for
the network condition, named as such: Neo4j itself cannot be held there)."""

from __future__ import annotations

import contextvars
import socket
from collections.abc import Iterator

import pytest
from neo4j import GraphDatabase

from hippograph.graph import driver as settings_of
from hippograph.memory.bounded import BoundedDriver
from hippograph.memory.errors import DeadlinePassed
from hippograph.memory.writing.outcomes import Deadline, set_deadline
from hippograph.operations.errors import ErrorCode, code_of


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A Bolt address whose TCP handshake completes (the kernel's backlog) and whose server never speaks."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(64)
        yield f"bolt://127.0.0.1:{listening.getsockname()[1]}"


def test_a_request_waiting_for_a_connection_is_answered_unavailable_before_its_deadline(silent_server: str) -> None:
    unbounded = GraphDatabase.driver(
        silent_server, auth=("neo4j", "unused"), connection_acquisition_timeout=settings_of.ACQUISITION_TIMEOUT,
        max_transaction_retry_time=settings_of.RETRY_TIME, initial_retry_delay=settings_of.FIRST_PAUSE,
    )
    deadline = Deadline(6)

    def request() -> None:
        set_deadline(deadline)
        with BoundedDriver(unbounded).session(database="neo4j") as session:
            session.execute_read(lambda tx: tx.run("RETURN 1").consume())

    try:
        with pytest.raises(Exception) as caught:
            # In a context of its own, as a request runs: the deadline leaves with it.
            contextvars.copy_context().run(request)
    finally:
        unbounded.close()
    # Held to its deadline, the wait was said to be a cut-off (LIMIT_EXCEEDED) and the answer came at it.
    assert not isinstance(caught.value, DeadlinePassed)
    assert code_of(caught.value) is ErrorCode.UNAVAILABLE, repr(caught.value)
    assert deadline.left() > 0
