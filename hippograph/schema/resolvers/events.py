"""``memoryEvents``: the caller's memory changes as they happen (graphql-transport-ws)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import strawberry

from hippograph.operations import events
from hippograph.operations.limits import check_strings
from hippograph.schema.context import Info
from hippograph.schema.types.events import MemoryEvent


async def memory_events(info: Info, project: strawberry.ID | None = None) -> AsyncGenerator[MemoryEvent, None]:
    check_strings(project, "project")
    async with events.subscribe(info.context.call, project) as queue:
        while True:
            event = await queue.get()
            # The key was revoked meanwhile and the socket is closing (hippograph.api.sockets): nothing more goes out.
            if info.context.caller is None:
                return
            yield MemoryEvent.from_event(event)
