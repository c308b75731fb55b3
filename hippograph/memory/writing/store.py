"""Storing memories: ``remember`` one, ``bulk_import`` many — both through the service's one writer
(``hippograph.memory.writing.writer``: admit, then store), under the caller's settings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.writer import Remembered, Then


def remember(
    services: Services,
    scope: Scope,
    item: MemoryInput,
    now: datetime | None = None,
    then: Then | None = None,
    request_id: str | None = None,
) -> Remembered:
    """Store one memory under its tier's rules: compress the tier if it must, refuse what breaks a rule.

    ``then(tx, remembered)`` runs in the same transaction after the memory is stored (links,
    closing superseded facts), so the whole change commits or fails as one. ``request_id``, the
    client's id for this write, makes a retry answer with the memory the first attempt stored.
    """
    return services.writer.remember(services.settings, scope, item, now, then, request_id)


def bulk_import(
    services: Services,
    scope: Scope,
    items: Sequence[MemoryInput],
    now: datetime | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[tuple[str, ...]]:
    """Store many memories fast, under the same rules, refusing rather than compressing; returns, in
    input order, the ids each item is stored as (one, or a long turn's parts)."""
    return services.writer.bulk(services.settings, scope, items, now, progress)
