"""The optional periodic consolidation task (``HIPPOGRAPH_CONSOLIDATE_EVERY`` seconds; 0 turns it off)."""

from __future__ import annotations

import asyncio
import logging

from starlette.concurrency import run_in_threadpool

from hippograph.memory.lifecycle.consolidation import consolidate
from hippograph.memory.services import Services

log = logging.getLogger(__name__)


async def consolidate_periodically(services: Services, every: float) -> None:
    """Consolidate every user, then sleep; a failed run is logged and the next one still comes."""
    while True:
        await asyncio.sleep(every)
        try:
            report = await run_in_threadpool(consolidate, services)
            log.info("periodic consolidation: %s", report.as_dict() | {"merged": len(report.merged)})
        except Exception:  # the loop outlives any single failure (Neo4j restarting, say)
            log.exception("periodic consolidation failed; retrying in %.0f s", every)
