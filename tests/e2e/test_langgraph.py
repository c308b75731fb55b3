"""hippograph.langgraph against a real server: LangGraph's BaseStore on memories.

langgraph ships no store conformance tests (neither langgraph nor langgraph-checkpoint has a test
module), so the checks here are the interface's docstrings: put/get/delete by namespace and key,
search by namespace prefix with a filter (exact, nested, ``$eq $ne $gt $gte $lt $lte``), limit and
offset, and a natural-language query; list_namespaces by prefix, suffix (``*`` a wildcard), depth,
limit and offset; the same through the async methods; and a compiled StateGraph that keeps what one
run learnt for the next.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TypedDict

import pytest

pytest.importorskip("langgraph", reason="the langgraph extra is not installed (pip install -e '.[langgraph]')")

from langgraph.graph import START, StateGraph  # noqa: E402
from langgraph.runtime import Runtime  # noqa: E402
from langgraph.store.base import InvalidNamespaceError, Item, SearchItem  # noqa: E402

from hippograph_bench.server import Server  # noqa: E402
from hippograph.client import Client, MemoryKind, Priority, Tier, memories, recall, remember  # noqa: E402
from hippograph.langgraph import ATTRIBUTE, HippographStore, request_ids  # noqa: E402
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
        long_term = hg.send(memories(tiers=[Tier.LONG_TERM], kinds=[MemoryKind.NOTE])).nodes
    # The text recall reads is a one-line rendering; the value is kept whole beside it.
    assert project.content == (f"project/{shop}/ops/deploy: how: Docker Compose on the staging host; steps: 1, 2; "
                               "nested: ok: true")
    assert project.attributes["langgraph"]["value"] == value
    assert session.content == f"session/{chat}/mood: text: The user is in a hurry today"
    assert any(m.attributes and m.attributes["langgraph"]["value"] == {"likes": "pizza"} for m in long_term)

    # A project or session namespace names its project or session.
    with pytest.raises(InvalidNamespaceError):
        store.put(("project",), "deploy", value)
    # No TTL: the store says so rather than keep an item it would never expire.
    with pytest.raises(NotImplementedError):
        store.put(("user",), "brief", {"a": 1}, ttl=5)


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


def test_search_filters_pages_and_ranks_by_recall(api_server: Server, key: str, store: HippographStore) -> None:
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
    with Client(api_server.base, key) as hg:
        ranking = hg.send(recall("how does the shop deploy?", priority=Priority.CRITICAL, tiers=[Tier.PROJECT],
                                 project=shop, ranking=100)).ranking
    assert found[0].score == pytest.approx(ranking[0].score)  # recall's own score
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
