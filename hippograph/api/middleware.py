"""ASGI middleware: request ids, request logs and timing, and the request-size limit."""

from __future__ import annotations

import json
import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hippograph.api.logs import accept_request_id, request_id
from hippograph.schema.limits import MAX_BODY_BYTES

log = logging.getLogger("hippograph.api")

KNOWN_ROUTES = frozenset({"/graphql", "/healthz", "/readyz", "/metrics"})


class RequestContext:
    """Give each request an id (the caller's ``x-request-id`` when it is a plain one), echo it,
    and log and time the request under it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        rid = accept_request_id(headers.get(b"x-request-id", b"").decode("latin-1") or None)
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", rid.encode())]}
            elif message["type"] == "websocket.accept":
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", rid.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            path = scope.get("path", "")
            route = path if path in KNOWN_ROUTES else "other"
            if scope["type"] == "http":
                app = scope.get("app")
                metrics = getattr(app.state, "metrics", None) if app else None
                if metrics is not None:
                    metrics.request(route, status or 500, seconds)
            log.info(
                "%s %s %s",
                scope.get("method", "WS"),
                path,
                status or scope["type"],
                extra={
                    "method": scope.get("method", "WEBSOCKET"),
                    "path": path,
                    "status": status or None,
                    "duration_ms": round(seconds * 1000, 2),
                },
            )
            request_id.reset(token)


class BodyLimit:
    """Refuse a request body larger than ``max_bytes`` with 413 and a GraphQL error (LIMIT_EXCEEDED)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        # Without a declared length, read (at most the limit) before the app sees anything.
        messages: list[Message] = []
        size = 0
        more = True
        while more:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await self._refuse(send)
                return
            more = message.get("more_body", False)

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "data": None,
                "errors": [
                    {
                        "message": f"the request is larger than {self.max_bytes} bytes",
                        "extensions": {"code": "LIMIT_EXCEEDED"},
                    }
                ],
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
