"""hippograph.client against a real `hippograph serve`: every operation, sync and async, the
subscription as an async iterator, and refusals as HippographError with the server's code."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from hippograph_bench.server import Server
from hippograph.client import (
    AsyncClient, Client, Direction, EdgeType, ErrorCode, HippographError, MemoryKind, Priority, RecallMode,
    RecallProfile, Tier, append_turn, chains, end_session, forget, forget_session, memories, memory, memory_events,
    recall, record_decision, record_error, record_pattern, remember, session, set_preference, start_session,
    tier_usage, trace, verify_erasure,
)
from hippograph.memory import keys
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.services import Services
from api_client import new_user

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def key(services: Services) -> str:
    return keys.create_key(services.driver, services.database, new_user("client")).secret


@pytest.fixture
def hg(api_server: Server, key: str) -> Client:
    with Client(api_server.base, key) as client:
        yield client


def project() -> str:
    return f"shop-{uuid.uuid4().hex[:8]}"


def test_remember_then_recall_explains_the_items_with_the_ranking_and_gates(hg: Client, api_server: Server,
                                                                           services: Services) -> None:
    other = keys.create_key(services.driver, services.database, new_user("client-other")).secret
    shop = project()
    stored = hg.send(remember("The shop deploys with Docker Compose on a single host", tier=Tier.PROJECT, project=shop,
                              kind=MemoryKind.DECISION))
    hg.send(remember("The shop's invoices are rendered as PDF with WeasyPrint", tier=Tier.PROJECT, project=shop))
    hg.send(remember("The shop's staging host restarts every night", tier=Tier.PROJECT, project=shop))
    assert stored.created and stored.memory is not None and stored.memory.tier is Tier.PROJECT

    again = hg.send(remember("The shop deploys with Docker Compose on a single host", tier=Tier.PROJECT, project=shop))
    assert not again.created and again.duplicate_of == stored.memory.id
    retried = hg.send(remember("The shop's backups run at 02:00", tier=Tier.PROJECT, project=shop, request_id=f"{shop}-1"))
    retry = hg.send(remember("The shop's backups run at 02:00", tier=Tier.PROJECT, project=shop, request_id=f"{shop}-1"))
    assert retried.created and not retry.created and retry.duplicate_of == retried.memory.id
    # What a request id's write stored is found by that id, and only the caller's.
    assert [m.id for m in hg.send(memories(request_ids=[f"{shop}-1", f"{shop}-2"])).nodes] == [retried.memory.id]
    with Client(api_server.base, other) as stranger:
        assert stranger.send(memories(request_ids=[f"{shop}-1"])).nodes == []

    result = hg.send(recall("how does the shop deploy?", priority=Priority.CRITICAL, project=shop, ranking=10))
    assert result.profile == "hybrid"
    assert result.items[0].id == stored.memory.id
    assert result.items[0].mode in (RecallMode.FULL, RecallMode.SUMMARY)
    assert result.totals.items == len(result.items) <= result.totals.budget_items == 3
    assert result.gates is not None and result.gates.full_above > result.gates.summary_above
    # The ranking is what the items were chosen from: best first, every row above the floor.
    assert [row.score for row in result.ranking] == sorted((row.score for row in result.ranking), reverse=True)
    assert {item.id for item in result.items} <= {row.id for row in result.ranking}
    assert all(row.score > result.gates.summary_above for row in result.ranking)
    # The gate reads the ranking: the items are the ranking's first rows down to ofTop of the first score.
    assert result.gates.of_top == PROFILES["hybrid"].gates.of_top > 0
    reach = [row.id for row in result.ranking if row.score >= result.gates.of_top * result.ranking[0].score]
    assert [item.id for item in result.items] == reach[:3]
    # Each score is its components weighted: what the explorer's stacked bars draw.
    assert all(row.score == pytest.approx(result.weights.score(row.components)) for row in result.ranking)
    top = result.ranking[0]
    assert top.id == stored.memory.id and top.components.vector is not None and 0 < top.components.vector <= 1

    hanzo = hg.send(recall("how does the shop deploy?", profile=RecallProfile.HANZO, project=shop, ranking=1))
    assert hanzo.profile == "hanzo" and hanzo.gates is None and len(hanzo.ranking) <= 1


def test_a_memory_shows_its_provenance_and_forgetting_removes_it(hg: Client) -> None:
    shop = project()
    stored = hg.send(remember("Billing uses Postgres 16", tier=Tier.PROJECT, project=shop, attributes={"source": "adr-7"},
                              mentions=[("TECHNOLOGY", "Postgres")]))  # type: ignore[list-item]
    assert stored.memory is not None
    shown = hg.send(memory(stored.memory.id))
    assert shown.project == shop and shown.attributes == {"source": "adr-7"}
    assert "Postgres" in {entity.name for entity in shown.entities}
    assert shown.created_at is not None and shown.created_at.tzinfo is not None

    gone = hg.send(forget(memory=stored.memory.id))
    assert stored.memory.id in gone.memories
    assert gone.receipt.ids == sorted(gone.memories + gone.entities) and gone.receipt.scope == "memory"
    with pytest.raises(HippographError) as missing:
        hg.send(memory(stored.memory.id))
    assert missing.value.code == ErrorCode.NOT_FOUND
    checked = hg.send(verify_erasure(gone.receipt))
    assert checked.erased and checked.intact and checked.remaining == []


def test_recorded_chains_are_drawn_and_traced(hg: Client) -> None:
    shop = project()
    decision = hg.send(record_decision("Cache sessions in Redis", reason="fast", project=shop))
    assert decision.entity is not None
    error = hg.send(record_error("Redis evicted the sessions under memory pressure", fix="Set maxmemory-policy to noeviction",
                                 caused_by=decision.entity.id, project=shop))
    assert error.entity is not None and error.fix is not None and error.caused_by is not None
    pattern = hg.send(record_pattern("Reaches for a cache before measuring", count=2))
    preference = hg.send(set_preference("editor", "Helix"))
    assert pattern.entity is not None and preference.memory is not None

    drawn = hg.send(chains(project=shop))
    assert [(c.decision.name if c.decision else None, c.error.name, c.fix.name if c.fix else None) for c in drawn] == [
        (decision.entity.name, error.entity.name, error.fix.name)]
    # As of the moment the decision was recorded, no error had been traced to it yet.
    assert decision.entity.created_at is not None
    assert hg.send(chains(project=shop, as_of=decision.entity.created_at)) == []
    assert hg.send(trace(decision.entity.id, as_of=decision.entity.created_at)) == []
    paths = hg.send(trace(decision.entity.id, edge_types=[EdgeType.CAUSED, EdgeType.SOLVED_BY], direction=Direction.OUT))
    longest = max(paths, key=lambda p: p.length)
    assert [n.id for n in longest.nodes] == [decision.entity.id, error.entity.id, error.fix.id]
    assert [e.type for e in longest.edges] == [EdgeType.CAUSED, EdgeType.SOLVED_BY]


def test_a_session_from_start_to_end(hg: Client) -> None:
    name, shop = f"s-{uuid.uuid4().hex[:8]}", project()
    started = hg.send(start_session(name, project=shop))
    assert started.session.id == name and started.session.project == shop
    first = hg.send(append_turn(name, "user", "Which port does the API listen on?", ref="t1"))
    second = hg.send(append_turn(name, "assistant", "Port 8000, behind nginx.", ref="t2"))
    assert second.position > first.position
    hg.send(remember("The user is debugging the API's port", tier=Tier.SESSION, session=name))

    shown = hg.send(session(name))
    assert [(t.role, t.content, t.ref) for t in shown.transcript] == [
        ("user", "Which port does the API listen on?", "t1"), ("assistant", "Port 8000, behind nginx.", "t2")]
    assert [m.content for m in shown.memories] == ["The user is debugging the API's port"]
    usage = {u.tier: u for u in hg.send(tier_usage(project=shop, session=name))}
    assert usage[Tier.SESSION].items == 1 and usage[Tier.SESSION].capacity > 0

    ended = hg.send(end_session(name))
    assert ended.session.status == "ended" and ended.turns_deleted == 2
    erased = hg.send(forget_session(name))
    assert erased.sessions == 1
    with pytest.raises(HippographError) as missing:
        hg.send(session(name))
    assert missing.value.code == ErrorCode.NOT_FOUND


def test_refusals_raise_with_the_servers_code(hg: Client, api_server: Server) -> None:
    with pytest.raises(HippographError) as refused:
        hg.send(remember("A project memory needs its project", tier=Tier.PROJECT))
    assert refused.value.code == ErrorCode.BAD_USER_INPUT and "project" in refused.value.message
    with pytest.raises(HippographError) as too_many:
        hg.send(recall("anything", ranking=101))
    assert too_many.value.code == ErrorCode.LIMIT_EXCEEDED
    with Client(api_server.base, "hg_not-a-key") as stranger, pytest.raises(HippographError) as unknown:
        stranger.send(recall("anything"))
    assert unknown.value.code == ErrorCode.UNAUTHENTICATED
    with pytest.raises(HippographError) as missing:
        hg.send(end_session("no-such-session"))
    assert missing.value.code == ErrorCode.NOT_FOUND


def test_the_async_client_sends_and_subscribes(api_server: Server, key: str) -> None:
    shop = project()

    async def work() -> None:
        async with AsyncClient(api_server.base, key) as hg:
            events = hg.subscribe(memory_events(project=shop))
            first = asyncio.ensure_future(anext(events))
            written: list[str] = []
            # The server registers the subscriber a moment after the socket opens: write until it hears one.
            for attempt in range(40):
                stored = await hg.send(remember(f"Deploy note {attempt}", tier=Tier.PROJECT, project=shop))
                assert stored.memory is not None
                written.append(stored.memory.id)
                done, _ = await asyncio.wait({first}, timeout=0.5)
                if done:
                    break
            event = await first
            assert event.kind == "REMEMBERED" and event.project == shop and event.memory_ids[0] in written
            await events.aclose()

            found = await hg.send(recall("deploy note", priority=Priority.HIGH, project=shop))
            assert found.items and all(item.id in written for item in found.items)

        async with AsyncClient(api_server.base, "hg_not-a-key") as stranger:
            with pytest.raises(HippographError) as refused:
                await anext(stranger.subscribe(memory_events()))
            assert refused.value.code == ErrorCode.UNAUTHENTICATED

    asyncio.run(work())
