"""The load generator's pure parts: reading GraphQL answers, counting requests and errors."""

from __future__ import annotations

import pytest

from hippograph_bench import load
from hippograph_bench.load import Outcome, Sample


def test_a_recall_answer_is_a_success_with_the_server_timings() -> None:
    body = {"data": {"recall": {"items": [], "totals": {"items": 0, "tokens": 0},
                                "timings": {"embedMs": 4.0, "queryMs": 9.0, "totalMs": 14.0}}}}
    outcome = load.read_recall(200, body)
    assert outcome.error is None
    assert outcome.server_ms == {"embedMs": 4.0, "queryMs": 9.0, "totalMs": 14.0}


@pytest.mark.parametrize(("status", "body", "error"), [
    (503, "unavailable", "http 503"),
    (200, {"data": None, "errors": [{"message": "boom", "extensions": {"code": "INTERNAL"}}]}, "graphql"),
    (200, ["not", "an", "object"], "graphql"),
    (200, {"data": {"recall": None}}, "graphql"),
])
def test_a_failed_recall_is_classed(status: int, body: object, error: str) -> None:
    assert load.read_recall(status, body).error == error


def test_a_remember_answer_gives_the_stored_id() -> None:
    body = {"data": {"remember": {"__typename": "RememberSuccess", "memory": {"id": "m1"}, "created": True,
                                  "duplicateOf": None, "compression": None}}}
    assert load.read_remember(200, body) == Outcome(memory_id="m1")


def test_an_error_type_of_the_union_counts_as_an_error() -> None:
    body = {"data": {"remember": {"__typename": "LimitExceededError", "code": "LIMIT_EXCEEDED", "message": "full"}}}
    outcome = load.read_remember(200, body)
    assert outcome.error == "union LIMIT_EXCEEDED"
    assert outcome.memory_id is None


def test_a_duplicate_write_is_an_error_but_keeps_its_id() -> None:
    body = {"data": {"remember": {"__typename": "RememberSuccess", "memory": {"id": "m0"}, "created": False,
                                  "duplicateOf": "m0", "compression": {"deleted": ["x"], "archived": []}}}}
    outcome = load.read_remember(200, body)
    assert (outcome.error, outcome.memory_id, outcome.deleted) == ("duplicate", "m0", ("x",))


def test_summarise_counts_requests_throughput_and_errors_per_kind() -> None:
    samples = [
        Sample("recall", 0.1, 10.0, Outcome()),
        Sample("recall", 0.2, 30.0, Outcome(), repeat=True),
        Sample("recall", 0.3, 50.0, Outcome("http 500", "oops")),
        Sample("remember", 0.4, 100.0, Outcome(memory_id="m1"), marker="r-c0-w0"),
    ]
    result = load.summarise(samples, elapsed_s=2.0)
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
    assert load.spread([]) == {"n": 0}
    assert load.spread([1.0, 2.0, 3.0])["p50"] == 2.0


def test_writes_go_in_turn_to_the_project_tier_and_each_of_its_sessions() -> None:
    places = [load.write_place("p", 2, n) for n in range(6)]
    assert places[0] == places[3] == {"tier": "PROJECT", "project": "p"}
    assert places[1] == {"tier": "SESSION", "project": "p", "session": "p-s1"}
    assert places[2] == places[5] == {"tier": "SESSION", "project": "p", "session": "p-s2"}
    assert load.write_place("p", 0, 7) == {"tier": "PROJECT", "project": "p"}
