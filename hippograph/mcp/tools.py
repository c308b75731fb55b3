"""The MCP tools: what an agent does with its memory, each resolved by the rules of ``hippograph.memory``.

Every tool takes the caller from the key its transport presented (never from an
argument), checks its input with the GraphQL API's limits (``hippograph.schema.limits``),
runs the rule in a worker thread (the event loop never waits on Neo4j or the
model) and answers JSON. A refusal is a tool error whose ``code`` is the GraphQL
API's (``BAD_USER_INPUT``, ``NOT_FOUND``, ``LIMIT_EXCEEDED``, ``UNAUTHENTICATED``,
``UNAVAILABLE``) with a message that says what to change; nothing is half-done.
"""

from __future__ import annotations

import inspect
import logging
import time
from enum import Enum
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from hippograph.graph.vocabulary import EdgeType, Tier
from hippograph.memory.browse import MAX_TRACE_DEPTH, chains as read_chains, trace as read_trace
from hippograph.memory.keys import Caller
from hippograph.memory.lifecycle.context_window import assemble_context
from hippograph.memory.lifecycle.sessions import end_session as end_session_rule, start_session as start_session_rule
from hippograph.memory.lifecycle.transcript import append_turn as append_turn_rule
from hippograph.memory.lifecycle.window_budget import MAX_WINDOW, MIN_WINDOW
from hippograph.memory.recall.profiles import PROFILES, RECALL_BUDGETS, Priority
from hippograph.memory.recall.query import recall as recall_rule
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import forget as forget_rules, knowledge
from hippograph.memory.writing.admission import KIND_LABELS, MAX_CONTENT_CHARS, MemoryInput
from hippograph.memory.writing.store import remember as remember_rule
from hippograph.schema.errors import BadInput, ErrorCode, LimitExceeded, Unauthenticated, code_of
from hippograph.schema.limits import (
    MAX_CHAINS, MAX_QUERY, MAX_SHORT_TEXT, MAX_TEXT, MAX_TRACE_PATHS, caller_scope, entity_name, ident, optional_ident,
    optional_text, text,
)

log = logging.getLogger("hippograph.mcp")

# Who is calling, given the transport's HTTP request (None over stdio): the caller, or None for no good key.
CallerOf = Callable[[Request | None], Awaitable[Caller | None]]

# The kinds and recipes the rules know, as the GraphQL enums take them (``schema/types/common.py``).
MemoryKind = Enum("MemoryKind", {kind.upper(): kind for kind in KIND_LABELS}, type=str)
ProfileName = Enum("ProfileName", {name.upper(): name for name in PROFILES}, type=str)
ProjectId = Annotated[str | None, Field(description="Project id (1-128 letters, digits, . _ : @ / -).")]
SessionId = Annotated[str | None, Field(description="Session id, as given to start_session.")]

PRIORITY_HELP = "How much memory the answer may hold: " + ", ".join(
    f"{p.value} at most {b.items} item{'' if b.items == 1 else 's'} / {b.tokens} tokens" for p, b in RECALL_BUDGETS.items()) + "."

WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ERASES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


def _name(value: str, field: str) -> str:
    return entity_name(text(value, field, MAX_SHORT_TEXT), field)


