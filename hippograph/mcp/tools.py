"""The MCP tools: what an agent does with its memory, each one call of an operation (``hippograph.operations``).

Every tool takes the caller from the key its transport presented (never from an argument),
translates its arguments for the operation the GraphQL field of the same name calls — which checks
them against the same limits, publishes the same event and records the same metrics — and answers
JSON. A refusal is a tool error whose structured content is ``{"code", "message"}`` with the
operation's code (``BAD_USER_INPUT``, ``NOT_FOUND``, ``LIMIT_EXCEEDED``, ``UNAUTHENTICATED``,
``UNAVAILABLE``, ``INTERNAL_SERVER_ERROR``), and ``field`` when one argument is at fault; nothing is
half-done. Enumerations are spelled as GraphQL spells them: each member by its name.
"""

from __future__ import annotations

import inspect
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from neo4j.exceptions import Neo4jError
from pydantic import BeforeValidator, Field
from starlette.requests import Request

from hippograph.graph.recall import COMPONENTS
from hippograph.graph.vocabulary import EdgeType, EntityType, Tier
from hippograph.memory.browse import MAX_TRACE_DEPTH
from hippograph.memory.keys import Caller
from hippograph.memory.lifecycle.window_budget import MIN_WINDOW
from hippograph.memory.recall.profiles import RECALL_BUDGETS, Priority
from hippograph.memory.recall.query import RecalledItem
from hippograph.memory.services import Services
from hippograph.memory.writing.knowledge import Recorded
from hippograph.operations import (
    browse,
    forget as forgetting,
    knowledge,
    lifecycle,
    memories,
    recall as recalling,
    sessions,
)
from hippograph.operations.call import Call
from hippograph.operations.errors import (
    UNAVAILABLE_ERRORS,
    UNAVAILABLE_MESSAGE,
    BadInput,
    ErrorCode,
    Unauthenticated,
    code_of,
)
from hippograph.operations.event_bus import EventBus
from hippograph.operations.limits import MAX_CHAINS
from hippograph.operations.metrics import MetricsSink
from hippograph.operations.vocabulary import Direction, MemoryKind, ProfileName

log = logging.getLogger("hippograph.mcp")

# Who is calling, given the transport's HTTP request (None over stdio): the caller, or None for no good key.
CallerOf = Callable[[Request | None], Awaitable[Caller | None]]

E = TypeVar("E", bound=Enum)


def by_name(enum: type[E]) -> type[Enum]:
    """``enum`` as a tool takes it: each member by its name, as GraphQL spells it (``CRITICAL``, not ``critical``)."""
    return cast("type[Enum]", Enum(enum.__name__, {member.name: member.name for member in enum}, type=str))


def member(enum: type[E], named: Enum) -> E:
    """The member of ``enum`` a by-name argument names."""
    return enum[named.value]


if TYPE_CHECKING:
    # Made at import, which mypy cannot follow: to it each is an Enum, so a default member is `attr-defined`.
    TierName = Enum
    PriorityName = Enum
    KindName = Enum
    ProfileChoice = Enum
    EdgeName = Enum
    DirectionName = Enum
else:
    TierName, PriorityName, KindName, ProfileChoice, EdgeName, DirectionName = (
        by_name(Tier),
        by_name(Priority),
        by_name(MemoryKind),
        by_name(ProfileName),
        by_name(EdgeType),
        by_name(Direction),
    )

ProjectId = Annotated[str | None, Field(description="Project id (1-128 letters, digits, . _ : @ / -).")]
SessionId = Annotated[str | None, Field(description="Session id, as given to start_session.")]


def iso_time(value: Any) -> Any:
    """A time as GraphQL's DateTime takes one: ISO 8601 text. A number (or digits), which pydantic would read
    as seconds since 1970, is no time."""
    if value is None or isinstance(value, datetime):
        return value
    try:
        if isinstance(value, str):
            return datetime.fromisoformat(value)
    except ValueError:
        pass  # refused below, without repeating the caller's value
    raise ValueError("a time is ISO 8601 text, such as 2026-11-30T12:00:00Z")


