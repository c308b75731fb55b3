"""``hippograph bench latency``'s store and exactness, on a real store: distinct memories over tenants of
mixed sizes, built by ``bulk_import`` with the real model, resumed and grown without writing anything
twice; recall's top 10 against an exact scan of a tenant's memories."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from hippograph import cli
from hippograph.memory.services import Services
from hippograph_bench import latency
from hippograph_bench.store import StoreError, grow, held, tenants
from hippograph_bench.texts import latest, pool

pytestmark = pytest.mark.neo4j

PLACES = ("river path", "old quarry", "harbour wall", "pine ridge", "market square", "canal lock", "beech wood")
BIRDS = ("herons", "swifts", "kestrels", "gulls", "wrens", "magpies", "cormorants")


def walks(path: Path, turns: int, offset: int = 0) -> Path:
    """A LoCoMo-format file of invented walking diaries: every sentence of it distinct."""
    sessions = {}
    for s in range(turns // 20):
        sessions[f"session_{s + 1}_date_time"] = f"9:{s % 60:02d} am on {s % 28 + 1} May, 2023"
        sessions[f"session_{s + 1}"] = [
            {"speaker": "Ann" if t % 2 else "Bo", "dia_id": f"D{s + 1}:{t + 1}", "text": (
                f"On walk number {offset + s * 20 + t} I went along the {PLACES[t % 7]} for {t % 9 + 2} kilometres. "
                f"The {BIRDS[(s + t) % 7]} were out near stone marker {offset + s * 20 + t}. "
                f"My boots held up for walk {offset + s * 20 + t}, though the mud was deep.")}
            for t in range(20)
        ]
    path.write_text(json.dumps([{"sample_id": f"walks-{offset}", "conversation": sessions, "qa": []}]))
    return path


def contents(services: Services, users: list[str]) -> list[str]:
    records, _, _ = services.driver.execute_query(
        "MATCH (m:Memory) WHERE m.userId IN $users RETURN m.content AS content", users=users,
        database_=services.database)
    return [r["content"] for r in records]


def test_the_store_is_distinct_memories_built_once_and_only_grown(clean_db: Services, tmp_path: Path) -> None:
    services = clean_db
    texts = pool([walks(tmp_path / "walks.json", 800)])
    assert len(texts) >= 2000

    built = grow(services, 1000, texts)
    population = tenants(1000)
    counts = held(services, [t.user_id for t in population])
    assert counts == {t.user_id: t.memories for t in population} and built["created"] == 1000
    assert built["seconds"] > 0 and not built["reused"]
    stored = contents(services, [t.user_id for t in population])
    assert len(stored) == len(set(stored)) == 1000  # no copies anywhere in the store

    # A second run finds it built and adds nothing; a pool of other texts is refused, not mixed in.
    again = grow(services, 1000, texts)
    assert again["created"] == 0 and again["reused"]
    others = pool([walks(tmp_path / "others.json", 800, offset=100_000)])
    for size in (1000, 2000):
        with pytest.raises(StoreError, match="other --data"):
            grow(services, size, others)

    # Growing adds only what each tenant lacks, from the start of its stream onwards.
    grown = grow(services, 2000, texts)
    bigger = tenants(2000)
    assert held(services, [t.user_id for t in bigger]) == {t.user_id: t.memories for t in bigger}
    assert grown["created"] == 1000 and not grown["reused"]
    after = contents(services, [t.user_id for t in bigger])
    assert len(after) == len(set(after)) == 2000 and set(stored) <= set(after)


def test_exactness_compares_recall_with_an_exact_scan_of_the_tenants_memories(clean_db: Services, tmp_path: Path) -> None:
    services = clean_db
    texts = pool([walks(tmp_path / "walks.json", 400)])
    grow(services, 1000, texts)
    small = [t for t in tenants(1000) if t.size_class == "small"][:2]

    measured = latency._exactness(services, small, ["Where did I see the herons?", "Which boots held up in the mud?"],
                                  latest(texts) + timedelta(days=1))

    assert measured["owned"] == [t.memories for t in small]
    # A small owner's memories are scanned, not searched: its top 10 is the exact one.
    assert measured["overlap@10"] == measured["min_overlap@10"] == 1.0


def test_a_class_is_measured_whole_recall_as_of_and_the_statement_s_parts_included(
    clean_db: Services, tmp_path: Path,
) -> None:
    services = clean_db
    texts = pool([walks(tmp_path / "walks.json", 400)])
    grow(services, 1000, texts)
    small = [t for t in tenants(1000) if t.size_class == "small"][:3]
    questions = ["Where did I see the herons?", "Which boots held up in the mud?", "How far was the canal lock walk?"]

    measured = latency._measure(services, small, (questions * latency.WARM_UP)[:latency.WARM_UP + 2], 2,
                                latest(texts) + timedelta(days=1))

    for timed in ("recall_ms", "query_ms", "two_index_ms", "as_of_recall_ms"):
        assert measured[timed]["p50"] > 0, timed
    assert set(measured["as_of_over_recall"]) == {"p50", "p95"}
    assert measured["parts_ms"]["queries"] == 2 and measured["parts_ms"]["statement"] > 0


def test_a_store_the_service_would_not_serve_is_refused_before_a_benchmark_writes(
        clean_db: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The shipped migrations and one more, not applied: the store is not ready.
    pending = tmp_path / "migrations"
    shutil.copytree(clean_db.settings.migrations_dir, pending)
    (pending / "V9999__not_applied.cypher").write_text("RETURN 1;\n")
    monkeypatch.setenv("HIPPOGRAPH_MIGRATIONS_DIR", str(pending))
    out = tmp_path / "latency.json"

    code = cli.main(["bench", "latency", "--sizes", "1000", "--data", str(walks(tmp_path / "walks.json", 800)),
                     "--out", str(out)])

    assert code == 1
    error = capsys.readouterr().err
    assert "the store is not ready for a benchmark" in error and "V9999" in error
    assert not out.exists()
    assert contents(clean_db, [t.user_id for t in tenants(1000)]) == []
