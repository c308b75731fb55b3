"""``hippograph bench seed`` on a real store with the small model (its figures are not what is tested): every
row of the Izanagi spec's metric table measured in one run beside its target, the page written, and nothing
of the run's own writes left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippograph import cli
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph_bench import seed
from test_bench_latency import walks

pytestmark = pytest.mark.neo4j


def with_questions(path: Path) -> Path:
    """The walks file with three questions, each citing the turn that answers it."""
    samples = json.loads(path.read_text())
    samples[0]["qa"] = [
        {"question": "How far did I walk on walk number 3?", "answer": "5 kilometres", "evidence": ["D1:4"], "category": 1},
        {"question": "Where were the kestrels near stone marker 22?", "answer": "marker 22", "evidence": ["D2:3"],
         "category": 1},
        {"question": "Did my boots hold up on walk 41?", "answer": "yes", "evidence": ["D3:2"], "category": 1},
    ]
    path.write_text(json.dumps(samples))
    return path


def test_one_run_measures_every_row_of_the_table_beside_its_target(clean_db: Services, tmp_path: Path) -> None:
    data = with_questions(walks(tmp_path / "walks.json", 200))
    out = tmp_path / "seed.json"

    code = cli.main(["bench", "seed", "--size", "300", "--data", str(data), "--reads", "3", "--writes", "16",
                     "--out", str(out)])

    assert code == 0
    result = json.loads(out.read_text())
    assert [row["metric"] for row in result["rows"]] == list(seed.TARGETS)
    for row in result["rows"]:
        target, lower = seed.TARGETS[row["metric"]]
        assert row["target"] == target
        assert row["met"] == (row["measured"] <= target if lower else row["measured"] >= target)
    measured = {row["metric"]: row["measured"] for row in result["rows"]}
    assert all(measured[name] > 0 for name in measured if name.endswith("(ms)"))
    assert 0 < measured["recall at critical"] <= 1 and 0 <= measured["precision at critical"] <= 1
    # Every tier was written, none past its default capacity (the session's was compressed on the way).
    assert all(0 < measured[f"storage, {tier.value} tier (fill)"] <= 1 for tier in Tier)
    assert result["size"] == 300 and result["questions"] == 3 and result["writes"] == 16
    page = out.with_suffix(".md").read_text()
    assert page.startswith("# seed") and "| read p50, 1 client (ms) |" in page
    # The run's writer and the sets' conversations are gone; the store's tenants stay for the next run.
    records, _, _ = clean_db.driver.execute_query(
        "MATCH (m:Memory) WHERE NOT m.userId STARTS WITH 'mix-' RETURN count(m) AS n", database_=clean_db.database)
    assert records[0]["n"] == 0
