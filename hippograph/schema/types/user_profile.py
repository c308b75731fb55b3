"""A project's profile and the user's long-term profile: the Izanagi document, when one was
imported, beside what the graph holds now."""

from __future__ import annotations

from typing import Any

import strawberry

from hippograph.graph.vocabulary import EntityType as StoredEntityType
from hippograph.memory.documents import DocumentKind
from hippograph.memory.errors import NotFound
from hippograph.operations import browse, documents
from hippograph.operations.limits import MAX_CHAINS, MAX_PAGE
from hippograph.schema.context import Info
from hippograph.schema.types.browse import Chain, TierFill
from hippograph.schema.types.documents import LongTermDocument, ProjectDocument, Setting
from hippograph.schema.types.nodes import Entity


async def _entities(info: Info, kind: StoredEntityType, project: str | None, active_only: bool) -> list[Entity]:
    page = await browse.entities(
        info.context.call,
        entity_type=kind,
        project=project,
        first=MAX_PAGE,
        user_level=project is None,
    )
    entities = [Entity.from_row(row) for row in page.rows]
    return [e for e in entities if e.valid_until is None] if active_only else entities


async def _export(info: Info, kind: DocumentKind, project: str | None = None) -> dict[str, Any] | None:
    try:
        return await documents.export_document(info.context.call, kind, project)
    except NotFound:
        return None


@strawberry.type(description="A project: its project-memory.json profile and its live knowledge.")
class Project:
    id: strawberry.ID

    @strawberry.field(description="The profile as project-memory.json (null when none was imported).")
    async def document(self, info: Info) -> ProjectDocument | None:
        found = await _export(info, DocumentKind.PROJECT, str(self.id))
        return ProjectDocument.from_document(found) if found else None

    @strawberry.field(description=f"The project's decisions (active only by default; at most {MAX_PAGE}).")
    async def decisions(self, info: Info, active_only: bool = True) -> list[Entity]:
        return await _entities(info, StoredEntityType.DECISION, str(self.id), active_only)

    @strawberry.field(description="Technologies the project's memories record or mention.")
    async def technologies(self, info: Info) -> list[Entity]:
        return await _entities(info, StoredEntityType.TECHNOLOGY, str(self.id), False)

    @strawberry.field(description="decision → error → fix chains of the project.")
    async def chains(self, info: Info) -> list[Chain]:
        return [Chain.from_row(row) for row in await browse.chains(info.context.call, str(self.id), MAX_CHAINS)]

    @strawberry.field
    async def tier_usage(self, info: Info) -> TierFill:
        return TierFill.from_usage((await browse.tier_usage(info.context.call, str(self.id)))[0])


@strawberry.type(description="The caller's long-term profile: preferences, recurring patterns, learning.")
class Profile:
    @strawberry.field(description="The profile as long-term-memory.json (null when none was imported).")
    async def document(self, info: Info) -> LongTermDocument | None:
        found = await _export(info, DocumentKind.LONG_TERM)
        return LongTermDocument.from_document(found) if found else None

    @strawberry.field(description="Current preferences (a newer value for a key replaces the old one).")
    async def preferences(self, info: Info) -> list[Setting]:
        entities = await _entities(info, StoredEntityType.USER_PREFERENCE, None, True)
        pairs = [e.name.split(": ", 1) for e in entities]
        return [Setting(key=pair[0], value=pair[1]) for pair in pairs if len(pair) == 2]

    @strawberry.field(description="Recurring patterns of the user, across projects.")
    async def patterns(self, info: Info) -> list[Entity]:
        return await _entities(info, StoredEntityType.PATTERN, None, False)

    @strawberry.field
    async def tier_usage(self, info: Info) -> TierFill:
        return TierFill.from_usage((await browse.tier_usage(info.context.call))[0])
