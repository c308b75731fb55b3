"""``appendTurn``, ``context`` and ``consolidate``: a conversation's life in memory."""

from __future__ import annotations

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph.memory.lifecycle.window_budget import MAX_WINDOW, MIN_WINDOW
from hippograph.memory.lifecycle.consolidation import consolidate as consolidate_memory
from hippograph.memory.lifecycle.context_window import assemble_context
from hippograph.memory.tiers import Scope
from hippograph.memory.lifecycle.transcript import append_turn as append_to_transcript
from hippograph.schema.context import Info
from hippograph.schema.errors import BadInput, LimitExceeded
from hippograph.schema.events import Event
from hippograph.schema.guards import checked, mutation
from hippograph.schema.limits import MAX_QUERY, MAX_TEXT, ident, moment, optional_text, text
from hippograph.schema.types.common import RecallProfile
from hippograph.schema.types.lifecycle import (
    AppendTurnInput,
    AppendTurnPayload,
    AssembledContext,
    ConsolidateInput,
    Consolidated,
    ConsolidatePayload,
    Merge,
    SummaryRound,
    TurnAppended,
)
from hippograph.schema.types.sessions import Promotion


@mutation
async def append_turn(info: Info, input: AppendTurnInput) -> AppendTurnPayload:
    scope = Scope(
        info.context.user_id, ident(input.project, "project") if input.project is not None else None,
        ident(input.session, "session"),
    )
    appended = await run_in_threadpool(
        append_to_transcript, info.context.services, scope, text(input.role, "role", 64),
        text(input.content, "content", MAX_TEXT), ref=optional_text(input.ref, "ref", 128),
    )
    facts = [fact for r in appended.rounds for fact in r.facts]
    info.context.events.publish(Event(
        "TURN_APPENDED", scope.user_id, scope.project_id, scope.session_id,
        memory_ids=tuple([r.summary_id for r in appended.rounds] + facts),
    ))
    return TurnAppended(
        turn_id=strawberry.ID(appended.turn_id), position=appended.position,
        transcript_tokens=appended.transcript_tokens, redacted=list(appended.redacted),
        rounds=[
            SummaryRound(
                summary_id=strawberry.ID(r.summary_id), covered=[strawberry.ID(i) for i in r.covered],
                tokens_before=r.tokens_before, tokens_after=r.tokens_after, facts=[strawberry.ID(i) for i in r.facts],
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
    profile: RecallProfile = RecallProfile.HYBRID,  # type: ignore[attr-defined]
) -> AssembledContext:
    if context_window < MIN_WINDOW:
        raise BadInput(f"contextWindow must be at least {MIN_WINDOW} tokens", field="contextWindow")
    if context_window > MAX_WINDOW:
        raise LimitExceeded(f"contextWindow is at most {MAX_WINDOW} tokens", field="contextWindow")
    scope = Scope(
        info.context.user_id, ident(project, "project") if project is not None else None, ident(session, "session"),
    )
    assembled = await run_in_threadpool(
        lambda: assemble_context(
            info.context.services, scope, text(query, "query", MAX_QUERY), context_window,
            system_prompt=optional_text(system_prompt, "systemPrompt", MAX_TEXT) or "",
            tool_definitions=optional_text(tool_definitions, "toolDefinitions", MAX_TEXT) or "",
            profile=profile.value,
        )
    )
    return AssembledContext.from_context(assembled)


@mutation
async def consolidate(info: Info, input: ConsolidateInput) -> ConsolidatePayload:
    user_id = info.context.user_id  # never None: that would consolidate every user
    report = await run_in_threadpool(consolidate_memory, info.context.services, user_id, moment(input.now, "now"))
    info.context.events.publish(Event(
        "CONSOLIDATED", user_id,
        memory_ids=tuple([*(m for pair in report.merged for m in pair), *report.promoted.values(), *report.generalised]),
    ))
    return Consolidated(
        merged=[Merge(kept=strawberry.ID(kept), merged=strawberry.ID(gone)) for kept, gone in report.merged],
        promoted=[Promotion(from_=strawberry.ID(a), to=strawberry.ID(b)) for a, b in report.promoted.items()],
        generalised=[strawberry.ID(i) for i in report.generalised],
        decayed=len(report.decayed),
        skipped=list(report.skipped),
    )
