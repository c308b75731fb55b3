"""Metrics, request ids, structured logs, health."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from hippograph.config import Settings
from hippograph_bench.server import Server
from api_client import Client

pytestmark = pytest.mark.neo4j


def test_request_id_is_echoed_or_made_and_logged_as_json(alice: Client, api_server: Server) -> None:
    given = alice.post("{ tierUsage { tier } }", **{"x-request-id": "trace-abc.123"})
    assert given.headers["x-request-id"] == "trace-abc.123"
    made = alice.post("{ tierUsage { tier } }")
    assert len(made.headers["x-request-id"]) == 32
    hostile = alice.post("{ tierUsage { tier } }", **{"x-request-id": "bad id\twith spaces"})
    assert hostile.headers["x-request-id"] != "bad id\twith spaces"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        lines = [json.loads(line) for line in api_server.log_lines() if line.startswith("{")]
        mine = [entry for entry in lines if entry.get("request_id") == "trace-abc.123"]
        if mine:
            break
        time.sleep(0.2)
    assert mine and mine[-1]["path"] == "/graphql" and mine[-1]["status"] == 200 and "duration_ms" in mine[-1]


def samples(text: str) -> dict[str, list[dict[str, str]]]:
    """Sample name → the label sets it has, parsed as Prometheus reads it."""
    found: dict[str, list[dict[str, str]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append(dict(sample.labels))
    return found


def test_metrics_in_prometheus_format(alice: Client, api_server: Server) -> None:
    alice.data('{ recall(query: "anything at all") { profile } tierUsage { tier } }')
    text = httpx.get(f"{api_server.base}/metrics").text
    found = samples(text)
    assert {"operation": "query:recall", "outcome": "ok"} in found["hippograph_graphql_operation_seconds_count"]
    assert {"profile": "hybrid"} in found["hippograph_recall_seconds_count"]
    assert {"tier": "LONG_TERM"} in found["hippograph_tier_fill_ratio_count"]
    assert {"route": "/graphql", "status": "2xx"} in found["hippograph_http_request_seconds_count"]
    assert "# TYPE hippograph_neo4j_errors_total counter" in text
    # Labels never carry request text: an unknown field is "invalid", not its name.
    alice.run("{ noSuchFieldXyz }")
    assert "noSuchFieldXyz" not in httpx.get(f"{api_server.base}/metrics").text


def write_counts(api_server: Server) -> dict[str, float]:
    wanted = ("hippograph_write_groups_total", "hippograph_grouped_writes_total", "hippograph_write_retries_total")
    return {s.name: s.value for family in text_string_to_metric_families(httpx.get(f"{api_server.base}/metrics").text)
            for s in family.samples if s.name in wanted}


def test_metrics_count_the_writes_committed_in_groups(alice: Client, api_server: Server) -> None:
    before = write_counts(api_server)
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: alice.data(
            f'mutation {{ remember(input: {{content: "Grouped write number {i} of the metrics test", tier: LONG_TERM}}) '
            '{ __typename } }'), range(16)))
    assert all(a["remember"]["__typename"] == "RememberSuccess" for a in answers)
    after = write_counts(api_server)
    assert after["hippograph_grouped_writes_total"] - before["hippograph_grouped_writes_total"] == 16
    assert 1 <= after["hippograph_write_groups_total"] - before["hippograph_write_groups_total"] <= 16
    assert after["hippograph_write_retries_total"] >= before["hippograph_write_retries_total"]


def test_health_and_readiness(api_server: Server) -> None:
    assert httpx.get(f"{api_server.base}/healthz").json() == {"status": "ok"}
    ready = httpx.get(f"{api_server.base}/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    # The model it serves with, named as configured (HIPPOGRAPH_EMBEDDING_MODEL).
    assert ready.json()["model"] == Settings.from_env().embedding_model


def test_introspection_needs_no_key(anonymous: Client) -> None:
    body = anonymous.run("{ __schema { queryType { name } } }")
    assert body["data"]["__schema"]["queryType"]["name"] == "Query"
