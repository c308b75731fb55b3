"""`hippograph reembed` under traffic: does a live server keep answering as usual?

Not part of the package: the record of one measurement (bench/reembed/README.md), to run again.
Against the configured Neo4j and model (the environment's, as `hippograph serve` reads it):

1. a real `hippograph serve`, a user with a key, and ``--memories`` memories written over HTTP
   (spread over projects, so that no tier compresses);
2. **before**: ``WRITERS`` clients writing and ``RECALLERS`` recalling for ``--seconds``, each
   answer timed: the usual p99 of a write and of a recall;
3. **during**: the same traffic while `hippograph reembed` (same model) runs, from its start to
   its end (or for ``--during`` seconds, after which the traffic stops and the re-embed finishes
   alone): how many answers were slower than the usual p99, the slowest, and any that was not OK;
   and whether its progress line ever counted past its total.

    python bench/reembed/measure.py OUT.json [--memories 800] [--seconds 30] [--during SECONDS]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from hippograph.config import Settings
from hippograph.graph.driver import connect
from hippograph.memory import keys
from hippograph_bench.server import running_server

WRITERS, RECALLERS = 2, 1
PROJECTS = 100
REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) { __typename ... on UserError { code } } }"""
RECALL = """query($q: String!, $p: ID) { recall(query: $q, project: $p) { items { id } } }"""
TOPICS = ["deploys", "the billing service", "Postgres upgrades", "on-call rotations", "the search index",
          "feature flags", "the mobile release", "rate limits", "backups", "the data pipeline"]


def sentence(n: int) -> str:
    return f"Note {n}: the team agreed that {TOPICS[n % len(TOPICS)]} need review {uuid.uuid4().hex[:6]}."


class Traffic:
    """Writers and recallers over HTTP, each answer kept as (start, seconds, kind, outcome)."""

    def __init__(self, base: str, secret: str) -> None:
        self.base, self.secret = base, secret
        self.answers: list[tuple[float, float, str, str]] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._count = 10**6

    def _post(self, client: httpx.Client, kind: str, query: str, variables: dict[str, Any]) -> None:
        started = time.monotonic()
        try:
            body = client.post(f"{self.base}/graphql", json={"query": query, "variables": variables}, timeout=120).json()
            errors = body.get("errors") or []
            outcome = errors[0]["extensions"]["code"] if errors else (
                (body["data"]["remember"].get("code") or "OK") if kind == "write" else "OK")
        except httpx.HTTPError as exc:
            outcome = type(exc).__name__
        with self._lock:
            self.answers.append((started, time.monotonic() - started, kind, outcome))

    def _writer(self) -> None:
        with httpx.Client(headers={"authorization": f"Bearer {self.secret}"}) as client:
            while not self.stop.is_set():
                with self._lock:
                    self._count += 1
                    n = self._count
                self._post(client, "write", REMEMBER,
                           {"input": {"content": sentence(n), "tier": "PROJECT", "project": f"p{n % PROJECTS}"}})

    def _recaller(self) -> None:
        with httpx.Client(headers={"authorization": f"Bearer {self.secret}"}) as client:
            n = 0
            while not self.stop.is_set():
                n += 1
                self._post(client, "recall", RECALL, {"q": f"what did we agree about {TOPICS[n % len(TOPICS)]}?",
                                                       "p": f"p{n % PROJECTS}"})

    def start(self) -> list[threading.Thread]:
        threads = [threading.Thread(target=self._writer) for _ in range(WRITERS)]
        threads += [threading.Thread(target=self._recaller) for _ in range(RECALLERS)]
        for thread in threads:
            thread.start()
        return threads


def seed(base: str, secret: str, memories: int) -> None:
    def one(n: int) -> None:
        with httpx.Client(headers={"authorization": f"Bearer {secret}"}) as client:
            client.post(f"{base}/graphql", timeout=120, json={"query": REMEMBER, "variables": {
                "input": {"content": sentence(n), "tier": "PROJECT", "project": f"p{n % PROJECTS}"}}}).raise_for_status()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(one, range(memories)))


