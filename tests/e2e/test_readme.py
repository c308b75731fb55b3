"""Every snippet of the README, run as written against a real server, or, where it cannot run here,
checked for what can be checked. The only change made to a snippet is where it points: the README's
:8000 is the test server's port, its Bolt :7687 the test Neo4j's, ``hg_…`` or ``$KEY`` a real key.

- the first screen's three ways in (GraphQL with curl, the MCP configuration over both transports,
  Python with LangChain, LangGraph and the Agents SDK) and the LangGraph and Agents SDK sections run,
  with what they answer checked;
- every other block by its language: ``python``, ``graphql`` and an ``sh`` block that calls the
  server (curl) run; a ``json`` MCP configuration is connected to; ``ts`` type-checks with the repo's
  tsc; ``cypher``'s ``:play`` guide is fetched; in any other ``sh`` block each command is checked —
  ``make -n TARGET``, ``hippograph … --help`` naming each option used, ``pip SUB --help`` likewise, the
  static page server run for real, Docker's compose file read (there is no Docker engine here); a
  ``usage`` block's command synopses are checked as ``hippograph … --help``, one per alternative;
- a ``text`` block is output or a picture (a diagram, the source tree): it is not run.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
import yaml
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from hippograph_bench.server import Server, free_port
from hippograph.client import Client, MemoryKind, Tier, memories, remember, transcript
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import hippograph_here, new_user

pytestmark = pytest.mark.neo4j

REPOSITORY = Path(__file__).resolve().parents[2]
README = (REPOSITORY / "README.md").read_text()
FIRST_SCREEN = README[:README.index("## Quick start")]
INTEGRATIONS = README[README.index("### LangChain, LangGraph and the Agents SDK"):README.index("### TypeScript types")]
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
LANGUAGES = {"sh", "json", "python", "graphql", "ts", "cypher", "usage", "text"}
# The commands beside this interpreter (make test does not put the venv on PATH).
PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"


def snippets(text: str, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text) if lang == language]


def elsewhere() -> list[tuple[int, str, str]]:
    """The blocks outside the first screen and the integrations section, but for output: (line, language, body)."""
    skipped = (range(len(FIRST_SCREEN)), range(README.index(INTEGRATIONS), README.index(INTEGRATIONS) + len(INTEGRATIONS)))
    return [(README[:m.start()].count("\n") + 1, m[1], m[2]) for m in FENCE.finditer(README)
            if m[1] != "text" and not any(m.start() in part for part in skipped)]


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


def run_shell(snippet: str, key: str) -> list[dict]:
    """The snippet in bash, strict, with the key as $KEY; what it printed, as the JSON answers it holds."""
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", snippet], env={**os.environ, "KEY": key, "PATH": PATH},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers, at, decoder = [], 0, json.JSONDecoder()
    while at < len(done.stdout):
        answer, at = decoder.raw_decode(done.stdout, at)
        answers.append(answer)
        while at < len(done.stdout) and done.stdout[at].isspace():
            at += 1
    return answers


def mcp_servers(config: str, server: Server, key: str) -> dict[str, dict]:
    """A configuration's servers, pointed at the test server and Neo4j with a real key."""
    text = served(config, server).replace("hg_…", key).replace("bolt://127.0.0.1:7687", os.environ["NEO4J_URI"])
    text = text.replace('"NEO4J_PASSWORD": "…"', json.dumps({"NEO4J_PASSWORD": os.environ["NEO4J_PASSWORD"]})[1:-1])
    return json.loads(text)["mcpServers"]


def mcp_tools(servers: dict[str, dict]) -> dict[str, set[str]]:
    """Each configured server's tools, asked over its transport: streamable HTTP for a url, stdio for a command."""
    found: dict[str, set[str]] = {}

    async def tools(session: ClientSession) -> set[str]:
        await session.initialize()
        return {tool.name for tool in (await session.list_tools()).tools}

    async def work() -> None:
        for name, config in servers.items():
            if "url" in config:
                async with httpx2.AsyncClient(headers=config.get("headers"), timeout=60) as client:
                    async with streamable_http_client(config["url"], http_client=client) as (read, write):
                        async with ClientSession(read, write) as session:
                            found[name] = await tools(session)
            else:
                command = Path(sys.executable).with_name(config["command"])
                params = StdioServerParameters(command=str(command), args=config["args"],
                                               env={**os.environ, **config.get("env", {})})
                with open(os.devnull, "w") as quiet:
                    async with stdio_client(params, errlog=quiet) as (read, write):
                        async with ClientSession(read, write) as session:
                            found[name] = await tools(session)

    anyio.run(work)
    return found


def test_the_first_screen_shows_the_three_ways_in_side_by_side() -> None:
    assert [len(snippets(FIRST_SCREEN, lang)) for lang in ("sh", "json", "python")] == [1, 1, 1]
    # One row of a table, a cell each: GitHub renders a fenced block in a cell between blank lines.
    [row] = re.findall(r"<tr[^>]*>\s*<td>(.*?)</tr>", FIRST_SCREEN, re.DOTALL)
    cells = row.split("</td>")[:-1]
    assert [FENCE.findall(cell)[0][0] for cell in cells] == ["sh", "json", "python"]
    assert all(re.search(r"\n\n```\w+\n.*?^```\n\n", cell, re.DOTALL | re.MULTILINE) for cell in cells)
    python = snippets(FIRST_SCREEN, "python")[0]
    for name in ("hippograph.client", "hippograph.integrations.langchain", "hippograph.integrations.langgraph", "hippograph.integrations.agents"):
        assert f"from {name} import" in python


