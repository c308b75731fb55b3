"""The operations an application sends, each a typed function that returns an ``Operation``.

``recall("how do we deploy?", priority=Priority.HIGH)`` is an ``Operation[RecallResult]``:
its document, its variables and how its answer is read. Either client sends it
(``Client.send`` or ``await AsyncClient.send``); ``AsyncClient.subscribe`` iterates a
subscription's. A mutation's error member (``BadUserInputError`` …) is raised as a
``HippographError`` with its code, as top-level errors are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from hippograph.client.documents import decode, graphql_name, plain, selection
from hippograph.client.errors import HippographError
from hippograph.client.types import (
    Chain,
    Direction,
    EdgeType,
    EntityType,
    ErasureCheck,
    ErasureReceipt,
    Forgotten,
    ItemScore,
    Memory,
    MemoryEvent,
    MemoryKind,
    MemoryPage,
    Path,
    Priority,
    RecallProfile,
    RecallResult,
    Recorded,
    Remembered,
    ScopeForgotten,
    Session,
    SessionEnded,
    SessionStarted,
    SessionTranscript,
    Tier,
    TierUsage,
    TurnAppended,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Operation(Generic[T]):
    """One request: the document, its variables, and ``read``, which turns the answer's ``data`` into a T."""

    name: str
    document: str
    variables: dict[str, Any]
    read: Callable[[dict[str, Any]], T]


@dataclass(frozen=True)
class Spec:
    """One root field as the client asks for it. ``variables`` are declared in that order and passed to the
    field by their own names, except ``nested`` ones, which a field inside the result takes; a mutation names
    the ``payload`` member of its union that is not an error."""

    kind: Literal["query", "mutation", "subscription"]
    field: str
    variables: Mapping[str, str]
    result: type
    many: bool = False
    payload: str | None = None
    nested: tuple[str, ...] = ()
    # The operation's name, when two specs ask the same field (by default the field's, capitalised).
    operation: str | None = None
    document: str = dataclasses.field(init=False)  # `field` is a field of this class here

    def __post_init__(self) -> None:
        declared = ", ".join(f"${name}: {kind}" for name, kind in self.variables.items())
        passed = ", ".join(f"{name}: ${name}" for name in self.variables if name not in self.nested)
        selected = selection(self.result)
        if self.payload is not None:
            selected = (
                f"{{ __typename ... on {self.payload} {selected} ... on UserError {{ code message }} "
                "... on BadUserInputError { field } }"
            )
        object.__setattr__(
            self, "document", f"{self.kind} {self.name}({declared}) {{ {self.field}({passed}) {selected} }}"
        )

    @property
    def name(self) -> str:
        return self.operation or self.field[0].upper() + self.field[1:]

    def read(self, data: dict[str, Any]) -> Any:
        value = data[self.field]
        if value is None:
            return None
        if self.payload is not None and value["__typename"] != self.payload:
            raise HippographError(value["code"], value["message"], value.get("field"))
        if self.many:
            return [decode(self.result, item) for item in value]
        return decode(self.result, value)

    def bind(self, **variables: Any) -> Operation[Any]:
        return Operation(self.name, self.document, {name: plain(value) for name, value in variables.items()}, self.read)


def _input(**fields: Any) -> dict[str, Any]:
    """A mutation's input: camel-case names, what was not given left to the server's default."""
    return {graphql_name(name): value for name, value in fields.items() if value is not None}


def _mutation(name: str, input_type: str, result: type, payload: str) -> Spec:
    return Spec("mutation", name, {"input": f"{input_type}!"}, result, payload=payload)


