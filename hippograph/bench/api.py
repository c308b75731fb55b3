"""The API under load: a real ``hippograph serve`` answering GraphQL over HTTP.

``hippograph bench api --memories N --clients C --seconds S`` measures what a
caller of the service sees, HTTP and GraphQL included:

1. **The store.** ``N`` memories of LoCoMo turns over 100 users, built by the
   latency benchmark's builder (``hippograph.bench.latency``: each distinct text
   embedded once, its vector reused). The store's own per-user counts are its
   marker: when every user already holds ``N / 100`` memories nothing is
   embedded or written, and a partial store is completed. The benchmark user is
   ``lat-u1`` (1 % of the store: 1,000 memories at 100,000); an API key is
   issued for it through ``hippograph.memory.keys``.
2. **The server.** ``hippograph serve`` in a subprocess on a free loopback port,
   against the same Neo4j, awaited on ``/readyz``. Its project capacity is
   raised (``HIPPOGRAPH_PROJECT_CAPACITY``) so that compression never deletes a
   benchmark write: the write check below is then exact.
3. **One client.** ``--queries`` ``recall`` queries (distinct LoCoMo questions,
   ``CRITICAL`` priority, the default profile) one after another, after a
   warm-up: latency p50/p95/p99 as the client measures it, next to the
   server's own ``timings``.
4. **Many clients.** ``--clients`` threads, one ``httpx.Client`` each, for
   ``--seconds``: 80 % ``recall``, 20 % ``remember`` (a LoCoMo turn plus a
   unique marker, PROJECT tier of a project of this run). Throughput, latency
   per kind, and every error: transport, HTTP status, GraphQL ``errors``, and a
   ``remember`` answering an error type of its union.
5. **No lost write.** Every ``remember`` that returned a memory id is looked up
   by id in Neo4j through the driver, its content checked for its marker:
   acknowledged against found.

Afterwards the server is stopped (always) and the run's writes — memories,
their entities, the run's audit events of the benchmark user, the API key — are
deleted, so the store is left as built, for the next run to reuse. What stays:
access bookkeeping (``accessCount``, ``lastAccessedAt``) on the memories
``lat-u1``'s recalls returned.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

from hippograph.bench import metrics, report
from hippograph.bench.latency import USERS, _grow, user_id
from hippograph.bench.server import running_server
from hippograph.bench.locomo import load
from hippograph.memory import keys
from hippograph.memory.writing.entities import extract_mentions
from hippograph.memory.services import Services

BENCH_USER = user_id(1)
PROJECT_PREFIX = "api-bench-"
WRITE_SHARE = 0.2
WARM_UP = 20
TIMEOUT_S = 30.0
# The server's project capacity during the run: far above what any run writes, so
# compression never deletes an acknowledged write (which would be by design, not a loss).
PROJECT_CAPACITY = 100_000_000
# A hard cap on any one client's requests, besides the clock.
MAX_REQUESTS_PER_CLIENT = 1_000_000
ERROR_EXAMPLES = 10
THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "TORCH_NUM_THREADS")
TARGET_P95_MS = 30.0

RECALL = """
query Recall($query: String!) {
  recall(query: $query, priority: CRITICAL) {
    items { id score tokens }
    totals { items tokens }
    timings { embedMs queryMs totalMs }
  }
}
"""

REMEMBER = """
mutation Remember($input: RememberInput!) {
  remember(input: $input) {
    __typename
    ... on RememberSuccess { memory { id } created duplicateOf compression { deleted archived } }
    ... on UserError { code message }
  }
}
"""

OWNED_BY = """
UNWIND $userIds AS uid
MATCH (m:Memory {userId: uid})
WHERE m.projectId IS NULL OR NOT m.projectId STARTS WITH $prefix
RETURN uid AS userId, count(m) AS n
"""
FIND_WRITES = """
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.userId AS userId, m.content AS content
"""
COUNT_PROJECT = "MATCH (m:Memory {userId: $userId, projectId: $projectId}) RETURN count(m) AS n"
# Cleanup, in auto-commit batches: what this benchmark wrote, and only that.
DELETE_WRITES = """
MATCH (m:Memory {userId: $userId}) WHERE m.projectId STARTS WITH $prefix
CALL (m) { DETACH DELETE m } IN TRANSACTIONS OF 2000 ROWS
"""
DELETE_ENTITIES = """
MATCH (e:Entity {userId: $userId}) WHERE e.scopeKey STARTS WITH $prefix
CALL (e) { DETACH DELETE e } IN TRANSACTIONS OF 2000 ROWS
"""
DELETE_AUDIT = """
MATCH (a:AuditEvent {userId: $userId}) WHERE a.at >= $since
CALL (a) { DELETE a } IN TRANSACTIONS OF 5000 ROWS
"""
DELETE_KEY = "MATCH (k:ApiKey {id: $id}) DETACH DELETE k"


# ---------------------------------------------------------------- pure helpers


@dataclass(frozen=True)
class Outcome:
    """One request as the client saw it: ``error`` is None for a success, else its class."""

    error: str | None = None
    detail: str | None = None
    memory_id: str | None = None
    server_ms: Mapping[str, float] | None = None
    deleted: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sample:
    """One timed request of the concurrent phase."""

    kind: str
    at_s: float
    ms: float
    outcome: Outcome
    marker: str | None = None
    repeat: bool = False


def spread(values: Sequence[float]) -> dict[str, float | int]:
    """p50/p95/p99, mean and max of ``values`` (ms), rounded; only ``n`` when there are none."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        **{p: round(metrics.percentile(values, q), 2) for p, q in (("p50", 50), ("p95", 95), ("p99", 99))},
        "mean": round(sum(values) / len(values), 2),
        "max": round(max(values), 2),
    }


