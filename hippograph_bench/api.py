"""The API under load: a real ``hippograph serve`` answering GraphQL over HTTP.

``hippograph bench api --memories N --clients C --seconds S`` measures what a
caller of the service sees, HTTP and GraphQL included:

1. **The store.** ``N`` distinct memories over tenants of mixed sizes, the store
   ``bench latency`` measures (``hippograph_bench.store``: through ``bulk_import``),
   reused when present and completed when cut short. The benchmark user is
   ``BENCH_USER``, a tenant holding 2 % of the store (2,000 memories at 100,000);
   an API key is issued for it through ``hippograph.memory.keys``.
2. **The server.** ``hippograph serve`` in a subprocess on a free loopback port,
   against the same Neo4j, awaited on ``/readyz``. Its project capacity is
   raised (``HIPPOGRAPH_PROJECT_CAPACITY``) so that compression never deletes a
   benchmark write: the write check below is then exact.
   Requests and their reading are ``hippograph_bench.load``.
3. **One client.** ``--queries`` ``recall`` queries (distinct questions of the sets,
   ``CRITICAL`` priority, the default profile) one after another, after a
   warm-up: latency p50/p95/p99 as the client measures it, next to the
   server's own ``timings``.
4. **Many clients.** ``--clients`` threads, one ``httpx.Client`` each, for
   ``--seconds``: 80 % ``recall``, 20 % ``remember`` (a text of the store's pool
   plus a unique marker, PROJECT tier of a project of this run). Throughput, latency
   per kind, and every error: transport, HTTP status, GraphQL ``errors``, and a
   ``remember`` answering an error type of its union.
5. **No lost write.** Every ``remember`` that returned a memory id is looked up
   by id in Neo4j through the driver, its content checked for its marker:
   acknowledged against found.

Afterwards the server is stopped (always), the run's project is forgotten as a
user forgets one (``forget_project``: its memories and entities), and its API key
revoked, so the store is left as built, for the next run to reuse. What stays:
access bookkeeping (``accessCount``, ``lastAccessedAt``) on the memories
``BENCH_USER``'s recalls returned, the run's audit lines (a tombstone among them) and
the revoked key.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

from hippograph.config import ConfigError
from hippograph.memory import keys
from hippograph.memory.errors import NotFound
from hippograph.memory.services import Services
from hippograph.memory.writing.forget import forget_project
from hippograph_bench import inspection, report
from hippograph_bench.data import load
from hippograph_bench.load import (
    ERROR_EXAMPLES,
    TARGET_P95_MS,
    WARM_UP,
    WRITE_SHARE,
    Sample,
    concurrent,
    single,
    summarise,
)
from hippograph_bench.server import running_server
from hippograph_bench.store import BENCH_WRITES as PROJECT_PREFIX
from hippograph_bench.store import grow, held, tenants
from hippograph_bench.texts import pool

# The recalling user, and the first of the writers: a tenant with 2 % of the store. The writers
# are the 2 % tenants, then the 0.1 % ones (as many as the largest case has users).
BENCH_USER = "mix-2pct-0"
SMALLEST = 1000
# The server's project and session capacities during the run: far above what any run writes, so
# compression never deletes an acknowledged write (which would be by design, not a loss).
PROJECT_CAPACITY = 100_000_000
# Writers only: (users, clients) per case, each client one of the users' keys in turn; writes spread
# over one project's PROJECT tier and this many of its sessions.
WRITER_CASES = ((1, 8), (1, 32), (32, 32))
WRITERS = max(users for users, _ in WRITER_CASES)
WRITER_SESSIONS = 8
WRITER_TARGETS = {
    "one_user_32_clients_writes_per_s": 80.0,
    "one_user_32_clients_p95_ms": 600.0,
    "one_user_8_clients_p95_ms": 150.0,
    "one_user_share_of_many_users": 0.9,
}
THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "TORCH_NUM_THREADS")


def found_writes(
    acknowledged: Mapping[str, str | None],
    records: Iterable[Mapping[str, Any]],
    owners: Mapping[str, str],
) -> set[str]:
    """The acknowledged ids among ``records`` (id, userId, content) that belong to the user they were
    acknowledged to (``owners``: id → user) and hold their marker."""
    found = set()
    for r in records:
        marker = acknowledged.get(r["id"])
        if marker is not None and r["userId"] == owners.get(r["id"]) and f"[{marker}]" in (r["content"] or ""):
            found.add(r["id"])
    return found


# ---------------------------------------------------------------- the run


def run(
    services: Services,
    memories: int,
    clients: int,
    seconds: float,
    data: Sequence[str | Path],
    queries: int = 300,
    write_seconds: float = 30.0,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Build or reuse the store, serve it, load it, check the writes; the JSON result."""
    if memories < SMALLEST:
        raise ConfigError(f"--memories must be at least {SMALLEST}: the store has tenants with 0.1 % of it")
    if clients < 1 or seconds <= 0 or queries < 1 or write_seconds < 0:
        raise ConfigError("--clients, --seconds and --queries must be positive, --write-seconds not negative")
    writer_users = [t.user_id for t in tenants(memories) if t.size_class in ("2%", "0.1%")][:WRITERS]
    conversations = load(data)
    questions = list(dict.fromkeys(q.text for c in conversations for q in c.questions))
    random.Random(5).shuffle(questions)
    texts = pool(data)
    # What the writers write: texts of the pool, each behind a marker of its own.
    turns = [text.content for text in random.Random(7).sample(texts, min(len(texts), 5000))]
    run_id = uuid.uuid4().hex[:8]
    project = f"{PROJECT_PREFIX}{run_id}"
    started = datetime.now(UTC)

    # A crashed earlier run may have left writes; they must not count as store.
    leftovers = _cleanup(services, writer_users, [])
    store = {**grow(services, memories, texts), "distinct_texts": len(texts)}
    counts = held(services, [t.user_id for t in tenants(memories)])
    store["memories"] = sum(counts.values())
    bench_user_memories = counts[BENCH_USER]
    issued_all = {
        user: keys.create_key(services.driver, services.database, user, keys.Role.USER) for user in writer_users
    }
    issued = issued_all[BENCH_USER]
    result: dict[str, Any] = {
        "when": started.isoformat(timespec="seconds"),
        "model": services.embedder.name,
        "encoding": services.embedder.running(),
        "memories": store["memories"],
        "requested": memories,
        "users": len(counts),
        "bench_user": BENCH_USER,
        "bench_user_memories": bench_user_memories,
        "store": store,
        "profile": "hybrid (default)",
        "priority": "critical",
        "targets": {"single_client_p95_ms": TARGET_P95_MS, "errors": 0, "lost_writes": 0},
        "data": [str(p) for p in data],
        "method": (
            f"A real `hippograph serve` (uvicorn, one process) on 127.0.0.1, GraphQL over HTTP/1.1 with httpx, "
            f"API key of `{BENCH_USER}` ({bench_user_memories} of the {store['memories']} distinct memories over "
            f"{len(counts)} tenants of mixed sizes). Single client: {queries} `recall` queries of distinct "
            "questions of "
            "the sets (CRITICAL priority, "
            f"default profile) after {WARM_UP} warm-up ones, one at a time. Concurrent: {clients} threads with "
            f"one httpx.Client each for {seconds:g} s, {1 - WRITE_SHARE:.0%} `recall` / {WRITE_SHARE:.0%} "
            "`remember` (a text of the store's pool plus a unique marker, PROJECT tier of a project of this run; "
            "the server's "
            f"project capacity raised to {PROJECT_CAPACITY} so compression never removes a write). Latency is "
            "client-side, request sent to response parsed. Every acknowledged write is then looked up by id in "
            "Neo4j. Client and server share the machine's 2 cores (load averages below)."
        ),
    }
    if leftovers["projects"]:
        result["store"]["leftovers_removed"] = leftovers
    log = Path(tempfile.mkdtemp(prefix="hippograph-bench-api-")) / "serve.log"
    try:
        with served(log, progress) as (base, ready_s):
            # Thread settings the server inherited change its embedding latency a lot on 2 cores: say which held.
            threads = {name: os.environ[name] for name in THREAD_ENV if name in os.environ}
            result["server"] = {
                "ready_seconds": round(ready_s, 1),
                "document_vectors": services.embedder.documents,
                "env": {
                    "HIPPOGRAPH_PROJECT_CAPACITY": PROJECT_CAPACITY,
                    "HIPPOGRAPH_SESSION_CAPACITY": PROJECT_CAPACITY,
                    **threads,
                },
            }
            # The machine is shared: its load beside each phase says how far the figures are the code's own.
            result["load_average"] = {"before_single": _load()}
            single_questions = questions[: WARM_UP + queries]
            if len(single_questions) < WARM_UP + queries:
                raise ValueError(f"the data holds {len(questions)} distinct questions, fewer than {WARM_UP + queries}")
            result["single"] = single(base, issued.secret, single_questions, progress)
            progress(
                f"single client: p50 {result['single']['latency_ms']['p50']} ms, "
                f"p95 {result['single']['latency_ms']['p95']} ms, p99 {result['single']['latency_ms']['p99']} ms"
            )
            result["load_average"]["before_concurrent"] = _load()
            samples, elapsed = concurrent(
                base,
                [issued.secret] * clients,
                seconds,
                questions[WARM_UP + queries :] or questions,
                turns,
                project,
                run_id,
                progress,
            )
            result["load_average"]["after_concurrent"] = _load()
            if write_seconds:
                result["writers"] = [
                    _writers(
                        services,
                        base,
                        [issued_all[u] for u in writer_users[:users]],
                        clients_of_case,
                        write_seconds,
                        turns,
                        f"{project}-w{users}x{clients_of_case}",
                        run_id,
                        progress,
                    )
                    for users, clients_of_case in WRITER_CASES
                ]
                result["writer_targets"] = WRITER_TARGETS
        result["concurrent"] = {
            "clients": clients,
            "seconds": seconds,
            "write_share": WRITE_SHARE,
            **summarise(samples, elapsed),
        }
        result["writes"] = _verify(services, samples, project, lambda _: BENCH_USER)
        c = result["concurrent"]
        # The server's log is kept only when something went wrong (the progress line names it).
        shutil.rmtree(log.parent, ignore_errors=True)
        progress(
            f"concurrent: {c['throughput_rps']} req/s, recall p95 {c['by_kind']['recall']['latency_ms'].get('p95')} "
            f"ms, remember p95 {c['by_kind']['remember']['latency_ms'].get('p95')} ms, "
            f"{c['errors']['total']} errors; writes acknowledged {result['writes']['acknowledged']}, "
            f"found {result['writes']['found']}"
        )
    finally:
        result["cleanup"] = _cleanup(services, writer_users, [key.record["id"] for key in issued_all.values()])
        result["cleanup"]["store_left_for_reuse"] = True
    return result


