"""How soon the server answers when answering is hard: ``hippograph bench deadlines``.

The e2e tests check that these answers come (generous deadlines, no timing); this measures how
soon, against a real ``hippograph serve``; from 2. on, one whose requests have ``TIMEOUT_S`` (1 s),
reaching Neo4j through a forwarder this benchmark can cut, once it is warm:

1. **Start** (at the default request timeout). Seconds from the process's start to serving
   (``/healthz``), to ready (``/readyz``) and to the end of its warm-up (``/readyz`` says ``warm``);
   a recall made as soon as it is ready.
2. **Liveness under hostile requests.** ``/healthz`` latency while 6 threads send costly documents
   and bodies (those of ``tests/e2e/test_api_hardening.py``).
3. **After a burst stuck past its deadline.** ``BURST`` clients edit one user's memory while the
   benchmark holds that user's lock, so that every edit is stuck past its deadline; then another
   user's request, timed.
4. **Neo4j unreachable.** The forwarder is cut (its port refuses, its connections close): the time
   each request takes to be answered, and its code.

And, in processes of their own, what the warm-up buys: the first recall of a fresh process after
Neo4j's query caches were cleared, without the warm-up and after it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from hippograph.config import Settings
from hippograph.graph.vocabulary import Tier
from hippograph.memory import keys, warmup
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services
from hippograph.operations.services import open_services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.forget import forget_user
from hippograph.memory.writing.store import remember
from hippograph_bench.server import free_port, running_server

TIMEOUT_S = 1
BURST = 32
EDITS_EACH = 3
HOSTILE_SECONDS = 6.0
QUERY = "What did the team decide about the nightly export?"
UPDATE = "mutation($input: UpdateMemoryInput!) { updateMemory(input: $input) { __typename } }"
RECALL = '{ recall(query: "nightly export decision") { profile } }'


class Forwarder:
    """A TCP forwarder to Neo4j's Bolt port that can be cut, as a network between them would be."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
                upstream = socket.create_connection(self.target)
            except OSError:
                return  # cut
            with self._lock:
                self._open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(source, sink), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            for each in [self._listener, *self._open]:  # a shut listener wakes its accept, and refuses
                with contextlib.suppress(OSError):
                    each.shutdown(socket.SHUT_RDWR)
                each.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass


