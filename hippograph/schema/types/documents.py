"""The Izanagi documents — project profile, long-term profile, session — and their import and export."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from hippograph.memory.documents import DocumentKind as StoredKind
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError


# Registered on the class itself, then named, so mypy sees a type (why: hippograph/schema/types/common.py).
strawberry.enum(
    StoredKind,
    description="Which Izanagi document: session, project-memory.json or long-term-memory.json.",
)
DocumentKind = StoredKind


@strawberry.type(description="A named value: a tech-stack entry, a convention, a preference.")
class Setting:
    key: str
    value: str


@strawberry.type
class ArchitectureDecision:
    id: str
    decision: str
    reason: str | None
    date: str | None


@strawberry.type
class Architecture:
    pattern: str | None
    decisions: list[ArchitectureDecision]


@strawberry.type
class ErrorHistoryEntry:
    error: str
    fix: str | None
    count: int | None
    last_seen: str | None


@strawberry.type(description="project-memory.json, as the graph holds it now.")
class ProjectDocument:
    project_id: str
    type: str | None
    tech_stack: list[Setting]
    architecture: Architecture
    conventions: list[Setting]
    error_history: list[ErrorHistoryEntry]
    last_updated: str | None

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> ProjectDocument:
        architecture = doc.get("architecture") or {}
        return cls(
            project_id=doc["project_id"],
            type=doc.get("type"),
            tech_stack=_settings(doc.get("tech_stack")),
            architecture=Architecture(
                pattern=architecture.get("pattern"),
                decisions=[
                    ArchitectureDecision(
                        id=d.get("id", ""), decision=d.get("decision", ""), reason=d.get("reason"), date=d.get("date")
                    )
                    for d in architecture.get("decisions") or []
                ],
            ),
            conventions=_settings(doc.get("conventions")),
            error_history=[
                ErrorHistoryEntry(
                    error=e.get("error", ""), fix=e.get("fix"), count=e.get("count"), last_seen=e.get("last_seen")
                )
                for e in doc.get("error_history") or []
            ],
            last_updated=doc.get("last_updated"),
        )


@strawberry.type
class RecurringPattern:
    name: str
    count: int | None
    last_skill: str | None
    resolved: bool | None


@strawberry.type
class SkillChange:
    skill: str
    version: str | None
    changes: list[str]
    date: str | None


@strawberry.type
class LearningProgress:
    completed_lessons: list[str]
    current_lesson: str | None
    struggling_topics: list[str]


@strawberry.type(description="long-term-memory.json, as the graph holds it now.")
class LongTermDocument:
    user_id: str
    preferences: list[Setting]
    recurring_patterns: list[RecurringPattern]
    skill_evolution: list[SkillChange]
    learning_progress: LearningProgress | None
    last_updated: str | None

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> LongTermDocument:
        progress = doc.get("learning_progress")
        return cls(
            user_id=doc["user_id"],
            preferences=_settings(doc.get("preferences")),
            recurring_patterns=[
                RecurringPattern(
                    name=name, count=p.get("count"), last_skill=p.get("last_skill"), resolved=p.get("resolved")
                )
                for name, p in (doc.get("recurring_patterns") or {}).items()
            ],
            skill_evolution=[
                SkillChange(
                    skill=s.get("skill", ""),
                    version=s.get("version"),
                    changes=list(s.get("changes") or []),
                    date=s.get("date"),
                )
                for s in doc.get("skill_evolution") or []
            ],
            learning_progress=LearningProgress(
                completed_lessons=list(progress.get("completed_lessons") or []),
                current_lesson=progress.get("current_lesson"),
                struggling_topics=list(progress.get("struggling_topics") or []),
            )
            if progress
            else None,
            last_updated=doc.get("last_updated"),
        )


def _settings(values: dict[str, Any] | None) -> list[Setting]:
    return [Setting(key=key, value=str(value)) for key, value in (values or {}).items()]


@strawberry.input
class ImportDocumentInput:
    kind: DocumentKind
    document: JSON = strawberry.field(description="The document itself, as JSON.")
    project: strawberry.ID | None = strawberry.field(default=None, description="A session document's project.")
    session: strawberry.ID | None = None


@strawberry.input(description="A project document needs `project`, a session document `session`.")
class ExportDocumentInput:
    kind: DocumentKind
    project: strawberry.ID | None = None
    session: strawberry.ID | None = None


@strawberry.type
class DocumentImported:
    kind: DocumentKind
    scope_id: str
    entries: int
    created: list[strawberry.ID]
    reused: list[strawberry.ID]
    removed: list[strawberry.ID]
    redacted: list[str]


@strawberry.type
class DocumentExported:
    kind: DocumentKind
    document: JSON


ImportDocumentPayload = Annotated[
    DocumentImported | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("ImportDocumentPayload")
]
ExportDocumentPayload = Annotated[
    DocumentExported | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("ExportDocumentPayload")
]