RECALL = Spec(
    "query",
    "recall",
    {
        "query": "String!",
        "priority": "Priority!",
        "profile": "RecallProfile!",
        "tiers": "[Tier!]",
        "project": "ID",
        "session": "ID",
        "asOf": "DateTime",
        "ranking": "Int!",
    },
    RecallResult,
    nested=("ranking",),
)
ITEM_SCORES = Spec("query", "itemScores", {"query": "String!", "memories": "[ID!]!"}, ItemScore, many=True)
MEMORY = Spec("query", "memory", {"id": "ID!", "asOf": "DateTime"}, Memory)
MEMORIES = Spec("query", "memories", {"filter": "MemoryFilter", "first": "Int!", "after": "String"}, MemoryPage)
SESSION = Spec("query", "session", {"id": "ID!"}, Session)
TRANSCRIPT = Spec("query", "session", {"id": "ID!"}, SessionTranscript, operation="Transcript")
TRACE = Spec(
    "query",
    "trace",
    {"from": "ID!", "edgeTypes": "[EdgeType!]", "direction": "Direction!", "maxDepth": "Int!", "asOf": "DateTime"},
    Path,
    many=True,
)
CHAINS = Spec("query", "chains", {"project": "ID", "first": "Int!", "asOf": "DateTime"}, Chain, many=True)
TIER_USAGE = Spec("query", "tierUsage", {"project": "ID", "session": "ID", "asOf": "DateTime"}, TierUsage, many=True)
VERIFY_ERASURE = Spec("query", "verifyErasure", {"receipt": "ErasureReceiptInput!"}, ErasureCheck)
REMEMBER = _mutation("remember", "RememberInput", Remembered, "RememberSuccess")
RECORD_DECISION = _mutation("recordDecision", "RecordDecisionInput", Recorded, "RecordSuccess")
RECORD_ERROR = _mutation("recordError", "RecordErrorInput", Recorded, "RecordSuccess")
RECORD_PATTERN = _mutation("recordPattern", "RecordPatternInput", Recorded, "RecordSuccess")
SET_PREFERENCE = _mutation("setPreference", "SetPreferenceInput", Recorded, "RecordSuccess")
START_SESSION = _mutation("startSession", "StartSessionInput", SessionStarted, "SessionStarted")
APPEND_TURN = _mutation("appendTurn", "AppendTurnInput", TurnAppended, "TurnAppended")
END_SESSION = _mutation("endSession", "EndSessionInput", SessionEnded, "SessionEnded")
FORGET = _mutation("forget", "ForgetInput", Forgotten, "ForgetSuccess")
FORGET_SESSION = _mutation("forgetSession", "ForgetSessionInput", ScopeForgotten, "ScopeForgotten")
FORGET_PROJECT = _mutation("forgetProject", "ForgetProjectInput", ScopeForgotten, "ScopeForgotten")
FORGET_USER = _mutation("forgetUser", "ForgetUserInput", ScopeForgotten, "ScopeForgotten")
MEMORY_EVENTS = Spec("subscription", "memoryEvents", {"project": "ID"}, MemoryEvent)

# Every document the client sends (the test validates each against schema.graphql).
SPECS = (
    RECALL,
    MEMORY,
    MEMORIES,
    SESSION,
    TRANSCRIPT,
    TRACE,
    CHAINS,
    TIER_USAGE,
    VERIFY_ERASURE,
    REMEMBER,
    RECORD_DECISION,
    RECORD_ERROR,
    RECORD_PATTERN,
    SET_PREFERENCE,
    START_SESSION,
    APPEND_TURN,
    END_SESSION,
    FORGET,
    FORGET_SESSION,
    FORGET_PROJECT,
    FORGET_USER,
    MEMORY_EVENTS,
)


def recall(
    query: str,
    *,
    priority: Priority = Priority.MEDIUM,
    profile: RecallProfile = RecallProfile.HYBRID,
    tiers: Sequence[Tier] | None = None,
    project: str | None = None,
    session: str | None = None,
    ranking: int = 20,
    as_of: datetime | None = None,
) -> Operation[RecallResult]:
    """The caller's memories that best answer ``query`` within the priority's budget, and the first
    ``ranking`` rows of the ranking they were chosen from; with ``as_of``, from the store as it was then."""
    return RECALL.bind(
        query=query,
        priority=priority,
        profile=profile,
        tiers=tiers,
        project=project,
        session=session,
        asOf=as_of,
        ranking=ranking,
    )


def memory(id: str, *, as_of: datetime | None = None) -> Operation[Memory]:
    """One of the caller's memories, with its provenance (kind, scope, attributes, entities); ``NOT_FOUND``
    for any other id; with ``as_of``, as it read then."""
    return MEMORY.bind(id=id, asOf=as_of)