def test_every_block_says_its_language() -> None:
    assert [lang for lang, _ in FENCE.findall(README) if lang not in LANGUAGES] == []
    assert README.count("\n```") == 2 * len(FENCE.findall(README))  # no fence the pattern missed


def test_graphql_with_curl(api_server: Server, key: str) -> None:
    [shell] = snippets(FIRST_SCREEN, "sh")
    answers = run_shell(served(shell, api_server), key)
    assert [a.get("errors") for a in answers] == [None, None]
    assert answers[0]["data"]["remember"]["__typename"] == "RememberSuccess"
    assert answers[1]["data"]["recall"]["items"][0]["content"] == "We deploy with Docker"


def test_the_mcp_configuration_over_both_transports(api_server: Server, key: str) -> None:
    [config] = snippets(FIRST_SCREEN, "json")
    found = mcp_tools(mcp_servers(config, api_server, key))
    assert set(found) == {"hippograph", "hippograph-stdio"}
    assert all({"remember", "recall", "record_error", "chains"} <= tools for tools in found.values())


def test_python_langchain_langgraph_and_the_agents_sdk(api_server: Server, key: str) -> None:
    [python] = snippets(FIRST_SCREEN, "python")
    run_python(served(python, api_server), key)
    with Client(api_server.base, key) as hg:
        contents = {m.content for m in hg.send(memories(kinds=[MemoryKind.NOTE, MemoryKind.ITEM], first=100)).nodes}
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


@pytest.mark.parametrize(("line", "language", "body"), elsewhere(), ids=[f"line-{b[0]}-{b[1]}" for b in elsewhere()])
def test_every_other_snippet(line: int, language: str, body: str, api_server: Server, key: str, tmp_path: Path) -> None:
    check: Callable[[str, Server, str, Path], None] = CHECKS[language]
    check(body, api_server, key, tmp_path)


def check_sh(body: str, server: Server, key: str, tmp_path: Path) -> None:
    if "curl " in body:  # it calls the server: run it
        answers = run_shell(served(body, server), key)
        assert answers and all("errors" not in answer for answer in answers), answers
        if "recall(" in body:
            assert "We deploy with Docker" in [i["content"] for i in answers[-1]["data"]["recall"]["items"]]
        return
    variables: dict[str, str] = {}
    for command in commands(body):
        assigned = list(itertools.takewhile(lambda word: re.match(r"[A-Z][A-Z0-9_]*=", word), command))
        words = command[len(assigned):]
        for name, value in (word.split("=", 1) for word in assigned):
            if words:  # a setting hippograph reads, for this command
                assert name in (REPOSITORY / "hippograph" / "config.py").read_text(), name
            else:
                variables[name] = value
        if words:  # $NAME as the block set it, as its shell would expand it
            check_command([part for word in words for part in (
                shlex.split(variables[word[1:]]) if word.startswith("$") and word[1:] in variables else [word])], tmp_path)


def commands(body: str) -> list[list[str]]:
    """The block's commands, as words: lines joined where they continue, comments dropped, ``&&`` split."""
    found: list[list[str]] = []
    for line in body.replace("\\\n", " ").splitlines():
        for is_separator, words in itertools.groupby(shlex.split(line, comments=True), lambda word: word == "&&"):
            if not is_separator:
                found.append(list(words))
    return found


