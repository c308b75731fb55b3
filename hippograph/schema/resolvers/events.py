"""``memoryEvents``: the caller's memory changes as they happen (graphql-transport-ws)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import strawberry

from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.limits import check_strings, ident
from hippograph.schema.types.events import MemoryEvent


async def memory_events(
    info: Info, project: strawberry.ID | None = None
) -> AsyncGenerator[MemoryEvent, None]:
    check_strings(project, "project")
    # The user comes from the key; the project only narrows the caller's own events.
    scope = Scope(info.context.user_id, ident(project, "project") if project is not None else None)
    async with info.context.events.subscribe(scope.user_id, scope.project_id) as queue:
        while True:
            event = await queue.get()
            # The key was revoked meanwhile and the socket is closing (hippograph.api.sockets): nothing more goes out.
            if info.context.caller is None:
                return
            yield MemoryEvent.from_event(event)
