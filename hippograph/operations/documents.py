"""``project``, ``import_document`` and ``export_document``: the Izanagi documents."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool

from hippograph.memory.documents import DocumentKind, Imported, export_document as export_stored
from hippograph.memory.documents import import_document as import_stored
from hippograph.memory.tiers import Scope
from hippograph.operations.call import Call
from hippograph.operations.errors import BadInput
from hippograph.operations.limits import ident, optional_ident


async def project(call: Call, project_id: str) -> str:
    """A project id of the caller's, checked (the project's fields read it as they are asked)."""
    Scope(call.user_id, ident(project_id, "id"))
    return project_id


async def import_document(
    call: Call,
    kind: DocumentKind,
    document: Any,
    project: str | None = None,
    session: str | None = None,
) -> Imported:
    """Import an Izanagi document (session, project or long-term)."""
    if not isinstance(document, dict):
        raise BadInput("document must be a JSON object", field="document")
    project_id, session_id = optional_ident(project, "project"), optional_ident(session, "session")
    imported = await run_in_threadpool(
        import_stored,
        call.services,
        kind,
        document,
        call.user_id,
        project_id=project_id,
        session_id=session_id,
    )
    call.publish(
        "DOCUMENT_IMPORTED",
        imported.scope_id if kind is DocumentKind.PROJECT else project_id,
        imported.scope_id if kind is DocumentKind.SESSION else None,
        memory_ids=[*imported.created, *imported.removed],
    )
    return imported


async def export_document(
    call: Call,
    kind: DocumentKind,
    project: str | None = None,
    session: str | None = None,
) -> dict[str, Any]:
    """An Izanagi document as the graph holds it now."""
    return await run_in_threadpool(
        export_stored,
        call.services,
        kind,
        call.user_id,
        project_id=optional_ident(project, "project"),
        session_id=optional_ident(session, "session"),
    )