def check_command(words: list[str], tmp_path: Path) -> None:
    program = Path(words[0]).name
    if program == "make":
        for target in words[1:]:
            done = subprocess.run(["make", "-n", target], cwd=REPOSITORY, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
    elif program == "hippograph":
        path = list(itertools.takewhile(lambda word: not word.startswith("-"), words[1:]))
        named_options(["hippograph", *path], words)
    elif program == "pip":
        named_options([sys.executable, "-m", "pip", words[1]], words)
    elif words[:3] == ["python3", "-m", "venv"]:
        assert subprocess.run([sys.executable, "-m", "venv", "--help"], capture_output=True).returncode == 0
    elif words[:3] == ["python3", "-m", "http.server"]:
        serve_statically(words, tmp_path)
    elif words[:3] == ["docker", "compose", "-f"] and words[4:] == ["up"]:
        services = yaml.safe_load((REPOSITORY / words[3]).read_text())["services"]
        assert services["neo4j"]["environment"]["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD")
        built = services["hippograph"]["build"]
        assert (REPOSITORY / words[3]).parent.joinpath(built["context"], built["dockerfile"]).exists()
    else:
        pytest.fail(f"no check for {shlex.join(words)}")


def named_options(command: list[str], words: list[str]) -> None:
    """The command's help answers, and names every option the words use (hippograph's through its ``main``,
    in this process: a new interpreter for each synopsis was most of the usage blocks' time)."""
    if command[0] == "hippograph":
        done = hippograph_here(*command[1:], "--help")
    else:
        done = subprocess.run([*command, "--help"], env={**os.environ, "PATH": PATH}, capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 0, f"{shlex.join(command)}: {done.stderr}"
    for option in {word.split("=", 1)[0] for word in words if word.startswith("--")}:
        assert re.search(rf"{re.escape(option)}\b", done.stdout), f"{shlex.join(command)} has no {option}"


def serve_statically(words: list[str], tmp_path: Path) -> None:
    """``python3 -m http.server PORT -d DIR``, on a free port: it serves the page the block opens."""
    port = free_port()
    args = [str(port) if word == words[3] else word for word in words[3:]]
    server = subprocess.Popen([sys.executable, "-m", "http.server", *args], cwd=REPOSITORY,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/recall.html", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the static server never answered"
                time.sleep(0.2)
        assert answer.status_code == 200 and "<html" in answer.text.lower()
    finally:
        server.terminate()
        server.wait(timeout=30)


def check_usage(body: str, server: Server, key: str, tmp_path: Path) -> None:
    """Each line a synopsis: ``hippograph a|b SUB … [--option X]   what it does``."""
    for line in body.splitlines():
        synopsis = re.split(r"\s{2,}", line.strip())[0]
        words = synopsis.split()
        assert words[0] == "hippograph", line
        path = list(itertools.takewhile(lambda word: re.fullmatch(r"[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*", word),
                                        words[1:]))
        options = re.findall(r"--[a-z][a-z-]*", synopsis)
        for chosen in itertools.product(*(word.split("|") for word in path)):
            named_options(["hippograph", *chosen], options)


def check_json(body: str, server: Server, key: str, tmp_path: Path) -> None:
    found = mcp_tools(mcp_servers(body, server, key))
    assert found and all({"remember", "recall", "forget"} <= tools for tools in found.values())


def check_graphql(body: str, server: Server, key: str, tmp_path: Path) -> None:
    answer = httpx.post(f"{server.base}/graphql", json={"query": body}, headers={"authorization": f"Bearer {key}"},
                        timeout=60).json()
    assert "errors" not in answer and answer["data"], answer


def check_cypher(body: str, server: Server, key: str, tmp_path: Path) -> None:
    [command, url] = body.split()
    assert command == ":play"
    answer = httpx.get(served(url, server), timeout=60)
    assert answer.status_code == 200 and "<article" in answer.text, answer.text[:200]


def check_ts(body: str, server: Server, key: str, tmp_path: Path) -> None:
    """Type-checked as a module beside the typed documents, with the repo's tsc and compiler options."""
    typescript = REPOSITORY / "clients" / "typescript"
    (tmp_path / "operations.ts").write_text((typescript / "src" / "operations.ts").read_text())
    (tmp_path / "readme.ts").write_text("declare const key: string;\n" + body)
    options = json.loads((typescript / "tsconfig.json").read_text())["compilerOptions"]
    options = {name: value for name, value in options.items() if name not in ("rootDir", "outDir")}
    core = "@graphql-typed-document-node/core"
    (tmp_path / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        **options, "noEmit": True, "noUnusedLocals": False, "paths": {core: [str(typescript / "node_modules" / core)]},
    }, "files": ["readme.ts"]}))
    done = subprocess.run([str(typescript / "node_modules" / ".bin" / "tsc"), "-p", str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


# A README snippet runs as a file of its own would (no top-level await), with the reader's API key as ``key``.
AS_A_FILE = """
import os, sys
exec(compile(sys.stdin.read(), "README.md", "exec"), {"__name__": "__main__", "key": os.environ["KEY"]})
"""


def check_python(body: str, server: Server, key: str, tmp_path: Path) -> None:
    """Run until it has printed what it recalls and an event of a write made meanwhile (it then waits
    for more events for good, so it is stopped there)."""
    process = subprocess.Popen([sys.executable, "-u", "-c", AS_A_FILE], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "KEY": key})
    printed: list[str] = []

    def read() -> None:
        for line in process.stdout:
            printed.append(line)

    reader = threading.Thread(target=read, daemon=True)
    try:
        process.stdin.write(served(body, server))
        process.stdin.close()
        reader.start()
        deadline, written = time.monotonic() + 180, 0
        with Client(server.base, key) as hg:
            while not any(line.startswith("REMEMBERED ") for line in printed):
                assert process.poll() is None, process.stderr.read()
                assert time.monotonic() < deadline, printed
                if any("Redis evicted carts" in line for line in printed):  # subscribed by now, or about to be
                    written += 1
                    hg.send(remember(f"The shop's cache note {written}", tier=Tier.PROJECT, project="shop"))
                time.sleep(1)
    finally:
        process.kill()
        process.wait(timeout=30)
    [found] = [line.split(" ", 2) for line in printed if "Redis evicted carts" in line]
    assert float(found[0]) > 0


CHECKS = {"sh": check_sh, "usage": check_usage, "json": check_json, "graphql": check_graphql, "cypher": check_cypher,
          "ts": check_ts, "python": check_python}
