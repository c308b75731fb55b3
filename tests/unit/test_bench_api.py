"""The API benchmark's pure parts: checking acknowledged writes, and the report section."""

from __future__ import annotations

from hippograph_bench import api, load
from hippograph_bench.load import Outcome, Sample


def test_a_write_is_found_only_as_its_user_with_its_marker() -> None:
    acknowledged = {"a": "run-c0-w0", "b": "run-c0-w1", "c": "run-c1-w0"}
    records = [
        {"id": "a", "userId": "u", "content": load.write_text("Mel: hi", "run-c0-w0")},
        {"id": "b", "userId": "someone-else", "content": load.write_text("Mel: hi", "run-c0-w1")},
        {"id": "c", "userId": "u", "content": "Mel: hi [run-c1-w9]"},
        {"id": "z", "userId": "u", "content": "not ours"},
    ]
    assert api.found_writes(acknowledged, records, dict.fromkeys(acknowledged, "u")) == {"a"}


def test_the_section_reports_the_write_check() -> None:
    result = {
        "method": "m", "memories": 100, "store": {"reused": True}, "bench_user": "lat-u1", "bench_user_memories": 1,
        "when": "now", "model": "model", "targets": {"single_client_p95_ms": 30.0},
        "single": {"queries": 1, "latency_ms": load.spread([5.0]), "server_ms": {"total": load.spread([4.0])}},
        "concurrent": {"clients": 2, "seconds": 1.0, "write_share": 0.2,
                       **load.summarise([Sample("remember", 0.0, 9.0, Outcome(memory_id="m"), marker="k")], 1.0)},
        "writes": {"attempted": 1, "acknowledged": 1, "found": 1, "missing": 0, "deleted_by_compression": 0,
                   "stored_unacknowledged": 0},
    }
    text = api.section(result)
    assert "1 acknowledged, 1 found" in text
    assert "| remember | 1 |" in text


def writer_case(users: int, clients: int, rps: float, p95: float) -> dict:
    return {"users": users, "clients": clients, "seconds": 30.0, "sessions": 8,
            "remember": {"requests": int(rps * 30), "throughput_rps": rps, "errors": 0,
                         "latency_ms": {"p50": p95 / 2, "p95": p95, "p99": p95 * 1.2}},
            "writes": {"acknowledged": int(rps * 30), "found": int(rps * 30), "missing": 0}}


def test_the_writers_section_sets_the_cases_side_by_side_against_the_targets() -> None:
    cases = [writer_case(1, 8, 60.0, 140.0), writer_case(1, 32, 90.0, 500.0), writer_case(32, 32, 100.0, 450.0)]
    text = api.writers_section(cases, api.WRITER_TARGETS)
    assert "| 1 user, 32 clients | 2700 | 90.000 | 250.000 | 500.000 |" in text
    assert "| 32 users, 32 clients | 3000 | 100.000 |" in text
    assert "≥ 80 writes/s (measured 90.0)" in text and "(measured 0.90 of it)" in text
