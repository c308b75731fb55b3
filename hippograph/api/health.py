"""Liveness and readiness endpoints, and the warm-up that runs beside them."""

from __future__ import annotations

import asyncio
import logging

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from hippograph.memory.services import Services
from hippograph.memory.warmup import Warmth, warm_up

log = logging.getLogger(__name__)
# Between tries of a warm-up that failed (Neo4j restarting, say).
RETRY_SECONDS = 2.0


class Warming:
    """The server's warm-up (``hippograph.memory.warmup``), run once at start, tried again until it succeeds."""

    def __init__(self) -> None:
        self.warmth: Warmth | None = None

    async def run(self, services: Services) -> None:
        while True:
            try:
                self.warmth = await asyncio.to_thread(warm_up, services)
                log.info(
                    "warmed up in %.1f s: %d texts encoded, %d write groups rehearsed, %d recall statements run",
                    self.warmth.seconds,
                    self.warmth.encoded,
                    self.warmth.rehearsed,
                    self.warmth.statements,
                )
                return
            except Exception as exc:  # the log says why, and the next try still comes
                log.warning("warm-up failed (%s: %s); trying again in %.0f s", type(exc).__name__, exc, RETRY_SECONDS)
                await asyncio.sleep(RETRY_SECONDS)


async def healthz(request: Request) -> JSONResponse:
    """The process is up; says nothing about its dependencies."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Neo4j reachable, migrations applied, model loaded and fitting the index — or 503 with why. The
    warm-up does not hold readiness back: requests before it ends are answered, only slower (``warm``
    says whether it has ended)."""
    services = getattr(request.app.state, "services", None)
    if services is None:
        return JSONResponse(
            {
                "status": "unavailable",
                "reason": f"starting: loading the embedding model {request.app.state.settings.embedding_model}",
            },
            status_code=503,
        )
    reason = await run_in_threadpool(services.readiness)
    if reason is not None:
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)
    warming: Warming | None = getattr(request.app.state, "warming", None)
    return JSONResponse(
        {"status": "ready", "model": services.embedder.name, "warm": warming is None or warming.warmth is not None}
    )