def _writers(
    services: Services,
    base: str,
    issued: Sequence[keys.IssuedKey],
    clients: int,
    seconds: float,
    turns: Sequence[str],
    project: str,
    run_id: str,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """Writes only: ``clients`` clients over the users of ``issued`` in turn, into ``project``'s
    PROJECT tier and WRITER_SESSIONS of its sessions; throughput, latency, errors, every write checked."""
    per_client = [issued[i % len(issued)] for i in range(clients)]
    owner = [key.record["userId"] for key in per_client]
    samples, elapsed = concurrent(
        base,
        [key.secret for key in per_client],
        seconds,
        [],
        turns,
        project,
        f"{run_id}-{len(issued)}x{clients}",
        progress,
        write_share=1.0,
        sessions=WRITER_SESSIONS,
    )
    summary = summarise(samples, elapsed)
    case = {
        "users": len(issued),
        "clients": clients,
        "seconds": seconds,
        "sessions": WRITER_SESSIONS,
        "elapsed_s": summary["elapsed_s"],
        "remember": summary["by_kind"]["remember"],
        "errors": summary["errors"],
        "writes": _verify(services, samples, project, lambda client: owner[client]),
        "load_average_after": _load(),
    }
    r = case["remember"]
    progress(
        f"writers, {len(issued)} user(s) × {clients} clients: {r['throughput_rps']} writes/s, "
        f"p50 {r['latency_ms'].get('p50')} ms, p95 {r['latency_ms'].get('p95')} ms, {r['errors']} errors; "
        f"acknowledged {case['writes']['acknowledged']}, found {case['writes']['found']}"
    )
    return case


@contextmanager
def served(log: Path, progress: Callable[[str], None]) -> Iterator[tuple[str, float]]:
    """The benchmark's server: capacities raised so that nothing it writes is compressed away."""
    with running_server(
        log,
        {"HIPPOGRAPH_PROJECT_CAPACITY": str(PROJECT_CAPACITY), "HIPPOGRAPH_SESSION_CAPACITY": str(PROJECT_CAPACITY)},
    ) as server:
        progress(f"hippograph serve on {server.base} (pid {server.process.pid}, log {log})")
        yield server.base, server.ready_seconds
    progress(f"hippograph serve stopped (exit {server.process.returncode})")


def _load() -> list[float]:
    """The 1, 5 and 15 minute load averages (2 cores: above 2 means work waits for a core)."""
    return [round(v, 2) for v in os.getloadavg()]


def _verify(services: Services, samples: Sequence[Sample], project: str, owner: Callable[[int], str]) -> dict[str, Any]:
    """Every acknowledged write looked up by id: found when it exists, is its client's user's
    (``owner``) and holds its marker."""
    # (id, sample) of each acknowledged write: an acknowledged remember always names its memory.
    written = [
        (memory_id, s)
        for s in samples
        if s.kind == "remember" and s.outcome.error is None and (memory_id := s.outcome.memory_id)
    ]
    acknowledged = {memory_id: s.marker for memory_id, s in written}
    owners = {memory_id: owner(s.client) for memory_id, s in written}
    deleted = {d for s in samples for d in s.outcome.deleted}
    found: set[str] = set()
    ids = list(acknowledged)
    with services.driver.session(database=services.database) as session:
        for start in range(0, len(ids), 1000):
            records = session.execute_read(inspection.memories_by_id, ids[start : start + 1000])
            found |= found_writes(acknowledged, records, owners)
        in_project = sum(
            session.execute_read(inspection.project_memory_count, user, project)
            for user in {owner(s.client) for s in samples}
        )
    attempted = sum(1 for s in samples if s.kind == "remember")
    missing = sorted(set(ids) - found)
    return {
        "attempted": attempted,
        "acknowledged": len(acknowledged),
        "found": len(found),
        "missing": len(missing),
        "missing_examples": missing[:ERROR_EXAMPLES],
        "deleted_by_compression": len(deleted),
        # Stored but never acknowledged (a client timing out after the commit): not a loss, but worth seeing.
        "stored_unacknowledged": max(0, in_project - len(found)),
        "in_project": in_project,
    }


def _cleanup(services: Services, users: Sequence[str], key_ids: Sequence[str]) -> dict[str, Any]:
    """Forget the benchmark's projects of ``users`` (every run's, as a user forgets a project) and revoke this
    run's keys."""
    counts = {"projects": 0, "memories": 0, "entities": 0}
    for user in users:
        with services.driver.session(database=services.database) as session:
            projects = session.execute_read(inspection.projects_named, user, PROJECT_PREFIX)
        for project in projects:
            try:
                gone = forget_project(services, user, project, by="bench api")
            except NotFound:  # forgotten meanwhile
                continue
            counts["projects"] += 1
            counts["memories"] += gone.memories
            counts["entities"] += gone.entities
    for key_id in key_ids:
        keys.revoke_key(services.driver, services.database, key_id)
    if key_ids:
        counts["api_keys_revoked"] = len(key_ids)
    return counts


# ---------------------------------------------------------------- the report


def section(result: dict[str, Any], plot: str | None = None) -> str:
    """The markdown section of an API benchmark result."""
    single, conc, writes = result["single"], result.get("concurrent"), result.get("writes")
    s = single["latency_ms"]
    text = [
        "## The API under load\n",
        result.get("method", "") + "\n",
        f"Store: {result['memories']} memories ({'reused' if result['store'].get('reused') else 'built'}); "
        f"benchmark user `{result['bench_user']}` owns {result['bench_user_memories']}. "
        f"Measured {result['when']} with `{result['model']}`. {report.encoding(result)}\n",
        f"Single client, {single['queries']} `recall` queries "
        f"(ms; target p95 ≤ {result['targets']['single_client_p95_ms']:g}):\n",
        report._table(
            ["measured at", "p50", "p95", "p99", "mean", "max"],
            [
                ["client (HTTP + GraphQL)", s["p50"], s["p95"], s["p99"], s["mean"], s["max"]],
                *[
                    [f"server: {part}", v.get("p50"), v.get("p95"), v.get("p99"), v.get("mean"), v.get("max")]
                    for part, v in single["server_ms"].items()
                    if v.get("n")
                ],
            ],
        ),
    ]
    if conc:
        rows = []
        for kind, k in conc["by_kind"].items():
            lat = k["latency_ms"]
            rows.append(
                [kind, k["requests"], k["throughput_rps"], lat.get("p50"), lat.get("p95"), lat.get("p99"), k["errors"]]
            )
        rows.append(["all", conc["requests"], conc["throughput_rps"], "", "", "", conc["errors"]["total"]])
        text.append(
            f"{conc['clients']} concurrent clients for {conc['seconds']:g} s "
            f"({conc['elapsed_s']} s until the last answer), {1 - conc['write_share']:.0%} recall / "
            f"{conc['write_share']:.0%} remember:\n"
        )
        text.append(report._table(["kind", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors"], rows))
        repeats = conc["by_kind"]["recall"].get("repeated_queries", 0)
        if repeats:
            first = conc["by_kind"]["recall"].get("first_asked_latency_ms", {})
            again = conc["by_kind"]["recall"].get("repeated_latency_ms", {})
            text.append(
                f"{repeats} of the concurrent recalls repeated a question already asked (the data's questions "
                "ran out), so the server's embedding cache may have answered their embedding: recall p50/p95 "
                f"{first.get('p50')}/{first.get('p95')} ms for questions asked the first time, "
                f"{again.get('p50')}/{again.get('p95')} ms for repeats.\n"
            )
        if conc["errors"]["total"]:
            text.append("Errors: " + ", ".join(f"{k}: {v}" for k, v in conc["errors"]["by_type"].items()) + "\n")
    if writes:
        text.append(
            f"Writes: {writes['attempted']} attempted, **{writes['acknowledged']} acknowledged, "
            f"{writes['found']} found** in Neo4j by id ({writes['missing']} missing, "
            f"{writes['deleted_by_compression']} removed by compression, "
            f"{writes['stored_unacknowledged']} stored without acknowledgement).\n"
        )
    if result.get("writers"):
        vectors = result.get("server", {}).get("document_vectors", "float32")
        text.append(f"Memories encoded as {vectors} (`HIPPOGRAPH_DOCUMENT_VECTORS`).\n")
        text.append(writers_section(result["writers"], result["writer_targets"]))
    env = {k: v for k, v in result.get("server", {}).get("env", {}).items() if k in THREAD_ENV}
    text.append(
        "Server thread settings: "
        + (
            ", ".join(f"`{k}={v}`" for k, v in env.items())
            if env
            else "none set (torch threads per inference: `HIPPOGRAPH_EMBEDDING_THREADS`, default 1)"
        )
        + ".\n"
    )
    if result.get("load_average"):
        text.append(
            "Load average of the 2-core machine (1/5/15 min): "
            + "; ".join(
                f"{when.replace('_', ' ')} {'/'.join(str(v) for v in values)}"
                for when, values in result["load_average"].items()
            )
            + ".\n"
        )
    if "cleanup" in result:
        text.append(
            "Afterwards the run's project was forgotten ("
            + ", ".join(f"{k}: {v}" for k, v in result["cleanup"].items() if k != "store_left_for_reuse")
            + "); the store is left for the next run to reuse.\n"
        )
    return "\n".join(text)


def writers_section(cases: Sequence[Mapping[str, Any]], targets: Mapping[str, float]) -> str:
    """The writers-only cases side by side, and how they stand against the targets."""
    rows = []
    for case in cases:
        r, w = case["remember"], case["writes"]
        lat = r["latency_ms"]
        rows.append(
            [
                f"{case['users']} user{'s' if case['users'] > 1 else ''}, {case['clients']} clients",
                r["requests"],
                r["throughput_rps"],
                lat.get("p50"),
                lat.get("p95"),
                lat.get("p99"),
                r["errors"],
                w["acknowledged"],
                w["found"],
                w["missing"],
            ]
        )
    by = {(c["users"], c["clients"]): c["remember"] for c in cases}
    text = [
        f"Writers only, {cases[0]['seconds']:g} s per case: each client sends `remember` after `remember`, in "
        f"turn to one project's PROJECT tier and {cases[0]['sessions']} of its sessions; the clients use the "
        "users' keys in turn. Every acknowledged write is then looked up by id, as its own user's.\n",
        report._table(
            ["case", "writes", "writes/s", "p50 ms", "p95 ms", "p99 ms", "errors", "acknowledged", "found", "missing"],
            rows,
        ),
    ]
    one32, one8, many = by.get((1, 32)), by.get((1, 8)), by.get((32, 32))
    if one32 and one8 and many:
        share = one32["throughput_rps"] / many["throughput_rps"] if many["throughput_rps"] else None
        text.append(
            f"Targets: one user at 32 clients ≥ {targets['one_user_32_clients_writes_per_s']:g} writes/s "
            f"(measured {one32['throughput_rps']}) with p95 ≤ {targets['one_user_32_clients_p95_ms']:g} ms "
            f"(measured {one32['latency_ms'].get('p95')}); one user at 8 clients p95 ≤ "
            f"{targets['one_user_8_clients_p95_ms']:g} ms (measured {one8['latency_ms'].get('p95')}); one user within "
            f"{1 - targets['one_user_share_of_many_users']:.0%} of 32 users' throughput (measured "
            f"{'n/a' if share is None else f'{share:.2f}'} of it).\n"
        )
    return "\n".join(text)


def write_report(out: Path, result: dict[str, Any]) -> list[Path]:
    """``<out>.md`` beside the JSON, then REPORT.md refreshed through ``report.gather``."""
    page = out.with_suffix(".md")
    page.write_text("# api\n\n" + section(result))
    return [page, report.gather(out.parent)]