def memories(
    *,
    tiers: Sequence[Tier] | None = None,
    project: str | None = None,
    session: str | None = None,
    kinds: Sequence[MemoryKind] | None = None,
    include_archived: bool = False,
    request_ids: Sequence[str] | None = None,
    first: int = 20,
    after: str | None = None,
) -> Operation[MemoryPage]:
    """A page of the caller's memories, newest first (at most 100), each filter narrowing it (``request_ids``:
    the memories the writes of those request ids stored); ``after`` is the previous page's ``page_info.end_cursor``."""
    return MEMORIES.bind(
        filter=_input(
            tiers=tiers,
            project=project,
            session=session,
            kinds=kinds,
            include_archived=include_archived,
            request_ids=request_ids,
        ),
        first=first,
        after=after,
    )


def session(id: str) -> Operation[Session]:
    """One of the caller's sessions: its memories (newest 100) and transcript; ``NOT_FOUND`` for any other id."""
    return SESSION.bind(id=id)


def transcript(session: str) -> Operation[SessionTranscript]:
    """A session's transcript without its memories: what a chat history reads."""
    return TRANSCRIPT.bind(id=session)


def trace(
    from_: str,
    *,
    edge_types: Sequence[EdgeType] | None = None,
    direction: Direction = Direction.OUT,
    max_depth: int = 3,
    as_of: datetime | None = None,
) -> Operation[list[Path]]:
    """Paths through the knowledge graph from an entity, shortest first; with ``as_of``, as recorded by then."""
    return TRACE.bind(**{"from": from_}, edgeTypes=edge_types, direction=direction, maxDepth=max_depth, asOf=as_of)


def chains(*, project: str | None = None, first: int = 100, as_of: datetime | None = None) -> Operation[list[Chain]]:
    """decision → CAUSED → error → SOLVED_BY → fix chains, per error; with ``as_of``, as they stood then."""
    return CHAINS.bind(project=project, first=first, asOf=as_of)


def tier_usage(
    *, project: str | None = None, session: str | None = None, as_of: datetime | None = None
) -> Operation[list[TierUsage]]:
    """How full each tier of a scope is (long term always; project and session when named)."""
    return TIER_USAGE.bind(project=project, session=session, asOf=as_of)


def verify_erasure(receipt: ErasureReceipt) -> Operation[ErasureCheck]:
    """Check an erasure's receipt against the live store (your own erasures, or any with an admin key)."""
    fields = {graphql_name(f.name): getattr(receipt, f.name) for f in dataclasses.fields(receipt)}
    fields["nodes"] = [{"name": c.name, "count": c.count} for c in receipt.nodes]
    fields["relationships"] = [{"name": c.name, "count": c.count} for c in receipt.relationships]
    return VERIFY_ERASURE.bind(receipt=fields)


def remember(
    content: str,
    *,
    tier: Tier,
    kind: MemoryKind = MemoryKind.NOTE,
    project: str | None = None,
    session: str | None = None,
    relevance: float | None = None,
    summary: str | None = None,
    attributes: dict[str, Any] | None = None,
    mentions: Sequence[tuple[EntityType, str]] | None = None,
    fields: Sequence[str] | None = None,
    request_id: str | None = None,
) -> Operation[Remembered]:
    """Store a memory under its tier's rules; a PROJECT memory needs ``project``, a SESSION one ``session``;
    an ITEM's ``fields`` are embedded each on its own (``item_scores``).

    A retry with the same ``request_id`` answers the first attempt's outcome instead of writing again."""
    return REMEMBER.bind(
        input=_input(
            content=content,
            tier=tier,
            kind=kind,
            project=project,
            session=session,
            relevance=relevance,
            summary=summary,
            attributes=attributes,
            mentions=[{"type": t, "name": n} for t, n in mentions] if mentions else None,
            fields=list(fields) if fields else None,
            request_id=request_id,
        )
    )


def item_scores(query: str, memories: Sequence[str]) -> Operation[list[ItemScore]]:
    """Each of the caller's ``memories`` (at most 50) with its best indexed field's cosine to ``query``."""
    return ITEM_SCORES.bind(query=query, memories=list(memories))


