"""A write's answer tells what happened to it: stored, not stored, or — only when it truly cannot be
known — that nobody knows.

Two things could make the answer untrue, and each is handled here:

- **The request's deadline.** The API answers a request when its deadline passes, while the
  worker thread running it goes on (a thread cannot be interrupted; its Neo4j work is held to the
  deadline, ``hippograph.memory.bounded``). A :class:`Deadline` travels with the request (a context
  variable, which worker threads inherit): a request that has not begun writing when the deadline
  passes never begins (:class:`~hippograph.memory.errors.DeadlinePassed`), and once one has begun
  the API waits for its outcome rather than answer "cut off".
- **The store lost while committing.** When the connection drops after the commit was sent, the
  driver cannot say whether Neo4j committed: the write answers
  :class:`~hippograph.memory.errors.OutcomeUnknown`, never "unavailable" (which says "not stored").

A retry of a write whose outcome is unknown is safe: a memory write is recognised by its request id,
else by its content (``hippograph.memory.writing.writer``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Concatenate, ParamSpec, TypeVar

from neo4j import ManagedTransaction, Session
from neo4j.exceptions import IncompleteCommit

from hippograph.memory.errors import DeadlinePassed, OutcomeUnknown

P = ParamSpec("P")
R = TypeVar("R")

UNKNOWN_MESSAGE = (
    "the connection to the store was lost while the write committed, so it may or may not be stored; "
    "retrying it is safe: a write already stored answers with its memory (created false) instead of storing it again"
)


class Deadline:
    """When a request's answer is due, as its work sees it; the API passes it (:meth:`expire`).

    With ``seconds`` the deadline also keeps time, so that Neo4j work of the request can be held to
    what is :meth:`left` of it (``hippograph.memory.bounded``); without, it passes only by hand."""

    def __init__(self, seconds: float | None = None) -> None:
        self._lock = threading.Lock()
        self._passed = False
        self._writing = False
        self._seconds = seconds
        self._started = time.monotonic()

    def begin_write(self) -> None:
        """Called right before each write transaction of the request: refused when the answer went out
        before the request's first write began. A request that has begun writing goes on to its end,
        and its outcome is its answer."""
        with self._lock:
            if self._passed and not self._writing:
                raise DeadlinePassed("the request's deadline passed before its write began; nothing was stored")
            self._writing = True

    def expire(self) -> bool:
        """The deadline passes: no write of the request begins from now on. True when one already began,
        so that the request's outcome, not "cut off", is its answer."""
        with self._lock:
            self._passed = True
            return self._writing

    def left(self) -> float | None:
        """Seconds the request's work may still take: until its answer is due, or, once it has begun
        writing, until the API stops waiting for its outcome (as long again); 0 once it is cut off,
        None when the deadline keeps no time."""
        with self._lock:
            if self._passed and not self._writing:
                return 0.0
            if self._seconds is None:
                return None
            due = self._started + self._seconds * (2 if self._writing else 1)
            return max(0.0, due - time.monotonic())

    @property
    def writing(self) -> bool:
        return self._writing


_deadline: ContextVar[Deadline | None] = ContextVar("hippograph_deadline", default=None)


def set_deadline(deadline: Deadline) -> None:
    """Bind ``deadline`` to the current context: the request's task and the worker threads it starts."""
    _deadline.set(deadline)


def current_deadline() -> Deadline | None:
    """The deadline of the request this code runs for; None outside a request that has one (MCP, the CLI)."""
    return _deadline.get()


@contextmanager
def working_for(deadlines: Sequence[Deadline | None]) -> Iterator[None]:
    """Run the block as the work of several requests (a group of writes, run by one of their callers):
    bounded by the one whose deadline is furthest, and not at all if one of them has none."""
    lefts = [(left, d) for d in deadlines if d is not None and (left := d.left()) is not None]
    furthest = max(lefts, key=lambda pair: pair[0])[1] if lefts and len(lefts) == len(deadlines) else None
    token = _deadline.set(furthest)
    try:
        yield
    finally:
        _deadline.reset(token)


def committed(
    session: Session,
    work: Callable[Concatenate[ManagedTransaction, P], R],
    *args: P.args,
    **kwargs: P.kwargs,
) -> R:
    """``session.execute_write(work, ...)``, except that a commit whose outcome was lost raises
    :class:`OutcomeUnknown`. The driver raises ``IncompleteCommit`` whenever the connection fails after
    a commit was sent; any other failure happened before, or Neo4j answered it: nothing was stored."""
    try:
        return session.execute_write(work, *args, **kwargs)
    except IncompleteCommit as lost:
        raise OutcomeUnknown(UNKNOWN_MESSAGE) from lost


def write(
    session: Session,
    work: Callable[Concatenate[ManagedTransaction, P], R],
    *args: P.args,
    **kwargs: P.kwargs,
) -> R:
    """One write transaction of the current request: refused once its deadline has passed, and its
    outcome told truly (:func:`committed`)."""
    deadline = current_deadline()
    if deadline is not None:
        deadline.begin_write()
    return committed(session, work, *args, **kwargs)
