"""hippograph.integrations.langgraph against a real server: LangGraph's BaseStore on stored items.

Upstream's own store tests run ported in ``test_langgraph_upstream.py``; the checks here are the
interface's docstrings and hippograph's side of it: put/get/delete by namespace and key, search by
namespace prefix with a filter (exact, nested, ``$eq $ne $gt $gte $lt $lte``), limit and offset, and
a natural-language query that ranks every match; list_namespaces by prefix, suffix (``*`` a wildcard),
depth, limit and offset; the same through the async methods; a compiled StateGraph that keeps what
one run learnt for the next; and an item kept as the caller's data (issue 45): outside compression and
session ends, last writer wins, case-sensitive keys, any JSON value, TTL, the index configuration.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import datetime, timezone
from typing import TypedDict

import pytest

pytest.importorskip("langgraph", reason="the langgraph extra is not installed (pip install -e '.[langgraph]')")

from langgraph.graph import START, StateGraph  # noqa: E402
from langgraph.runtime import Runtime  # noqa: E402
from langgraph.store.base import InvalidNamespaceError, Item, PutOp, SearchItem  # noqa: E402

from hippograph_bench.server import Server  # noqa: E402
from hippograph.client import (  # noqa: E402
    Client, HippographError, MemoryKind, Priority, Tier, end_session, item_scores, memories, recall, remember,
    start_session,
)
from hippograph.integrations.langgraph import ATTRIBUTE, HippographStore, request_ids  # noqa: E402
from hippograph.memory import keys  # noqa: E402
from hippograph.memory.services import Services  # noqa: E402
from api_client import new_user  # noqa: E402

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def key(services: Services) -> str:
    return keys.create_key(services.driver, services.database, new_user("langgraph")).secret


@pytest.fixture
def store(api_server: Server, key: str):
    opened = HippographStore(api_server.base, key)
    yield opened
    opened.close()


def fresh(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def test_an_item_is_a_memory_of_its_namespaces_tier(api_server: Server, key: str, store: HippographStore) -> None:
    shop, chat = fresh("shop"), fresh("chat")
    value = {"how": "Docker Compose on the staging host", "steps": [1, 2], "nested": {"ok": True}}
    store.put(("project", shop, "ops"), "deploy", value)
    store.put(("session", chat), "mood", {"text": "The user is in a hurry today"})
    store.put(("user",), fresh("food"), {"likes": "pizza"})

    got = store.get(("project", shop, "ops"), "deploy")
    assert isinstance(got, Item)
    assert (got.namespace, got.key, got.value) == (("project", shop, "ops"), "deploy", value)
    assert got.created_at == got.updated_at and got.created_at.tzinfo is not None
    assert store.get(("project", shop, "ops"), "nothing") is None
    assert store.get(("project", shop), "deploy") is None  # the namespace is the whole tuple

    with Client(api_server.base, key) as hg:
        [project] = hg.send(memories(tiers=[Tier.PROJECT], project=shop)).nodes
        [session] = hg.send(memories(tiers=[Tier.SESSION], session=chat)).nodes
        long_term = hg.send(memories(tiers=[Tier.LONG_TERM], kinds=[MemoryKind.ITEM])).nodes
    # The text recall reads is a one-line rendering; the value is kept whole beside it.
    assert project.content == (f"project/{shop}/ops/deploy: how: Docker Compose on the staging host; steps: 1, 2; "
                               "nested: ok: true")
    assert project.attributes["langgraph"]["value"] == value
    assert session.content == f"session/{chat}/mood: text: The user is in a hurry today"
    assert any(m.attributes and m.attributes["langgraph"]["value"] == {"likes": "pizza"} for m in long_term)

    # A project or session namespace names its project or session.
    with pytest.raises(InvalidNamespaceError):
        store.put(("project",), "deploy", value)


def test_put_replaces_and_delete_forgets(api_server: Server, key: str, store: HippographStore) -> None:
    where = ("project", fresh("shop"))
    store.put(where, "db", {"text": "We use Postgres", "version": 15}, index=["text"])
    first = store.get(where, "db")
    store.put(where, "db", {"text": "We use Postgres", "version": 16}, index=["text"])  # the same text recall reads
    second = store.get(where, "db")
    assert second.value == {"text": "We use Postgres", "version": 16}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    store.put(where, "db", {"text": "WE USE POSTGRES", "version": 16}, index=["text"])  # alike but for case
    store.put(where, "db", {"text": "We moved to SQLite", "version": 3})
    assert store.get(where, "db").value == {"text": "We moved to SQLite", "version": 3}
    with Client(api_server.base, key) as hg:
        assert len(hg.send(memories(tiers=[Tier.PROJECT], project=where[1])).nodes) == 1  # the old ones forgotten

    store.delete(where, "db")
    assert store.get(where, "db") is None
    store.delete(where, "db")  # deleting what is not there is no error
    with Client(api_server.base, key) as hg:
        assert hg.send(memories(tiers=[Tier.PROJECT], project=where[1])).nodes == []


def test_get_and_put_find_a_key_by_its_request_id(api_server: Server, key: str, store: HippographStore,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    where = ("project", fresh("shop"))
    names = [f"item-{n:03d}" for n in range(120)]  # more than a page of memories
    for n, name in enumerate(names):
        store.put(where, name, {"n": n})
    sent: list[object] = []
    send = store.client.send
    monkeypatch.setattr(store.client, "send", lambda operation: (sent.append(operation), send(operation))[1])
    assert store.get(where, names[0]).value == {"n": 0}
    assert store.get(where, names[-1]).value == {"n": 119}
    assert len(sent) == 2  # one request each, however many items the tier holds
    store.put(where, names[0], {"n": "again"})
    assert store.get(where, names[0]).value == {"n": "again"}

    # A put cut short between storing the new item and forgetting the old leaves both: the newer is
    # the item, and the next put leaves one.
    with Client(api_server.base, key) as hg:
        hg.send(remember(f"{where[1]}/{names[1]}: n: newer", tier=Tier.PROJECT, project=where[1],
                         attributes={ATTRIBUTE: {"namespace": list(where), "key": names[1], "value": {"n": "newer"},
                                                 "slot": 1}}, request_id=request_ids(where, names[1])[1]))
    assert store.get(where, names[1]).value == {"n": "newer"}
    store.put(where, names[1], {"n": "latest"})
    assert store.get(where, names[1]).value == {"n": "latest"}
    held = [i.key for i in store.search(where, limit=1000)]
    assert sorted(held) == names  # each key once


def test_search_filters_pages_and_ranks_by_best_field(services: Services, store: HippographStore) -> None:
    shop = fresh("shop")
    rows = {"deploy": {"text": "The shop deploys with Docker Compose", "kind": "ops", "rank": 1},
            "invoices": {"text": "The shop's invoices are PDFs", "kind": "billing", "rank": 2},
            "tea": {"text": "The shop sells green tea", "kind": "catalogue", "rank": 3, "tags": {"colour": "green"}}}
    for name, value in rows.items():
        store.put(("project", shop, "facts"), name, value)
    store.put(("project", shop, "other"), "unrelated", {"text": "Lunch is at noon", "rank": 9})

    everything = store.search(("project", shop))
    assert {i.key for i in everything} == {"deploy", "invoices", "tea", "unrelated"}
    assert all(isinstance(i, SearchItem) and i.score is None for i in everything)
    assert [i.key for i in everything] == ["unrelated", "tea", "invoices", "deploy"]  # newest first
    assert {i.key for i in store.search(("project", shop, "facts"))} == set(rows)
    assert store.search(("project", fresh("elsewhere"))) == []

    def keys_of(**filters: object) -> set[str]:
        return {i.key for i in store.search(("project", shop, "facts"), filter=filters)}

    assert keys_of(kind="ops") == {"deploy"}
    assert keys_of(rank={"$gt": 1}) == {"invoices", "tea"}
    assert keys_of(rank={"$gte": 2, "$lt": 3}) == {"invoices"}
    assert keys_of(rank={"$lte": 1}) == {"deploy"}
    assert keys_of(kind={"$ne": "ops"}) == {"invoices", "tea"}
    assert keys_of(kind={"$eq": "billing"}) == {"invoices"}
    assert keys_of(tags={"colour": "green"}) == {"tea"}
    assert keys_of(kind="nothing") == set()
    paged = [i.key for i in store.search(("project", shop), limit=2, offset=1)]
    assert paged == [i.key for i in everything][1:3]

    found = store.search(("project", shop), query="how does the shop deploy?", limit=3)
    assert found[0].key == "deploy" and found[0].value == rows["deploy"]
    assert all(isinstance(i.score, float) for i in found)
    assert [i.score for i in found] == sorted((i.score for i in found), reverse=True)
    # The score is the cosine of the query and the item's one field (the whole value, rendered), as the model gives it.
    field = services.embedder.embed_documents(["text: The shop deploys with Docker Compose; kind: ops; rank: 1"])[0]
    query = services.embedder.embed_documents(["how does the shop deploy?"])[0]
    assert found[0].score == pytest.approx(float(field @ query), abs=1e-4)
    assert [i.key for i in store.search(("project", shop), query="how does the shop deploy?",
                                        filter={"kind": "billing"})] == ["invoices"]


def test_list_namespaces(store: HippographStore) -> None:
    team = fresh("team")
    for namespace in [(team, "a", "x"), (team, "a", "y"), (team, "b", "x"), (team, "c")]:
        store.put(namespace, "k", {"text": f"an item in {'/'.join(namespace)}"})
    assert store.list_namespaces(prefix=(team,)) == [(team, "a", "x"), (team, "a", "y"), (team, "b", "x"), (team, "c")]
    assert store.list_namespaces(prefix=(team, "*", "x")) == [(team, "a", "x"), (team, "b", "x")]
    assert (team, "a", "x") in store.list_namespaces(suffix=("a", "x"))
    assert store.list_namespaces(prefix=(team,), suffix=("x",)) == [(team, "a", "x"), (team, "b", "x")]
    assert store.list_namespaces(prefix=(team,), max_depth=2) == [(team, "a"), (team, "b"), (team, "c")]
    assert store.list_namespaces(prefix=(team,), limit=2, offset=1) == [(team, "a", "y"), (team, "b", "x")]


def test_the_async_methods(api_server: Server, key: str, services: Services) -> None:
    store = HippographStore(api_server.base, key)
    where = ("project", fresh("shop"))

    async def run() -> None:
        await store.aput(where, "deploy", {"text": "The shop deploys with Docker Compose"})
        assert (await store.aget(where, "deploy")).value == {"text": "The shop deploys with Docker Compose"}
        assert [i.key for i in await store.asearch(where, query="deploying")] == ["deploy"]
        assert where in await store.alist_namespaces(prefix=("project",))
        await store.adelete(where, "deploy")
        assert await store.aget(where, "deploy") is None

    asyncio.run(run())
    # Another user's key finds none of it.
    store.put(where, "secret-plan", {"text": "The shop opens a second branch"})
    other = keys.create_key(services.driver, services.database, new_user("langgraph-other")).secret
    stranger = HippographStore(api_server.base, other)
    assert stranger.get(where, "secret-plan") is None and stranger.search(where) == []
    stranger.close()
    store.close()


class Turn(TypedDict, total=False):
    user: str
    said: str
    answer: str


def remember_or_recall(state: Turn, runtime: Runtime) -> Turn:
    """A node with no model: a "remember: …" line is stored under the user; anything else is looked up."""
    assert runtime.store is not None
    where = ("memories", state["user"])
    if state["said"].startswith("remember: "):
        fact = state["said"].removeprefix("remember: ")
        runtime.store.put(where, str(uuid.uuid5(uuid.NAMESPACE_URL, fact)), {"text": fact})
        return {"answer": "noted"}
    found = runtime.store.search(where, query=state["said"], limit=1)
    return {"answer": found[0].value["text"] if found else "I don't know"}


def test_a_graph_finds_in_its_next_run_what_one_run_stored(api_server: Server, key: str) -> None:
    store = HippographStore(api_server.base, key)
    graph = StateGraph(Turn).add_node(remember_or_recall).add_edge(START, "remember_or_recall").compile(store=store)
    user = fresh("user")
    assert graph.invoke({"user": user, "said": "where do I keep my bike?"})["answer"] == "I don't know"
    assert graph.invoke({"user": user, "said": "remember: My bike is kept in the basement"})["answer"] == "noted"
    # A new graph on a new store, as a new process would have: the memory is the server's.
    again = StateGraph(Turn).add_node(remember_or_recall).add_edge(START, "remember_or_recall").compile(
        store=HippographStore(api_server.base, key))
    assert again.invoke({"user": user, "said": "where do I keep my bike?"})["answer"] == "My bike is kept in the basement"
    assert asyncio.run(again.ainvoke({"user": user, "said": "where is the bike?"}))["answer"] == (
        "My bike is kept in the basement")
    store.close()


# --- a store item is the caller's data (issue 45) ----------------------------------------------------------

def fact_of(n: int) -> str:
    """About 40 tokens, each one distinct."""
    return (f"Fact number {n}: the warehouse in district {n} opens at {n % 12 + 1} o'clock, keeps {n * 7} pallets "
            f"of spare parts on shelf {n * 3}, and its manager answers the phone on line {n + 100}.")


def test_thirty_puts_into_a_session_namespace_are_all_kept(api_server: Server, key: str,
                                                           store: HippographStore) -> None:
    chat = fresh("chat")
    where = ("session", chat)
    with Client(api_server.base, key) as hg:
        hg.send(start_session(chat))
    for n in range(30):  # 30 x about 40 tokens: past the session tier's 80 % of 1024, where it compresses
        store.put(where, f"fact-{n}", {"text": fact_of(n)})
    assert [store.get(where, f"fact-{n}").value for n in range(30)] == [{"text": fact_of(n)} for n in range(30)]
    with Client(api_server.base, key) as hg:
        # A memory of the session's own still compresses its tier as ever, and leaves the items be.
        for n in range(30):
            hg.send(remember(f"note {n}: " + fact_of(n + 100), tier=Tier.SESSION, session=chat))
    assert len(store.search(where, limit=100)) == 30
    assert store.get(where, "fact-0").value == {"text": fact_of(0)}
    with Client(api_server.base, key) as hg:  # the session's end evicts its memories, not the items
        ended = hg.send(end_session(chat))
    assert ended.evicted and len(store.search(where, limit=100)) == 30


def test_thirty_users_facts_are_all_found_after_a_hundred_and_twenty_items(store: HippographStore) -> None:
    users = [fresh(f"enduser{n}") for n in range(30)]
    for n, user in enumerate(users):  # the usual pattern: one key serves every end user
        for k in range(4):
            store.put(("memories", user), f"fact-{k}", {"text": fact_of(n * 4 + k)})
    for n, user in enumerate(users):
        found = store.search(("memories", user), query=f"warehouse in district {n * 4}")
        assert sorted(i.key for i in found) == ["fact-0", "fact-1", "fact-2", "fact-3"], user
        assert all(isinstance(i.score, float) for i in found)


def test_search_with_a_query_ranks_every_match(store: HippographStore) -> None:
    where = ("test", fresh("ranked"))
    for name, value in {"a": {"text": "red apple", "color": "red"}, "b": {"text": "red car", "color": "red"},
                        "c": {"text": "green tractor", "color": "green"},
                        "d": {"text": "annual tax return", "color": "white"}}.items():
        store.put(where, name, value)
    found = store.search(where, query="apple")
    assert len(found) == 4 and found[0].key == "a"
    assert [i.score for i in found] == sorted((i.score for i in found), reverse=True)
    assert [i.key for i in store.search(where, query="apple", filter={"color": "red"})] == ["a", "b"]
    assert [i.key for i in store.search(where, query="apple", limit=2, offset=2)] == [i.key for i in found[2:]]


def test_concurrent_puts_of_one_key_the_last_writer_wins(api_server: Server, key: str) -> None:
    where = ("memories", fresh("racer"))
    values = [{"text": f"version {n} of the plan", "n": n} for n in range(5)]

    async def race() -> None:
        stores = [HippographStore(api_server.base, key) for _ in values]
        await asyncio.gather(*(s.aput(where, "plan", v) for s, v in zip(stores, values)))
        for s in stores:
            s.close()

    asyncio.run(race())  # no put is refused
    store = HippographStore(api_server.base, key)
    assert store.get(where, "plan").value in values
    assert [i.key for i in store.search(where)] == ["plan"]  # one item: the others forgotten
    with Client(api_server.base, key) as hg:
        assert len(hg.send(memories(request_ids=request_ids(where, "plan"), first=10)).nodes) == 1
    store.close()


def test_keys_and_labels_are_case_sensitive(store: HippographStore) -> None:
    where = ("t", fresh("case"))
    store.put(where, "Doc1", {"text": "the same words"})
    store.put(where, "doc1", {"text": "the same words"})
    store.put(("memories", "Ann", where[1]), "k", {"text": "Ann likes tea"})
    store.put(("memories", "ann", where[1]), "k", {"text": "Ann likes tea"})
    assert store.get(where, "Doc1").key == "Doc1" and store.get(where, "doc1").key == "doc1"
    assert sorted(i.key for i in store.search(where)) == ["Doc1", "doc1"]
    assert store.get(("memories", "Ann", where[1]), "k").namespace == ("memories", "Ann", where[1])
    assert store.get(("memories", "ann", where[1]), "k").namespace == ("memories", "ann", where[1])
    store.delete(where, "doc1")
    assert store.get(where, "Doc1") is not None and store.get(where, "doc1") is None


def test_values_with_dates_and_of_any_size(store: HippographStore) -> None:
    where = ("memories", fresh("values"))
    when = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
    store.put(where, "meeting", {"text": "planning meeting", "at": when, "day": when.date()})
    # As JSON keeps it (and LangGraph's Postgres store): the ISO text.
    assert store.get(where, "meeting").value == {"text": "planning meeting", "at": when.isoformat(),
                                                 "day": "2026-03-01"}
    big = {"text": "a long report", "body": "word " * 12_000}  # 60,000 characters
    store.put(where, "report", big)
    assert store.get(where, "report").value == big
    with pytest.raises(TypeError, match="not object"):
        store.put(where, "odd", {"thing": object()})


def test_an_item_is_scrubbed_and_audited(api_server: Server, key: str, store: HippographStore,
                                         services: Services) -> None:
    where = ("memories", fresh("secret"))
    store.put(where, "creds", {"text": "the staging password is hunter2", "key": "AKIAIOSFODNN7EXAMPLE"})
    kept = store.get(where, "creds").value
    assert "AKIAIOSFODNN7EXAMPLE" not in json.dumps(kept)
    with Client(api_server.base, key) as hg:
        [memory] = hg.send(memories(request_ids=request_ids(where, "creds"), first=10)).nodes
        assert memory.kind == MemoryKind.ITEM
        assert "AKIAIOSFODNN7EXAMPLE" not in memory.content
    store.delete(where, "creds")
    events, _ = services.audit.query(operations=["remember", "forget"], first=100)
    assert {e.operation for e in events if memory.id in e.ids} == {"remember", "forget"}


def test_ttl_ends_an_item_and_a_read_refreshes_it(api_server: Server, key: str) -> None:
    store = HippographStore(api_server.base, key, ttl={"default_ttl": 60, "refresh_on_read": True})
    where = ("memories", fresh("ttl"))
    store.put(where, "short", {"text": "gone soon"}, ttl=0.02)  # 1.2 seconds
    store.put(where, "long", {"text": "stays an hour"})  # the store's default TTL

    def expires(name: str) -> str:
        with Client(api_server.base, key) as hg:
            [m] = hg.send(memories(request_ids=request_ids(where, name), first=10)).nodes
        return m.attributes[ATTRIBUTE]["expiresAt"]

    before = expires("long")
    assert store.get(where, "long", refresh_ttl=False).value == {"text": "stays an hour"}
    assert expires("long") == before
    assert store.get(where, "long").value == {"text": "stays an hour"}  # refresh_on_read
    assert expires("long") > before
    time.sleep(1.5)
    assert [i.key for i in store.search(where)] == ["long"]
    assert store.get(where, "short") is None
    with Client(api_server.base, key) as hg:  # forgotten, not only hidden
        assert hg.send(memories(request_ids=request_ids(where, "short"), first=10)).nodes == []
    store.put(where, "short", {"text": "gone soon"}, ttl=0.01)
    time.sleep(1)
    assert store.sweep_ttl() >= 1
    store.close()


def test_the_index_configuration_names_the_fields_recall_reads(api_server: Server, key: str) -> None:
    store = HippographStore(api_server.base, key, index={"fields": ["text"]})
    where = ("memories", fresh("index"))
    store.put(where, "a", {"text": "the blue door", "note": "not rendered"})
    store.put(where, "b", {"text": "the red door", "note": "rendered"}, index=["note"])
    with Client(api_server.base, key) as hg:
        [a] = hg.send(memories(request_ids=request_ids(where, "a"), first=10)).nodes
        [b] = hg.send(memories(request_ids=request_ids(where, "b"), first=10)).nodes
    assert a.content == f"memories/{where[1]}/a: the blue door"
    assert b.content == f"memories/{where[1]}/b: rendered"
    store.close()


def test_batch_is_not_atomic(store: HippographStore) -> None:
    where = ("memories", fresh("batch"))
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(where, "first", {"text": "stored"}), PutOp(("project",), "second", {"text": "refused"})])
    assert store.get(where, "first").value == {"text": "stored"}  # as documented: the ops before it stay done


def test_an_item_scores_by_its_best_field_and_stays_recallable(api_server: Server, key: str, services: Services) -> None:
    store = HippographStore(api_server.base, key, index={"fields": ["title", "body"]})
    where = ("memories", fresh("fields"))
    store.put(where, "bike", {"title": "Where Ann keeps her bike", "body": "in the basement", "kept": "a red lock"})
    store.put(where, "cake", {"title": "Ann's birthday", "body": "a chocolate cake"})
    found = store.search(where, query="chocolate cake")
    assert [i.key for i in found] == ["cake", "bike"]
    cake = services.embedder.embed_documents(["a chocolate cake"])[0] @ services.embedder.embed_documents(["chocolate cake"])[0]
    assert found[0].score == pytest.approx(float(cake), abs=1e-4)  # the body's cosine, the better of its two
    # An un-indexed field is no field: "a red lock" scores the bike by its title and body only.
    lock = store.search(where, query="a red lock")
    assert max(i.score for i in lock) < found[0].score
    with Client(api_server.base, key) as hg:  # the item is still recall's, by its one-line text
        recalled = hg.send(recall("where is Ann's bike?", priority=Priority.CRITICAL, tiers=[Tier.LONG_TERM])).items
    assert any(item.content == f"{where[0]}/{where[1]}/bike: Where Ann keeps her bike in the basement"
               for item in recalled)
    store.close()


def test_item_scores_are_the_callers_and_fields_an_items(api_server: Server, key: str, services: Services) -> None:
    where = ("memories", fresh("scoped"))
    store = HippographStore(api_server.base, key)
    store.put(where, "mine", {"text": "my own note"})
    with Client(api_server.base, key) as hg:
        [mine] = hg.send(memories(request_ids=request_ids(where, "mine"), first=10)).nodes
        assert [s.memory for s in hg.send(item_scores("my note", [mine.id]))] == [mine.id]
        with pytest.raises(HippographError) as refused:
            hg.send(remember("a note", tier=Tier.LONG_TERM, fields=["a field"]))
        assert refused.value.code == "BAD_USER_INPUT" and refused.value.field == "fields"
    other = keys.create_key(services.driver, services.database, new_user("langgraph-other")).secret
    with Client(api_server.base, other) as hg:
        assert hg.send(item_scores("my note", [mine.id])) == []  # another's memory is not scored, nor named
    store.close()
