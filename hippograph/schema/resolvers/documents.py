"""``project``, ``profile``, ``importDocument`` and ``exportDocument``."""

from __future__ import annotations

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory.documents import DocumentKind as StoredKind
from hippograph.memory.documents import export_document as export_stored
from hippograph.memory.documents import import_document as import_stored
from hippograph.memory.tiers import Scope
from hippograph.schema.context import Info
from hippograph.schema.errors import BadInput
from hippograph.schema.events import Event
from hippograph.schema.guards import checked, mutation
from hippograph.schema.limits import ident, optional_ident
from hippograph.schema.types.documents import (
    DocumentExported,
    DocumentImported,
    DocumentKind,
    ExportDocumentInput,
    ExportDocumentPayload,
    ImportDocumentInput,
    ImportDocumentPayload,
)
from hippograph.schema.types.user_profile import Profile, Project


@checked
async def project(info: Info, id: strawberry.ID) -> Project:
    Scope(info.context.user_id, ident(id, "id"))
    return Project(id=id)


@checked
async def profile(info: Info) -> Profile:
    return Profile()


@mutation
async def import_document(info: Info, input: ImportDocumentInput) -> ImportDocumentPayload:
    if not isinstance(input.document, dict):
        raise BadInput("document must be a JSON object", field="document")
    project_id, session_id = optional_ident(input.project, "project"), optional_ident(input.session, "session")
    imported = await run_in_threadpool(
        import_stored, info.context.services, StoredKind(input.kind.value), input.document, info.context.user_id,
        project_id=project_id, session_id=session_id,
    )
    scope_project = imported.scope_id if input.kind is DocumentKind.PROJECT else project_id
    scope_session = imported.scope_id if input.kind is DocumentKind.SESSION else None
    info.context.events.publish(Event(
        "DOCUMENT_IMPORTED", info.context.user_id, scope_project, scope_session,
        memory_ids=tuple([*imported.created, *imported.removed]),
    ))
    return DocumentImported(
        kind=input.kind, scope_id=imported.scope_id, entries=imported.entries,
        created=[strawberry.ID(i) for i in imported.created], reused=[strawberry.ID(i) for i in imported.reused],
        removed=[strawberry.ID(i) for i in imported.removed], redacted=list(imported.redacted),
    )


@mutation
async def export_document(info: Info, input: ExportDocumentInput) -> ExportDocumentPayload:
    document = await run_in_threadpool(
        export_stored, info.context.services, StoredKind(input.kind.value), info.context.user_id,
        project_id=optional_ident(input.project, "project"), session_id=optional_ident(input.session, "session"),
    )
    return DocumentExported(kind=input.kind, document=document)
