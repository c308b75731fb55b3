"""Open WebSockets, closed when the key they were opened with stops being good.

A WebSocket is authenticated once, at ``connection_init``; a subscription must not
outlive its key. Every ``CHECK_EVERY`` seconds one background task (started in the
app's lifespan) checks the keys of all open sockets in one read — so a revocation by
another process (``hippograph keys revoke``) counts as much as one made here — and
closes each socket whose key is revoked, or gone with its erased user, with code
4403 and the reason. Its context loses the caller first, so nothing more is served
or delivered on it (``memoryEvents`` stops at once). A user being erased by this
process keeps their sockets until the round after the erasure has published its
``USER_FORGOTTEN`` (``EventBus.erasing``): their keys go first, the event last.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from hippograph.memory import keys
from hippograph.schema.context import Context
from hippograph.memory.services import Services
from hippograph.operations.errors import UNAVAILABLE_ERRORS
from hippograph.operations.event_bus import EventBus

log = logging.getLogger(__name__)

CHECK_EVERY = 0.5
# graphql-transport-ws' own code for a refused connection (4403 Forbidden).
CLOSE_CODE = 4403


@dataclass(eq=False)
class _Open:
    websocket: WebSocket
    context: Context
    key_id: str
    user_id: str

    @property
    def closed(self) -> bool:
        return WebSocketState.DISCONNECTED in (self.websocket.client_state, self.websocket.application_state)


class SocketWatch:
    """The open sockets and the keys they were authenticated with; used from the event loop's thread only."""

    def __init__(self, services: Services, events: EventBus) -> None:
        self._services = services
        self._events = events
        self._open: set[_Open] = set()
        self._unavailable = False  # Neo4j is away: said once, not twice a second

    def watch(self, context: Context) -> None:
        """Watch the socket of an authenticated ``connection_init`` from now until it closes."""
        if not isinstance(context.request, WebSocket) or context.caller is None:
            raise RuntimeError("only an authenticated WebSocket can be watched")
        self._open.add(_Open(context.request, context, context.caller.key_id, context.caller.user_id))

    async def check(self) -> None:
        """One round: forget closed sockets, then close those whose key is revoked or gone."""
        self._open = {socket for socket in self._open if not socket.closed}
        # Only these are judged: a socket opened while the read runs waits for the next round.
        checked = list(self._open)
        if not checked:
            return
        services = self._services
        # An erasure under way before the read or after it: its event may not be delivered yet.
        erasing = self._events.being_erased()
        states = await run_in_threadpool(
            keys.key_states, services.driver, services.database, {socket.key_id for socket in checked}
        )
        erasing |= self._events.being_erased()
        for socket in checked:
            revoked = states.get(socket.key_id)
            if revoked is False or (revoked is None and socket.user_id in erasing):
                continue
            self._open.discard(socket)
            await self._close(socket, "API key revoked" if revoked else "API key gone: its user was erased")

    async def run(self) -> None:
        """Check every ``CHECK_EVERY`` seconds until cancelled; a failed round is logged and the next one
        still comes."""
        while True:
            await asyncio.sleep(CHECK_EVERY)
            try:
                await self.check()
            except UNAVAILABLE_ERRORS as exc:
                # No key can be checked while Neo4j is away, and no event flows either: the next round decides.
                if not self._unavailable:
                    log.warning("cannot check the keys of open WebSockets until Neo4j is back: %s", exc)
                self._unavailable = True
            except Exception:
                log.exception("checking the keys of open WebSockets failed")
            else:
                if self._unavailable:
                    log.info("checking the keys of open WebSockets again")
                self._unavailable = False

    @staticmethod
    async def _close(socket: _Open, reason: str) -> None:
        socket.context.caller = None
        if socket.closed:
            return
        try:
            await socket.websocket.close(code=CLOSE_CODE, reason=reason)
        except (RuntimeError, WebSocketDisconnect):  # closed meanwhile, by the client or the protocol handler
            return
        log.info("closed a WebSocket opened with key %s: %s", socket.key_id, reason)


@asynccontextmanager
async def watching(services: Services, events: EventBus) -> AsyncIterator[SocketWatch]:
    """A ``SocketWatch`` whose checks run in the background for as long as the block does."""
    watch = SocketWatch(services, events)
    task = asyncio.create_task(watch.run())
    try:
        yield watch
    finally:
        task.cancel()
