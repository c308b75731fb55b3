"""``append_turn``, ``context`` and ``consolidate``: a conversation's life in memory."""

from __future__ import annotations

from datetime import datetime

from starlette.concurrency import run_in_threadpool

from hippograph.memory.lifecycle.consolidation import ConsolidationReport, consolidate as consolidate_memory
from hippograph.memory.lifecycle.context_window import AssembledContext, assemble_context
from hippograph.memory.lifecycle.transcript import Appended, append_turn as append_to_transcript
from hippograph.memory.lifecycle.window_budget import MAX_WINDOW, MIN_WINDOW
from hippograph.memory.recall.profiles import DEFAULT_PROFILE
from hippograph.memory.tiers import Scope
from hippograph.operations.call import Call
from hippograph.operations.limits import (
    MAX_QUERY,
    MAX_TEXT,
    bounded,
    ident,
    moment,
    optional_ident,
    optional_text,
    text,
)


async def append_turn(
    call: Call,
    session: str,
    role: str,
    content: str,
    *,
    project: str | None = None,
    ref: str | None = None,
    item: str | None = None,
) -> Appended:
    """Append a turn to a session's transcript; the oldest third is summarised once it fills. ``item`` is the
    turn's structure in its host (a JSON object, as text), kept beside its text and given back as it was."""
    scope = Scope(call.user_id, optional_ident(project, "project"), ident(session, "session"))
    appended = await run_in_threadpool(
        append_to_transcript,
        call.services,
        scope,
        text(role, "role", 64),
        text(content, "content", MAX_TEXT),
        ref=optional_text(ref, "ref", 128),
        item=item,
    )
    call.publish(
        "TURN_APPENDED",
        scope.project_id,
        scope.session_id,
        memory_ids=[r.summary_id for r in appended.rounds] + [f for r in appended.rounds for f in r.facts],
    )
    return appended


async def context(
    call: Call,
    session: str,
    query: str,
    context_window: int,
    *,
    project: str | None = None,
    system_prompt: str | None = None,
    tool_definitions: str | None = None,
    profile: str = DEFAULT_PROFILE,
) -> AssembledContext:
    """The context window for a query in a session, assembled section by section within budget."""
    window = bounded(context_window, "contextWindow", MAX_WINDOW, MIN_WINDOW)
    scope = Scope(call.user_id, optional_ident(project, "project"), ident(session, "session"))
    query = text(query, "query", MAX_QUERY)
    system_prompt = optional_text(system_prompt, "systemPrompt", MAX_TEXT) or ""
    tool_definitions = optional_text(tool_definitions, "toolDefinitions", MAX_TEXT) or ""
    return await run_in_threadpool(
        lambda: assemble_context(
            call.services,
            scope,
            query,
            window,
            system_prompt=system_prompt,
            tool_definitions=tool_definitions,
            profile=profile,
        )
    )


async def consolidate(call: Call, now: datetime | None = None) -> ConsolidationReport:
    """Consolidate the caller's memory: deduplicate, promote, generalise, decay."""
    # The caller's own id, never None: that would consolidate every user.
    report = await run_in_threadpool(consolidate_memory, call.services, call.user_id, moment(now, "now"))
    call.publish(
        "CONSOLIDATED",
        memory_ids=[
            *(m for pair in report.merged for m in pair),
            *report.promoted.values(),
            *report.generalised,
        ],
    )
    return report