def run(services: Services, progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    bolt = urlsplit(services.settings.neo4j_uri)
    forwarder = Forwarder((bolt.hostname or "127.0.0.1", bolt.port or 7687))
    stuck, other = f"bench-stuck-{uuid.uuid4().hex[:8]}", f"bench-after-{uuid.uuid4().hex[:8]}"
    memory = remember(services, Scope(stuck), MemoryInput("The nightly export runs at 02:00 UTC", Tier.LONG_TERM)).id
    issued = [keys.create_key(services.driver, services.database, user, keys.Role.USER) for user in (stuck, other)]
    result: dict[str, Any] = {"request_timeout_s": TIMEOUT_S}
    log = Path(f"/tmp/hippograph-bench-deadlines-{uuid.uuid4().hex[:8]}.log")
    try:
        result["start"] = {"request_timeout_s": services.settings.request_timeout, **_start(log, issued[1].secret)}
        progress(f"start: {result['start']}")
        env = {"HIPPOGRAPH_REQUEST_TIMEOUT": str(TIMEOUT_S), "NEO4J_URI": f"bolt://127.0.0.1:{forwarder.port}"}
        with running_server(log, env) as server:
            http = httpx.Client(base_url=server.base, timeout=120)
            while not http.get("/readyz").json().get("warm"):
                time.sleep(0.5)
            result["healthz_under_hostile_requests"] = _hostile(server.base, issued[1].secret)
            progress(f"/healthz under hostile requests: {result['healthz_under_hostile_requests']}")
            result["after_burst"] = _burst(services, server.base, memory, issued)
            progress(f"after a burst stuck past its deadline: {result['after_burst']}")
            forwarder.cut()
            result["neo4j_unreachable"] = [
                _timed(http, query, issued[1].secret)
                for query in (
                    RECALL,
                    "{ tierUsage { tier } }",
                    'mutation { remember(input: {content: "lost?", tier: LONG_TERM}) { __typename } }',
                )
            ]
            progress(f"Neo4j unreachable: {result['neo4j_unreachable']}")
        log.unlink(missing_ok=True)
    finally:
        forwarder.cut()
        for key in issued:
            keys.revoke_key(services.driver, services.database, key.record["id"])
        forget_user(services, stuck, by="bench deadlines")
    result["first_recall"] = {
        "without_warm_up_ms": _first_recall(services, warm=False),
        "after_warm_up_ms": _first_recall(services, warm=True),
    }
    progress(f"first recall of a fresh process: {result['first_recall']}")
    return result


def _start(log: Path, secret: str) -> dict[str, Any]:
    """A server's start at the default request timeout: serving, ready, warm, and a recall made at ready."""
    started = time.monotonic()
    with running_server(log, until="/healthz") as server:
        serving = time.monotonic() - started
        http = httpx.Client(base_url=server.base, timeout=120)
        while (ready := http.get("/readyz")).status_code != 200:
            time.sleep(0.2)
        start = {
            "serving_s": round(serving, 1),
            "ready_s": round(time.monotonic() - started, 1),
            "warm_at_ready": ready.json().get("warm"),
            "recall_at_ready": _timed(http, RECALL, secret),
        }
        while not http.get("/readyz").json().get("warm"):
            time.sleep(0.5)
        start["warm_s"] = round(time.monotonic() - started, 1)
    return start


def _timed(http: httpx.Client, query: str, secret: str) -> dict[str, Any]:
    started = time.perf_counter()
    answer = http.post("/graphql", json={"query": query}, headers={"authorization": f"Bearer {secret}"})
    elapsed = time.perf_counter() - started
    codes = [e["extensions"]["code"] for e in answer.json().get("errors") or []]
    return {"ms": round(elapsed * 1000, 1), "status": answer.status_code, "codes": codes}


def _hostile(base: str, secret: str) -> dict[str, Any]:
    bodies = [
        json.dumps({"query": "{ " + "a { " * 600 + "b" + " }" * 600 + " }"}),
        '{"query": "{ __typename }", "variables": ' + "[" * 100_000 + "]" * 100_000 + "}",
        json.dumps({"query": "{ __typename }", "variables": {"a": list(range(200_000))}}),
        json.dumps({"query": '{ recall(query: "' + "x" * 1_000_000 + '") { profile } }'}),
    ]
    stop = time.monotonic() + HOSTILE_SECONDS

    def attack(worker: int) -> None:
        with httpx.Client(timeout=60) as http:
            sent = 0
            while time.monotonic() < stop:
                http.post(
                    f"{base}/graphql",
                    content=bodies[sent % len(bodies)],
                    headers={"content-type": "application/json", "authorization": f"Bearer {secret}"},
                )
                sent += 1

    attackers = [threading.Thread(target=attack, args=(w,)) for w in range(6)]
    for thread in attackers:
        thread.start()
    latencies = []
    with httpx.Client(timeout=60) as http:
        while time.monotonic() < stop:
            started = time.perf_counter()
            http.get(f"{base}/healthz")
            latencies.append((time.perf_counter() - started) * 1000)
            time.sleep(0.05)
    for thread in attackers:
        thread.join()
    return {
        "samples": len(latencies),
        "p50_ms": round(statistics.median(latencies), 1),
        "max_ms": round(max(latencies), 1),
    }


def _burst(services: Services, base: str, memory: str, issued: list[keys.IssuedKey]) -> dict[str, Any]:
    stuck = issued[0].record["userId"]

    def editor(c: int) -> list[str]:
        with httpx.Client(base_url=base, timeout=120) as http:
            return [
                _code(
                    http.post(
                        "/graphql",
                        json={
                            "query": UPDATE,
                            "variables": {"input": {"id": memory, "relevance": (c * EDITS_EACH + i) / 1000}},
                        },
                        headers={"authorization": f"Bearer {issued[0].secret}"},
                    ).json()
                )
                for i in range(EDITS_EACH)
            ]

    with _held(services, stuck), httpx.Client(base_url=base, timeout=120) as http:
        started = time.monotonic()
        with ThreadPoolExecutor(BURST) as pool:
            codes = [code for each in pool.map(editor, range(BURST)) for code in each]
        burst_s = time.monotonic() - started
        after = _timed(http, "{ tierUsage { tier } }", issued[1].secret)
    return {
        "clients": BURST,
        "edits": len(codes),
        "codes": {c: codes.count(c) for c in set(codes)},
        "burst_s": round(burst_s, 1),
        "next_request": after,
    }


@contextmanager
def _held(services: Services, user_id: str) -> Iterator[None]:
    """``user_id``'s lock, held by a transaction of the benchmark's own for as long as the block runs."""
    with services.driver.session(database=services.database) as session:
        holding = session.begin_transaction()
        try:
            holding.run("MATCH (u:User {id: $id}) SET u.heldByBench = true", id=user_id).consume()
            yield
        finally:
            holding.rollback()


def _code(body: dict[str, Any]) -> str:
    errors = body.get("errors")
    return str(errors[0]["extensions"]["code"] if errors else body["data"]["updateMemory"]["__typename"])


def _first_recall(services: Services, warm: bool) -> float:
    """The first recall of a fresh process, its model loaded, Neo4j's query caches cleared, after the
    warm-up or not (a process of its own: a warm encoder would not show)."""
    services.driver.execute_query("CALL db.clearQueryCaches()", database_=services.database)
    done = subprocess.run(
        [sys.executable, "-m", "hippograph_bench.deadlines", "warm" if warm else "cold"],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(done.stdout.splitlines()[-1]))


def _first_recall_here(warm: bool) -> float:
    with open_services(Settings.from_env()) as services:
        if warm:
            warmup.warm_up(services)
        started = time.perf_counter()
        recall(services, QUERY, Scope(f"bench-first-{uuid.uuid4().hex[:8]}"), "critical", record_access=False)
        return round((time.perf_counter() - started) * 1000, 1)


if __name__ == "__main__":
    print(json.dumps(_first_recall_here(sys.argv[1] == "warm")))