def record_decision(
    decision: str,
    *,
    reason: str | None = None,
    conflicts_with: Sequence[str] | None = None,
    tier: Tier = Tier.PROJECT,
    project: str | None = None,
    session: str | None = None,
    request_id: str | None = None,
    informed_by: str | None = None,
) -> Operation[Recorded]:
    """Record a decision; the active decisions it ``conflicts_with`` are closed; ``informed_by`` is the
    ``recall_id`` of the recall that informed it."""
    return RECORD_DECISION.bind(
        input=_input(
            decision=decision,
            reason=reason,
            conflicts_with=conflicts_with,
            tier=tier,
            project=project,
            session=session,
            request_id=request_id,
            informed_by=informed_by,
        )
    )


def record_error(
    error: str,
    *,
    fix: str | None = None,
    caused_by: str | None = None,
    tier: Tier = Tier.PROJECT,
    project: str | None = None,
    session: str | None = None,
    request_id: str | None = None,
) -> Operation[Recorded]:
    """Record an error, with its fix (error -SOLVED_BY-> fix) and the decision that caused it."""
    return RECORD_ERROR.bind(
        input=_input(
            error=error,
            fix=fix,
            caused_by=caused_by,
            tier=tier,
            project=project,
            session=session,
            request_id=request_id,
        )
    )


def record_pattern(
    pattern: str,
    *,
    count: int = 1,
    tier: Tier = Tier.LONG_TERM,
    project: str | None = None,
    session: str | None = None,
    request_id: str | None = None,
) -> Operation[Recorded]:
    """Record a recurring pattern."""
    return RECORD_PATTERN.bind(
        input=_input(pattern=pattern, count=count, tier=tier, project=project, session=session, request_id=request_id)
    )


def set_preference(key: str, value: str, *, request_id: str | None = None) -> Operation[Recorded]:
    """Set a long-term preference, closing the key's previous value."""
    return SET_PREFERENCE.bind(input=_input(key=key, value=value, request_id=request_id))


def start_session(id: str, *, project: str | None = None) -> Operation[SessionStarted]:
    """Start (or resume) a session, optionally in a project."""
    return START_SESSION.bind(input=_input(id=id, project=project))


def append_turn(
    session: str,
    role: str,
    content: str,
    *,
    project: str | None = None,
    ref: str | None = None,
    item: str | None = None,
) -> Operation[TurnAppended]:
    """Append a turn to a session's transcript (past its trigger share of the budget the oldest third is summarised);
    ``item`` is the turn's structure in its host (a JSON object, as text), given back by the transcript as it was."""
    return APPEND_TURN.bind(
        input=_input(session=session, role=role, content=content, project=project, ref=ref, item=item)
    )


def end_session(id: str) -> Operation[SessionEnded]:
    """End a session: promote what qualifies, evict the rest of its memory and its transcript."""
    return END_SESSION.bind(input=_input(id=id))


def forget(*, memory: str | None = None, entity: str | None = None, turn: str | None = None) -> Operation[Forgotten]:
    """Delete a memory, an entity or a turn (exactly one), with what only it supported."""
    return FORGET.bind(input=_input(memory=memory, entity=entity, turn=turn))


def forget_session(id: str) -> Operation[ScopeForgotten]:
    """Erase a session: its memories and turns, what was derived from them, and what only they supported."""
    return FORGET_SESSION.bind(input=_input(id=id))


def forget_project(id: str) -> Operation[ScopeForgotten]:
    """Erase a project: its memories, its sessions (as ``forget_session`` does), entities and node."""
    return FORGET_PROJECT.bind(input=_input(id=id))


def forget_user(user: str | None = None) -> Operation[ScopeForgotten]:
    """Erase yourself (or, with an admin key, ``user``) with everything owned; keep the receipt."""
    return FORGET_USER.bind(input=_input(user=user))


def memory_events(*, project: str | None = None) -> Operation[MemoryEvent]:
    """The caller's memory changes as mutations make them (of one project, when given): for ``subscribe``."""
    return MEMORY_EVENTS.bind(project=project)