def summary(answers: list[tuple[float, float, str, str]], since: float, until: float,
            p99: dict[str, float] | None = None) -> dict[str, Any]:
    kept = [a for a in answers if since <= a[0] < until]
    result: dict[str, Any] = {}
    for kind in ("write", "recall"):
        seconds = np.array([a[1] for a in kept if a[2] == kind])
        outcomes: dict[str, int] = {}
        for a in kept:
            if a[2] == kind:
                outcomes[a[3]] = outcomes.get(a[3], 0) + 1
        figures: dict[str, Any] = {"answers": int(seconds.size), "outcomes": outcomes}
        if seconds.size:
            figures.update(p50_ms=round(1000 * float(np.percentile(seconds, 50)), 1),
                           p99_ms=round(1000 * float(np.percentile(seconds, 99)), 1),
                           slowest_ms=round(1000 * float(seconds.max()), 1))
            if p99 is not None:
                figures["slower_than_usual_p99"] = int((seconds > p99[kind]).sum())
        result[kind] = figures
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--memories", type=int, default=800)
    parser.add_argument("--seconds", type=float, default=30.0)
    # Writes that outpace the re-embedding keep it chasing them (a slow model, all-mpnet-base-v2, on 2 cores):
    # the traffic stops after this long, and the re-embed then ends on its own.
    parser.add_argument("--during", type=float, default=None, help="seconds of traffic while reembed runs (default: all of it)")
    args = parser.parse_args()
    settings = Settings.from_env()
    driver = connect(settings)
    user = f"reembed-bench-{uuid.uuid4().hex[:8]}"
    secret = keys.create_key(driver, settings.neo4j_database, user).secret
    driver.close()
    with tempfile.TemporaryDirectory() as work, running_server(Path(work) / "serve.log") as server:
        started = time.monotonic()
        seed(server.base, secret, args.memories)
        print(f"seeded {args.memories} memories in {time.monotonic() - started:.1f} s", file=sys.stderr)
        traffic = Traffic(server.base, secret)
        threads = traffic.start()
        before = time.monotonic()
        time.sleep(args.seconds)
        reembed_start = time.monotonic()
        run = subprocess.Popen([str(Path(sys.executable).with_name("hippograph")), "reembed"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            stdout, stderr = run.communicate(timeout=args.during)
        except subprocess.TimeoutExpired:
            stdout = stderr = None
        traffic_end = time.monotonic()
        traffic.stop.set()
        for thread in threads:
            thread.join()
        if stdout is None:
            stdout, stderr = run.communicate()
        reembed_end = time.monotonic()
        log = (Path(work) / "serve.log").read_text(errors="replace")
    usual = summary(traffic.answers, before, reembed_start)
    p99 = {kind: usual[kind]["p99_ms"] / 1000 for kind in ("write", "recall")}
    progress = [(int(done), int(total)) for done, total in re.findall(r"(\d+)/(\d+) memories", stderr)]
    result = {
        "memories_seeded": args.memories, "writers": WRITERS, "recallers": RECALLERS,
        "before": {"seconds": round(reembed_start - before, 1), **usual},
        "during_reembed": {"seconds": round(reembed_end - reembed_start, 1), "exit": run.returncode,
                           "traffic_seconds": round(traffic_end - reembed_start, 1),
                           "ended_under_traffic": reembed_end <= traffic_end + 1,
                           "reembed_said": stdout.strip(), **summary(traffic.answers, reembed_start, traffic_end, p99)},
        "progress_past_total": [line for line in progress if line[0] > line[1]],
        "progress_last": progress[-1] if progress else None,
        "server_log_lock_errors": len(re.findall(r"LockClientStopped|DeadlockDetected|LockAcquisitionTimeout", log)),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
