"""The latency report says what else the measured store held: the index is shared by every user in it."""

from hippograph.bench import report


def _measured(store_memories: int) -> dict:
    spread = {"p50": 10.0, "p95": 20.0, "p99": 30.0, "mean": 12.0}
    only = {
        "recall_ms": spread, "query_ms": spread, "embed_ms": spread,
        "profile": {"dbHits": 100, "rows": 5, "operators": []},
        "exactness": {"overlap@10": 0.5, "min_overlap@10": 0.0, "text_overlap@10": 0.95},
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


def test_exactness_is_reported_by_memory_and_by_text() -> None:
    text = report.section("latency", _measured(1000), None)
    header = next(line for line in text.splitlines() if "exactness@10" in line)
    row = text.splitlines()[text.splitlines().index(header) + 2]
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert (cells["exactness@10"], cells["worst query"], cells["same texts@10"]) == ("0.500", "0.000", "0.950")
