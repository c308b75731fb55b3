"""Liveness and readiness endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.concurrency import run_in_threadpool


async def healthz(request: Request) -> JSONResponse:
    """The process is up; says nothing about its dependencies."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Neo4j reachable, migrations applied, model loaded and fitting the index — or 503 with why."""
    services = getattr(request.app.state, "services", None)
    if services is None:
        return JSONResponse({"status": "unavailable", "reason": "starting: services not opened yet"}, status_code=503)
    reason = await run_in_threadpool(services.readiness)
    if reason is not None:
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)
    return JSONResponse({"status": "ready"})