def _graphql_body(status: int, body: Any) -> tuple[Outcome | None, Mapping[str, Any] | None]:
    """The ``data`` of a 200 answer without errors, or the failed Outcome."""
    if status != 200:
        return Outcome(f"http {status}", str(body)[:200]), None
    if not isinstance(body, Mapping):
        return Outcome("graphql", "the body is not a JSON object"), None
    if body.get("errors"):
        first = body["errors"][0]
        code = (first.get("extensions") or {}).get("code", "")
        return Outcome("graphql", f"{code} {first.get('message', '')}".strip()[:200]), None
    data = body.get("data")
    if not isinstance(data, Mapping):
        return Outcome("graphql", "no data"), None
    return None, data


def read_recall(status: int, body: Any) -> Outcome:
    """A ``recall`` answer: success (with the server's timings) or why not."""
    failed, data = _graphql_body(status, body)
    if failed is not None:
        return failed
    result = data.get("recall")
    if not isinstance(result, Mapping) or not isinstance(result.get("items"), list):
        return Outcome("graphql", "recall returned no result")
    return Outcome(server_ms=result.get("timings") or None)


def read_remember(status: int, body: Any) -> Outcome:
    """A ``remember`` answer: the stored memory's id, or the error (an error type of the union counts)."""
    failed, data = _graphql_body(status, body)
    if failed is not None:
        return failed
    payload = data.get("remember")
    if not isinstance(payload, Mapping):
        return Outcome("graphql", "remember returned nothing")
    kind = payload.get("__typename")
    if kind != "RememberSuccess":
        return Outcome(f"union {payload.get('code') or kind}", (payload.get("message") or "")[:200])
    memory_id = (payload.get("memory") or {}).get("id")
    deleted = tuple((payload.get("compression") or {}).get("deleted") or ())
    if memory_id is None:
        return Outcome("graphql", "RememberSuccess without a memory", deleted=deleted)
    if not payload.get("created", True):
        # Every text carries a unique marker: a duplicate means two writes were taken for one.
        return Outcome("duplicate", f"duplicate of {payload.get('duplicateOf')}", memory_id, deleted=deleted)
    return Outcome(memory_id=memory_id, deleted=deleted)


def write_text(base: str, marker: str) -> str:
    """A distinct memory text: a LoCoMo turn and a marker no other write carries."""
    return f"{base} [{marker}]"


