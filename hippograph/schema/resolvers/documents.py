"""``project``, ``profile``, ``importDocument`` and ``exportDocument``."""

from __future__ import annotations

from typing import cast

import strawberry
from strawberry.scalars import JSON

from hippograph.operations import documents
from hippograph.schema.context import Info
from hippograph.schema.guards import checked, mutation
from hippograph.schema.types.documents import (
    DocumentExported,
    DocumentImported,
    ExportDocumentInput,
    ExportDocumentPayload,
    ImportDocumentInput,
    ImportDocumentPayload,
)
from hippograph.schema.types.user_profile import Profile, Project


@checked
async def project(info: Info, id: strawberry.ID) -> Project:
    return Project(id=strawberry.ID(await documents.project(info.context.call, id)))


@checked
async def profile(info: Info) -> Profile:
    return Profile()


@mutation
async def import_document(info: Info, input: ImportDocumentInput) -> ImportDocumentPayload:
    imported = await documents.import_document(
        info.context.call,
        input.kind,
        input.document,
        input.project,
        input.session,
    )
    return DocumentImported(
        kind=input.kind,
        scope_id=imported.scope_id,
        entries=imported.entries,
        created=[strawberry.ID(i) for i in imported.created],
        reused=[strawberry.ID(i) for i in imported.reused],
        removed=[strawberry.ID(i) for i in imported.removed],
        redacted=list(imported.redacted),
    )


@mutation
async def export_document(info: Info, input: ExportDocumentInput) -> ExportDocumentPayload:
    document = await documents.export_document(
        info.context.call,
        input.kind,
        input.project,
        input.session,
    )
    return DocumentExported(kind=input.kind, document=cast(JSON, document))