AsOf = Annotated[
    datetime | None,
    BeforeValidator(iso_time),
    Field(
        description=(
            "Read the store as it was at this moment (ISO 8601 text, e.g. 2026-11-30T12:00:00Z): "
            "what was recorded by then, with the text it had then, decisions open then. Default: now. "
            "A moment to come, or a UTC offset past ±18:00, is refused. Counts no access."
        )
    ),
]
RequestId = Annotated[
    str | None,
    Field(
        description=(
            "Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, "
            "an OUTCOME_UNKNOWN, a lost connection — it answers with what the first attempt stored "
            "and stores nothing twice."
        )
    ),
]

PRIORITY_HELP = (
    "How much memory the answer may hold: "
    + ", ".join(
        f"{p.name} at most {b.items} item{'' if b.items == 1 else 's'} / {b.tokens} tokens"
        for p, b in RECALL_BUDGETS.items()
    )
    + "."
)

WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ERASES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


def refusal(code: ErrorCode, message: str, field: str | None = None) -> CallToolResult:
    """A tool error as every refusal is answered: the code and the message, as text and as structured content."""
    content: dict[str, Any] = {"code": code.value, "message": message}
    if field is not None:
        content["field"] = field
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code.value}: {message}")], structured_content=content, is_error=True
    )


def argument_name(field: str, renamed: Mapping[str, str] | None = None) -> str:
    """The tool's name for a field an operation named (``conflictsWith`` → ``conflicts_with``)."""
    return (renamed or {}).get(field) or re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", field).lower()


def refused(exc: BaseException, renamed: Mapping[str, str] | None = None) -> CallToolResult | None:
    """The refusal for an exception the caller caused or the store's absence, naming the argument as
    the tool spells it; None for an unexpected one."""
    code = code_of(exc)
    if code is None:
        return None
    if code is ErrorCode.UNAVAILABLE:
        return refusal(code, UNAVAILABLE_MESSAGE)
    message, field = str(exc), getattr(exc, "field", None)
    if field is not None:
        argument = argument_name(field, renamed)
        message, field = (argument + message[len(field) :] if message.startswith(field) else message), argument
    return refusal(code, message, field)


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