def found_writes(acknowledged: Mapping[str, str | None], records: Iterable[Mapping[str, Any]], user: str) -> set[str]:
    """The acknowledged ids among ``records`` (id, userId, content) that are ``user``'s and hold their marker."""
    found = set()
    for r in records:
        marker = acknowledged.get(r["id"])
        if marker is not None and r["userId"] == user and f"[{marker}]" in (r["content"] or ""):
            found.add(r["id"])
    return found


def summarise(samples: Sequence[Sample], elapsed_s: float) -> dict[str, Any]:
    """Throughput, latency per kind and errors of the concurrent phase."""
    result: dict[str, Any] = {
        "requests": len(samples),
        "elapsed_s": round(elapsed_s, 2),
        "throughput_rps": round(len(samples) / elapsed_s, 1) if elapsed_s > 0 else None,
        "by_kind": {},
    }
    errors: Counter[str] = Counter()
    examples: list[str] = []
    for kind in ("recall", "remember"):
        mine = [s for s in samples if s.kind == kind]
        failed = [s for s in mine if s.outcome.error]
        result["by_kind"][kind] = {
            "requests": len(mine),
            "throughput_rps": round(len(mine) / elapsed_s, 1) if elapsed_s > 0 else None,
            "latency_ms": spread([s.ms for s in mine]),
            "ok_latency_ms": spread([s.ms for s in mine if not s.outcome.error]),
            "errors": len(failed),
        }
        for s in failed:
            errors[f"{kind}: {s.outcome.error}"] += 1
            if len(examples) < ERROR_EXAMPLES:
                examples.append(f"{kind} at {s.at_s:.1f}s: {s.outcome.error}: {s.outcome.detail}")
    recalls = [s for s in samples if s.kind == "recall"]
    result["by_kind"]["recall"]["repeated_queries"] = sum(1 for s in recalls if s.repeat)
    # Apart, because a repeated question's embedding may come from the server's cache.
    result["by_kind"]["recall"]["first_asked_latency_ms"] = spread([s.ms for s in recalls if not s.repeat])
    result["by_kind"]["recall"]["repeated_latency_ms"] = spread([s.ms for s in recalls if s.repeat])
    result["errors"] = {"total": sum(errors.values()), "by_type": dict(errors), "examples": examples}
    return result


# ---------------------------------------------------------------- the run


