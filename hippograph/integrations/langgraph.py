"""LangGraph's long-term memory on hippograph: a ``BaseStore`` whose items are stored items of hippograph.

Install the extra (``pip install 'hippograph[langgraph]'``: ``langgraph`` alone, no model)::

    from hippograph.integrations.langgraph import HippographStore

    store = HippographStore("http://127.0.0.1:8000", key)
    store.put(("project", "shop"), "deploy", {"how": "Docker Compose on the staging host"})
    store.search(("project", "shop"), query="how do we deploy?")   # scored by the best field's cosine
    graph = builder.compile(store=store)

A namespace says where its items live, on the key owner's scopes:

- ``("project", ID, …)``: the PROJECT tier of project ID;
- ``("session", ID, …)``: the SESSION tier of session ID;
- any other (``("user",)``, ``("memories", user_id)`` …): the LONG_TERM tier.

Each item is one memory of kind ``ITEM``: the caller's data, kept until it is deleted (or its TTL ends).
It counts in no tier's capacity, and no compression, session end or consolidation touches it; it is
recalled, scrubbed of secrets, audited and erased as any memory is. Its attributes keep the namespace
(whole, however deep), the key, the value (as JSON: a ``datetime`` becomes its ISO text, as LangGraph's
Postgres store keeps it; up to the 2 MiB a request carries) and its TTL, so ``get`` returns the value as
it was put (secrets redacted). Its text, which recall searches, is a one-line rendering of the value (of
the fields ``index`` names, or the store's ``index["fields"]``; of the namespace and key alone with
``index=False``). Keys and labels are case-sensitive: ``"Doc1"`` and ``"doc1"`` are two items. Each
indexed field (those ``index`` names, or the whole value) is embedded on its own, as LangGraph's stores
embed it: the memory keeps the vectors (``remember``'s ``fields``), not their text.

``search`` with a ``query`` ranks every match by its best field's cosine to the query, as the server
computes it (``itemScores``); items put with ``index=False`` come last, scored None. Without a query,
the newest first. ``put`` on a key that holds an item stores the new one and forgets the old
(``created_at`` carries over); of two puts of one key at once,
the last to finish wins. ``delete`` forgets. ``get``, ``put`` and ``delete`` find a key's item by the
request id it was written with (``memories(filter: {requestIds})``), however many items the tier holds.

TTL (``ttl=`` minutes on ``put``, ``ttl_config`` at creation): an expired item is gone for ``get``,
``search`` and ``list_namespaces``, which forget it when they meet it, and ``sweep_ttl`` forgets every
expired one; a read with ``refresh_ttl`` stores the item again with a new expiry. ``batch`` is not
atomic, as LangGraph's own stores are not: each op runs, in order, as its own requests, and a failing op
leaves the ones before it done.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import Enum
from typing import Any, TypeVar, cast

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from langgraph.store.base.embed import get_text_at_path

from hippograph.client import (
    AsyncClient,
    Client,
    ErrorCode,
    HippographError,
    Memory,
    MemoryKind,
    Operation,
    Tier,
    forget,
    item_scores,
    memories,
    remember,
)

# The attribute an item's namespace, key and value are kept under.
ATTRIBUTE = "langgraph"
# The rendering recall reads is cut here; the value itself is kept whole.
RENDER_CHARS = 2000
# The most memories a page gives.
PAGE = 100
# The most memories one itemScores call scores.
SCORED = 50
# A key's item is written under one of two request ids, taken in turn, so that a put stores the new
# item before it forgets the old one; the attribute ``slot`` says which one an item holds.
SLOTS = 2
# How often a put starts again when another put of the same key took the slot it meant to write.
PUT_TRIES = 50

T = TypeVar("T")
# What the store does for one op, as the requests it sends: each answer comes back where it was yielded,
# so the blocking and the asyncio client run the same steps.
Plan = Generator[Operation[Any], Any, T]


@dataclass(frozen=True)
class Place:
    """Where the items of a namespace (or under a prefix) live: their tiers and scope ids, None where open."""

    tiers: list[Tier] | None
    project: str | None = None
    session: str | None = None


@dataclass(frozen=True)
class Stored:
    """An item as the store keeps it: the memory that holds it, the item, and what else its attribute says."""

    memory: Memory
    item: Item
    kept: dict[str, Any]

    @property
    def indexed(self) -> bool:
        return cast(bool, self.kept.get("indexed", True))

    def expired(self, now: datetime) -> bool:
        expires = self.kept.get("expiresAt")
        return expires is not None and datetime.fromisoformat(expires) <= now


def place(namespace: Sequence[str]) -> Place:
    """The tier a namespace (or a prefix) maps to, with its project or session when it names one."""
    named = namespace[1] if len(namespace) > 1 else None
    if namespace[:1] == ("project",):
        return Place([Tier.PROJECT], project=named)
    if namespace[:1] == ("session",):
        return Place([Tier.SESSION], session=named)
    return Place([Tier.LONG_TERM] if namespace else None)


def render(namespace: Sequence[str], key: str, value: Mapping[str, Any], index: Sequence[str] | bool | None) -> str:
    """The text recall searches: where the item is, then its value (or the fields ``index`` names), on one line."""
    body = " ".join(" ".join(text.split()) for text in fields_of(value, index))
    where = "/".join([*namespace, key])
    return (f"{where}: {body}" if body else where)[:RENDER_CHARS]


def fields_of(value: Mapping[str, Any], index: Sequence[str] | bool | None) -> list[str]:
    """The texts a put embeds each on its own, as LangGraph's stores do: the value's at each path ``index``
    names (or the whole value); none with ``index=False``."""
    if index is False:
        return []
    if index is None or index is True or list(index) == ["$"]:
        texts = [_readable(value)]
    else:
        texts = [text for path in index for text in get_text_at_path(value, path)]
    return [text[:RENDER_CHARS] for text in texts if text.strip()]


def _readable(value: Any) -> str:
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_readable(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_readable(v) for v in value)
    return value if isinstance(value, str) else json.dumps(value)


def jsonable(value: Mapping[str, Any]) -> dict[str, Any]:
    """The value as JSON keeps it: a date, time or datetime as its ISO text, a UUID as its text, an enum as
    its value, a tuple or set as a list (what LangGraph's Postgres store keeps); anything else JSON
    cannot say is refused with its path."""

    def default(obj: Any) -> Any:
        if isinstance(obj, (datetime, date, time)):
            return obj.isoformat()
        if isinstance(obj, uuid.UUID):
            return str(obj)
        if isinstance(obj, Enum):
            return obj.value
        if isinstance(obj, (set, frozenset)):
            return list(obj)
        raise TypeError(f"a store value holds JSON, dates, times, UUIDs and enums; not {type(obj).__name__}: {obj!r}")

    return cast("dict[str, Any]", json.loads(json.dumps(dict(value), default=default)))


def stored_of(memory: Memory) -> Stored | None:
    """The item a memory holds, or None for a memory the store did not write (or a copy in another tier)."""
    kept = (memory.attributes or {}).get(ATTRIBUTE)
    if not isinstance(kept, dict) or memory.created_at is None:
        return None
    namespace = tuple(kept["namespace"])
    if place(namespace).tiers != [memory.tier]:
        return None
    created, updated = kept.get("createdAt"), kept.get("updatedAt")
    item = Item(
        value=kept["value"],
        key=kept["key"],
        namespace=namespace,
        created_at=datetime.fromisoformat(created) if created else memory.created_at,
        updated_at=datetime.fromisoformat(updated) if updated else memory.created_at,
    )
    return Stored(memory, item, kept)


def matches(value: Any, wanted: Any) -> bool:
    """A filter's condition on a value: equal, equal field by field, or by ``$eq $ne $gt $gte $lt $lte``."""
    if isinstance(wanted, Mapping):
        if any(k.startswith("$") for k in wanted):
            return all(_compare(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(matches(value.get(k), v) for k, v in wanted.items())
    return cast(bool, value == wanted)


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return cast(bool, value == operand)
    if op == "$ne":
        return cast(bool, value != operand)
    if value is None:
        return False
    comparisons: dict[str, Callable[[Any, Any], bool]] = {
        "$gt": lambda a, b: a > b,
        "$gte": lambda a, b: a >= b,
        "$lt": lambda a, b: a < b,
        "$lte": lambda a, b: a <= b,
    }
    if op not in comparisons:
        raise ValueError(f"unsupported filter operator {op!r}: one of $eq, $ne, $gt, $gte, $lt, $lte")
    return comparisons[op](value, operand)


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """A namespace against a prefix or suffix condition, ``*`` matching any label."""
    path = condition.path
    if len(namespace) < len(path):
        return False
    ends = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p in ("*", n) for p, n in zip(path, ends))


def request_ids(namespace: tuple[str, ...], key: str) -> list[str]:
    """The request ids a key's item is written with, one per slot; the same for the key in every process."""
    name = uuid.uuid5(uuid.NAMESPACE_URL, json.dumps([list(namespace), key]))
    return [f"langgraph-{name}-{slot}" for slot in range(SLOTS)]


def _now() -> datetime:
    return datetime.now(UTC)


def _forget(memory: Memory) -> Plan[None]:
    """Forget an item's memory; one another put or delete of its key forgot first is no error."""
    try:
        yield forget(memory=memory.id)
    except HippographError as error:
        if error.code != ErrorCode.NOT_FOUND:
            raise


def _live(found: Iterable[Stored]) -> Plan[list[Stored]]:
    """Of ``found``, the items whose TTL has not ended; the others are forgotten on the way."""
    now = _now()
    live = []
    for stored in found:
        if stored.expired(now):
            yield from _forget(stored.memory)
        else:
            live.append(stored)
    return live


def _stored(where: Place) -> Plan[list[Stored]]:
    """Every item under a place, newest first (expired ones too)."""
    found: list[Stored] = []
    after = None
    while True:
        page = yield memories(
            tiers=where.tiers,
            project=where.project,
            session=where.session,
            kinds=[MemoryKind.ITEM],
            include_archived=True,
            first=PAGE,
            after=after,
        )
        found.extend(stored for m in page.nodes if (stored := stored_of(m)) is not None)
        if not page.page_info.has_next_page:
            return found
        after = page.page_info.end_cursor


def _held(namespace: tuple[str, ...], key: str) -> Plan[list[Stored]]:
    """The memories that hold the key's item, newest first: one, or two when a put was cut short (or
    another put of the key is under way)."""
    page = yield memories(request_ids=request_ids(namespace, key), include_archived=True, first=SLOTS)
    return [stored for m in page.nodes if (stored := stored_of(m)) is not None]


def _write(
    namespace: tuple[str, ...], key: str, value: dict[str, Any] | None, text: str | None, kept: Mapping[str, Any]
) -> Plan[None]:
    """Make ``value`` the key's item (None: no item), written as ``text`` with ``kept`` beside it, and its
    fields (those ``kept["index"]`` names) embedded each on its own.

    The new item goes into the slot the current one does not hold, then the current one is forgotten.
    When another put of the key took that slot first (the server answers its request id held other
    content), the put starts again from what the key holds then: so the last put to finish wins."""
    where = place(namespace)
    for _ in range(PUT_TRIES):
        held = yield from _held(namespace, key)
        for stale in held[1:]:
            yield from _forget(stale.memory)
        old = held[0] if held else None
        if value is None or text is None:
            if old is not None:
                yield from _forget(old.memory)
            return None
        slot = (old.kept["slot"] + 1) % SLOTS if old is not None else 0
        item = {"namespace": list(namespace), "key": key, "value": value, "slot": slot, **kept}
        # A new key's item is created when it is updated; a replaced one keeps when it was created.
        item["createdAt"] = old.item.created_at.isoformat() if old is not None else kept["updatedAt"]
        try:
            stored = yield remember(
                text,
                tier=cast("list[Tier]", where.tiers)[0],
                kind=MemoryKind.ITEM,
                project=where.project,
                session=where.session,
                attributes={ATTRIBUTE: item},
                fields=fields_of(value, kept.get("index")),
                request_id=request_ids(namespace, key)[slot],
            )
        except HippographError as error:
            if error.code == ErrorCode.BAD_USER_INPUT.value and error.field == "requestId":
                continue  # another put of the key wrote this slot meanwhile
            raise
        if old is not None and old.memory.id != (stored.memory.id if stored.memory else stored.duplicate_of):
            yield from _forget(old.memory)
        return None
    raise RuntimeError(f"{namespace}/{key}: {PUT_TRIES} other puts of this key finished first; try again")


def _expiry(ttl: float | None) -> dict[str, Any]:
    """What an item keeps of its TTL (minutes): the TTL and when it ends; nothing without one."""
    if ttl is None:
        return {}
    return {"ttl": ttl, "expiresAt": (_now() + timedelta(minutes=ttl)).isoformat()}


def _refresh(stored: Stored) -> Plan[None]:
    """Store an item with a TTL again, its expiry counted from now; its value and times as they were."""
    if stored.kept.get("ttl") is None:
        return None
    item = stored.item
    kept = {
        "updatedAt": item.updated_at.isoformat(),
        "indexed": stored.indexed,
        "index": stored.kept.get("index"),
        **_expiry(stored.kept["ttl"]),
    }
    yield from _write(item.namespace, item.key, item.value, stored.memory.content, kept)
    return None


def _get(op: GetOp) -> Plan[Item | None]:
    held = yield from _live((yield from _held(tuple(op.namespace), op.key))[:1])
    if not held:
        return None
    if op.refresh_ttl:
        yield from _refresh(held[0])
    return held[0].item


def _put(op: PutOp, fields: Sequence[str] | None) -> Plan[None]:
    namespace = tuple(op.namespace)
    where = place(namespace)
    if where.tiers != [Tier.LONG_TERM] and (where.project or where.session) is None:
        raise InvalidNamespaceError(
            f"{namespace}: a {namespace[0]} namespace names its {namespace[0]}: ('{namespace[0]}', ID, …)"
        )
    if op.value is None:
        yield from _write(namespace, op.key, None, None, {})
        return None
    value = jsonable(op.value)
    index = fields if op.index is None else op.index
    kept = {"updatedAt": _now().isoformat(), "indexed": index is not False, "index": index, **_expiry(op.ttl)}
    yield from _write(namespace, op.key, value, render(namespace, op.key, value, index), kept)
    return None


def _search(op: SearchOp) -> Plan[list[SearchItem]]:
    prefix = tuple(op.namespace_prefix)
    where = place(prefix)
    found = yield from _live(
        stored
        for stored in (yield from _stored(where))
        if stored.item.namespace[: len(prefix)] == prefix and matches(stored.item.value, op.filter or {})
    )
    ranked: list[tuple[float | None, Stored]]
    if op.query:
        indexed = [stored.memory.id for stored in found if stored.indexed]
        scores: dict[str, float] = {}
        for start in range(0, len(indexed), SCORED):
            scores.update(
                (row.memory, row.score) for row in (yield item_scores(op.query, indexed[start : start + SCORED]))
            )
        ranked = [
            *sorted(((scores[s.memory.id], s) for s in found if s.memory.id in scores), key=lambda pair: -pair[0]),
            *((None, s) for s in found if s.memory.id not in scores),
        ]
    else:
        ranked = [(None, stored) for stored in found]
    page = ranked[op.offset : op.offset + op.limit]
    if op.refresh_ttl:
        for _, stored in page:
            yield from _refresh(stored)
    return [
        SearchItem(s.item.namespace, s.item.key, s.item.value, s.item.created_at, s.item.updated_at, score)
        for score, s in page
    ]


def _list_namespaces(op: ListNamespacesOp) -> Plan[list[tuple[str, ...]]]:
    live = yield from _live((yield from _stored(place(()))))
    namespaces = {
        stored.item.namespace
        for stored in live
        if all(namespace_matches(c, stored.item.namespace) for c in op.match_conditions or ())
    }
    if op.max_depth is not None:
        namespaces = {ns[: op.max_depth] for ns in namespaces}
    return sorted(namespaces)[op.offset : op.offset + op.limit]


def _sweep() -> Plan[int]:
    every = yield from _stored(place(()))
    live = yield from _live(every)
    return len(every) - len(live)


def _run(plan: Plan[T], send: Callable[[Operation[Any]], Any]) -> T:
    try:
        operation = next(plan)
        while True:
            try:
                answer = send(operation)
            except HippographError as error:
                operation = plan.throw(error)
            else:
                operation = plan.send(answer)
    except StopIteration as done:
        return cast(T, done.value)


async def _arun(plan: Plan[T], send: Callable[[Operation[Any]], Awaitable[Any]]) -> T:
    try:
        operation = next(plan)
        while True:
            try:
                answer = await send(operation)
            except HippographError as error:
                operation = plan.throw(error)
            else:
                operation = plan.send(answer)
    except StopIteration as done:
        return cast(T, done.value)


class HippographStore(BaseStore):
    """LangGraph's ``BaseStore`` on a hippograph server, as the key's owner (see the module docstring).

    ``index``: LangGraph's index configuration; its ``fields`` are what a put renders for recall when it
    names none (``dims`` and ``embed`` are kept as given but unused: the server's model embeds).
    ``ttl_config``: the default TTL and whether reads refresh it. Ops run in order, each as its requests:
    ``batch`` through a blocking client kept open (``close``), ``abatch`` through an asyncio client of its own.
    """

    supports_ttl = True

    def __init__(
        self,
        url: str,
        key: str,
        *,
        timeout: float = 60.0,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        self.url = url
        self.key = key
        self.timeout = timeout
        self.index_config = dict(index) if index else None
        self.ttl_config = ttl
        self.client = Client(url, key, timeout=timeout)

    def _plan(self, op: Op) -> Plan[Result]:
        if isinstance(op, GetOp):
            return _get(op)
        if isinstance(op, PutOp):
            return _put(op, cast("Sequence[str] | None", (self.index_config or {}).get("fields")))
        if isinstance(op, SearchOp):
            return _search(op)
        if isinstance(op, ListNamespacesOp):
            return _list_namespaces(op)
        raise ValueError(f"unknown operation {op!r}")

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [_run(self._plan(op), self.client.send) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        async with AsyncClient(self.url, self.key, timeout=self.timeout) as hg:
            return [await _arun(self._plan(op), hg.send) for op in ops]

    def sweep_ttl(self) -> int:
        """Forget every item whose TTL has ended; returns how many."""
        return _run(_sweep(), self.client.send)

    async def asweep_ttl(self) -> int:
        async with AsyncClient(self.url, self.key, timeout=self.timeout) as hg:
            return await _arun(_sweep(), hg.send)

    def close(self) -> None:
        self.client.close()
