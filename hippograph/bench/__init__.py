"""Benchmarks: recall quality on LoCoMo, recall latency at growing store sizes, the API under load and under attack.

``hippograph bench locomo | fit | latency | writes | api | fuzz`` each write a JSON result and, next to
it, a markdown report with plots; ``REPORT.md`` in the same folder gathers every
result found there (``hippograph.bench.report``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from hippograph.config import ConfigError, Settings


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The ``bench`` command group."""
    bench = sub.add_parser("bench", help="benchmarks: LoCoMo recall quality, weight fitting, recall latency")
    kinds = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")

    locomo = kinds.add_parser("locomo", help="recall quality on LoCoMo-format data: bm25, vector, izanagi, hanzo, hybrid")
    locomo.add_argument("--data", action="append", required=True, metavar="FILE", help="a LoCoMo-format JSON file (repeatable)")
    locomo.add_argument("--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)")
    locomo.add_argument("--lifecycle", action="store_true",
                        help="play each conversation through the session lifecycle (summaries, facts, consolidation) first")
    locomo.add_argument("--transcript-budget", type=int, default=1024, metavar="TOKENS",
                        help="with --lifecycle: the transcript budget whose 75%% triggers summarisation (default 1024)")

    writes = kinds.add_parser("writes", help="write path: remember latency, bulk import against raw embedding throughput")
    writes.add_argument("--data", action="append", required=True, metavar="FILE", help="LoCoMo-format texts (repeatable)")
    writes.add_argument("--singles", type=int, default=300, help="single remembers timed (default 300)")
    writes.add_argument("--bulk", type=int, default=2000, help="memories bulk-imported (default 2000)")
    writes.add_argument("--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)")

    fit = kinds.add_parser("fit", help="fit the hybrid profile's weights on LoCoMo-format development data")
    fit.add_argument("--data", action="append", required=True, metavar="FILE", help="a LoCoMo-format JSON file (repeatable)")
    fit.add_argument("--out", required=True, metavar="RESULT.json", help="where the fitted weights and checks go")
    fit.add_argument("--ship", action="store_true",
                     help="also write the fit where the hybrid profile reads its weights (hippograph/resources/hybrid_fit.json)")

    latency = kinds.add_parser("latency", help="recall latency at growing store sizes, with scoped exactness")
    latency.add_argument("--sizes", default="10000,100000", help="store sizes, comma-separated (default 10000,100000)")
    latency.add_argument("--data", action="append", required=True, metavar="FILE", help="LoCoMo-format texts to fill the store (repeatable)")
    latency.add_argument("--queries", type=int, default=200, help="recalls timed per size (default 200)")
    latency.add_argument("--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)")

    api = kinds.add_parser("api", help="a real `hippograph serve` under load: recall latency, throughput, no lost write")
    api.add_argument("--memories", type=int, default=100_000, help="store size, over 100 users (default 100000; reused when present)")
    api.add_argument("--clients", type=int, default=32, help="concurrent clients (default 32)")
    api.add_argument("--seconds", type=float, default=60, help="duration of the concurrent phase (default 60)")
    api.add_argument("--queries", type=int, default=300, help="single-client recalls timed (default 300)")
    api.add_argument("--write-seconds", type=float, default=30, help="duration of each writers-only case "
                                                                     "(1 user × 8 clients, 1 × 32, 32 × 32; default 30, 0 skips them)")
    api.add_argument("--data", action="append", required=True, metavar="FILE", help="LoCoMo-format texts and questions (repeatable)")
    api.add_argument("--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)")

    fuzz = kinds.add_parser("fuzz", help="hostile requests made from the schema: no 5xx, no INTERNAL_SERVER_ERROR, "
                                         "no state change by a refused request; exit 1 if any check failed")
    fuzz.add_argument("--requests", type=int, default=5000, help="requests sent (default 5000)")
    fuzz.add_argument("--seed", type=int, default=1, help="seed of the request generator (default 1)")
    fuzz.add_argument("--bomb-depth", type=int, default=30, help="deepest fragment bomb sent (default 30)")
    fuzz.add_argument("--url", help="a running server (default: start one); needs --key, and the same Neo4j")
    fuzz.add_argument("--key", help="with --url: the API key of the user to fuzz as (its memory is written to)")
    fuzz.add_argument("--out", required=True, metavar="RESULT.json", help="where the JSON result goes (report beside it)")
    bench.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from hippograph.bench import report
    from hippograph.memory.services import open_services

    if args.bench == "fuzz" and (args.url is None) != (args.key is None):
        raise ConfigError("--url and --key go together: a running server and the key to fuzz it with")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    with open_services(settings) as services:
        if args.bench == "locomo" and args.lifecycle:
            from hippograph.bench import lifecycle, locomo

            result = lifecycle.evaluate(services, locomo.load(args.data), transcript_budget=args.transcript_budget,
                                        progress=progress)
        elif args.bench == "locomo":
            from hippograph.bench import locomo

            result = locomo.evaluate(services, locomo.load(args.data), progress=progress)
        elif args.bench == "writes":
            from hippograph.bench import latency, writes

            result = writes.run(services, [Path(p) for p in args.data], args.singles, args.bulk)
        elif args.bench == "fit":
            from hippograph.bench import fit, locomo
            from hippograph.memory.recall.profiles import PROFILES

            rows = fit.extract(services, locomo.load(args.data), progress=progress)
            result = fit.fit(rows, floor=PROFILES["hybrid"].gates.summary_above)
            result["data"] = [Path(p).name for p in args.data]
        elif args.bench == "fuzz":
            from hippograph.bench import fuzz

            result = fuzz.run_bench(services, args.requests, args.seed, args.bomb_depth, args.url, args.key, progress)
        elif args.bench == "api":
            from hippograph.bench import api, latency

            result = api.run(services, args.memories, args.clients, args.seconds, args.data,
                             args.queries, args.write_seconds, progress=progress)
        else:
            from hippograph.bench import latency

            sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
            result = latency.run(services, sizes, args.data, args.queries, progress=progress)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    if args.bench == "fit" and args.ship:
        from hippograph.memory.recall.profiles import HYBRID_FIT

        shutil.copyfile(out, HYBRID_FIT)
    if args.bench == "api":
        from hippograph.bench import api

        written = api.write_report(out, result)
    elif args.bench == "fuzz":
        from hippograph.bench import fuzz

        written = fuzz.write_report(out, result)
    elif args.bench == "writes":
        from hippograph.bench import writes

        written = [out.with_suffix(".md")]
        written[0].write_text(writes.report(result))
        written.append(report.gather(out.parent))
    elif args.bench == "locomo" and args.lifecycle:
        from hippograph.bench import lifecycle

        raw = out.parent / "locomo.json"
        written = [out.with_suffix(".md")]
        written[0].write_text(lifecycle.page(result, json.loads(raw.read_text()) if raw.exists() else None))
        written.append(report.gather(out.parent))
    else:
        written = report.write(out, args.bench, result)
    print(f"wrote {out} and {', '.join(str(p) for p in written)}")
    if args.bench == "fuzz" and not result["passed"]:
        from hippograph.bench import fuzz

        print(fuzz.failed(result), file=sys.stderr)
        return 1
    return 0
