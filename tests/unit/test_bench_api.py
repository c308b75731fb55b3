"""The API benchmark's pure parts: checking acknowledged writes, and the report section."""

from __future__ import annotations

from hippograph.bench import api, load
from hippograph.bench.load import Outcome, Sample


def test_a_write_is_found_only_as_its_user_with_its_marker() -> None:
    acknowledged = {"a": "run-c0-w0", "b": "run-c0-w1", "c": "run-c1-w0"}
    records = [
        {"id": "a", "userId": "u", "content": load.write_text("Mel: hi", "run-c0-w0")},
        {"id": "b", "userId": "someone-else", "content": load.write_text("Mel: hi", "run-c0-w1")},
        {"id": "c", "userId": "u", "content": "Mel: hi [run-c1-w9]"},
        {"id": "z", "userId": "u", "content": "not ours"},
    ]
    assert api.found_writes(acknowledged, records, "u") == {"a"}


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
