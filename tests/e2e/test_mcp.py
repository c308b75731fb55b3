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

from hippograph_bench.server import Server
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import Client, new_user



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
                "query": "which database does billing use?", "project": "billing", "priority": "critical"}))
            assert found["items"][0]["id"] == stored["memoryId"]
            item = found["items"][0]
            assert set(item["components"]) == {"vector", "keyword", "recency", "relation", "time", "period"}
            assert 0 < item["score"] <= 1 and item["tokens"] > 0
            assert found["totals"]["budgetItems"] == 3
    run(work)


def test_a_secret_is_redacted_before_it_is_stored(api_server: Server, user: tuple[str, str]) -> None:
    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            stored = payload(await mcp.call_tool("remember", {
                "content": "Deploy with token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 tomorrow.", "project": "ops"}))
            assert stored["redacted"]
            shown = payload(await mcp.call_tool("recall", {"query": "deploy token", "project": "ops", "priority": "critical"}))
            assert all("ghp_a1B2" not in i["content"] for i in shown["items"])
    run(work)


def test_a_key_sees_only_its_own_memories(api_server: Server, user: tuple[str, str], bob: Client) -> None:
    bob_says = bob.data('mutation { remember(input: {content: "Bob keeps the staging password rotation on Mondays", '
                      'tier: LONG_TERM}) { ... on RememberSuccess { memory { id } } } }')
    bob_memory = bob_says["remember"]["memory"]["id"]

    async def work() -> None:
        async with over_http(api_server, user[1]) as mcp:
            found = payload(await mcp.call_tool("recall", {"query": "staging password rotation", "priority": "critical"}))
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
            # Arguments the schema refuses never reach a rule.
            assert (await mcp.call_tool("recall", {"query": "q", "priority": "urgent"})).is_error
            found = payload(await mcp.call_tool("recall", {"query": "a note", "priority": "critical"}))
            assert found["items"] == []
    run(work)


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
            payload(await mcp.call_tool("remember", {
                "content": "The answer style should be concise.", "tier": "LONG_TERM", "kind": "preference"}))
            window = payload(await mcp.call_tool("context", {
                "session": "s1", "query": "when do we ship?", "context_window": 8192}))
            assert window["tokens"] <= 8192
            history = next(s for s in window["sections"] if s["section"] == "conversation_history")
            assert "ship the web app on Fridays" in history["text"]
            ended = payload(await mcp.call_tool("end_session", {"session": "s1"}))
            assert ended["turnsDeleted"] == 1
            found = payload(await mcp.call_tool("recall", {"query": "when do we ship the web app", "priority": "critical"}))
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
        assert "HIPPOGRAPH_API_KEY" in done.stderr
