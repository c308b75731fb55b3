"""``hippograph bench …``: the subcommand the benchmarks add to the product's CLI (the entry point
``hippograph.commands: bench`` in pyproject.toml). Each benchmark writes a JSON result and, beside it,
a markdown page with plots; ``REPORT.md`` in the same folder gathers them (``hippograph_bench.report``).
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.util import find_spec
from pathlib import Path

from hippograph.config import TRANSCRIPT_TRIGGER, ConfigError, Settings

# What the `bench` extra installs, and the benchmarks import.
EXTRA = ("matplotlib", "httpx")
DATA_HELP = "a LoCoMo-format JSON file, or its .json.xz (repeatable: each file a set, reported apart and together)"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``bench`` command group."""
    bench = sub.add_parser(
        "bench", help="benchmarks: recall quality, weight fitting, recall latency, the API under load"
    )
    kinds = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")

    locomo = kinds.add_parser(
        "locomo", help="recall quality on LoCoMo-format sets: bm25, vector, izanagi, hanzo, hybrid"
    )
    locomo.add_argument("--data", action="append", required=True, metavar="FILE", help=DATA_HELP)
    locomo.add_argument(
        "--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)"
    )
    locomo.add_argument(
        "--conversations",
        type=int,
        metavar="N",
        help="at most N conversations of each file, evenly spread over it (default: all; "
        "a LongMemEval file holds one haystack a question)",
    )
    locomo.add_argument(
        "--lifecycle",
        action="store_true",
        help="play each conversation through the session lifecycle (summaries, facts, consolidation) first",
    )
    locomo.add_argument(
        "--transcript-budget",
        type=int,
        default=1024,
        metavar="TOKENS",
        help=f"with --lifecycle: the transcript budget whose {TRANSCRIPT_TRIGGER * 100:.0f}%% triggers summarisation "
        "(default 1024)",
    )

    writes = kinds.add_parser(
        "writes", help="write path: remember latency, bulk import against raw embedding throughput"
    )
    writes.add_argument(
        "--data", action="append", required=True, metavar="FILE", help="LoCoMo-format texts (repeatable)"
    )
    writes.add_argument("--singles", type=int, default=300, help="single remembers timed (default 300)")
    writes.add_argument("--bulk", type=int, default=2000, help="memories bulk-imported (default 2000)")
    writes.add_argument(
        "--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)"
    )

    fit = kinds.add_parser("fit", help="fit the hybrid profile's weights on LoCoMo-format development sets")
    fit.add_argument("--data", action="append", required=True, metavar="FILE", help=DATA_HELP)
    fit.add_argument("--out", required=True, metavar="RESULT.json", help="where the fitted weights and checks go")
    fit.add_argument(
        "--conversations",
        type=int,
        metavar="N",
        help="at most N conversations of each file, evenly spread over it (default: all)",
    )
    fit.add_argument(
        "--ship",
        metavar="FILE",
        help="also write the fit to FILE, for the hybrid profile to read (in a checkout: "
        "hippograph/resources/hybrid_fit.json): every fusion it ships, questions, keyword "
        "queries and statements, each fitted on its own queries",
    )
    fit.add_argument(
        "--rows",
        metavar="ROWS.npz",
        help="the extracted rows: read from ROWS.npz when it exists (no extraction), else "
        "extracted and written there; a later fit of the same data and model starts from them",
    )

    regather = kinds.add_parser(
        "report",
        help="write each FOLDER's REPORT.md again from the results in it "
        "(after a change to the report, or of the default model)",
    )
    regather.add_argument("folders", nargs="+", metavar="FOLDER")

    seed = kinds.add_parser(
        "seed",
        help="the Izanagi spec's metric table in one run: read and write latency (one "
        "client and 8), precision and recall at critical, storage per tier, each beside its target",
    )
    seed.add_argument(
        "--size", type=int, default=100_000, help="the store's size, grown as bench latency grows it (default 100000)"
    )
    seed.add_argument(
        "--data",
        action="append",
        required=True,
        metavar="FILE",
        help="LoCoMo-format files: their turns fill the store and are written, their questions asked (repeatable)",
    )
    seed.add_argument("--reads", type=int, default=200, help="recalls timed per tenant class (default 200)")
    seed.add_argument("--writes", type=int, default=200, help="remembers timed per client count (default 200)")
    seed.add_argument(
        "--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)"
    )

    deadlines = kinds.add_parser(
        "deadlines",
        help="how soon answers come when answering is hard: a start, hostile "
        "requests, a burst stuck past its deadline, Neo4j unreachable",
    )
    deadlines.add_argument("--out", required=True, metavar="RESULT.json", help="where the JSON result goes")
    latency = kinds.add_parser(
        "latency", help="recall latency on a store of distinct memories at growing sizes, with scoped exactness"
    )
    latency.add_argument("--sizes", default="10000,100000", help="store sizes, comma-separated (default 10000,100000)")
    latency.add_argument(
        "--data",
        action="append",
        required=True,
        metavar="FILE",
        help="LoCoMo-format files whose turns fill the store and whose questions are asked (repeatable)",
    )
    latency.add_argument("--queries", type=int, default=200, help="recalls timed per size (default 200)")
    latency.add_argument(
        "--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)"
    )

    api = kinds.add_parser(
        "api", help="a real `hippograph serve` under load: recall latency, throughput, no lost write"
    )
    api.add_argument(
        "--memories",
        type=int,
        default=100_000,
        help="store size (default 100000; the store of `bench latency`, reused when present)",
    )
    api.add_argument("--clients", type=int, default=32, help="concurrent clients (default 32)")
    api.add_argument("--seconds", type=float, default=60, help="duration of the concurrent phase (default 60)")
    api.add_argument("--queries", type=int, default=300, help="single-client recalls timed (default 300)")
    api.add_argument(
        "--write-seconds",
        type=float,
        default=30,
        help="duration of each writers-only case (1 user × 8 clients, 1 × 32, 32 × 32; default 30, 0 skips them)",
    )
    api.add_argument(
        "--data", action="append", required=True, metavar="FILE", help="LoCoMo-format texts and questions (repeatable)"
    )
    api.add_argument(
        "--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)"
    )

    langgraph = kinds.add_parser(
        "langgraph",
        help="LangGraph's store on a real server beside InMemoryStore: put, "
        "get and search p50 / p95, and where a put's time goes; the Agents "
        "SDK's session beside SQLiteSession: add_items, get_items",
    )
    langgraph.add_argument(
        "--items", type=int, default=200, help="items put, put again, got; session items added (default 200)"
    )
    langgraph.add_argument(
        "--searches", type=int, default=50, help="searches with a query; get_items of each kind (default 50)"
    )
    langgraph.add_argument(
        "--out", required=True, metavar="RESULT.json", help="where the JSON result goes (page beside it)"
    )

    soak = kinds.add_parser(
        "soak",
        help="a server and its own Neo4j under mixed traffic for a long while, each "
        "killed (kill -9) in turn: nothing acknowledged lost, no 5xx outside the "
        "outages, memory and sockets not growing",
    )
    soak.add_argument("--minutes", default="60", help="how long the traffic runs (minutes, or with s/m/h; default 60)")
    soak.add_argument(
        "--kill-every",
        default="10",
        help="a kill every this long, the server then Neo4j in turn (minutes, or with s/m/h; default 10)",
    )
    soak.add_argument("--users", type=int, default=4, help="users, an API key each (default 4)")
    soak.add_argument(
        "--clients", type=int, default=8, help="concurrent clients, over the users' keys in turn (default 8)"
    )
    soak.add_argument(
        "--state-dir",
        metavar="DIR",
        help="the soak's own Neo4j lives here (default: soak under the state folder, HIPPOGRAPH_STATE_DIR)",
    )
    soak.add_argument("--bolt-port", type=int, help="its Bolt port (default: a free one)")
    soak.add_argument("--http-port", type=int, help="its HTTP port (default: a free one)")
    soak.add_argument(
        "--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report and plot beside it)"
    )
    bench.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if missing := [name for name in EXTRA if find_spec(name) is None]:
        raise ConfigError(
            f"the benchmarks need {', '.join(missing)}, which the bench extra installs: "
            "pip install 'hippograph[bench]' (in a checkout, make setup)"
        )
    from hippograph.operations.services import open_services
    from hippograph.progress import opening
    from hippograph_bench import report

    if args.bench == "report":
        print(f"wrote {', '.join(str(report.gather(Path(folder))) for folder in args.folders)}")
        return 0
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.bench == "soak":
        # The soak starts (and kills) its own Neo4j: the configured one is not touched.
        from hippograph_bench import soak

        result = soak.run(
            settings,
            soak.duration_minutes(args.minutes),
            soak.duration_minutes(args.kill_every),
            args.users,
            args.clients,
            Path(args.state_dir) if args.state_dir else settings.state_dir / "soak",
            args.bolt_port,
            args.http_port,
            progress,
        )
        out.write_text(json.dumps(result, indent=2, default=str) + "\n")
        written = soak.write_report(out, result)
        print(f"wrote {out} and {', '.join(str(p) for p in written)}")
        if not result["passed"]:
            print(
                "soak checks failed: " + ", ".join(name for name, c in result["checks"].items() if not c["passed"]),
                file=sys.stderr,
            )
        return 0 if result["passed"] else 1
    opening(f"bench {args.bench}", settings.embedding_model)
    with open_services(settings) as services:
        # A store the service would not serve (migrations pending, another model's vectors) is refused here,
        # at once: `bench latency` on a store never migrated wrote its 10,000 memories, then failed on the
        # missing vector index.
        if (reason := services.readiness()) is not None:
            raise ConfigError(f"the store is not ready for a benchmark: {reason}")
        if args.bench == "locomo" and args.lifecycle:
            from hippograph_bench import data, lifecycle

            result = lifecycle.evaluate(
                services, data.load_sets(args.data, args.conversations), transcript_budget=args.transcript_budget
            )
        elif args.bench == "locomo":
            from hippograph_bench import data, locomo

            result = locomo.evaluate(services, data.load_sets(args.data, args.conversations))
        elif args.bench == "writes":
            from hippograph_bench import writes

            result = writes.run(services, [Path(p) for p in args.data], args.singles, args.bulk)
        elif args.bench == "fit":
            from hippograph.memory.recall.profiles import PROFILES
            from hippograph_bench import data, fit

            rows_file = Path(args.rows) if args.rows else None
            if rows_file and rows_file.exists():
                rows = fit.load(rows_file, settings.embedding_model)
            else:
                rows = fit.extract(services, data.load_sets(args.data, args.conversations))
                if rows_file:
                    fit.save(rows, rows_file, settings.embedding_model)
            result = fit.fit(rows, floor=PROFILES["hybrid"].gates.summary_above)
            result["data"] = [Path(p).name for p in args.data]
            result["model"] = settings.embedding_model
        elif args.bench == "api":
            from hippograph_bench import api

            result = api.run(
                services,
                args.memories,
                args.clients,
                args.seconds,
                args.data,
                args.queries,
                args.write_seconds,
                progress=progress,
            )
        elif args.bench == "langgraph":
            from hippograph_bench import langgraph

            result = langgraph.run(services, args.items, args.searches, progress)
        elif args.bench == "seed":
            from hippograph_bench import seed

            result = seed.run(services, args.size, args.data, args.reads, args.writes, progress)
        elif args.bench == "deadlines":
            from hippograph_bench import deadlines

            result = deadlines.run(services, progress=progress)
        else:
            from hippograph_bench import latency

            sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
            result = latency.run(services, sizes, args.data, args.queries)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    shipped = []
    if args.bench == "fit" and args.ship:
        ship = Path(args.ship)
        ship.write_text(json.dumps(result, indent=2, default=str) + "\n")
        shipped.append(ship)
    if args.bench == "api":
        from hippograph_bench import api

        written = api.write_report(out, result)
    elif args.bench == "writes":
        from hippograph_bench import writes

        written = [out.with_suffix(".md")]
        written[0].write_text(writes.report(result))
        written.append(report.gather(out.parent))
    elif args.bench == "locomo" and args.lifecycle:
        from hippograph_bench import lifecycle

        raw = out.parent / "locomo.json"
        written = [out.with_suffix(".md")]
        written[0].write_text(lifecycle.page(result, json.loads(raw.read_text()) if raw.exists() else None))
        written.append(report.gather(out.parent))
    elif args.bench == "seed":
        from hippograph_bench import seed

        written = [out.with_suffix(".md")]
        written[0].write_text(seed.report(result))
        written.append(report.gather(out.parent))
    elif args.bench == "langgraph":
        from hippograph_bench import langgraph

        written = [out.with_suffix(".md")]
        written[0].write_text(langgraph.report(result))
    elif args.bench == "deadlines":
        written = []
    else:
        written = report.write(out, args.bench, result)
    print(f"wrote {', '.join(str(p) for p in [out, *written, *shipped])}")
    return 0
