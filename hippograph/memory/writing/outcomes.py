"""A write's answer tells what happened to it: stored, not stored, or — only when it truly cannot be
known — that nobody knows.

Two things could make the answer untrue, and each is handled here:

- **The request's deadline.** The API answers a request when its deadline passes, while the
  worker thread running it goes on (a thread cannot be interrupted). A :class:`Deadline` travels
  with the request (a context variable, which worker threads inherit): a request that has not
  begun writing when the deadline passes never begins (:class:`~hippograph.memory.errors.DeadlinePassed`),
  and once one has begun the API waits for its outcome rather than answer "cut off".
- **The store lost while committing.** When the connection drops after the commit was sent, the
  driver cannot say whether Neo4j committed: the write answers
  :class:`~hippograph.memory.errors.OutcomeUnknown`, never "unavailable" (which says "not stored").

A retry of a write whose outcome is unknown is safe: a memory write is recognised by its request id,
else by its content (``hippograph.memory.writing.writer``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
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
    """When a request's answer is due, as its writes see it; the API passes it (:meth:`expire`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._passed = False
        self._writing = False

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


_deadline: ContextVar[Deadline | None] = ContextVar("hippograph_deadline", default=None)


def set_deadline(deadline: Deadline) -> None:
    """Bind ``deadline`` to the current context: the request's task and the worker threads it starts."""
    _deadline.set(deadline)


def current_deadline() -> Deadline | None:
    """The deadline of the request this code runs for; None outside a request that has one (MCP, the CLI)."""
    return _deadline.get()


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
