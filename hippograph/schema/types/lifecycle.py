"""A session's transcript, the assembled context window, and consolidation."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Annotated

import strawberry

from hippograph.memory.lifecycle.window_budget import Section as StoredSection
from hippograph.memory.lifecycle.context_window import AssembledContext
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError
from hippograph.schema.types.sessions import Promotion

if TYPE_CHECKING:
    # Made at import, which mypy cannot follow; it has the budget table's members, names and values.
    ContextSectionName = StoredSection
else:
    ContextSectionName = strawberry.enum(
        Enum("ContextSectionName", {s.name: s.value for s in StoredSection}),
        description="The context window's sections, in order (Hanzo's budget table).",
    )


@strawberry.input
class AppendTurnInput:
    session: strawberry.ID
    role: str = strawberry.field(description="Who spoke: user, assistant, tool …")
    content: str
    project: strawberry.ID | None = None
    ref: str | None = strawberry.field(default=None, description="The caller's own id for the turn.")
    item: str | None = strawberry.field(
        default=None,
        description=(
            "The turn's structure in its host (an Agents SDK item …), as the text of a JSON object: kept beside "
            "`content`, scrubbed of secrets as it is, and given back by `transcript` exactly. Summaries, facts and "
            "recall read `content` only."
        ),
    )


@strawberry.type(description="One summarisation round: the oldest third of the transcript became a summary.")
class SummaryRound:
    summary_id: strawberry.ID
    covered: list[strawberry.ID]
    tokens_before: int
    tokens_after: int
    facts: list[strawberry.ID] = strawberry.field(description="Facts extracted into project memory.")


@strawberry.type
class TurnAppended:
    turn_id: strawberry.ID
    position: int
    transcript_tokens: int
    redacted: list[str]
    rounds: list[SummaryRound]


@strawberry.type
class ContextPiece:
    id: strawberry.ID | None
    text: str
    tokens: int


@strawberry.type(name="ContextSection")
class WindowSection:
    section: ContextSectionName
    budget: int
    tokens: int
    text: str
    pieces: list[ContextPiece]


@strawberry.type(name="AssembledContext", description="The context window, section by section, each within its budget.")
class ContextWindow:
    window: int
    tokens: int
    sections: list[WindowSection]

    @classmethod
    def from_context(cls, assembled: AssembledContext) -> ContextWindow:
        return cls(
            window=assembled.window,
            tokens=assembled.tokens,
            sections=[
                WindowSection(
                    section=ContextSectionName(s.section.value),
                    budget=s.budget,
                    tokens=s.tokens,
                    text=s.text,
                    pieces=[
                        ContextPiece(id=strawberry.ID(p.id) if p.id else None, text=p.text, tokens=p.tokens)
                        for p in s.pieces
                    ],
                )
                for s in assembled.sections
            ],
        )


@strawberry.input
class ConsolidateInput:
    now: datetime | None = strawberry.field(
        default=None,
        description=(
            "The moment decay is measured from (default: now; at most a day from the server's clock). A time without a "
            "zone is UTC; a UTC offset past ±18:00 is refused."
        ),
    )


@strawberry.type
class Merge:
    kept: strawberry.ID
    merged: strawberry.ID


@strawberry.type(description="What consolidation did to the caller's memory.")
class Consolidated:
    merged: list[Merge]
    promoted: list[Promotion]
    generalised: list[strawberry.ID]
    decayed: int
    skipped: list[str]


AppendTurnPayload = Annotated[
    TurnAppended | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("AppendTurnPayload")
]
ConsolidatePayload = Annotated[
    Consolidated | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("ConsolidatePayload")
]