def run(
    services: Services,
    memories: int,
    clients: int,
    seconds: float,
    data: Sequence[str | Path],
    queries: int = 300,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Build or reuse the store, serve it, load it, check the writes; the JSON result."""
    if memories < USERS:
        raise ValueError(f"--memories must be at least {USERS} (the store spreads over {USERS} users)")
    if clients < 1 or seconds <= 0 or queries < 1:
        raise ValueError("--clients, --seconds and --queries must be positive")
    conversations = load(data)
    questions = list(dict.fromkeys(q.text for c in conversations for q in c.questions))
    random.Random(5).shuffle(questions)
    turns = sorted({turn.content for c in conversations for ts in c.sessions.values() for turn in ts})
    run_id = uuid.uuid4().hex[:8]
    project = f"{PROJECT_PREFIX}{run_id}"
    since = datetime.now(timezone.utc)

    # What would keep the server from ever becoming ready (pending migrations …) fails here, at once.
    if (reason := services.readiness()) is not None:
        raise RuntimeError(f"the store is not ready to serve: {reason}")
    # A crashed earlier run may have left writes; they must not count as store.
    leftovers = _cleanup(services, None, None)
    store = _ensure_store(services, memories, turns, progress)
    owned = _owned(services)[BENCH_USER]
    issued = keys.create_key(services.driver, services.database, BENCH_USER, keys.Role.USER)
    result: dict[str, Any] = {
        "when": since.isoformat(timespec="seconds"),
        "model": services.embedder.name,
        "memories": store["memories"],
        "requested": memories,
        "users": USERS,
        "bench_user": BENCH_USER,
        "bench_user_memories": owned,
        "store": store,
        "profile": "hybrid (default)",
        "priority": "critical",
        "targets": {"single_client_p95_ms": TARGET_P95_MS, "errors": 0, "lost_writes": 0},
        "data": [str(p) for p in data],
        "method": (
            f"A real `hippograph serve` (uvicorn, one process) on 127.0.0.1, GraphQL over HTTP/1.1 with httpx, "
            f"API key of `{BENCH_USER}` ({owned} of the {store['memories']} memories; LoCoMo turns over {USERS} "
            f"users). Single client: {queries} `recall` queries of distinct LoCoMo questions (CRITICAL priority, "
            f"default profile) after {WARM_UP} warm-up ones, one at a time. Concurrent: {clients} threads with "
            f"one httpx.Client each for {seconds:g} s, {1 - WRITE_SHARE:.0%} `recall` / {WRITE_SHARE:.0%} "
            "`remember` (a LoCoMo turn plus a unique marker, PROJECT tier of a project of this run; the server's "
            f"project capacity raised to {PROJECT_CAPACITY} so compression never removes a write). Latency is "
            "client-side, request sent to response parsed. Every acknowledged write is then looked up by id in "
            "Neo4j. Client and server share the machine's 2 cores (load averages below)."
        ),
    }
    if leftovers["memories"]:
        result["store"]["leftovers_removed"] = leftovers
    log = Path(tempfile.mkdtemp(prefix="hippograph-bench-api-")) / "serve.log"
    try:
        with _server(log, progress) as (base, ready_s):
            # Thread settings the server inherited change its embedding latency a lot on 2 cores: say which held.
            threads = {name: os.environ[name] for name in THREAD_ENV if name in os.environ}
            result["server"] = {"ready_seconds": round(ready_s, 1),
                                "env": {"HIPPOGRAPH_PROJECT_CAPACITY": PROJECT_CAPACITY, **threads}}
            # The machine is shared: its load beside each phase says how far the figures are the code's own.
            result["load_average"] = {"before_single": _load()}
            single_questions = questions[:WARM_UP + queries]
            if len(single_questions) < WARM_UP + queries:
                raise ValueError(f"the data holds {len(questions)} distinct questions, fewer than {WARM_UP + queries}")
            result["single"] = _single(base, issued.secret, single_questions, progress)
            progress(f"single client: p50 {result['single']['latency_ms']['p50']} ms, "
                     f"p95 {result['single']['latency_ms']['p95']} ms, p99 {result['single']['latency_ms']['p99']} ms")
            result["load_average"]["before_concurrent"] = _load()
            samples, elapsed = _concurrent(
                base, issued.secret, clients, seconds, questions[WARM_UP + queries:] or questions,
                turns, project, run_id, progress,
            )
            result["load_average"]["after_concurrent"] = _load()
        result["concurrent"] = {"clients": clients, "seconds": seconds, "write_share": WRITE_SHARE,
                                **summarise(samples, elapsed)}
        result["writes"] = _verify(services, samples, project)
        c = result["concurrent"]
        # The server's log is kept only when something went wrong (the progress line names it).
        shutil.rmtree(log.parent, ignore_errors=True)
        progress(f"concurrent: {c['throughput_rps']} req/s, recall p95 {c['by_kind']['recall']['latency_ms'].get('p95')} "
                 f"ms, remember p95 {c['by_kind']['remember']['latency_ms'].get('p95')} ms, "
                 f"{c['errors']['total']} errors; writes acknowledged {result['writes']['acknowledged']}, "
                 f"found {result['writes']['found']}")
    finally:
        result["cleanup"] = _cleanup(services, issued.record["id"], since)
        result["cleanup"]["store_left_for_reuse"] = True
    return result


def _owned(services: Services) -> dict[str, int]:
    """Memories per store user, the benchmark's own writes left out."""
    ids = [user_id(i) for i in range(USERS)]
    records = services.driver.execute_query(OWNED_BY, userIds=ids, prefix=PROJECT_PREFIX,
                                            database_=services.database, routing_="r").records
    counts = {r["userId"]: r["n"] for r in records}
    return {uid: counts.get(uid, 0) for uid in ids}


def _ensure_store(services: Services, memories: int, turns: Sequence[str], progress: Callable[[str], None]) -> dict[str, Any]:
    """The store at ``memories`` (rounded down to a multiple of the user count): reused, completed or built."""
    per_user = memories // USERS
    counts = _owned(services)
    if all(n >= per_user for n in counts.values()):
        total = sum(counts.values())
        if total > per_user * USERS:
            progress(f"the store holds {total} memories, more than the {per_user * USERS} asked: measuring it as it is")
        else:
            progress(f"store of {total} memories already present: reused")
        return {"reused": True, "memories": total}
    started = time.perf_counter()
    vectors = dict(zip(turns, services.embedder.embed_documents(turns)))
    embed_s = time.perf_counter() - started
    mentions = {text: extract_mentions(text) for text in turns}
    progress(f"{len(turns)} distinct texts embedded in {embed_s:.1f}s; building the store")
    built = _grow(services, per_user * USERS, turns, vectors, mentions, progress)
    total = sum(_owned(services).values())
    return {"reused": False, "memories": total, "distinct_texts": len(turns),
            "embedding_seconds": round(embed_s, 1), **built}


@contextmanager
def _server(log: Path, progress: Callable[[str], None]) -> Iterator[tuple[str, float]]:
    """The benchmark's server: capacities raised so that nothing it writes is compressed away."""
    with running_server(log, {"HIPPOGRAPH_PROJECT_CAPACITY": str(PROJECT_CAPACITY)}) as server:
        progress(f"hippograph serve on {server.base} (pid {server.process.pid}, log {log})")
        yield server.base, server.ready_seconds
    progress(f"hippograph serve stopped (exit {server.process.returncode})")


def _load() -> list[float]:
    """The 1, 5 and 15 minute load averages (2 cores: above 2 means work waits for a core)."""
    return [round(v, 2) for v in os.getloadavg()]


def _client(base: str, secret: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"authorization": f"Bearer {secret}"}, timeout=TIMEOUT_S)