def _entity(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An entity row as ``trace`` and ``chains`` answer it, its type by name as GraphQL spells it (``DECISION``)."""
    return None if row is None else {**_plain(row), "type": EntityType(row["type"]).name}


def recalled(item: RecalledItem) -> dict[str, Any]:
    """One recalled memory as the ``recall`` tool answers it, its score's parts by their declared names."""
    return {
        "id": item.id,
        "content": item.content,
        "tier": item.tier.value,
        "mode": item.mode.value,
        "score": item.score,
        "tokens": item.tokens,
        "components": asdict(item.components),
    }


def _recorded(recorded: Recorded) -> dict[str, Any]:
    stored = recorded.memory
    return {
        "memoryId": stored.id,
        "entityId": recorded.entity_id,
        "created": stored.created,
        "duplicateOf": stored.duplicate_of,
        "redacted": stored.redacted,
        "closed": recorded.closed,
        "related": recorded.related,
    }


class MemoryTools:
    """The tools, bound to the services opened once, to how a caller is found, and to the event bus
    and metrics the operations report to (the app's, over HTTP)."""

    def __init__(self, services: Services, caller_of: CallerOf, events: EventBus, metrics: MetricsSink) -> None:
        self._services = services
        self._caller_of = caller_of
        self._events = events
        self._metrics = metrics

    def register(self, add: Callable[..., Any]) -> None:
        """Register every tool with ``add`` (``MCPServer.add_tool``)."""
        for tool, hints in (
            (self.remember, WRITES),
            (self.recall, READS),
            (self.record_decision, WRITES),
            (self.record_error, WRITES),
            (self.record_pattern, WRITES),
            (self.set_preference, WRITES),
            (self.trace, READS),
            (self.chains, READS),
            (self.forget, ERASES),
            (self.start_session, WRITES),
            (self.append_turn, WRITES),
            (self.end_session, WRITES),
            (self.context, READS),
        ):
            add(tool, name=tool.__name__, description=inspect.getdoc(tool), annotations=hints, structured_output=True)

    async def _run(
        self,
        ctx: Context,
        tool: str,
        work: Callable[[Call], Awaitable[Any]],
        renamed: Mapping[str, str] | None = None,
    ) -> Any:
        """``work`` as the key's owner; every call logged, every refusal coded (``renamed``: the tool's
        own names for fields the operation names otherwise, such as ``id``)."""
        started = time.perf_counter()
        caller: Caller | None = None
        try:
            caller = await self._caller_of(ctx.request_context.request)
            if caller is None:
                raise Unauthenticated("this tool needs a valid API key (HIPPOGRAPH_API_KEY, or Authorization: Bearer)")
            result = await work(Call(self._services, caller, self._events, self._metrics))
        except Exception as exc:
            if isinstance(exc, (Neo4jError, *UNAVAILABLE_ERRORS)):
                self._metrics.neo4j_error(type(exc).__name__)
            answer = refused(exc, renamed)
            if answer is None:
                log.exception("mcp tool %s failed", tool)
                answer = refusal(ErrorCode.INTERNAL_SERVER_ERROR, "the tool failed on the server; it was logged")
            log.info(
                "mcp tool=%s user=%s outcome=%s ms=%.1f",
                tool,
                caller.user_id if caller else None,
                answer.structured_content["code"],
                (time.perf_counter() - started) * 1000,
            )
            return answer
        log.info("mcp tool=%s user=%s outcome=ok ms=%.1f", tool, caller.user_id, (time.perf_counter() - started) * 1000)
        return result

    # ------------------------------------------------------------------ writing

    async def remember(
        self,
        ctx: Context,
        content: Annotated[str, Field(description="The memory, as a self-contained statement (not a raw chat turn).")],
        tier: Annotated[
            TierName,
            Field(
                description=(
                    "SESSION: this session's working context (needs session). PROJECT: the project's knowledge "
                    "(needs project). LONG_TERM: what holds for the user everywhere."
                )
            ),
        ] = TierName.PROJECT,  # type: ignore[attr-defined]
        project: ProjectId = None,
        session: SessionId = None,
        kind: Annotated[
            KindName, Field(description="What the memory is; a decision, error or pattern also becomes an entity.")
        ] = KindName.NOTE,  # type: ignore[attr-defined]
        summary: Annotated[str | None, Field(description="A shorter form, shown when the budget is tight.")] = None,
        request_id: RequestId = None,
    ) -> dict[str, Any]:
        """Store a memory. Secrets in it are redacted before it is stored; storing the same text again
        returns the memory already there (duplicateOf). Answers the memory id, whether it was created,
        what was redacted, and what compression removed to make room."""

        async def work(call: Call) -> dict[str, Any]:
            stored = await memories.remember(
                call,
                content,
                member(Tier, tier),
                kind=member(MemoryKind, kind).value,
                project=project,
                session=session,
                summary=summary,
                request_id=request_id,
            )
            plan = stored.compression
            return {
                "memoryId": stored.id,
                "tier": stored.tier.value,
                "tokens": stored.tokens,
                "created": stored.created,
                "duplicateOf": stored.duplicate_of,
                "redacted": stored.redacted,
                "compression": {"deleted": plan.delete, "summarised": plan.summarise, "archived": plan.archive}
                if plan
                else None,
            }

        return await self._run(ctx, "remember", work)

    async def record_decision(
        self,
        ctx: Context,
        decision: Annotated[str, Field(description="The decision, short: 'Use PostgreSQL 16 for billing'.")],
        reason: Annotated[str | None, Field(description="Why it was taken.")] = None,
        conflicts_with: Annotated[
            list[str] | None, Field(description="Entity ids of earlier decisions this one replaces; they are closed.")
        ] = None,
        project: ProjectId = None,
        session: SessionId = None,
        tier: Annotated[TierName, Field(description="Where it is kept (PROJECT by default).")] = TierName.PROJECT,  # type: ignore[attr-defined]
        request_id: RequestId = None,
        informed_by: Annotated[
            str | None,
            Field(
                description=(
                    "The recallId of the recall that informed this decision: analysts then see what it returned."
                )
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Record a decision as a memory and a Decision entity; a decision with the same name closes the
        previous one. Answers the memory and entity ids and the decisions closed."""

        async def work(call: Call) -> dict[str, Any]:
            return _recorded(
                await knowledge.record_decision(
                    call,
                    decision,
                    reason=reason,
                    conflicts_with=conflicts_with,
                    tier=member(Tier, tier),
                    project=project,
                    session=session,
                    request_id=request_id,
                    informed_by=informed_by,
                )
            )

        return await self._run(ctx, "record_decision", work)

    async def record_error(
        self,
        ctx: Context,
        error: Annotated[str, Field(description="The error as seen: 'Connection pool exhausted'.")],
        fix: Annotated[str | None, Field(description="What solved it; linked error -SOLVED_BY-> fix.")] = None,
        caused_by: Annotated[str | None, Field(description="Entity id of the decision that caused it.")] = None,
        project: ProjectId = None,
        session: SessionId = None,
        tier: Annotated[TierName, Field(description="Where it is kept (PROJECT by default).")] = TierName.PROJECT,  # type: ignore[attr-defined]
        request_id: RequestId = None,
    ) -> dict[str, Any]:
        """Record an error, with its fix and the decision that caused it, building the decision → error → fix
        chain that chains and trace read back."""

        async def work(call: Call) -> dict[str, Any]:
            return _recorded(
                await knowledge.record_error(
                    call,
                    error,
                    fix=fix,
                    caused_by=caused_by,
                    tier=member(Tier, tier),
                    project=project,
                    session=session,
                    request_id=request_id,
                )
            )

        return await self._run(ctx, "record_error", work)

    async def record_pattern(
        self,
        ctx: Context,
        pattern: Annotated[str, Field(description="A recurring way of working: 'Feature flags for risky changes'.")],
        count: Annotated[int, Field(description="How many more times it was seen (at least 1).")] = 1,
        project: ProjectId = None,
        tier: Annotated[TierName, Field(description="Where it is kept (LONG_TERM by default).")] = TierName.LONG_TERM,  # type: ignore[attr-defined]
        request_id: RequestId = None,
    ) -> dict[str, Any]:
        """Record a pattern, or count one more sighting of it; rarely seen patterns are archived first when
        long-term memory is full."""

        async def work(call: Call) -> dict[str, Any]:
            return _recorded(
                await knowledge.record_pattern(
                    call, pattern, count=count, tier=member(Tier, tier), project=project, request_id=request_id
                )
            )

        return await self._run(ctx, "record_pattern", work)

    async def set_preference(
        self,
        ctx: Context,
        key: Annotated[
            str, Field(description="What the preference is about, 1-64 characters: 'editor', 'answer_style'.")
        ],
        value: Annotated[str, Field(description="The preference: 'vim', 'concise'.")],
        request_id: RequestId = None,
    ) -> dict[str, Any]:
        """Set one of the user's long-term preferences; a new value for the same key closes the old one."""

        async def work(call: Call) -> dict[str, Any]:
            return _recorded(await knowledge.set_preference(call, key, value, request_id=request_id))

        return await self._run(ctx, "set_preference", work)

    async def forget(
        self,
        ctx: Context,
        memory: Annotated[str | None, Field(description="A memory id to erase.")] = None,
        entity: Annotated[
            str | None, Field(description="An entity id to erase, with the memories recording it.")
        ] = None,
        turn: Annotated[
            str | None,
            Field(
                description="A turn id to erase, with the facts extracted from it; a summary with the turns it covers."
            ),
        ] = None,
        session: Annotated[str | None, Field(description="A session to erase whole: turns, memories, facts.")] = None,
        project: Annotated[str | None, Field(description="A project to erase whole, its sessions included.")] = None,
    ) -> dict[str, Any]:
        """Erase exactly one of: a memory, an entity, a turn, a session or a project. Nothing of it stays — no
        property, index entry, earlier version or derived summary. Cannot be undone. Answers a receipt:
        counts per label and relationship type, the ids removed and their SHA-256, the audit tombstone's id."""
        given = {
            k: v
            for k, v in (
                ("memory", memory),
                ("entity", entity),
                ("turn", turn),
                ("session", session),
                ("project", project),
            )
            if v is not None
        }

        async def work(call: Call) -> dict[str, Any]:
            if len(given) != 1:
                raise BadInput("give exactly one of memory, entity, turn, session or project", field="input")
            ((what, target),) = given.items()
            if what in ("memory", "entity", "turn"):
                gone = await memories.forget(call, **{what: target})
                assert gone.receipt is not None
                return {
                    "forgotten": what,
                    "id": target,
                    "memories": len(gone.memories),
                    "entities": len(gone.entities),
                    "turns": len(gone.turns),
                    "receipt": gone.receipt.as_json(),
                }
            erase = forgetting.forget_session if what == "session" else forgetting.forget_project
            scoped = await erase(call, target)
            assert scoped.receipt is not None
            return {
                "forgotten": what,
                "id": target,
                "memories": scoped.memories,
                "entities": scoped.entities,
                "turns": scoped.turns,
                "sessions": scoped.sessions,
                "receipt": scoped.receipt.as_json(),
            }

        return await self._run(ctx, "forget", work, renamed={"id": next(iter(given), "id")})

    # ------------------------------------------------------------------ reading

    async def recall(
        self,
        ctx: Context,
        query: Annotated[
            str, Field(description="What you need to know, in words: 'which database does billing use?'.")
        ],
        priority: Annotated[PriorityName, Field(description=PRIORITY_HELP)] = PriorityName.MEDIUM,  # type: ignore[attr-defined]
        project: ProjectId = None,
        session: SessionId = None,
        tiers: Annotated[list[TierName] | None, Field(description="Only these tiers (default all).")] = None,
        profile: Annotated[
            ProfileChoice,
            Field(description="Ranking recipe; HYBRID (vector, keyword, relation) unless you know better."),
        ] = ProfileChoice.HYBRID,  # type: ignore[attr-defined]
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        async def work(call: Call) -> dict[str, Any]:
            result = await recalling.recall(
                call,
                query,
                priority=member(Priority, priority),
                profile=member(ProfileName, profile).value,
                tiers=[member(Tier, t) for t in tiers] if tiers is not None else None,
                project=project,
                session=session,
                as_of=as_of,
            )
            return {
                "items": [recalled(i) for i in result.items],
                "totals": {
                    "items": result.totals.items,
                    "tokens": result.totals.tokens,
                    "budgetItems": result.totals.budget.items,
                    "budgetTokens": result.totals.budget.tokens,
                },
                "profile": ProfileName(result.profile).name,
                "recallId": result.event_id,
            }

        return await self._run(ctx, "recall", work)

    recall.__doc__ = (
        "Recall the memories that best answer a query, ranked and within the priority's budget. Each item has its "
        f"score and the score's parts ({', '.join(COMPONENTS)}), its tier, and whether its full text or its "
        "summary is shown."
    )

    async def trace(
        self,
        ctx: Context,
        entity: Annotated[str, Field(description="The entity id to start from (record_* answers entityId).")],
        direction: Annotated[
            DirectionName, Field(description="OUT follows edges forward (decision → error → fix), IN backward.")
        ] = DirectionName.OUT,  # type: ignore[attr-defined]
        edge_types: Annotated[list[EdgeName] | None, Field(description="Only these edges (default all six).")] = None,
        max_depth: Annotated[int, Field(description=f"Hops at most, 1 to {MAX_TRACE_DEPTH}.")] = 3,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """Follow the knowledge graph from an entity: the paths of edges (LED_TO, CAUSED, SOLVED_BY,
        RELATED_TO, USES, CONFLICTS_WITH) out of it, shortest first."""

        async def work(call: Call) -> dict[str, Any]:
            paths = await browse.trace(
                call,
                entity,
                edge_types=[member(EdgeType, e) for e in edge_types] if edge_types is not None else None,
                direction=member(Direction, direction).value,
                max_depth=max_depth,
                as_of=as_of,
            )
            return {
                "paths": [
                    {"nodes": [_entity(n) for n in path["nodes"]], "edges": _plain(path["edges"])} for path in paths
                ]
            }

        return await self._run(ctx, "trace", work, renamed={"from": "entity"})

    async def chains(
        self,
        ctx: Context,
        project: ProjectId = None,
        first: Annotated[int, Field(description=f"Chains at most, 1 to {MAX_CHAINS}.")] = 20,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """The decision → error → fix chains of a project (or of all the user's knowledge): which decision
        caused which error, and what fixed it."""

        async def work(call: Call) -> dict[str, Any]:
            return {
                "chains": [
                    {end: _entity(row) for end, row in chain.items()}
                    for chain in await browse.chains(call, project, first, as_of)
                ]
            }

        return await self._run(ctx, "chains", work)

    # ------------------------------------------------------------------ the session

    async def start_session(
        self,
        ctx: Context,
        session: Annotated[str, Field(description="A new session id of your choosing.")],
        project: ProjectId = None,
    ) -> dict[str, Any]:
        """Start a session: its transcript (append_turn) and its SESSION-tier memories belong to it."""

        async def work(call: Call) -> dict[str, Any]:
            row = await sessions.start_session(call, session, project)
            return {"session": row.get("id"), "project": row.get("projectId"), "status": row.get("status")}

        return await self._run(ctx, "start_session", work, renamed={"id": "session"})

    async def append_turn(
        self,
        ctx: Context,
        session: Annotated[str, Field(description="The session, as given to start_session.")],
        role: Annotated[str, Field(description="Who spoke: user, assistant, or a name (at most 64 characters).")],
        content: Annotated[str, Field(description="What was said.")],
        ref: Annotated[str | None, Field(description="Your own id for the turn, kept as provenance.")] = None,
        project: ProjectId = None,
        item: Annotated[
            str | None,
            Field(
                description=(
                    "The turn's structure in your host (a JSON object, as text): kept beside content "
                    "and given back by the GraphQL transcript exactly; summaries, facts and recall read content only."
                )
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Append a turn to the session's transcript. Past its threshold the oldest turns are summarised and
        their facts kept as project memory."""

        async def work(call: Call) -> dict[str, Any]:
            appended = await lifecycle.append_turn(call, session, role, content, project=project, ref=ref, item=item)
            return {
                "turnId": appended.turn_id,
                "position": appended.position,
                "transcriptTokens": appended.transcript_tokens,
                "redacted": appended.redacted,
                "summarised": len(appended.rounds),
            }

        return await self._run(ctx, "append_turn", work)

    async def end_session(
        self,
        ctx: Context,
        session: Annotated[str, Field(description="The session to end.")],
    ) -> dict[str, Any]:
        """End a session: facts are extracted from its remaining turns, often-used memories promoted to the
        project, the rest of its volatile memory dropped."""

        async def work(call: Call) -> dict[str, Any]:
            ended, _ = await sessions.end_session(call, session)
            return {
                "session": ended.session_id,
                "promoted": ended.promoted,
                "evicted": ended.evicted,
                "turnsDeleted": ended.turns_deleted,
                "facts": ended.facts,
            }

        return await self._run(ctx, "end_session", work, renamed={"id": "session"})

    async def context(
        self,
        ctx: Context,
        session: Annotated[str, Field(description="The session whose context window to fill.")],
        query: Annotated[str, Field(description="The current user message.")],
        context_window: Annotated[
            int, Field(description=f"The model's window in tokens (at least {MIN_WINDOW}).")
        ] = 128_000,
        project: ProjectId = None,
        system_prompt: Annotated[
            str | None, Field(description="Your system prompt, counted against its share.")
        ] = None,
        tool_definitions: Annotated[str | None, Field(description="Your tool definitions, likewise.")] = None,
    ) -> dict[str, Any]:
        """Assemble a context window: system prompt, the user's preferences, project memory, recalled
        memories, the conversation, tools and the query, each section within its share of the window."""

        async def work(call: Call) -> dict[str, Any]:
            assembled = await lifecycle.context(
                call,
                session,
                query,
                context_window,
                project=project,
                system_prompt=system_prompt,
                tool_definitions=tool_definitions,
            )
            return {
                "window": assembled.window,
                "tokens": assembled.tokens,
                "sections": [
                    {"section": s.section.name, "budget": s.budget, "tokens": s.tokens, "text": s.text}
                    for s in assembled.sections
                ],
            }

        return await self._run(ctx, "context", work)
