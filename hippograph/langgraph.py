"""LangGraph's long-term memory on hippograph: a ``BaseStore`` whose items are memories.

Install the extra (``pip install 'hippograph[langgraph]'``: ``langgraph`` alone, no model)::

    from hippograph.langgraph import HippographStore

    store = HippographStore("http://127.0.0.1:8000", key)
    store.put(("project", "shop"), "deploy", {"how": "Docker Compose on the staging host"})
    store.search(("project", "shop"), query="how do we deploy?")   # each SearchItem.score is recall's
    graph = builder.compile(store=store)

A namespace says where its items live, on the key owner's scopes:

- ``("project", ID, …)``: the PROJECT tier of project ID;
- ``("session", ID, …)``: the SESSION tier of session ID (its memories are evicted, or promoted,
  when it ends);
- any other (``("user",)``, ``("memories", user_id)`` …): the LONG_TERM tier.

Each item is one memory. Its attributes keep the namespace (whole, however deep), the key and the
value, so ``get`` returns the value as it was put (secrets redacted, as in any memory; at most
10,000 characters as JSON); its text, which recall searches, is a one-line rendering of the value
(of the fields ``index`` names; of the namespace and key alone with ``index=False``). ``search``
with a ``query`` is hippograph's recall over the namespace's tier, best first, ``score`` its score;
without one, the newest first. ``put`` on a key that holds an item stores the new one and forgets
the old (``created_at`` carries over); ``delete`` forgets. ``get``, ``put`` and ``delete`` find a
key's item by the request id it was written with (``memories(filter: {requestIds})``), however many
items the tier holds. The tiers' rules hold as for any memory: past its trigger a tier compresses,
and may archive or delete an item. No TTL.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from langgraph.store.base import (
    BaseStore, GetOp, InvalidNamespaceError, Item, ListNamespacesOp, MatchCondition, Op, PutOp, Result, SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path

from hippograph.client import (
    AsyncClient, Client, ErrorCode, HippographError, Memory, MemoryKind, Operation, Priority, Tier, forget, memories,
    recall, remember,
)

# The attribute an item's namespace, key and value are kept under.
ATTRIBUTE = "langgraph"
# The rendering recall reads is cut here; the value itself is kept whole.
RENDER_CHARS = 2000
# The most memories a page gives, and the most rows of recall's ranking a search reads.
PAGE = 100
# A key's item is written under one of two request ids, taken in turn, so that a put stores the new
# item before it forgets the old one; the attribute ``slot`` says which one an item holds.
SLOTS = 2

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
    if index is False:
        parts: list[Any] = []
    elif index is None:
        parts = [value]
    else:
        parts = [text for path in index for text in get_text_at_path(value, path)]
    body = " ".join(" ".join(_readable(part).split()) for part in parts)
    where = "/".join([*namespace, key])
    return (f"{where}: {body}" if body else where)[:RENDER_CHARS]


def _readable(value: Any) -> str:
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_readable(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_readable(v) for v in value)
    return value if isinstance(value, str) else json.dumps(value)


def item_of(memory: Memory) -> Item | None:
    """The item a memory holds, or None for a memory the store did not write (or a copy in another tier)."""
    kept = (memory.attributes or {}).get(ATTRIBUTE)
    if not isinstance(kept, dict) or memory.created_at is None:
        return None
    namespace = tuple(kept["namespace"])
    if place(namespace).tiers != [memory.tier]:
        return None
    created = kept.get("createdAt")
    return Item(value=kept["value"], key=kept["key"], namespace=namespace,
                created_at=datetime.fromisoformat(created) if created else memory.created_at,
                updated_at=memory.created_at)


def matches(value: Any, wanted: Any) -> bool:
    """A filter's condition on a value: equal, equal field by field, or by ``$eq $ne $gt $gte $lt $lte``."""
    if isinstance(wanted, Mapping):
        if any(k.startswith("$") for k in wanted):
            return all(_compare(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(matches(value.get(k), v) for k, v in wanted.items())
    return value == wanted


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return value == operand
    if op == "$ne":
        return value != operand
    if value is None:
        return False
    comparisons: dict[str, Callable[[Any, Any], bool]] = {
        "$gt": lambda a, b: a > b, "$gte": lambda a, b: a >= b, "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b}
    if op not in comparisons:
        raise ValueError(f"unsupported filter operator {op!r}: one of $eq, $ne, $gt, $gte, $lt, $lte")
    return comparisons[op](value, operand)


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """A namespace against a prefix or suffix condition, ``*`` matching any label."""
    path = condition.path
    if len(namespace) < len(path):
        return False
    ends = namespace[:len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path):]
    return all(p in ("*", n) for p, n in zip(path, ends))


def _stored(where: Place) -> Plan[list[tuple[Memory, Item]]]:
    """Every item under a place, newest first, with the memory that holds it."""
    found: list[tuple[Memory, Item]] = []
    after = None
    while True:
        page = yield memories(tiers=where.tiers, project=where.project, session=where.session,
                              kinds=[MemoryKind.NOTE], include_archived=True, first=PAGE, after=after)
        found.extend((m, item) for m in page.nodes if (item := item_of(m)) is not None)
        if not page.page_info.has_next_page:
            return found
        after = page.page_info.end_cursor


def request_ids(namespace: tuple[str, ...], key: str) -> list[str]:
    """The request ids a key's item is written with, one per slot; the same for the key in every process."""
    name = uuid.uuid5(uuid.NAMESPACE_URL, json.dumps([list(namespace), key]))
    return [f"langgraph-{name}-{slot}" for slot in range(SLOTS)]


def _held(namespace: tuple[str, ...], key: str) -> Plan[list[tuple[Memory, Item]]]:
    """The memories that hold the key's item, newest first: one, or two when a put was cut short."""
    page = yield memories(request_ids=request_ids(namespace, key), include_archived=True, first=SLOTS)
    return [(m, item) for m in page.nodes if (item := item_of(m)) is not None]


def _get(op: GetOp) -> Plan[Item | None]:
    held = yield from _held(tuple(op.namespace), op.key)
    return held[0][1] if held else None


def _put(op: PutOp) -> Plan[None]:
    namespace = tuple(op.namespace)
    where = place(namespace)
    if where.tiers != [Tier.LONG_TERM] and (where.project or where.session) is None:
        raise InvalidNamespaceError(f"{namespace}: a {namespace[0]} namespace names its {namespace[0]}: "
                                    f"('{namespace[0]}', ID, …)")
    held = yield from _held(namespace, op.key)
    for stale, _ in held[1:]:
        yield forget(memory=stale.id)
    old = held[0] if held else None
    if op.value is None:
        if old is not None:
            yield forget(memory=old[0].id)
        return None
    slot = 0
    kept: dict[str, Any] = {"namespace": list(namespace), "key": op.key, "value": dict(op.value)}
    if old is not None:
        kept["createdAt"] = old[1].created_at.isoformat()
        slot = ((old[0].attributes or {})[ATTRIBUTE]["slot"] + 1) % SLOTS
    kept["slot"] = slot
    text = render(namespace, op.key, op.value, op.index)

    def write() -> Operation[Any]:
        return remember(text, tier=where.tiers[0], project=where.project, session=where.session,
                        attributes={ATTRIBUTE: kept}, request_id=request_ids(namespace, op.key)[slot])

    stored = yield write()
    if stored.created:
        if old is not None:
            yield forget(memory=old[0].id)
        return None
    # Hippograph keeps one memory per text (alike but for case and spacing): the same rendering as the
    # item it replaces (a field outside ``index`` changed) is stored again once the old one is gone.
    if old is None or stored.duplicate_of != old[0].id:
        raise HippographError(ErrorCode.BAD_USER_INPUT.value,
                              f"memory {stored.duplicate_of} already holds the text of {namespace}/{op.key}: {text!r}")
    yield forget(memory=old[0].id)
    yield write()
    return None


def _search(op: SearchOp) -> Plan[list[SearchItem]]:
    prefix = tuple(op.namespace_prefix)
    where = place(prefix)
    found = [(m, item) for m, item in (yield from _stored(where))
             if item.namespace[:len(prefix)] == prefix and matches(item.value, op.filter or {})]
    if op.query:
        result = yield recall(op.query, priority=Priority.CRITICAL, tiers=where.tiers, project=where.project,
                              session=where.session, ranking=PAGE)
        scores = {row.id: row.score for row in result.ranking}
        ranked = sorted(((scores[m.id], item) for m, item in found if m.id in scores), key=lambda pair: -pair[0])
    else:
        ranked = [(None, item) for _, item in found]
    return [SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)
            for score, item in ranked[op.offset:op.offset + op.limit]]


def _list_namespaces(op: ListNamespacesOp) -> Plan[list[tuple[str, ...]]]:
    namespaces = {item.namespace for _, item in (yield from _stored(place(())))
                  if all(namespace_matches(c, item.namespace) for c in op.match_conditions or ())}
    if op.max_depth is not None:
        namespaces = {ns[:op.max_depth] for ns in namespaces}
    return sorted(namespaces)[op.offset:op.offset + op.limit]


def _plan(op: Op) -> Plan[Result]:
    if isinstance(op, GetOp):
        return _get(op)
    if isinstance(op, PutOp):
        return _put(op)
    if isinstance(op, SearchOp):
        return _search(op)
    if isinstance(op, ListNamespacesOp):
        return _list_namespaces(op)
    raise ValueError(f"unknown operation {op!r}")


def _run(plan: Plan[T], send: Callable[[Operation[Any]], Any]) -> T:
    try:
        operation = next(plan)
        while True:
            operation = plan.send(send(operation))
    except StopIteration as done:
        return done.value


async def _arun(plan: Plan[T], send: Callable[[Operation[Any]], Awaitable[Any]]) -> T:
    try:
        operation = next(plan)
        while True:
            operation = plan.send(await send(operation))
    except StopIteration as done:
        return done.value


class HippographStore(BaseStore):
    """LangGraph's ``BaseStore`` on a hippograph server, as the key's owner (see the module docstring).

    Ops run in order, each as its requests: ``batch`` through a blocking client kept open (``close``),
    ``abatch`` through an asyncio client of its own.
    """

    def __init__(self, url: str, key: str, *, timeout: float = 60.0) -> None:
        self.url = url
        self.key = key
        self.timeout = timeout
        self.client = Client(url, key, timeout=timeout)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [_run(_plan(op), self.client.send) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        async with AsyncClient(self.url, self.key, timeout=self.timeout) as hg:
            return [await _arun(_plan(op), hg.send) for op in ops]

    def close(self) -> None:
        self.client.close()
