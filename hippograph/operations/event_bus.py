"""In-process publish/subscribe of memory events, fed by the operations that change memory.

Each subscriber has its own bounded queue; a subscriber that does not keep up
loses its oldest events rather than slowing the writers down. Delivery is
filtered by the subscriber's user first, then by project: a subscriber never
sees another user's events, whatever project id it names.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

QUEUE_SIZE = 256


@dataclass(frozen=True)
class Event:
    kind: str
    user_id: str
    project_id: str | None = None
    session_id: str | None = None
    memory_ids: tuple[str, ...] = ()
    entity_ids: tuple[str, ...] = ()
    at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(eq=False)
class _Subscriber:
    user_id: str
    project_id: str | None
    queue: asyncio.Queue[Event]

    def wants(self, event: Event) -> bool:
        return event.user_id == self.user_id and (self.project_id is None or event.project_id == self.project_id)


class EventBus:
    """Must be used from the event loop's thread (operations are coroutines, so it is)."""

    def __init__(self, queue_size: int = QUEUE_SIZE) -> None:
        self._queue_size = queue_size
        self._subscribers: set[_Subscriber] = set()
        self._erasing: dict[str, int] = {}

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def publish(self, event: Event) -> None:
        for subscriber in list(self._subscribers):
            if not subscriber.wants(event):
                continue
            if subscriber.queue.full():
                subscriber.queue.get_nowait()
            subscriber.queue.put_nowait(event)

    @contextmanager
    def erasing(self, user_id: str) -> Iterator[None]:
        """While the block runs, the user is being erased here: their keys are gone from the store before
        their ``USER_FORGOTTEN`` is published, and a socket watch must not close their sockets in between
        (``hippograph.api.sockets``), or that last event is never delivered."""
        self._erasing[user_id] = self._erasing.get(user_id, 0) + 1
        try:
            yield
        finally:
            self._erasing[user_id] -= 1
            if not self._erasing[user_id]:
                del self._erasing[user_id]

    def being_erased(self) -> frozenset[str]:
        """The users whose erasure is under way in this process."""
        return frozenset(self._erasing)

    @asynccontextmanager
    async def subscribe(self, user_id: str, project_id: str | None = None) -> AsyncIterator[asyncio.Queue[Event]]:
        """A queue of the user's events (of one project, when given) for as long as the block runs."""
        subscriber = _Subscriber(user_id, project_id, asyncio.Queue(self._queue_size))
        self._subscribers.add(subscriber)
        try:
            yield subscriber.queue
        finally:
            self._subscribers.discard(subscriber)
