"""The MCP tools through the SDK's own client: over streamable HTTP at ``/mcp`` of a real ``hippograph
serve``, and over stdio to a real ``hippograph mcp`` process; both against the real Neo4j and model."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from prometheus_client.parser import text_string_to_metric_families

from hippograph_bench.server import Server
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import Client, events, new_user, subscription

pytestmark = pytest.mark.neo4j



@asynccontextmanager
async def over_http(server: Server, secret: str | None) -> AsyncIterator[ClientSession]:
    headers = {"authorization": f"Bearer {secret}"} if secret else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with streamable_http_client(f"{server.base}/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@asynccontextmanager
async def over_stdio(secret: str) -> AsyncIterator[ClientSession]:
    command = Path(sys.executable).with_name("hippograph")
    params = StdioServerParameters(command=str(command), args=["mcp"], env={**os.environ, "HIPPOGRAPH_API_KEY": secret})
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def run(work: Callable[[], Awaitable[None]]) -> None:
    anyio.run(work)


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content


def refusal(result: Any) -> dict[str, Any]:
    assert result.is_error
    return result.structured_content


@pytest.fixture
def user(services: Services) -> tuple[str, str]:
    user_id = new_user("mcp")
    return user_id, keys.create_key(services.driver, services.database, user_id).secret


def test_the_tools_are_listed_with_schemas_a_model_can_read(api_server: Server, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
            assert {"remember", "recall", "record_decision", "record_error", "record_pattern", "set_preference",
                    "trace", "chains", "forget", "start_session", "append_turn", "end_session", "context"} <= set(tools)
            for tool in tools.values():
                assert tool.description and len(tool.description) > 40, tool.name
                for name, spec in tool.input_schema.get("properties", {}).items():
                    assert spec.get("description") or "$ref" in spec, (tool.name, name)
            assert tools["recall"].annotations.read_only_hint is True
            assert tools["forget"].annotations.destructive_hint is True
    run(work)


def test_remember_then_recall_over_http_with_score_components(api_server: Server, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            stored = payload(await mcp.call_tool("remember", {
                "content": "The billing service runs on PostgreSQL 16 in eu-west-1.", "project": "billing"}))
            assert stored["created"] and stored["tier"] == "PROJECT"
            again = payload(await mcp.call_tool("remember", {
                "content": "The billing service runs on PostgreSQL 16 in eu-west-1.", "project": "billing"}))
            assert again["created"] is False and again["duplicateOf"] == stored["memoryId"]
            found = payload(await mcp.call_tool("recall", {
                "query": "which database does billing use?", "project": "billing", "priority": "CRITICAL"}))
            assert found["items"][0]["id"] == stored["memoryId"]
            item = found["items"][0]
            assert set(item["components"]) == {"vector", "keyword", "recency", "relation", "time", "period", "carried"}
            assert 0 < item["score"] <= 1 and item["tokens"] > 0
            assert found["totals"]["budgetItems"] == 3
    run(work)


def test_a_secret_is_redacted_before_it_is_stored(api_server: Server, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            stored = payload(await mcp.call_tool("remember", {
                "content": "Deploy with token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 tomorrow.", "project": "ops"}))
            assert stored["redacted"]
            shown = payload(await mcp.call_tool("recall", {"query": "deploy token", "project": "ops", "priority": "CRITICAL"}))
            assert all("ghp_a1B2" not in i["content"] for i in shown["items"])
    run(work)


def test_a_key_sees_only_its_own_memories(api_server: Server, user: tuple[str, str], bob: Client) -> None:
    bob_says = bob.data('mutation { remember(input: {content: "Bob keeps the staging password rotation on Mondays", '
                      'tier: LONG_TERM}) { ... on RememberSuccess { memory { id } } } }')
    bob_memory = bob_says["remember"]["memory"]["id"]

    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            found = payload(await mcp.call_tool("recall", {"query": "staging password rotation", "priority": "CRITICAL"}))
            assert bob_memory not in [i["id"] for i in found["items"]]
            assert refusal(await mcp.call_tool("forget", {"memory": bob_memory}))["code"] == "NOT_FOUND"
    run(work)
    assert bob.data(f'{{ memory(id: "{bob_memory}") {{ id }} }}')["memory"]["id"] == bob_memory


def test_refusals_carry_the_graphql_codes_and_change_nothing(api_server: Server, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            assert refusal(await mcp.call_tool("remember", {"content": "x", "tier": "SESSION"}))["code"] == "BAD_USER_INPUT"
            bad_id = refusal(await mcp.call_tool("remember", {"content": "a note", "project": "not ok!"}))
            assert bad_id["code"] == "BAD_USER_INPUT" and "project" in bad_id["message"]
            assert refusal(await mcp.call_tool("forget", {}))["code"] == "BAD_USER_INPUT"
            assert refusal(await mcp.call_tool("trace", {"entity": "no-such-entity"}))["code"] == "NOT_FOUND"
            huge = refusal(await mcp.call_tool("context", {"session": "s", "query": "q", "context_window": 10**9}))
            assert huge["code"] == "LIMIT_EXCEEDED"
            raw = refusal(await mcp.call_tool("remember", {"content": "user: hi\nassistant: hello", "tier": "LONG_TERM"}))
            assert raw["code"] == "BAD_USER_INPUT"
            found = payload(await mcp.call_tool("recall", {"query": "a note", "priority": "CRITICAL"}))
            assert found["items"] == []
    run(work)


# Each refusal the issue found uncoded, and its neighbours: (tool, arguments, code, the argument named).
REFUSALS = [
    ("remember", {"content": 123}, "BAD_USER_INPUT", "content"),  # the wrong type
    ("record_pattern", {"pattern": "p", "count": "many"}, "BAD_USER_INPUT", "count"),
    ("recall", {"priority": "CRITICAL"}, "BAD_USER_INPUT", "query"),  # a missing argument
    ("recall", {"query": "q", "priority": "urgent"}, "BAD_USER_INPUT", "priority"),  # not a member
    ("recall", {"query": "q", "priority": "critical"}, "BAD_USER_INPUT", "priority"),  # GraphQL's spelling only
    ("remember", {"content": "a note", "tier": "project", "project": "p"}, "BAD_USER_INPUT", "tier"),
    ("remember", {"content": "a note", "tier": "LONG_TERM", "kind": "note"}, "BAD_USER_INPUT", "kind"),
    ("recall", {"query": "q", "profile": "hybrid"}, "BAD_USER_INPUT", "profile"),
    ("recall", {"query": "q", "tiers": ["PROJECT", "everywhere"]}, "BAD_USER_INPUT", "tiers[1]"),
    ("trace", {"entity": "e", "direction": "out"}, "BAD_USER_INPUT", "direction"),
    ("trace", {"entity": "e", "max_depth": 0}, "BAD_USER_INPUT", "max_depth"),  # under the range
    ("trace", {"entity": "e", "max_depth": 7}, "LIMIT_EXCEEDED", "max_depth"),  # over it
    ("chains", {"first": 1000}, "LIMIT_EXCEEDED", "first"),
    ("record_pattern", {"pattern": "p", "count": 0}, "BAD_USER_INPUT", "count"),
    ("context", {"session": "s", "query": "q", "context_window": 10}, "BAD_USER_INPUT", "context_window"),
    ("context", {"session": "s", "query": "q", "context_window": 10**9}, "LIMIT_EXCEEDED", "context_window"),
    ("set_preference", {"key": "k" * 65, "value": "vim"}, "BAD_USER_INPUT", "key"),  # a text too long
    ("append_turn", {"session": "s", "role": "r" * 65, "content": "hi"}, "BAD_USER_INPUT", "role"),
    ("append_turn", {"session": "s", "role": "user", "content": "hi", "item": "[1]"}, "BAD_USER_INPUT", "item"),
    ("append_turn", {"session": "s", "role": "user", "content": "hi", "item": "{'a': 1}"}, "BAD_USER_INPUT", "item"),
    ("record_decision", {"decision": "Use Redis", "conflicts_with": [f"e{i}" for i in range(51)]},
     "LIMIT_EXCEEDED", "conflicts_with"),  # a list too long
    ("trace", {"entity": "e", "edge_types": ["CAUSED"] * 51}, "LIMIT_EXCEEDED", "edge_types"),
    ("record_error", {"error": "Timeout", "caused_by": "x" * 129}, "BAD_USER_INPUT", "caused_by"),
    ("end_session", {"session": ""}, "BAD_USER_INPUT", "session"),
    ("remember", {"content": "bell \x07 in a note", "tier": "LONG_TERM"}, "BAD_USER_INPUT", "content"),
    ("remember", {"content": "x" * 20_001, "tier": "LONG_TERM"}, "BAD_USER_INPUT", None),  # the writer's own check
    ("no_such_tool", {}, "BAD_USER_INPUT", None),  # an unknown tool
    # Issue 38: a number is no time, an offset past ±18:00 no zone's, and a moment to come has no store yet.
    ("recall", {"query": "q", "as_of": 5}, "BAD_USER_INPUT", "as_of"),
    ("recall", {"query": "q", "as_of": "5"}, "BAD_USER_INPUT", "as_of"),
    ("trace", {"entity": "e", "as_of": 1.5}, "BAD_USER_INPUT", "as_of"),
    ("chains", {"as_of": True}, "BAD_USER_INPUT", "as_of"),
    ("recall", {"query": "q", "as_of": "2026-01-01T00:00:00-23:59"}, "BAD_USER_INPUT", "as_of"),
    ("chains", {"as_of": "9999-12-31T23:59:59Z"}, "BAD_USER_INPUT", "as_of"),
    # ... and a bare password is no id, key or ref (assembled, so no scanner takes this file for a leak).
    ("remember", {"content": "pw note p", "project": "passw0rd" + "123"}, "BAD_USER_INPUT", None),
    ("set_preference", {"key": "hunter" + "2", "value": "vim"}, "BAD_USER_INPUT", None),
    ("start_session", {"session": "C0rrect" + "H0rse"}, "BAD_USER_INPUT", None),
    ("append_turn", {"session": "s", "role": "user", "content": "hi", "ref": "Summer" + "2024!"}, "BAD_USER_INPUT", None),
]


def test_every_refusal_is_a_coded_tool_error_and_stores_nothing(
    api_server: Server, services: Services, user: tuple[str, str],
) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            for tool, arguments, code, field in REFUSALS:
                result = await mcp.call_tool(tool, arguments)
                answer = refusal(result)
                assert answer is not None, (tool, arguments, result.content)
                assert answer["code"] == code and answer["message"], (tool, arguments, answer)
                assert result.content[0].text == f"{code}: {answer['message']}"
                if field is not None:
                    assert answer["field"] == field and answer["message"].startswith(field), (tool, arguments, answer)
    run(work)
    with services.driver.session(database=services.database) as session:
        stored = session.run("MATCH (n {userId: $u}) WHERE NOT n:AuditEvent AND NOT n:ApiKey RETURN count(n) AS n", u=user[0]).single()["n"]
    assert stored == 0


def test_every_tool_refuses_an_argument_it_does_not_take_by_name(
    api_server: Server, services: Services, user: tuple[str, str],
) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            tools = [tool.name for tool in (await mcp.list_tools()).tools]
            assert "remember" in tools
            calls = [("remember", {"content": "Deploys go out on Tuesdays.", "tier": "LONG_TERM", "user": "alice"})]
            calls += [(tool, {"user": "alice"}) for tool in tools]
            for tool, arguments in calls:
                answer = refusal(await mcp.call_tool(tool, arguments))
                assert answer is not None, (tool, arguments)
                assert answer["code"] == "BAD_USER_INPUT" and answer["field"] == "user", (tool, answer)
                assert answer["message"].startswith(f"user: {tool} takes no such argument"), (tool, answer)

    def stored(user_id: str) -> int:
        with services.driver.session(database=services.database) as session:
            return int(session.run("MATCH (n {userId: $u}) WHERE NOT n:AuditEvent AND NOT n:ApiKey "
                                   "RETURN count(n) AS n", u=user_id).single()["n"])

    # 'alice' may hold what other tests wrote (the README's examples): nothing more after the calls.
    alice = stored("alice")
    run(work)
    assert stored(user[0]) == 0 and stored("alice") == alice


def test_enumerations_are_spelled_as_graphql_spells_them(api_server: Server, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            stored = payload(await mcp.call_tool("remember", {
                "content": "Prefer short answers in code review comments.", "tier": "LONG_TERM", "kind": "PREFERENCE"}))
            assert stored["created"] and stored["tier"] == "LONG_TERM"
            found = payload(await mcp.call_tool("recall", {
                "query": "short answers code review", "priority": "CRITICAL", "profile": "IZANAGI", "tiers": ["LONG_TERM"]}))
            assert found["profile"] == "IZANAGI" and found["items"][0]["id"] == stored["memoryId"]
            decision = payload(await mcp.call_tool("record_decision", {"decision": "Review in pairs", "tier": "LONG_TERM"}))
            traced = payload(await mcp.call_tool("trace", {
                "entity": decision["entityId"], "direction": "BOTH", "edge_types": ["CAUSED", "SOLVED_BY"]}))
            assert traced["paths"] == []
    run(work)


def test_every_enumeration_a_tool_answers_is_spelled_as_the_tools_take_it(
    api_server: Server, user: tuple[str, str],
) -> None:
    graphql = Client(api_server, user[1], user[0])
    sections = {s["name"] for s in graphql.data('{ __type(name: "ContextSectionName") { enumValues { name } } }')
                ["__type"]["enumValues"]}

    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            found = payload(await mcp.call_tool("recall", {"query": "anything", "priority": "CRITICAL"}))
            assert found["profile"] == "HYBRID"
            # What recall answers, it takes back.
            again = payload(await mcp.call_tool("recall", {"query": "anything", "profile": found["profile"]}))
            assert again["profile"] == "HYBRID"
            decision = payload(await mcp.call_tool("record_decision", {"decision": "Cache sessions in Redis",
                                                                        "project": "enums"}))
            payload(await mcp.call_tool("record_error", {"error": "Redis evicts sessions under load", "fix": "Raise maxmemory",
                                                         "caused_by": decision["entityId"], "project": "enums"}))
            [chain] = payload(await mcp.call_tool("chains", {"project": "enums"}))["chains"]
            assert (chain["decision"]["type"], chain["error"]["type"]) == ("DECISION", "ERROR")
            [path, *_] = payload(await mcp.call_tool("trace", {"entity": decision["entityId"]}))["paths"]
            assert [node["type"] for node in path["nodes"]][:2] == ["DECISION", "ERROR"]
            payload(await mcp.call_tool("start_session", {"session": "enums-1", "project": "enums"}))
            window = payload(await mcp.call_tool("context", {"session": "enums-1", "query": "what did we cache?"}))
            assert window["sections"] and {s["section"] for s in window["sections"]} <= sections
    run(work)

    # A number is no time on either interface, and refused with the same code.
    assert graphql.codes('query { recall(query: "q", asOf: 5) { recallId } }') == ["BAD_USER_INPUT"]


def test_an_mcp_write_is_seen_by_a_graphql_subscriber(api_server: Server, user: tuple[str, str]) -> None:
    graphql = Client(api_server, user[1], user[0])

    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            stored = payload(await mcp.call_tool("remember", {
                "content": "The radio project streams Opus audio at 96 kbps.", "project": "radio"}))
            decision = payload(await mcp.call_tool("record_decision", {"decision": "Stream with HLS", "project": "radio"}))
            payload(await mcp.call_tool("forget", {"memory": stored["memoryId"]}))
            written.extend([stored["memoryId"], decision["memoryId"]])

    written: list[str] = []
    with subscription(graphql, "radio") as ws:
        run(work)
        got = events(ws, 3)
    assert [(e["kind"], e["project"]) for e in got] == [
        ("REMEMBERED", "radio"), ("DECISION_RECORDED", "radio"), ("FORGOTTEN", "radio")]
    assert got[0]["memoryIds"][0] == written[0] and got[1]["memoryIds"] == [written[1]]
    assert got[0]["entityIds"] and written[0] in got[2]["memoryIds"]


def recall_counts(api_server: Server) -> dict[str, float]:
    families = text_string_to_metric_families(httpx.get(f"{api_server.base}/metrics").text)
    return {s.labels["profile"]: s.value for family in families for s in family.samples
            if s.name == "hippograph_recall_seconds_count"}


def test_an_mcp_recall_is_measured_as_a_graphql_one(api_server: Server, user: tuple[str, str]) -> None:
    before = recall_counts(api_server).get("hanzo", 0.0)

    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            payload(await mcp.call_tool("recall", {"query": "which codec does radio use?", "profile": "HANZO"}))
    run(work)
    assert recall_counts(api_server)["hanzo"] == before + 1


def test_a_request_without_a_good_key_is_refused_at_the_door(api_server: Server) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"authorization": "Bearer not-a-key"}):
        response = httpx.post(f"{api_server.base}/mcp", json=body, headers=headers, timeout=30)
        assert response.status_code == 401
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert response.headers["www-authenticate"].startswith("Bearer")


def test_decision_error_fix_chain_and_trace(api_server: Server, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            decision = payload(await mcp.call_tool("record_decision", {
                "decision": "Cache sessions in Redis", "reason": "latency", "project": "web"}))
            error = payload(await mcp.call_tool("record_error", {
                "error": "Redis evicts sessions under load", "fix": "Set maxmemory-policy noeviction",
                "caused_by": decision["entityId"], "project": "web"}))
            assert error["related"]["fix"]
            chains = payload(await mcp.call_tool("chains", {"project": "web"}))["chains"]
            assert len(chains) == 1
            chain = chains[0]
            assert chain["decision"]["id"] == decision["entityId"] and chain["error"]["id"] == error["entityId"]
            paths = payload(await mcp.call_tool("trace", {"entity": decision["entityId"], "max_depth": 2}))["paths"]
            assert any([e["type"] for e in p["edges"]] == ["CAUSED", "SOLVED_BY"] for p in paths)
            pref = payload(await mcp.call_tool("set_preference", {"key": "editor", "value": "vim"}))
            assert pref["created"]
    run(work)
    # Every call, read or write, is logged with its caller and outcome.
    logged = api_server.log.read_text()
    assert f"mcp tool=chains user={user[0]} outcome=ok" in logged
    assert f"mcp tool=record_error user={user[0]} outcome=ok" in logged


def test_a_session_over_stdio_from_start_to_context_to_end(services: Services, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_stdio(user[1]) as mcp:
            tools = {t.name for t in (await mcp.list_tools()).tools}
            assert "append_turn" in tools
            payload(await mcp.call_tool("start_session", {"session": "s1", "project": "web"}))
            payload(await mcp.call_tool("append_turn", {
                "session": "s1", "role": "user", "content": "We decided to ship the web app on Fridays.", "ref": "t1"}))
            # A turn said by mistake is taken back whole: forget names it as GraphQL's forget does.
            slip = payload(await mcp.call_tool("append_turn", {"session": "s1", "role": "user", "content": "Oops, wrong chat."}))
            gone = payload(await mcp.call_tool("forget", {"turn": slip["turnId"]}))
            assert (gone["forgotten"], gone["turns"], gone["receipt"]["scope"]) == ("turn", 1, "turn")
            assert refusal(await mcp.call_tool("forget", {"turn": slip["turnId"]}))["code"] == "NOT_FOUND"
            payload(await mcp.call_tool("remember", {
                "content": "The answer style should be concise.", "tier": "LONG_TERM", "kind": "PREFERENCE"}))
            window = payload(await mcp.call_tool("context", {
                "session": "s1", "query": "when do we ship?", "context_window": 8192}))
            assert window["tokens"] <= 8192
            history = next(s for s in window["sections"] if s["section"] == "CONVERSATION_HISTORY")
            assert "ship the web app on Fridays" in history["text"]
            ended = payload(await mcp.call_tool("end_session", {"session": "s1"}))
            assert ended["turnsDeleted"] == 1
            found = payload(await mcp.call_tool("recall", {"query": "when do we ship the web app", "priority": "CRITICAL"}))
            assert found["items"]
    run(work)
    # Every read and write was the key's owner's, and is in the audit trail as theirs.
    services.audit.flush()
    with services.driver.session(database=services.database) as session:
        operations = {r["op"] for r in session.run(
            "MATCH (a:AuditEvent {userId: $u}) RETURN DISTINCT a.operation AS op", u=user[0])}
    assert {"remember", "recall", "start_session", "append_turn", "end_session"} <= operations


def test_stdio_refuses_to_start_without_a_valid_key(tmp_path: Path) -> None:
    import subprocess

    command = Path(sys.executable).with_name("hippograph")
    for value in ("", "hg_not_a_key"):
        done = subprocess.run([str(command), "mcp"], env={**os.environ, "HIPPOGRAPH_API_KEY": value},
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert done.returncode != 0
        # The refusal is all it says: the key is checked before the model loads (which logs its loading).
        [said] = done.stderr.strip().splitlines()
        assert said.startswith("hippograph: error: ") and "HIPPOGRAPH_API_KEY" in said, done.stderr


def test_a_retry_with_a_request_id_answers_the_first_outcome_on_either_interface(
    api_server: Server, user: tuple[str, str],
) -> None:
    graphql = Client(api_server, user[1], user[0])
    remember = ("mutation($input: RememberInput!) { remember(input: $input) {"
                " ... on RememberSuccess { created duplicateOf memory { id } } } }")
    content = "The radio project's archive lives in cold storage."
    first = graphql.data(remember, input={"content": content, "tier": "PROJECT", "project": "radio", "requestId": "radio-archive-1"})
    assert first["remember"]["created"]
    first_id = first["remember"]["memory"]["id"]

    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            again = payload(await mcp.call_tool("remember", {
                "content": content, "project": "radio", "request_id": "radio-archive-1"}))
            assert (again["created"], again["memoryId"], again["duplicateOf"]) == (False, first_id, first_id)
            other = refusal(await mcp.call_tool("remember", {
                "content": "The radio archive lives on tape.", "project": "radio", "request_id": "radio-archive-1"}))
            assert other["code"] == "BAD_USER_INPUT" and other["field"] == "request_id"
            decided = payload(await mcp.call_tool("record_decision", {
                "decision": "Archive radio shows after 30 days", "project": "radio", "request_id": "radio-decision-1"}))
            repeated = payload(await mcp.call_tool("record_decision", {
                "decision": "Archive radio shows after 30 days", "project": "radio", "request_id": "radio-decision-1"}))
            assert repeated["memoryId"] == decided["memoryId"]
    run(work)
    again = graphql.data(remember, input={"content": content, "tier": "PROJECT", "project": "radio", "requestId": "radio-archive-1"})
    assert again["remember"] == {"created": False, "duplicateOf": first_id, "memory": {"id": first_id}}
