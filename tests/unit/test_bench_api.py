"""The API benchmark's pure parts: reading GraphQL answers, counting errors, checking writes."""

from __future__ import annotations

import pytest

from hippograph.bench import api
from hippograph.bench.api import Outcome, Sample


def test_a_recall_answer_is_a_success_with_the_server_timings() -> None:
    body = {"data": {"recall": {"items": [], "totals": {"items": 0, "tokens": 0},
                                "timings": {"embedMs": 4.0, "queryMs": 9.0, "totalMs": 14.0}}}}
    outcome = api.read_recall(200, body)
    assert outcome.error is None
    assert outcome.server_ms == {"embedMs": 4.0, "queryMs": 9.0, "totalMs": 14.0}


@pytest.mark.parametrize(("status", "body", "error"), [
    (503, "unavailable", "http 503"),
    (200, {"data": None, "errors": [{"message": "boom", "extensions": {"code": "INTERNAL"}}]}, "graphql"),
    (200, ["not", "an", "object"], "graphql"),
    (200, {"data": {"recall": None}}, "graphql"),
])
def test_a_failed_recall_is_classed(status: int, body: object, error: str) -> None:
    assert api.read_recall(status, body).error == error


def test_a_remember_answer_gives_the_stored_id() -> None:
    body = {"data": {"remember": {"__typename": "RememberSuccess", "memory": {"id": "m1"}, "created": True,
                                  "duplicateOf": None, "compression": None}}}
    assert api.read_remember(200, body) == Outcome(memory_id="m1")


def test_an_error_type_of_the_union_counts_as_an_error() -> None:
    body = {"data": {"remember": {"__typename": "LimitExceededError", "code": "LIMIT_EXCEEDED", "message": "full"}}}
    outcome = api.read_remember(200, body)
    assert outcome.error == "union LIMIT_EXCEEDED"
    assert outcome.memory_id is None


def test_a_duplicate_write_is_an_error_but_keeps_its_id() -> None:
    body = {"data": {"remember": {"__typename": "RememberSuccess", "memory": {"id": "m0"}, "created": False,
                                  "duplicateOf": "m0", "compression": {"deleted": ["x"], "archived": []}}}}
    outcome = api.read_remember(200, body)
    assert (outcome.error, outcome.memory_id, outcome.deleted) == ("duplicate", "m0", ("x",))


def test_summarise_counts_requests_throughput_and_errors_per_kind() -> None:
    samples = [
        Sample("recall", 0.1, 10.0, Outcome()),
        Sample("recall", 0.2, 30.0, Outcome(), repeat=True),
        Sample("recall", 0.3, 50.0, Outcome("http 500", "oops")),
        Sample("remember", 0.4, 100.0, Outcome(memory_id="m1"), marker="r-c0-w0"),
    ]
    result = api.summarise(samples, elapsed_s=2.0)
    assert result["requests"] == 4
    assert result["throughput_rps"] == 2.0
    recall = result["by_kind"]["recall"]
    assert (recall["requests"], recall["throughput_rps"], recall["errors"], recall["repeated_queries"]) == (3, 1.5, 1, 1)
    assert recall["latency_ms"]["p50"] == 30.0
    assert recall["ok_latency_ms"]["n"] == 2
    assert result["by_kind"]["remember"]["errors"] == 0
    assert result["errors"]["total"] == 1
    assert result["errors"]["by_type"] == {"recall: http 500": 1}


def test_spread_of_nothing_is_only_a_count() -> None:
    assert api.spread([]) == {"n": 0}
    assert api.spread([1.0, 2.0, 3.0])["p50"] == 2.0


def test_a_write_is_found_only_as_its_user_with_its_marker() -> None:
    acknowledged = {"a": "run-c0-w0", "b": "run-c0-w1", "c": "run-c1-w0"}
    records = [
        {"id": "a", "userId": "u", "content": api.write_text("Mel: hi", "run-c0-w0")},
        {"id": "b", "userId": "someone-else", "content": api.write_text("Mel: hi", "run-c0-w1")},
        {"id": "c", "userId": "u", "content": "Mel: hi [run-c1-w9]"},
        {"id": "z", "userId": "u", "content": "not ours"},
    ]
    assert api.found_writes(acknowledged, records, "u") == {"a"}


def test_the_section_reports_the_write_check() -> None:
    result = {
        "method": "m", "memories": 100, "store": {"reused": True}, "bench_user": "lat-u1", "bench_user_memories": 1,
        "when": "now", "model": "model", "targets": {"single_client_p95_ms": 30.0},
        "single": {"queries": 1, "latency_ms": api.spread([5.0]), "server_ms": {"total": api.spread([4.0])}},
        "concurrent": {"clients": 2, "seconds": 1.0, "write_share": 0.2,
                       **api.summarise([Sample("remember", 0.0, 9.0, Outcome(memory_id="m"), marker="k")], 1.0)},
        "writes": {"attempted": 1, "acknowledged": 1, "found": 1, "missing": 0, "deleted_by_compression": 0,
                   "stored_unacknowledged": 0},
    }
    text = api.section(result)
    assert "1 acknowledged, 1 found" in text
    assert "| remember | 1 |" in text
