"""Editing a memory in place: new content, summary or relevance, under the rules of a write.

The edit goes through the service's writer (``hippograph.memory.writing.writer``): new content is
admitted like a new memory's (scrubbed, checked, counted, embedded), refused as a raw turn outside
the session tier, must still fit its tier without compression (an edit never rewrites other
memories) and must not repeat another stored memory; it is re-linked to the entities it mentions.
The edit and its audit event commit together.
"""

from __future__ import annotations

from datetime import datetime

from hippograph.memory.services import Services
from hippograph.memory.writing.admission import KEEP, Keep
from hippograph.memory.writing.writer import Updated


def update_memory(
    services: Services,
    user_id: str,
    memory_id: str,
    content: str | None = None,
    summary: str | Keep | None = KEEP,
    relevance: float | None = None,
    now: datetime | None = None,
    request_id: str | None = None,
) -> Updated:
    """Change what is given (``summary=None`` clears the summary; leaving it out keeps it). A retry
    with the same ``request_id`` answers with the memory as the first attempt left it."""
    return services.writer.update(services.settings, user_id, memory_id, content, summary, relevance, now, request_id)
