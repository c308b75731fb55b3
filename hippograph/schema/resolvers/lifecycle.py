"""``appendTurn``, ``context`` and ``consolidate``: a conversation's life in memory."""

from __future__ import annotations

import strawberry

from hippograph.operations import lifecycle
from hippograph.schema.context import Info
from hippograph.schema.guards import checked, mutation
from hippograph.schema.types.common import ProfileName
from hippograph.schema.types.lifecycle import (
    AppendTurnInput,
    AppendTurnPayload,
    ConsolidateInput,
    Consolidated,
    ConsolidatePayload,
    ContextWindow,
    Merge,
    SummaryRound,
    TurnAppended,
)
from hippograph.schema.types.sessions import Promotion


@mutation
async def append_turn(info: Info, input: AppendTurnInput) -> AppendTurnPayload:
    appended = await lifecycle.append_turn(
        info.context.call,
        input.session,
        input.role,
        input.content,
        project=input.project,
        ref=input.ref,
        item=input.item,
    )
    return TurnAppended(
        turn_id=strawberry.ID(appended.turn_id),
        position=appended.position,
        transcript_tokens=appended.transcript_tokens,
        redacted=list(appended.redacted),
        rounds=[
            SummaryRound(
                summary_id=strawberry.ID(r.summary_id),
                covered=[strawberry.ID(i) for i in r.covered],
                tokens_before=r.tokens_before,
                tokens_after=r.tokens_after,
                facts=[strawberry.ID(i) for i in r.facts],
            )
            for r in appended.rounds
        ],
    )


@checked
async def context(
    info: Info,
    session: strawberry.ID,
    query: str,
    context_window: int,
    project: strawberry.ID | None = None,
    system_prompt: str | None = None,
    tool_definitions: str | None = None,
    profile: ProfileName = ProfileName.HYBRID,  # type: ignore[attr-defined]  # made at import (operations/vocabulary.py)
) -> ContextWindow:
    assembled = await lifecycle.context(
        info.context.call,
        session,
        query,
        context_window,
        project=project,
        system_prompt=system_prompt,
        tool_definitions=tool_definitions,
        profile=profile.value,
    )
    return ContextWindow.from_context(assembled)


@mutation
async def consolidate(info: Info, input: ConsolidateInput) -> ConsolidatePayload:
    report = await lifecycle.consolidate(info.context.call, input.now)
    return Consolidated(
        merged=[Merge(kept=strawberry.ID(kept), merged=strawberry.ID(gone)) for kept, gone in report.merged],
        promoted=[Promotion(from_=strawberry.ID(a), to=strawberry.ID(b)) for a, b in report.promoted.items()],
        generalised=[strawberry.ID(i) for i in report.generalised],
        decayed=len(report.decayed),
        skipped=list(report.skipped),
    )
