"""Load on a served API: GraphQL requests as a client sends them, what each answered, and how fast.

One client asking ``recall`` one question at a time (``single``), or many threads
sending ``recall`` and ``remember`` in a mix for a fixed time (``concurrent``);
each request is read into an ``Outcome`` (success, or the class of its failure)
and the concurrent run's samples summarised (``summarise``). Nothing here knows
the store: ``hippograph_bench.api`` builds it, serves it and checks the writes.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from hippograph_bench import metrics

WRITE_SHARE = 0.2
WARM_UP = 20
TIMEOUT_S = 30.0
# A hard cap on any one client's requests, besides the clock.
MAX_REQUESTS_PER_CLIENT = 1_000_000
ERROR_EXAMPLES = 10
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
    client: int = 0


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


def _graphql_body(status: int, body: Any) -> Outcome | Mapping[str, Any]:
    """The ``data`` of a 200 answer without errors, or the failed Outcome."""
    if status != 200:
        return Outcome(f"http {status}", str(body)[:200])
    if not isinstance(body, Mapping):
        return Outcome("graphql", "the body is not a JSON object")
    if body.get("errors"):
        first = body["errors"][0]
        code = (first.get("extensions") or {}).get("code", "")
        return Outcome("graphql", f"{code} {first.get('message', '')}".strip()[:200])
    data = body.get("data")
    if not isinstance(data, Mapping):
        return Outcome("graphql", "no data")
    return data


def read_recall(status: int, body: Any) -> Outcome:
    """A ``recall`` answer: success (with the server's timings) or why not."""
    data = _graphql_body(status, body)
    if isinstance(data, Outcome):
        return data
    result = data.get("recall")
    if not isinstance(result, Mapping) or not isinstance(result.get("items"), list):
        return Outcome("graphql", "recall returned no result")
    return Outcome(server_ms=result.get("timings") or None)


def read_remember(status: int, body: Any) -> Outcome:
    """A ``remember`` answer: the stored memory's id, or the error (an error type of the union counts)."""
    data = _graphql_body(status, body)
    if isinstance(data, Outcome):
        return data
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


def write_place(project: str, sessions: int, n: int) -> dict[str, str]:
    """Where the n-th write goes: the project's PROJECT tier, or one of its ``sessions`` sessions, in turn."""
    slot = n % (sessions + 1)
    if slot == 0:
        return {"tier": "PROJECT", "project": project}
    return {"tier": "SESSION", "project": project, "session": f"{project}-s{slot}"}


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


def client(base: str, secret: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"authorization": f"Bearer {secret}"}, timeout=TIMEOUT_S)


def post(http: httpx.Client, query: str, variables: dict[str, Any]) -> tuple[int, Any]:
    response = http.post("/graphql", json={"query": query, "variables": variables})
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text


def single(base: str, secret: str, questions: Sequence[str], progress: Callable[[str], None]) -> dict[str, Any]:
    """``recall`` one at a time: the first ``WARM_UP`` untimed, the rest timed."""
    latencies: list[float] = []
    server: dict[str, list[float]] = {"embedMs": [], "queryMs": [], "totalMs": []}
    errors: list[str] = []
    with client(base, secret) as http:
        for i, text in enumerate(questions):
            started = time.perf_counter()
            try:
                outcome = read_recall(*post(http, RECALL, {"query": text}))
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
        "queries": len(questions) - WARM_UP,
        "warm_up": WARM_UP,
        "latency_ms": spread(latencies),
        "server_ms": {
            "embed": spread(server["embedMs"]),
            "query": spread(server["queryMs"]),
            "total": spread(server["totalMs"]),
        },
        "errors": len(errors),
        "error_examples": errors[:ERROR_EXAMPLES],
        "meets_target": metrics.percentile(latencies, 95) <= TARGET_P95_MS,
    }


def concurrent(
    base: str,
    secrets: Sequence[str],
    seconds: float,
    questions: Sequence[str],
    turns: Sequence[str],
    project: str,
    run_id: str,
    progress: Callable[[str], None],
    write_share: float = WRITE_SHARE,
    sessions: int = 0,
) -> tuple[list[Sample], float]:
    """One thread per key in ``secrets`` (a client each, one httpx.Client) until ``seconds`` have passed;
    every request sampled. A share ``write_share`` of requests are writes, to the project's PROJECT tier
    or, with ``sessions``, spread over it and that many of its sessions (SESSION tier) in turn."""
    clients = len(secrets)
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
        with client(base, secrets[index]) as http:
            start.wait()
            t0, deadline = clock["t0"], clock["deadline"]
            for n in range(MAX_REQUESTS_PER_CLIENT):
                now = time.perf_counter()
                if now >= deadline:
                    break
                marker, repeat = None, False
                if rng.random() < write_share:
                    kind, marker = "remember", f"{run_id}-c{index}-w{n}"
                    variables: dict[str, Any] = {
                        "input": {
                            "content": write_text(rng.choice(turns), marker),
                            **write_place(project, sessions, index + n),
                        }
                    }
                    query, read = REMEMBER, read_remember
                else:
                    kind, query, read = "recall", RECALL, read_recall
                    text, repeat = next_question()
                    variables = {"query": text}
                try:
                    outcome = read(*post(http, query, variables))
                except httpx.HTTPError as exc:
                    outcome = Outcome("transport", f"{type(exc).__name__}: {exc}"[:200])
                mine.append(Sample(kind, now - t0, (time.perf_counter() - now) * 1000, outcome, marker, repeat, index))

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
