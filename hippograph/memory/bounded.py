"""Neo4j work of a request stops at its deadline.

The API answers a request at its deadline while the worker thread running it goes on
(``hippograph.memory.writing.outcomes``). Left alone, that thread's transactions went on too,
holding their connections: a burst of slow requests drained the pool for the requests after it
(a session waited 10 s for a connection, a transaction still ran well after its answer said
OUTCOME_UNKNOWN). So every session opened for a request with a deadline is held to what is left
of it (:meth:`Deadline.left`):

- it waits for a connection only for a share of the time left, and retries a failed transaction only
  for part of it, so that a request that cannot reach Neo4j — refused, or let in by a server still
  starting that never answers — is answered UNAVAILABLE before its deadline, not held to it;
- each transaction carries the time left as its timeout, so Neo4j itself stops it there and
  the connection goes back to the pool;
- once nothing is left, no session opens: the work is cut off (``DeadlinePassed``), and whatever
  a transaction raises then is logged as what it is, work cut off at the deadline.

Work without a deadline (MCP, the CLI, background writers) runs as the driver's settings say.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from neo4j import Driver, ManagedTransaction, Query, Session, unit_of_work
from neo4j.exceptions import DriverError, IncompleteCommit, Neo4jError

from hippograph.graph.driver import ACQUISITION_TIMEOUT, FIRST_PAUSE, RETRY_TIME
from hippograph.memory.errors import DeadlinePassed
from hippograph.memory.writing.outcomes import Deadline, current_deadline

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

# The share of the time left that retrying a failed transaction may take, and the first pause between
# tries as a share of that: the driver pauses twice as long each time (±20 %) and checks the time
# only before a pause, so its last pause ends by about twice this share, well before the deadline:
# the answer (UNAVAILABLE, say) still reaches the caller.
RETRY_SHARE = 0.25
FIRST_PAUSE_SHARE = 0.25
# The share of the time left that one wait for a connection may take. The driver waits once, then
# again on each retry, the last retry beginning up to RETRY_SHARE after the first failure: two waits
# and the retries end by about 0.9 of the time left. (Waiting 10 s each, a connection to a Neo4j
# still starting held a request 21 s of its 30, and the next session of it to the deadline.)
ACQUISITION_SHARE = 0.2


class BoundedDriver:
    """The driver, with each session opened for a request bounded by the request's deadline."""

    def __init__(self, driver: Driver) -> None:
        self.unbounded = driver

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unbounded, name)

    def session(self, **config: Any) -> Session:
        deadline = current_deadline()
        left = deadline.left() if deadline is not None else None
        if deadline is None or left is None:
            return self.unbounded.session(**config)
        if left <= 0:
            raise cut_off(deadline)
        retrying = min(RETRY_TIME, left * RETRY_SHARE)
        session = self.unbounded.session(
            **config,
            connection_acquisition_timeout=min(ACQUISITION_TIMEOUT, left * ACQUISITION_SHARE),
            max_transaction_retry_time=retrying,
            initial_retry_delay=min(FIRST_PAUSE, retrying * FIRST_PAUSE_SHARE),
        )
        return cast(Session, BoundedSession(session, deadline))


class BoundedSession:
    """A session of a request: each transaction's timeout is what is left of the request's deadline."""

    def __init__(self, session: Session, deadline: Deadline) -> None:
        self._session = session
        self._deadline = deadline

    def __enter__(self) -> BoundedSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self._session.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def execute_read(
        self, work: Callable[Concatenate[ManagedTransaction, P], R], *args: P.args, **kwargs: P.kwargs
    ) -> R:
        return self._bounded(lambda: self._session.execute_read(self._timed(work), *args, **kwargs))

    def execute_write(
        self, work: Callable[Concatenate[ManagedTransaction, P], R], *args: P.args, **kwargs: P.kwargs
    ) -> R:
        return self._bounded(lambda: self._session.execute_write(self._timed(work), *args, **kwargs))

    def run(self, query: str, parameters: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return self._bounded(lambda: self._session.run(Query(query, timeout=self._left()), parameters, **kwargs))

    def begin_transaction(self, metadata: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
        left = self._left()
        return self._bounded(
            lambda: self._session.begin_transaction(metadata, left if timeout is None else min(timeout, left))
        )

    def _left(self) -> float:
        left = self._deadline.left()
        if not left:  # 0: cut off (None cannot be: the session is bounded only with a clock)
            raise cut_off(self._deadline)
        return left

    def _timed(
        self, work: Callable[Concatenate[ManagedTransaction, P], R]
    ) -> Callable[Concatenate[ManagedTransaction, P], R]:
        return unit_of_work(timeout=self._left())(work)

    def _bounded(self, call: Callable[[], R]) -> R:
        """``call``, except that what fails once the deadline has passed is said to be cut off. A wait for
        a connection that ends with time left is the store's absence (UNAVAILABLE), not the deadline's."""
        try:
            return call()
        except (Neo4jError, DriverError) as exc:
            # Neo4j stops a transaction at its timeout, which is the deadline.
            timed_out = "TransactionTimedOut" in str(getattr(exc, "code", None))
            if isinstance(exc, IncompleteCommit) or not (timed_out or self._deadline.left() == 0):
                raise
            log.warning("work of a request cut off at its deadline stopped: %s: %s", type(exc).__name__, exc)
            raise cut_off(self._deadline) from exc


def cut_off(deadline: Deadline) -> DeadlinePassed:
    if deadline.writing:
        return DeadlinePassed(
            "the request ran past its deadline while writing and was cut off; whatever it "
            "had not committed is not stored"
        )
    return DeadlinePassed("the request ran past its deadline and was cut off; nothing was stored")
