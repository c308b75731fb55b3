"""The README's snippets, run as written against a real server: the first screen's three ways in
(GraphQL with curl, the MCP configuration over both transports, Python with LangChain, LangGraph and
the Agents SDK) and the LangGraph and Agents SDK sections. The only change made to a snippet is the
address: the README's :8000 is the test server's port."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from hippograph_bench.server import Server
from hippograph.client import Client, MemoryKind, memories, transcript
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import new_user

pytestmark = pytest.mark.neo4j

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
FIRST_SCREEN = README[:README.index("## Quick start")]
INTEGRATIONS = README[README.index("### LangChain, LangGraph and the Agents SDK"):README.index("### TypeScript types")]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def snippets(text: str, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text) if lang == language]


def served(snippet: str, server: Server) -> str:
    """The snippet with the README's address replaced by the test server's."""
    port = server.base.rsplit(":", 1)[1]
    return snippet.replace("127.0.0.1:8000", f"127.0.0.1:{port}").replace("localhost:8000", f"localhost:{port}")


@pytest.fixture(scope="module")
def key(services: Services) -> str:
    return keys.create_key(services.driver, services.database, new_user("readme")).secret


def run_python(code: str, key: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "KEY": key}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_first_screen_shows_the_three_ways_in_side_by_side() -> None:
    assert [len(snippets(FIRST_SCREEN, lang)) for lang in ("sh", "json", "python")] == [1, 1, 1]
    # One row of a table, a cell each: GitHub renders a fenced block in a cell between blank lines.
    [row] = re.findall(r"<tr[^>]*>\s*<td>(.*?)</tr>", FIRST_SCREEN, re.DOTALL)
    cells = row.split("</td>")[:-1]
    assert [FENCE.findall(cell)[0][0] for cell in cells] == ["sh", "json", "python"]
    assert all(re.search(r"\n\n```\w+\n.*?^```\n\n", cell, re.DOTALL | re.MULTILINE) for cell in cells)
    python = snippets(FIRST_SCREEN, "python")[0]
    for name in ("hippograph.client", "hippograph.langchain", "hippograph.langgraph", "hippograph.agents"):
        assert f"from {name} import" in python


def test_graphql_with_curl(api_server: Server, key: str) -> None:
    [shell] = snippets(FIRST_SCREEN, "sh")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", served(shell, api_server)], env={**os.environ, "KEY": key},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers, at, decoder = [], 0, json.JSONDecoder()
    while at < len(done.stdout):
        answer, at = decoder.raw_decode(done.stdout, at)
        answers.append(answer)
    assert [a.get("errors") for a in answers] == [None, None]
    assert answers[0]["data"]["remember"]["__typename"] == "RememberSuccess"
    assert answers[1]["data"]["recall"]["items"][0]["content"] == "We deploy with Docker"


def test_the_mcp_configuration_over_both_transports(api_server: Server, key: str) -> None:
    [config] = snippets(FIRST_SCREEN, "json")
    servers = json.loads(served(config.replace("hg_…", key), api_server))["mcpServers"]

    async def tools(session: ClientSession) -> set[str]:
        await session.initialize()
        return {tool.name for tool in (await session.list_tools()).tools}

    async def work() -> None:
        http = servers["hippograph"]
        async with httpx2.AsyncClient(headers=http["headers"], timeout=60) as client:
            async with streamable_http_client(http["url"], http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    assert {"remember", "recall", "record_error", "chains"} <= await tools(session)
        stdio = servers["hippograph-stdio"]
        command = Path(sys.executable).with_name(stdio["command"])
        params = StdioServerParameters(command=str(command), args=stdio["args"], env={**os.environ, **stdio["env"]})
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as session:
                    assert {"remember", "recall", "record_error", "chains"} <= await tools(session)

    anyio.run(work)


def test_python_langchain_langgraph_and_the_agents_sdk(api_server: Server, key: str) -> None:
    [python] = snippets(FIRST_SCREEN, "python")
    run_python(served(python, api_server), key)
    with Client(api_server.base, key) as hg:
        contents = {m.content for m in hg.send(memories(kinds=[MemoryKind.NOTE], first=100)).nodes}
        said = hg.send(transcript("chat-1")).transcript
    assert "We deploy with Docker" in contents
    assert "project/shop/deploy: how: Docker Compose on the staging host" in contents
    assert [(t.role, t.content) for t in said] == [("user", "Where do we deploy?")]


def test_the_langgraph_and_agents_sections(api_server: Server, key: str) -> None:
    store, session = snippets(INTEGRATIONS, "python")
    prelude = "import os\nkey = os.environ['KEY']\n"
    printed = run_python(prelude + served(store, api_server), key)
    score, text = printed.strip().split(" ", 1)
    assert float(score) > 0 and text == "Ann keeps her bike in the basement"
    printed = run_python(prelude + served(session, api_server), key)
    assert printed.strip() == "[{'role': 'user', 'content': 'We ship on Fridays'}]"
