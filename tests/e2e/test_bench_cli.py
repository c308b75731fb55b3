"""`hippograph bench` as a user runs it: the benchmarks come from their own package through the CLI's
entry points, say so when they are not there, a fit is shipped only where the user names, and a short
soak (its own Neo4j and server, each killed once under traffic) loses nothing it acknowledged."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import hippograph
from hippograph.memory.recall.profiles import HYBRID_FIT
from api_client import HIPPOGRAPH, hippograph_here

FIXTURE = Path(__file__).parents[1] / "fixtures" / "bench" / "longmemeval-tiny.json"
# The CLI's main, run with the benchmarks' package out of reach, as in an install without them.
WITHOUT_BENCH = ("import sys; sys.modules['hippograph_bench'] = None; "
                 "from hippograph.cli import main; sys.exit(main(sys.argv[1:]))")


def test_nothing_in_the_product_imports_the_benchmarks() -> None:
    package = Path(hippograph.__file__).parent
    importing = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            importing += [f"{path.relative_to(package)}: {name}" for name in names if name.split(".")[0] == "hippograph_bench"]
    assert importing == []


def test_the_benchmarks_are_a_command_of_the_cli() -> None:
    result = subprocess.run([HIPPOGRAPH, "bench", "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert all(kind in result.stdout for kind in ("locomo", "fit", "latency", "writes", "api", "soak", "langgraph"))
    assert "fuzz" not in result.stdout


def test_without_the_benchmarks_the_cli_says_how_to_install_them() -> None:
    result = subprocess.run([sys.executable, "-c", WITHOUT_BENCH, "bench", "locomo", "--data", "x.json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "the benchmarks are not installed" in result.stderr and "hippograph[bench]" in result.stderr
    # Every other command is there as before.
    assert subprocess.run([sys.executable, "-c", WITHOUT_BENCH, "migrate", "--help"],
                          capture_output=True, text=True, timeout=120).returncode == 0


@pytest.mark.neo4j
def test_a_fit_is_shipped_to_the_file_named_and_nowhere_else(tmp_path: Path) -> None:
    shipped_before = HYBRID_FIT.read_bytes()
    out, ship = tmp_path / "fit.json", tmp_path / "shipped" / "hybrid_fit.json"
    ship.parent.mkdir()
    ship.write_text(json.dumps({"weights": {}, "styles": {"statement": {"weights": {}}}}))
    # Every fusion hybrid ships is fitted: the questions, each also said as its keywords, and a statement
    # in each haystack (the fixture's questions with one added).
    samples = json.loads(FIXTURE.read_text())
    for sample, said in zip(samples, ("I keep thinking about the soup I cooked.", "The dentist was no fun at all.")):
        sample["qa"].append({**sample["qa"][0], "question": said, "category": 1})
    data = tmp_path / FIXTURE.name
    data.write_text(json.dumps(samples))
    # Through the CLI's main, in this process: what the command writes is tested, not its interpreter's start.
    result = hippograph_here("bench", "fit", "--data", str(data), "--out", str(out), "--ship", str(ship))
    assert result.returncode == 0, result.stderr[-2000:]
    fitted = json.loads(ship.read_text())
    assert fitted == json.loads(out.read_text())
    assert set(fitted["weights"]) == {"vector", "keyword", "relation"}
    assert fitted["sets"]["longmemeval-tiny"]["questions"] == 2
    assert {name: style["questions"] for name, style in fitted["styles"].items()} == {"keywords": 2, "statement": 2}
    assert HYBRID_FIT.read_bytes() == shipped_before


# Two cold starts of the server (its warm-up) are most of it: minutes on a loaded 2-core machine.
@pytest.mark.neo4j
@pytest.mark.timeout(1500)
def test_a_short_soak_loses_nothing_across_a_kill_of_each_part(tmp_path: Path) -> None:
    # Its own Neo4j in tmp_path, on free ports: the session's Neo4j is not touched. Two minutes: the first
    # server lives 54 s, past its 20 s warm-up long enough for its memory and sockets to be judged.
    out = tmp_path / "soak.json"
    result = subprocess.run([HIPPOGRAPH, "bench", "soak", "--minutes", "2", "--kill-every", "0.9", "--users", "2",
                             "--clients", "3", "--state-dir", str(tmp_path / "state"), "--out", str(out)],
                            capture_output=True, text=True, timeout=1400)
    assert result.returncode == 0, result.stderr[-3000:]
    soak = json.loads(out.read_text())
    assert soak["passed"] and all(check["passed"] for check in soak["checks"].values())
    assert [o["part"] for o in soak["outages"]] == ["server", "neo4j"]
    assert all(o["back_to_ready_s"] is not None for o in soak["outages"])
    writes = soak["writes"]
    assert writes["lost"] == 0 and writes["forgotten_still_there"] == 0
    assert writes["memories_found"] == writes["memories_expected"] > 0 and writes["turns_found"] == writes["turns_acknowledged"] > 0
    assert set(soak["requests"]["by_kind"]) == {"remember", "recall", "as_of", "session", "turn", "forget"}
    assert out.with_suffix(".md").read_text().count("| server |") == 1 and out.with_suffix(".png").exists()


@pytest.mark.neo4j
def test_the_langgraph_bench_times_both_stores_and_says_where_a_put_goes(tmp_path: Path) -> None:
    out = tmp_path / "langgraph.json"
    done = subprocess.run([HIPPOGRAPH, "bench", "langgraph", "--items", "6", "--searches", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("bench langgraph: connecting to Neo4j and loading the embedding model")
    result = json.loads(out.read_text())
    for store in ("InMemoryStore", "HippographStore"):
        assert [result["stores"][store][call]["n"] for call in ("put (new key)", "put (same key again)", "get",
                                                               "search (query)")] == [6, 6, 6, 2]
    assert {"Memories", "Remember", "Forget", "ItemScores"} <= set(result["requests"])
    for session in ("SQLiteSession", "HippographSession"):
        assert [result["sessions"][session][call]["n"] for call in ("add_items (one item)", "get_items ()",
                                                                    "get_items (limit=10)")] == [6, 2, 2]
    assert result["requests"]["Remember"]["n"] == 12  # one a put
    page = out.with_suffix(".md").read_text()
    assert "| put (new key) |" in page and "| add_items (one item) |" in page and "Load average" in page
