"""Neo4j going away mid-run: requests answer UNAVAILABLE at once, and when Neo4j is back the
service answers again by itself — same process, no data lost. Runs after every other test."""

from __future__ import annotations

import time

import httpx
import pytest

from hippograph import local_neo4j
from hippograph.config import Settings
from hippograph_bench.server import Server
from api_client import Client, until

pytestmark = [pytest.mark.neo4j, pytest.mark.neo4j_restart]


def test_unavailable_while_neo4j_is_down_then_recovers(settings: Settings, api_server: Server, alice: Client) -> None:
    stored = alice.data(
        """mutation { remember(input: {content: "Survives a database restart", tier: LONG_TERM}) {
             ... on RememberSuccess { memory { id } } } }"""
    )["remember"]["memory"]["id"]
    pid = api_server.process.pid
    try:
        local_neo4j.stop(settings, log=lambda _: None)
        started = time.monotonic()
        assert alice.codes('{ recall(query: "database restart") { profile } }') == ["UNAVAILABLE"]
        assert alice.codes(f'{{ memory(id: "{stored}") {{ id }} }}') == ["UNAVAILABLE"]
        assert alice.codes('mutation { remember(input: {content: "lost?", tier: LONG_TERM}) { __typename } }') == [
            "UNAVAILABLE"
        ]
        assert time.monotonic() - started < 30, "UNAVAILABLE must come quickly, not after long retries"
        body = alice.run("{ tierUsage { tier } }")
        assert body["errors"][0]["message"] == "the database is unavailable; retry shortly"
        assert httpx.get(f"{api_server.base}/healthz").status_code == 200
        assert httpx.get(f"{api_server.base}/readyz", timeout=60).status_code == 503
    finally:
        local_neo4j.start(settings, log=lambda _: None)
    assert until(lambda: not alice.codes("{ tierUsage { tier } }"), 90), "the service did not recover by itself"
    assert api_server.process.poll() is None and api_server.process.pid == pid
    memory = alice.data(f'{{ memory(id: "{stored}") {{ content }} }}')["memory"]
    assert memory == {"content": "Survives a database restart"}
    assert until(lambda: httpx.get(f"{api_server.base}/readyz", timeout=60).status_code == 200, 60)
    metrics = httpx.get(f"{api_server.base}/metrics").text
    assert 'hippograph_neo4j_errors_total{kind="ServiceUnavailable"}' in metrics