def _plain(value: Any) -> Any:
    """Rows as Neo4j returns them, in JSON: its dates and times as ISO 8601 text."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _recorded(recorded: knowledge.Recorded) -> dict[str, Any]:
    stored = recorded.memory
    return {"memoryId": stored.id, "entityId": recorded.entity_id, "created": stored.created,
            "duplicateOf": stored.duplicate_of, "redacted": stored.redacted, "closed": recorded.closed,
            "related": recorded.related}


class MemoryTools:
    """The tools, bound to the services opened once and to how a caller is found."""

    def __init__(self, services: Services, caller_of: CallerOf) -> None:
        self._services = services
        self._caller_of = caller_of

    def register(self, add: Callable[..., Any]) -> None:
        """Register every tool with ``add`` (``MCPServer.add_tool``)."""
        for tool, hints in (
            (self.remember, WRITES), (self.recall, READS), (self.record_decision, WRITES),
            (self.record_error, WRITES), (self.record_pattern, WRITES), (self.set_preference, WRITES),
            (self.trace, READS), (self.chains, READS), (self.forget, ERASES), (self.start_session, WRITES),
            (self.append_turn, WRITES), (self.end_session, WRITES), (self.context, READS),
        ):
            add(tool, name=tool.__name__, description=inspect.getdoc(tool), annotations=hints, structured_output=True)

    async def _run(self, ctx: Context, tool: str, work: Callable[[str], Any]) -> Any:
        """``work(user_id)`` in a worker thread for the key's owner; every call logged, every refusal coded."""
        started = time.perf_counter()
        caller: Caller | None = None
        try:
            caller = await self._caller_of(ctx.request_context.request)
            if caller is None:
                raise Unauthenticated("this tool needs a valid API key (HIPPOGRAPH_API_KEY, or Authorization: Bearer)")
            result = await run_in_threadpool(work, caller.user_id)
        except Exception as exc:
            code = code_of(exc)
            message = str(exc) if code is not None else "the tool failed on the server; it was logged"
            if code is None:
                log.exception("mcp tool %s failed", tool)
            log.info("mcp tool=%s user=%s outcome=%s ms=%.1f", tool, caller.user_id if caller else None,
                     (code or ErrorCode.INTERNAL_SERVER_ERROR).value, (time.perf_counter() - started) * 1000)
            code = code or ErrorCode.INTERNAL_SERVER_ERROR
            return CallToolResult(
                content=[TextContent(type="text", text=f"{code.value}: {message}")],
                structured_content={"code": code.value, "message": message}, is_error=True,
            )
        log.info("mcp tool=%s user=%s outcome=ok ms=%.1f", tool, caller.user_id, (time.perf_counter() - started) * 1000)
        return result

    # ------------------------------------------------------------------ writing

    async def remember(
        self, ctx: Context,
        content: Annotated[str, Field(description="The memory, as a self-contained statement (not a raw chat turn).")],
        tier: Annotated[Tier, Field(description=(
            "SESSION: this session's working context (needs session). PROJECT: the project's knowledge "
            "(needs project). LONG_TERM: what holds for the user everywhere."))] = Tier.PROJECT,
        project: ProjectId = None,
        session: SessionId = None,
        kind: Annotated[MemoryKind, Field(
            description="What the memory is; a decision, error or pattern also becomes an entity.")] = MemoryKind.NOTE,
        summary: Annotated[str | None, Field(description="A shorter form, shown when the budget is tight.")] = None,
    ) -> dict[str, Any]:
        """Store a memory. Secrets in it are redacted before it is stored; storing the same text again
        returns the memory already there (duplicateOf). Answers the memory id, whether it was created,
        what was redacted, and what compression removed to make room."""
        def work(user_id: str) -> dict[str, Any]:
            item = MemoryInput(content=text(content, "content", MAX_CONTENT_CHARS), tier=tier, kind=kind.value,
                               summary=optional_text(summary, "summary", MAX_CONTENT_CHARS))
            stored = remember_rule(self._services, caller_scope(user_id, project, session), item)
            plan = stored.compression
            return {"memoryId": stored.id, "tier": stored.tier.value, "tokens": stored.tokens, "created": stored.created,
                    "duplicateOf": stored.duplicate_of, "redacted": stored.redacted,
                    "compression": {"deleted": plan.delete, "summarised": plan.summarise, "archived": plan.archive}
                    if plan else None}
        return await self._run(ctx, "remember", work)

    async def record_decision(
        self, ctx: Context,
        decision: Annotated[str, Field(description="The decision, short: 'Use PostgreSQL 16 for billing'.")],
        reason: Annotated[str | None, Field(description="Why it was taken.")] = None,
        conflicts_with: Annotated[list[str] | None, Field(
            description="Entity ids of earlier decisions this one replaces; they are closed.", max_length=50)] = None,
        project: ProjectId = None,
        session: SessionId = None,
        tier: Annotated[Tier, Field(description="Where it is kept (PROJECT by default).")] = Tier.PROJECT,
    ) -> dict[str, Any]:
        """Record a decision as a memory and a Decision entity; a decision with the same name closes the
        previous one. Answers the memory and entity ids and the decisions closed."""
        def work(user_id: str) -> dict[str, Any]:
            return _recorded(knowledge.record_decision(
                self._services, caller_scope(user_id, project, session), _name(decision, "decision"),
                reason=optional_text(reason, "reason", MAX_SHORT_TEXT),
                conflicts_with=[ident(i, "conflicts_with") for i in conflicts_with or []], tier=tier))
        return await self._run(ctx, "record_decision", work)

    async def record_error(
        self, ctx: Context,
        error: Annotated[str, Field(description="The error as seen: 'Connection pool exhausted'.")],
        fix: Annotated[str | None, Field(description="What solved it; linked error -SOLVED_BY-> fix.")] = None,
        caused_by: Annotated[str | None, Field(description="Entity id of the decision that caused it.")] = None,
        project: ProjectId = None,
        session: SessionId = None,
        tier: Annotated[Tier, Field(description="Where it is kept (PROJECT by default).")] = Tier.PROJECT,
    ) -> dict[str, Any]:
        """Record an error, with its fix and the decision that caused it, building the decision → error → fix
        chain that chains and trace read back."""
        def work(user_id: str) -> dict[str, Any]:
            return _recorded(knowledge.record_error(
                self._services, caller_scope(user_id, project, session), _name(error, "error"),
                fix=_name(fix, "fix") if fix is not None else None,
                caused_by=optional_ident(caused_by, "caused_by"), tier=tier))
        return await self._run(ctx, "record_error", work)

    async def record_pattern(
        self, ctx: Context,
        pattern: Annotated[str, Field(description="A recurring way of working: 'Feature flags for risky changes'.")],
        count: Annotated[int, Field(description="How many more times it was seen.", ge=1, le=1_000_000)] = 1,
        project: ProjectId = None,
        tier: Annotated[Tier, Field(description="Where it is kept (LONG_TERM by default).")] = Tier.LONG_TERM,
    ) -> dict[str, Any]:
        """Record a pattern, or count one more sighting of it; rarely seen patterns are archived first when
        long-term memory is full."""
        def work(user_id: str) -> dict[str, Any]:
            return _recorded(knowledge.record_pattern(
                self._services, caller_scope(user_id, project, None), _name(pattern, "pattern"), count=count, tier=tier))
        return await self._run(ctx, "record_pattern", work)

    async def set_preference(
        self, ctx: Context,
        key: Annotated[str, Field(description="What the preference is about: 'editor', 'answer_style'.", max_length=64)],
        value: Annotated[str, Field(description="The preference: 'vim', 'concise'.")],
    ) -> dict[str, Any]:
        """Set one of the user's long-term preferences; a new value for the same key closes the old one."""
        def work(user_id: str) -> dict[str, Any]:
            checked_key, checked_value = text(key, "key", 64), text(value, "value", MAX_SHORT_TEXT)
            _name(f"{checked_key}: {checked_value}", "value")
            return _recorded(knowledge.set_preference(self._services, Scope(user_id), checked_key, checked_value))
        return await self._run(ctx, "set_preference", work)

    async def forget(
        self, ctx: Context,
        memory: Annotated[str | None, Field(description="A memory id to erase.")] = None,
        entity: Annotated[str | None, Field(description="An entity id to erase, with the memories recording it.")] = None,
        session: Annotated[str | None, Field(description="A session to erase whole: turns, memories, facts.")] = None,
        project: Annotated[str | None, Field(description="A project to erase whole, its sessions included.")] = None,
    ) -> dict[str, Any]:
        """Erase exactly one of: a memory, an entity, a session or a project. Nothing of it stays — no
        property, index entry or derived summary. Cannot be undone."""
        given = {k: v for k, v in (("memory", memory), ("entity", entity), ("session", session), ("project", project))
                 if v is not None}

        def work(user_id: str) -> dict[str, Any]:
            if len(given) != 1:
                raise BadInput("give exactly one of memory, entity, session or project", field="input")
            (what, value), = given.items()
            target = ident(value, what)
            services = self._services
            if what in ("memory", "entity"):
                erase_one = forget_rules.forget_memory if what == "memory" else forget_rules.forget_entity
                gone = erase_one(services, user_id, target)  # NotFound unless it is the caller's
                return {"forgotten": what, "id": target, "memories": len(gone.memories), "entities": len(gone.entities)}
            erase = forget_rules.forget_session if what == "session" else forget_rules.forget_project
            scoped = erase(services, user_id, target, by="mcp")
            return {"forgotten": what, "id": target, "memories": scoped.memories, "entities": scoped.entities,
                    "turns": scoped.turns, "sessions": scoped.sessions}
        return await self._run(ctx, "forget", work)

    # ------------------------------------------------------------------ reading

    async def recall(
        self, ctx: Context,
        query: Annotated[str, Field(description="What you need to know, in words: 'which database does billing use?'.")],
        priority: Annotated[Priority, Field(description=PRIORITY_HELP)] = Priority.MEDIUM,
        project: ProjectId = None,
        session: SessionId = None,
        tiers: Annotated[list[Tier] | None, Field(description="Only these tiers (default all).", max_length=3)] = None,
        profile: Annotated[ProfileName, Field(
            description="Ranking recipe; hybrid (vector, keyword, relation) unless you know better.")] = ProfileName.HYBRID,
    ) -> dict[str, Any]:
        """Recall the memories that best answer a query, ranked and within the priority's budget. Each
        item has its score and the score's parts (vector, keyword, recency, relation, time, period), its tier, and
        whether its full text or its summary is shown."""
        def work(user_id: str) -> dict[str, Any]:
            result = recall_rule(self._services, text(query, "query", MAX_QUERY), caller_scope(user_id, project, session),
                                 priority, profile.value, tiers)
            return {
                "items": [{"id": i.id, "content": i.content, "tier": i.tier.value, "mode": i.mode.value,
                           "score": i.score, "tokens": i.tokens,
                           "components": {"vector": i.components.vector, "keyword": i.components.keyword,
                                          "recency": i.components.recency, "relation": i.components.relation,
                                          "time": i.components.time, "period": i.components.period}}
                          for i in result.items],
                "totals": {"items": result.totals.items, "tokens": result.totals.tokens,
                           "budgetItems": result.totals.budget.items, "budgetTokens": result.totals.budget.tokens},
                "profile": result.profile,
            }
        return await self._run(ctx, "recall", work)

    async def trace(
        self, ctx: Context,
        entity: Annotated[str, Field(description="The entity id to start from (record_* answers entityId).")],
        direction: Annotated[Literal["OUT", "IN", "BOTH"], Field(
            description="OUT follows edges forward (decision → error → fix), IN backward.")] = "OUT",
        edge_types: Annotated[list[EdgeType] | None, Field(
            description="Only these edges (default all six).", max_length=6)] = None,
        max_depth: Annotated[int, Field(description="Hops at most.", ge=1, le=MAX_TRACE_DEPTH)] = 3,
    ) -> dict[str, Any]:
        """Follow the knowledge graph from an entity: the paths of edges (LED_TO, CAUSED, SOLVED_BY,
        RELATED_TO, USES, CONFLICTS_WITH) out of it, shortest first."""
        def work(user_id: str) -> dict[str, Any]:
            return {"paths": _plain(read_trace(self._services, user_id, ident(entity, "entity"), edge_types, direction,
                                               max_depth, MAX_TRACE_PATHS))}
        return await self._run(ctx, "trace", work)

    async def chains(
        self, ctx: Context,
        project: ProjectId = None,
        first: Annotated[int, Field(description="Chains at most.", ge=1, le=MAX_CHAINS)] = 20,
    ) -> dict[str, Any]:
        """The decision → error → fix chains of a project (or of all the user's knowledge): which decision
        caused which error, and what fixed it."""
        def work(user_id: str) -> dict[str, Any]:
            return {"chains": _plain(read_chains(self._services, user_id, optional_ident(project, "project"), first))}
        return await self._run(ctx, "chains", work)

    # ------------------------------------------------------------------ the session

    async def start_session(
        self, ctx: Context,
        session: Annotated[str, Field(description="A new session id of your choosing.")],
        project: ProjectId = None,
    ) -> dict[str, Any]:
        """Start a session: its transcript (append_turn) and its SESSION-tier memories belong to it."""
        def work(user_id: str) -> dict[str, Any]:
            row = start_session_rule(self._services, caller_scope(user_id, project, session))
            return {"session": row.get("id"), "project": row.get("projectId"), "status": row.get("status")}
        return await self._run(ctx, "start_session", work)

    async def append_turn(
        self, ctx: Context,
        session: Annotated[str, Field(description="The session, as given to start_session.")],
        role: Annotated[str, Field(description="Who spoke: user, assistant, or a name.", max_length=64)],
        content: Annotated[str, Field(description="What was said.")],
        ref: Annotated[str | None, Field(description="Your own id for the turn, kept as provenance.", max_length=128)] = None,
        project: ProjectId = None,
    ) -> dict[str, Any]:
        """Append a turn to the session's transcript. Past 75 % of its budget the oldest turns are
        summarised and their facts kept as project memory."""
        def work(user_id: str) -> dict[str, Any]:
            appended = append_turn_rule(self._services, caller_scope(user_id, project, session), text(role, "role", 64),
                                        text(content, "content", MAX_TEXT), ref=optional_text(ref, "ref", 128))
            return {"turnId": appended.turn_id, "position": appended.position,
                    "transcriptTokens": appended.transcript_tokens, "redacted": appended.redacted,
                    "summarised": len(appended.rounds)}
        return await self._run(ctx, "append_turn", work)

    async def end_session(
        self, ctx: Context,
        session: Annotated[str, Field(description="The session to end.")],
    ) -> dict[str, Any]:
        """End a session: facts are extracted from its remaining turns, often-used memories promoted to the
        project, the rest of its volatile memory dropped."""
        def work(user_id: str) -> dict[str, Any]:
            ended = end_session_rule(self._services, user_id, ident(session, "session"))
            return {"session": ended.session_id, "promoted": ended.promoted, "evicted": ended.evicted,
                    "turnsDeleted": ended.turns_deleted, "facts": ended.facts}
        return await self._run(ctx, "end_session", work)

    async def context(
        self, ctx: Context,
        session: Annotated[str, Field(description="The session whose context window to fill.")],
        query: Annotated[str, Field(description="The current user message.")],
        context_window: Annotated[int, Field(description="The model's window in tokens.", ge=MIN_WINDOW)] = 128_000,
        project: ProjectId = None,
        system_prompt: Annotated[str | None, Field(description="Your system prompt, counted against its share.")] = None,
        tool_definitions: Annotated[str | None, Field(description="Your tool definitions, likewise.")] = None,
    ) -> dict[str, Any]:
        """Assemble a context window: system prompt, the user's preferences, project memory, recalled
        memories, the conversation, tools and the query, each section within its share of the window."""
        def work(user_id: str) -> dict[str, Any]:
            if context_window > MAX_WINDOW:
                raise LimitExceeded(f"context_window is at most {MAX_WINDOW} tokens", field="context_window")
            assembled = assemble_context(
                self._services, caller_scope(user_id, project, session), text(query, "query", MAX_QUERY), context_window,
                system_prompt=optional_text(system_prompt, "system_prompt", MAX_TEXT) or "",
                tool_definitions=optional_text(tool_definitions, "tool_definitions", MAX_TEXT) or "",
            )
            return {"window": assembled.window, "tokens": assembled.tokens,
                    "sections": [{"section": s.section.value, "budget": s.budget, "tokens": s.tokens, "text": s.text}
                                 for s in assembled.sections]}
        return await self._run(ctx, "context", work)