def _post(http: httpx.Client, query: str, variables: dict[str, Any]) -> tuple[int, Any]:
    response = http.post("/graphql", json={"query": query, "variables": variables})
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text


def _single(base: str, secret: str, questions: Sequence[str], progress: Callable[[str], None]) -> dict[str, Any]:
    """``recall`` one at a time: the first ``WARM_UP`` untimed, the rest timed."""
    latencies: list[float] = []
    server: dict[str, list[float]] = {"embedMs": [], "queryMs": [], "totalMs": []}
    errors: list[str] = []
    with _client(base, secret) as http:
        for i, text in enumerate(questions):
            started = time.perf_counter()
            try:
                outcome = read_recall(*_post(http, RECALL, {"query": text}))
            except httpx.HTTPError as exc:
                outcome = Outcome("transport", f"{type(exc).__name__}: {exc}"[:200])
            ms = (time.perf_counter() - started) * 1000
            if i < WARM_UP:
                continue
            if outcome.error:
                errors.append(f"{outcome.error}: {outcome.detail}")
                continue
            latencies.append(ms)
            for key in server:
                if outcome.server_ms and outcome.server_ms.get(key) is not None:
                    server[key].append(float(outcome.server_ms[key]))
    if not latencies:
        raise RuntimeError(f"every single-client recall failed: {errors[:3]}")
    return {
        "queries": len(questions) - WARM_UP, "warm_up": WARM_UP, "latency_ms": spread(latencies),
        "server_ms": {"embed": spread(server["embedMs"]), "query": spread(server["queryMs"]),
                      "total": spread(server["totalMs"])},
        "errors": len(errors), "error_examples": errors[:ERROR_EXAMPLES],
        "meets_target": metrics.percentile(latencies, 95) <= TARGET_P95_MS,
    }


