"""``subscribe``: the caller's memory events as the operations publish them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from hippograph.memory.tiers import Scope
from hippograph.operations.call import Call
from hippograph.operations.event_bus import Event
from hippograph.operations.limits import optional_ident


@asynccontextmanager
async def subscribe(call: Call, project: str | None = None) -> AsyncIterator[asyncio.Queue[Event]]:
    """A queue of the caller's events (of one project, when given) for as long as the block runs."""
    # The user comes from the key; the project only narrows the caller's own events.
    scope = Scope(call.user_id, optional_ident(project, "project"))
    async with call.events.subscribe(scope.user_id, scope.project_id) as queue:
        yield queue