def _concurrent(
    base: str, secret: str, clients: int, seconds: float, questions: Sequence[str], turns: Sequence[str],
    project: str, run_id: str, progress: Callable[[str], None],
) -> tuple[list[Sample], float]:
    """``clients`` threads, one httpx.Client each, until ``seconds`` have passed; every request sampled."""
    # Questions are handed out in order across clients, so each is asked once before any repeats
    # (a repeat may be answered by the server's embedding cache; the result counts them).
    lock = threading.Lock()
    handed = itertools.count()
    per_client: list[list[Sample]] = [[] for _ in range(clients)]
    clock: dict[str, float] = {}

    def set_clock() -> None:
        # Runs once, when every client has its connection ready and before any is released.
        clock["t0"] = time.perf_counter()
        clock["deadline"] = clock["t0"] + seconds

    start = threading.Barrier(clients + 1, action=set_clock)

    def next_question() -> tuple[str, bool]:
        with lock:
            n = next(handed)
        return questions[n % len(questions)], n >= len(questions)

    def work(index: int) -> None:
        rng = random.Random(1000 + index)
        mine = per_client[index]
        with _client(base, secret) as http:
            start.wait()
            t0, deadline = clock["t0"], clock["deadline"]
            for n in range(MAX_REQUESTS_PER_CLIENT):
                now = time.perf_counter()
                if now >= deadline:
                    break
                marker, repeat = None, False
                if rng.random() < WRITE_SHARE:
                    kind, marker = "remember", f"{run_id}-c{index}-w{n}"
                    variables = {"input": {"content": write_text(rng.choice(turns), marker),
                                           "tier": "PROJECT", "project": project}}
                    query, read = REMEMBER, read_remember
                else:
                    kind, query, read = "recall", RECALL, read_recall
                    text, repeat = next_question()
                    variables = {"query": text}
                try:
                    outcome = read(*_post(http, query, variables))
                except httpx.HTTPError as exc:
                    outcome = Outcome("transport", f"{type(exc).__name__}: {exc}"[:200])
                mine.append(Sample(kind, now - t0, (time.perf_counter() - now) * 1000, outcome, marker, repeat))

    threads = [threading.Thread(target=work, args=(i,), name=f"bench-api-{i}", daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    start.wait(timeout=60)
    progress(f"{clients} clients for {seconds:g} s …")
    for t in threads:
        # Bounded: each client stops at the deadline, its last request at most TIMEOUT_S later.
        t.join(timeout=seconds + TIMEOUT_S + 30)
    elapsed = time.perf_counter() - clock["t0"]
    if any(t.is_alive() for t in threads):
        raise RuntimeError("a benchmark client did not finish in time")
    return [s for mine in per_client for s in mine], elapsed


def _verify(services: Services, samples: Sequence[Sample], project: str) -> dict[str, Any]:
    """Every acknowledged write looked up by id: found when it exists, is the user's and holds its marker."""
    acknowledged = {s.outcome.memory_id: s.marker for s in samples
                    if s.kind == "remember" and s.outcome.memory_id and s.outcome.error is None}
    deleted = {d for s in samples for d in s.outcome.deleted}
    found: set[str] = set()
    ids = list(acknowledged)
    for start in range(0, len(ids), 1000):
        records = services.driver.execute_query(FIND_WRITES, ids=ids[start:start + 1000],
                                                database_=services.database, routing_="r").records
        found |= found_writes(acknowledged, records, BENCH_USER)
    in_project = services.driver.execute_query(COUNT_PROJECT, userId=BENCH_USER, projectId=project,
                                               database_=services.database, routing_="r").records[0]["n"]
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


def _cleanup(services: Services, key_id: str | None, since: datetime | None) -> dict[str, Any]:
    """Delete the benchmark's writes (every run's), and this run's audit events and key."""
    counts: dict[str, Any] = {}
    with services.driver.session(database=services.database) as session:
        for name, statement in (("memories", DELETE_WRITES), ("entities", DELETE_ENTITIES)):
            summary = session.run(statement, userId=BENCH_USER, prefix=PROJECT_PREFIX).consume()
            counts[name] = summary.counters.nodes_deleted
        if since is not None:
            counts["audit_events"] = session.run(DELETE_AUDIT, userId=BENCH_USER, since=since).consume().counters.nodes_deleted
        if key_id is not None:
            counts["api_keys"] = session.run(DELETE_KEY, id=key_id).consume().counters.nodes_deleted
    return counts


# ---------------------------------------------------------------- the report


def section(result: dict[str, Any], plot: str | None = None) -> str:
    """The markdown section of an API benchmark result."""
    single, conc, writes = result["single"], result.get("concurrent"), result.get("writes")
    s = single["latency_ms"]
    text = ["## The API under load\n", result.get("method", "") + "\n",
            f"Store: {result['memories']} memories ({'reused' if result['store'].get('reused') else 'built'}); "
            f"benchmark user `{result['bench_user']}` owns {result['bench_user_memories']}. "
            f"Measured {result['when']} with `{result['model']}`.\n",
            f"Single client, {single['queries']} `recall` queries (ms; target p95 ≤ {result['targets']['single_client_p95_ms']:g}):\n",
            report._table(["measured at", "p50", "p95", "p99", "mean", "max"], [
                ["client (HTTP + GraphQL)", s["p50"], s["p95"], s["p99"], s["mean"], s["max"]],
                *[[f"server: {part}", v.get("p50"), v.get("p95"), v.get("p99"), v.get("mean"), v.get("max")]
                  for part, v in single["server_ms"].items() if v.get("n")],
            ])]
    if conc:
        rows = []
        for kind, k in conc["by_kind"].items():
            lat = k["latency_ms"]
            rows.append([kind, k["requests"], k["throughput_rps"], lat.get("p50"), lat.get("p95"), lat.get("p99"), k["errors"]])
        rows.append(["all", conc["requests"], conc["throughput_rps"], "", "", "", conc["errors"]["total"]])
        text.append(f"{conc['clients']} concurrent clients for {conc['seconds']:g} s "
                    f"({conc['elapsed_s']} s until the last answer), {1 - conc['write_share']:.0%} recall / "
                    f"{conc['write_share']:.0%} remember:\n")
        text.append(report._table(["kind", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors"], rows))
        repeats = conc["by_kind"]["recall"].get("repeated_queries", 0)
        if repeats:
            first = conc["by_kind"]["recall"].get("first_asked_latency_ms", {})
            again = conc["by_kind"]["recall"].get("repeated_latency_ms", {})
            text.append(f"{repeats} of the concurrent recalls repeated a question already asked (the data's questions "
                        "ran out), so the server's embedding cache may have answered their embedding: recall p50/p95 "
                        f"{first.get('p50')}/{first.get('p95')} ms for questions asked the first time, "
                        f"{again.get('p50')}/{again.get('p95')} ms for repeats.\n")
        if conc["errors"]["total"]:
            text.append("Errors: " + ", ".join(f"{k}: {v}" for k, v in conc["errors"]["by_type"].items()) + "\n")
    if writes:
        text.append(f"Writes: {writes['attempted']} attempted, **{writes['acknowledged']} acknowledged, "
                    f"{writes['found']} found** in Neo4j by id ({writes['missing']} missing, "
                    f"{writes['deleted_by_compression']} removed by compression, "
                    f"{writes['stored_unacknowledged']} stored without acknowledgement).\n")
    env = {k: v for k, v in result.get("server", {}).get("env", {}).items() if k in THREAD_ENV}
    text.append("Server thread settings: " + (", ".join(f"`{k}={v}`" for k, v in env.items()) if env
                                               else "none set (PyTorch's default: one intra-op thread per core)") + ".\n")
    if result.get("load_average"):
        text.append("Load average of the 2-core machine (1/5/15 min): " + "; ".join(
            f"{when.replace('_', ' ')} {'/'.join(str(v) for v in values)}" for when, values in result["load_average"].items())
            + ".\n")
    if "cleanup" in result:
        text.append("Afterwards the run's writes were deleted (" + ", ".join(
            f"{k}: {v}" for k, v in result["cleanup"].items() if k != "store_left_for_reuse")
            + "); the store is left for the next run to reuse.\n")
    return "\n".join(text)


def write_report(out: Path, result: dict[str, Any]) -> list[Path]:
    """``<out>.md`` beside the JSON, then REPORT.md refreshed through ``report.gather``."""
    page = out.with_suffix(".md")
    page.write_text("# api\n\n" + section(result))
    return [page, report.gather(out.parent)]
