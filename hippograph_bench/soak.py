"""The soak: a real server and a real Neo4j under mixed traffic for a long while, each killed in turn.

``hippograph bench soak --minutes M --kill-every K --users U --clients C`` runs, on loopback only:

1. **Its own Neo4j**, started through ``hippograph.local.neo4j_server`` (what ``hippograph neo4j start``
   runs) in a state folder the soak owns (``--state-dir``, by default ``soak`` under the state
   folder), on the ports it is given or free ones; migrated with ``hippograph migrate``. Nothing
   else uses it, so it can be killed.
2. **A server**, ``hippograph serve`` through ``hippograph_bench.server``, with the project capacity
   raised (as ``bench api`` does) so that compression never deletes an acknowledged write.
3. **Traffic**: ``C`` clients over ``U`` users (an API key each, the clients take the keys in turn),
   each sending a mix of ``remember``, ``recall``, ``memory(asOf:)`` of a memory it wrote, sessions
   (``startSession`` then ``appendTurn`` turns) and ``forget`` of a memory it wrote, for ``M`` minutes.
4. **Kills**: every ``K`` minutes ``kill -9`` of the server, then of Neo4j, in turn, each started
   again (the server on its port, Neo4j through ``neo4j_server.start``); the time from the kill until
   ``/readyz`` answers 200 is recorded. A kill waits until the service is ready after the previous
   one; traffic goes on until ``M`` minutes and at least ``TAIL_S`` after the last recovery. An
   *outage* is from a kill until ready again, plus ``GRACE_S``; a request overlapping it counts there.
5. **Samples** every ``SAMPLE_S`` of the server process's resident memory (``VmRSS`` of
   ``/proc/<pid>/status``) and its sockets (``/proc/<pid>/fd`` links to ``socket:``).

The checks (each in the result, and the command exits 1 when one fails):

- **nothing lost**: every write answered OK is in Neo4j (its memory with its marker, as its user's;
  its turn), and every memory whose ``forget`` answered OK is gone. A write or forget answered
  otherwise may or may not have happened: counted apart, not checked.
- **no server error outside the outages**: no answer there was a 5xx, an ``INTERNAL_SERVER_ERROR``
  or no answer at all. During the outages a 503 ``UNAVAILABLE``, ``OUTCOME_UNKNOWN``,
  ``LIMIT_EXCEEDED`` or a refused connection is expected; anything else there is not.
- **as-of reads true**: ``memory(asOf:)`` of an acknowledged memory, as of its acknowledgement,
  never answers null.
- **memory and sockets held**: for each server process, samples from its readiness plus a warm-up
  (10 minutes of an hour's run, scaled to the run: ``minutes / 6``), outside the outages (a part
  down is no steady state), are split in thirds by time; the maximum of the last third must be
  within ``GROWTH`` of the maximum before it (sockets: or within as many sockets as there are
  clients, whichever is more: each client has one request in flight at most, which may hold one
  Bolt connection more, as after Neo4j comes back and they all retry). A process with fewer than
  ``MIN_SAMPLES`` samples past its warm-up is not judged; at least one must be.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

import httpx

from hippograph.local import neo4j_server
from hippograph.config import ConfigError, Settings
from hippograph.graph.driver import connect
from hippograph.memory import keys
from hippograph_bench import inspection, report
from hippograph_bench.api import PROJECT_CAPACITY, found_writes
from hippograph_bench.load import post
from hippograph_bench.server import Server, ServerFailed, free_port, running_server

# Shares of the requests; a forget or an as-of read needs a memory of the client's own (a remember
# goes instead until there is one), a turn a started session (a startSession goes instead).
MIX = {"remember": 0.35, "recall": 0.2, "as_of": 0.15, "turn": 0.2, "forget": 0.1}
# Short sessions: their transcripts stay far below the budget's summarisation trigger, so every turn stays.
TURNS_PER_SESSION = 8
# Past the server's deadline a write is waited for as long again before OUTCOME_UNKNOWN: the client waits longer.
CLIENT_TIMEOUT_S = 75.0
# After an answer that is not OK, before the next request: a client does not spin against a dead server.
BACKOFF_S = 0.5
SAMPLE_S = 3.0
GRACE_S = 5.0
TAIL_S = 15.0
# From a kill until /readyz answers 200, at most.
RECOVERY_TIMEOUT_S = 300.0
GROWTH = 0.10
MIN_SAMPLES = 6
# Answers expected while a part is down.
OUTAGE_CODES = ("UNAVAILABLE", "OUTCOME_UNKNOWN", "LIMIT_EXCEEDED")
NO_ANSWER = "no answer"
OK = "ok"
# A memory(asOf:) that answered null for a memory acknowledged before that moment.
MISSING = "MISSING"
EXAMPLES = 10

REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) {
  __typename ... on RememberSuccess { memory { id } } ... on UserError { code message } } }"""
RECALL = """query($query: String!) { recall(query: $query, priority: HIGH) { items { id } } }"""
AS_OF = """query($id: ID!, $at: DateTime!) { memory(id: $id, asOf: $at) { id } }"""
START_SESSION = """mutation($input: StartSessionInput!) { startSession(input: $input) {
  __typename ... on SessionStarted { session { id } } ... on UserError { code message } } }"""
APPEND_TURN = """mutation($input: AppendTurnInput!) { appendTurn(input: $input) {
  __typename ... on TurnAppended { turnId } ... on UserError { code message } } }"""
FORGET = """mutation($input: ForgetInput!) { forget(input: $input) {
  __typename ... on ForgetSuccess { memories } ... on UserError { code message } } }"""

SUBJECTS = ("Alex", "Priya", "Sam", "the team", "the build", "the nightly export", "Jordan", "the release")
EVENTS = (
    "moved to Friday after the staging test failed",
    "switched the cache to a shorter expiry",
    "asked for a review of the billing change",
    "found the flaky test was a clock issue",
    "booked the offsite for the second week of March",
    "prefers tea to coffee in the afternoon",
    "kept fourteen days of logs instead of thirty",
    "renamed the queue to match the service",
)
QUESTIONS = (
    "When did the release move, and why?",
    "What did Priya book for March?",
    "Which test was flaky?",
    "What changed in the cache?",
    "What does Alex prefer in the afternoon?",
    "How long are logs kept?",
)


@dataclass(frozen=True)
class Answer:
    """One request as its client saw it: seconds since the traffic began, and what came back."""

    kind: str
    client: int
    start: float
    end: float
    status: int | None
    code: str


@dataclass
class Outage:
    part: str
    kill_s: float
    ready_s: float | None = None


@dataclass
class Book:
    """What the clients were told: acknowledged writes and forgets, and those whose outcome is unknown."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: list[Answer] = field(default_factory=list)
    memories: dict[str, tuple[str, str]] = field(default_factory=dict)  # id → (user, marker)
    turns: dict[str, tuple[str, str]] = field(default_factory=dict)  # id → (user, marker)
    forgotten: set[str] = field(default_factory=set)
    forget_unknown: set[str] = field(default_factory=set)


def duration_minutes(text: str) -> float:
    """``10``, ``10m``, ``90s`` or ``1h`` as minutes (a bare number is minutes)."""
    scale = {"s": 1 / 60, "m": 1.0, "h": 60.0}.get(text.strip()[-1:].lower())
    try:
        value = float(text.strip()[:-1] if scale else text) * (scale or 1.0)
    except ValueError:
        raise ConfigError(f"not a duration: {text!r} (minutes, or a number with s, m or h)") from None
    if value <= 0:
        raise ConfigError(f"a duration must be positive, got {text!r}")
    return value


def soak_settings(
    settings: Settings, state_dir: Path, bolt_port: int, http_port: int
) -> tuple[Settings, dict[str, str]]:
    """The soak's own Neo4j, and the environment its server and migration run with."""
    env = {
        "HIPPOGRAPH_STATE_DIR": str(state_dir),
        "HIPPOGRAPH_NEO4J_BOLT_PORT": str(bolt_port),
        "HIPPOGRAPH_NEO4J_HTTP_PORT": str(http_port),
        "NEO4J_URI": f"bolt://127.0.0.1:{bolt_port}",
        "HIPPOGRAPH_PROJECT_CAPACITY": str(PROJECT_CAPACITY),
    }
    return Settings.from_env({**os.environ, **env}), env


class Served:
    """The soak's server: started, killed and started again on one port."""

    def __init__(self, folder: Path, env: Mapping[str, str], port: int) -> None:
        self.folder, self.env, self.port = folder, env, port
        self.starts = 0
        self.server: Server | None = None
        self._stack = ExitStack()

    def start(self) -> Server:
        self.starts += 1
        self._stack = ExitStack()
        self.server = self._stack.enter_context(
            running_server(
                self.folder / f"serve-{self.starts}.log", self.env, port=self.port, ready_timeout=RECOVERY_TIMEOUT_S
            )
        )
        return self.server

    def kill(self) -> None:
        assert self.server is not None
        self.server.process.send_signal(signal.SIGKILL)
        self.server.process.wait()
        self.stop()

    def stop(self) -> None:
        self._stack.close()
        self.server = None


def run(
    settings: Settings,
    minutes: float,
    kill_every: float,
    users: int,
    clients: int,
    state_dir: Path,
    bolt_port: int | None,
    http_port: int | None,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """Start both parts, load them, kill them in turn, check; the JSON result."""
    if users < 1 or clients < users:
        raise ConfigError("--users must be at least 1 and --clients at least --users")
    own, env = soak_settings(settings, state_dir, bolt_port or free_port(), http_port or free_port())
    run_id = uuid.uuid4().hex[:8]
    started = datetime.now(UTC)
    book = Book()
    outages: list[Outage] = []
    samples: list[dict[str, Any]] = []
    warm_up_s = min(600.0, minutes * 60 / 6)
    result: dict[str, Any] = {
        "when": started.isoformat(timespec="seconds"),
        "run": run_id,
        "minutes": minutes,
        "kill_every": kill_every,
        "users": users,
        "clients": clients,
        "state_dir": str(state_dir),
        "ports": {"bolt": own.neo4j_bolt_port, "http": own.neo4j_http_port},
        "mix": MIX,
        "grace_s": GRACE_S,
        "tail_s": TAIL_S,
        "sample_s": SAMPLE_S,
        "warm_up_s": round(warm_up_s, 1),
        "rule": {"growth": GROWTH, "socket_slack": clients, "min_samples": MIN_SAMPLES},
    }
    progress(f"soak {run_id}: Neo4j in {state_dir} on bolt {own.neo4j_bolt_port} / http {own.neo4j_http_port}")
    neo4j_server.start(own, log=progress)
    served = Served(state_dir / "serve-logs" / run_id, env, free_port())
    result["server_logs"] = str(served.folder)
    served.folder.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    driver = None
    try:
        _migrate(env)
        driver = connect(own)
        user_ids = [f"soak-{run_id}-u{i}" for i in range(users)]
        secrets = [keys.create_key(driver, own.neo4j_database, u, keys.Role.USER).secret for u in user_ids]
        first = served.start()
        result["server_ready_s"] = round(first.ready_seconds, 1)
        progress(
            f"hippograph serve on {first.base} ready in {first.ready_seconds:.0f} s; {clients} clients "
            f"over {users} users for {minutes:g} min, a kill every {kill_every:g} min"
        )
        t0 = time.monotonic()

        def clock() -> float:
            """Seconds since the traffic began: one clock for every thread."""
            return time.monotonic() - t0

        threads = [
            threading.Thread(
                target=_client,
                name=f"soak-{i}",
                daemon=True,
                args=(i, first.base, secrets[i % users], user_ids[i % users], run_id, book, clock, stop),
            )
            for i in range(clients)
        ]
        sampler = threading.Thread(target=_sample, args=(served, clock, stop, samples), daemon=True)
        for t in (*threads, sampler):
            t.start()
        _kill_in_turn(own, served, minutes * 60, kill_every * 60, clock, outages, progress)
        stop.set()
        for t in (*threads, sampler):
            t.join(timeout=CLIENT_TIMEOUT_S + 30)
        result["elapsed_s"] = round(clock(), 1)
        with book.lock:
            answers = list(book.answers)
        result["requests"] = _requests(answers, outages)
        result["outages"] = [
            {
                "part": o.part,
                "kill_s": round(o.kill_s, 1),
                "ready_s": None if o.ready_s is None else round(o.ready_s, 1),
                "back_to_ready_s": None if o.ready_s is None else round(o.ready_s - o.kill_s, 1),
            }
            for o in outages
        ]
        result["writes"] = _verify(driver, own.neo4j_database, book)
        result["memory"] = _growth(samples, warm_up_s, result["outages"], clients)
        result["samples"] = samples
    finally:
        stop.set()
        served.stop()
        if driver is not None:
            driver.close()
        neo4j_server.stop(own, log=progress)
    result["checks"] = _checks(result)
    result["passed"] = all(c["passed"] for c in result["checks"].values())
    return result


def _migrate(env: Mapping[str, str]) -> None:
    """``hippograph migrate`` against the soak's Neo4j, as a user runs it."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("hippograph")), "migrate"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    if done.returncode != 0:
        raise RuntimeError(f"hippograph migrate failed on the soak's Neo4j:\n{done.stderr[-2000:]}")


def _kill_in_turn(
    own: Settings,
    served: Served,
    seconds: float,
    every: float,
    clock: Callable[[], float],
    outages: list[Outage],
    progress: Callable[[str], None],
) -> None:
    """Kill the server, then Neo4j, in turn, every ``every`` seconds until ``seconds``, each time
    waiting until ready again; return once traffic has run ``seconds`` and ``TAIL_S`` past the last recovery."""
    parts = ("server", "neo4j")
    n = 1
    while n * every < seconds:
        time.sleep(max(0.0, n * every - clock()))
        part = parts[(n - 1) % 2]
        outage = Outage(part, clock())
        outages.append(outage)
        if part == "server":
            served.kill()
            progress(f"{outage.kill_s:.0f} s: killed the server (kill -9); starting it again")
            try:
                served.start()
            except ServerFailed as exc:
                progress(f"the server did not come back: {exc}")
                return
        else:
            pid = neo4j_server.status(own).pid
            if pid is None:
                raise RuntimeError("the soak's Neo4j is not running, so it cannot be killed")
            os.kill(pid, signal.SIGKILL)
            try:
                # neo4j_server.start's child: waitpid returns once every thread of it is gone, and its ports with them.
                os.waitpid(pid, 0)
            except ChildProcessError:  # reaped already, or not started by this process
                while neo4j_server.status(own).running:
                    time.sleep(0.1)
            progress(f"{outage.kill_s:.0f} s: killed Neo4j (kill -9, pid {pid}); starting it again")
            neo4j_server.start(own, log=progress)
            if not _ready(served, outage.kill_s + RECOVERY_TIMEOUT_S, clock):
                progress(f"the server was not ready within {RECOVERY_TIMEOUT_S:.0f} s of the kill")
                return
        outage.ready_s = clock()
        progress(f"{outage.ready_s:.0f} s: ready again, {outage.ready_s - outage.kill_s:.1f} s after the kill")
        n += 1
    last = outages[-1].ready_s if outages else 0.0
    time.sleep(max(0.0, seconds - clock(), (last or 0.0) + TAIL_S - clock()))


def _ready(served: Served, until: float, clock: Callable[[], float]) -> bool:
    assert served.server is not None
    while clock() < until:
        try:
            if httpx.get(f"{served.server.base}/readyz", timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    return False


def _client(
    index: int,
    base: str,
    secret: str,
    user: str,
    run_id: str,
    book: Book,
    clock: Callable[[], float],
    stop: threading.Event,
) -> None:
    """One client: requests of the mix, one at a time, until ``stop``."""
    rng = random.Random(index)
    kinds, weights = list(MIX), list(MIX.values())
    project = f"soak-{run_id}"
    live: list[tuple[str, str]] = []  # the client's memories acknowledged and not forgotten: (id, when)
    session, turns, session_started = 0, 0, False
    with httpx.Client(base_url=base, headers={"authorization": f"Bearer {secret}"}, timeout=CLIENT_TIMEOUT_S) as http:
        for n in itertools.count():
            if stop.is_set():
                return
            kind = rng.choices(kinds, weights)[0]
            if kind in ("forget", "as_of") and not live:
                kind = "remember"
            if kind == "turn" and not session_started:
                kind = "session"
            marker = f"{run_id}-c{index}-n{n}"
            text = f"{rng.choice(SUBJECTS)} {rng.choice(EVENTS)} [{marker}]"
            target: tuple[str, str] | None = None  # the memory an as_of reads or a forget forgets
            variables: dict[str, Any]
            if kind == "remember":
                query, variables, field_ = (
                    REMEMBER,
                    {"input": {"content": text, "tier": "PROJECT", "project": project}},
                    "remember",
                )
            elif kind == "recall":
                query, variables, field_ = RECALL, {"query": rng.choice(QUESTIONS)}, "recall"
            elif kind == "as_of":
                target = rng.choice(live)
                query, variables, field_ = AS_OF, {"id": target[0], "at": target[1]}, "memory"
            elif kind == "session":
                query, field_ = START_SESSION, "startSession"
                variables = {"input": {"id": f"{project}-c{index}-s{session}", "project": project}}
            elif kind == "turn":
                query, field_ = APPEND_TURN, "appendTurn"
                variables = {
                    "input": {
                        "session": f"{project}-c{index}-s{session}",
                        "project": project,
                        "role": rng.choice(("user", "assistant")),
                        "content": text,
                    }
                }
            else:
                target = live.pop(rng.randrange(len(live)))
                query, variables, field_ = FORGET, {"input": {"memory": target[0]}}, "forget"
            begun = clock()
            try:
                status, body = post(http, query, variables)
            except httpx.HTTPError as exc:
                status, body = None, type(exc).__name__
            code, payload = read(status, body, field_)
            if code == OK and kind == "as_of" and payload is None:
                code = MISSING
            elif code == OK and kind == "remember" and not payload.get("memory"):
                code = "no memory"
            when = datetime.now(UTC).isoformat()
            with book.lock:
                book.answers.append(Answer(kind, index, begun, clock(), status, code))
                if kind == "remember" and code == OK:
                    book.memories[payload["memory"]["id"]] = (user, marker)
                    live.append((payload["memory"]["id"], when))
                elif kind == "turn" and code == OK:
                    book.turns[payload["turnId"]] = (user, marker)
                    turns += 1
                elif kind == "forget" and target is not None:
                    (book.forgotten if code == OK and target[0] in payload["memories"] else book.forget_unknown).add(
                        target[0]
                    )
            if kind == "session" and code == OK:
                session_started, turns = True, 0
            if turns >= TURNS_PER_SESSION:
                session, session_started, turns = session + 1, False, 0
            if code != OK:
                stop.wait(BACKOFF_S)


def read(status: int | None, body: Any, field_: str) -> tuple[str, Any]:
    """The answer's class — ``ok``, an error code, ``http <status>`` or ``no answer`` — and on ``ok`` its payload."""
    if status is None:
        return f"{NO_ANSWER} ({body})", None
    if not isinstance(body, Mapping):
        return f"http {status}", None
    if body.get("errors"):
        return (body["errors"][0].get("extensions") or {}).get("code") or f"http {status}", None
    if status != 200 or not isinstance(body.get("data"), Mapping):
        return f"http {status}", None
    payload = body["data"].get(field_)
    if isinstance(payload, Mapping) and "code" in payload and "message" in payload:
        return payload["code"], None
    return OK, payload


def _sample(served: Served, clock: Callable[[], float], stop: threading.Event, samples: list[dict[str, Any]]) -> None:
    """The server process's resident memory and sockets every ``SAMPLE_S``, while it lives."""
    while not stop.wait(SAMPLE_S):
        server = served.server
        if server is None or server.process.poll() is not None:
            continue
        pid = server.process.pid
        try:
            rss = next(
                int(line.split()[1])
                for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if line.startswith("VmRSS:")
            )
            sockets = sum(1 for fd in Path(f"/proc/{pid}/fd").iterdir() if os.readlink(fd).startswith("socket:"))
        except (OSError, StopIteration):  # it died between the look and the read
            continue
        samples.append(
            {
                "t": round(clock(), 1),
                "pid": pid,
                "start": served.starts,
                "rss_mb": round(rss / 1024, 1),
                "sockets": sockets,
            }
        )


def _in_outage(answer: Answer, outages: Sequence[Outage], end: float) -> bool:
    return any(
        answer.start <= (o.ready_s if o.ready_s is not None else end) + GRACE_S and answer.end >= o.kill_s
        for o in outages
    )


def _requests(answers: Sequence[Answer], outages: Sequence[Outage]) -> dict[str, Any]:
    """Requests by kind, and answers by class during and outside the outages, with what each check counts."""
    end = max((a.end for a in answers), default=0.0)
    by_kind: dict[str, Counter[str]] = {}
    during: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    bad_outside, unexpected_during, missing = [], [], []
    for a in answers:
        by_kind.setdefault(a.kind, Counter())[a.code] += 1
        label = a.code if a.status in (None, 200) else f"{a.code} ({a.status})"
        if _in_outage(a, outages, end):
            during[label] += 1
            if a.code not in (OK, *OUTAGE_CODES) and not a.code.startswith(NO_ANSWER):
                unexpected_during.append(a)
        else:
            outside[label] += 1
            if (a.status or 0) >= 500 or a.code == "INTERNAL_SERVER_ERROR" or a.code.startswith(NO_ANSWER):
                bad_outside.append(a)
        if a.code == MISSING:
            missing.append(a)

    def examples(found: Sequence[Answer]) -> list[str]:
        return [
            f"{a.kind} by client {a.client} at {a.start:.1f}-{a.end:.1f} s: {a.code} ({a.status})"
            for a in found[:EXAMPLES]
        ]

    return {
        "total": len(answers),
        "by_kind": {
            kind: {
                "requests": sum(c.values()),
                "ok": c[OK],
                "not_ok": dict(sorted((k, v) for k, v in c.items() if k != OK)),
            }
            for kind, c in sorted(by_kind.items())
        },
        "during_outages": dict(during.most_common()),
        "outside_outages": dict(outside.most_common()),
        "server_errors_outside": len(bad_outside),
        "server_error_examples": examples(bad_outside),
        "unexpected_during": len(unexpected_during),
        "unexpected_examples": examples(unexpected_during),
        "as_of_missing": len(missing),
        "as_of_missing_examples": examples(missing),
    }


def _verify(driver: Any, database: str, book: Book) -> dict[str, Any]:
    """Every acknowledged write looked up by id: present (its user's, with its marker) unless forgotten;
    forgotten ones gone."""
    kept = {i: v for i, v in book.memories.items() if i not in book.forgotten and i not in book.forget_unknown}
    with driver.session(database=database) as session:
        memories = session.execute_read(inspection.memories_by_id, [*kept, *book.forgotten])
        turns = session.execute_read(inspection.turns_by_id, list(book.turns))
    found = found_writes({i: m for i, (_, m) in kept.items()}, memories, {i: u for i, (u, _) in kept.items()})
    lingering = {r["id"] for r in memories if r["id"] in book.forgotten}
    turns_found = found_writes(
        {i: m for i, (_, m) in book.turns.items()}, turns, {i: u for i, (u, _) in book.turns.items()}
    )
    lost = sorted(set(kept) - found) + sorted(set(book.turns) - turns_found)
    return {
        "memories_acknowledged": len(book.memories),
        "memories_expected": len(kept),
        "memories_found": len(found),
        "turns_acknowledged": len(book.turns),
        "turns_found": len(turns_found),
        "forgotten_acknowledged": len(book.forgotten),
        "forgotten_still_there": len(lingering),
        "forget_outcome_unknown": len(book.forget_unknown),
        "lost": len(lost),
        "lost_examples": lost[:EXAMPLES],
        "lingering_examples": sorted(lingering)[:EXAMPLES],
    }


def _growth(
    samples: Sequence[Mapping[str, Any]], warm_up_s: float, outages: Sequence[Mapping[str, Any]], socket_slack: int
) -> dict[str, Any]:
    """Per server process: did resident memory or sockets grow past its warm-up (the rule of the module's doc)?"""
    processes = []
    for start in sorted({s["start"] for s in samples}):
        mine = [s for s in samples if s["start"] == start]
        judged = [
            s
            for s in mine
            if s["t"] >= mine[0]["t"] + warm_up_s
            and not any(
                o["kill_s"] <= s["t"] <= (o["ready_s"] if o["ready_s"] is not None else s["t"]) + GRACE_S
                for o in outages
            )
        ]
        entry: dict[str, Any] = {
            "start": start,
            "pid": mine[0]["pid"],
            "from_s": mine[0]["t"],
            "to_s": mine[-1]["t"],
            "samples": len(mine),
            "judged_samples": len(judged),
        }
        if len(judged) >= MIN_SAMPLES:
            cut = judged[0]["t"] + (judged[-1]["t"] - judged[0]["t"]) * 2 / 3
            for measure, slack in (("rss_mb", 0.0), ("sockets", socket_slack)):
                before = max(s[measure] for s in judged if s["t"] < cut)
                last = max(s[measure] for s in judged if s["t"] >= cut)
                entry[measure] = {
                    "max_before_last_third": before,
                    "max_last_third": last,
                    "held": last <= max(before * (1 + GROWTH), before + slack),
                }
        processes.append(entry)
    return {"processes": processes}


def _checks(result: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    requests, writes = result.get("requests", {}), result.get("writes", {})
    outages = result.get("outages", [])
    judged = [p for p in result.get("memory", {}).get("processes", []) if "rss_mb" in p]
    return {
        "nothing_lost": {
            "passed": writes.get("lost") == 0 and writes.get("forgotten_still_there") == 0,
            "lost": writes.get("lost"),
            "forgotten_still_there": writes.get("forgotten_still_there"),
        },
        "every_kill_recovered": {
            "passed": bool(outages) and all(o["ready_s"] is not None for o in outages),
            "kills": len(outages),
        },
        "no_server_error_outside_outages": {
            "passed": requests.get("server_errors_outside") == 0,
            "count": requests.get("server_errors_outside"),
        },
        "only_expected_errors_during_outages": {
            "passed": requests.get("unexpected_during") == 0,
            "count": requests.get("unexpected_during"),
        },
        "as_of_reads_true": {"passed": requests.get("as_of_missing") == 0, "count": requests.get("as_of_missing")},
        "memory_and_sockets_held": {
            "passed": bool(judged) and all(p["rss_mb"]["held"] and p["sockets"]["held"] for p in judged),
            "processes_judged": len(judged),
        },
    }


# ---------------------------------------------------------------- the report


def write_report(out: Path, result: Mapping[str, Any]) -> list[Path]:
    """``<out>.md`` and its plot ``<out>.png`` beside the JSON."""
    plot = out.with_suffix(".png")
    _plot(result, plot)
    page = out.with_suffix(".md")
    page.write_text(f"# {out.stem}\n\n" + section(result, plot.name))
    return [page, plot]


def section(result: Mapping[str, Any], plot: str) -> str:
    requests, writes, checks = result["requests"], result["writes"], result["checks"]
    text = [
        "## Soak: a server and Neo4j killed in turn under traffic\n",
        f"Measured {result['when']}: {result['clients']} clients over {result['users']} users for "
        f"{result['minutes']:g} min ({result['elapsed_s']} s of traffic), `kill -9` of the server and of Neo4j in turn "
        f"every {result['kill_every']:g} min, on loopback (`hippograph bench soak`). The server was ready "
        f"{result['server_ready_s']} s after its first start. An outage runs from a kill until `/readyz` answers 200, "
        f"plus {result['grace_s']:g} s of grace; a request overlapping one counts there.\n",
        "**"
        + (
            "All checks passed."
            if result["passed"]
            else "Checks FAILED: " + ", ".join(name for name, c in checks.items() if not c["passed"])
        )
        + "**\n",
        report._table(
            ["check", "passed", "detail"],
            [
                [
                    name.replace("_", " "),
                    "yes" if c["passed"] else "**no**",
                    ", ".join(f"{k}: {v}" for k, v in c.items() if k != "passed"),
                ]
                for name, c in checks.items()
            ],
        ),
        "Kills, and the time from each until the server answered `/readyz` 200:\n",
        report._table(
            ["part killed", "at s", "ready at s", "back to ready s"],
            [
                [
                    o["part"],
                    f"{o['kill_s']:.1f}",
                    "never" if o["ready_s"] is None else f"{o['ready_s']:.1f}",
                    "-" if o["back_to_ready_s"] is None else f"{o['back_to_ready_s']:.1f}",
                ]
                for o in result["outages"]
            ],
        ),
        "Requests by kind (`session` is `startSession`, `turn` `appendTurn`, `as_of` `memory(asOf:)` of a memory "
        "the client wrote, as of its acknowledgement):\n",
        report._table(
            ["kind", "requests", "ok", "not ok, by code"],
            [
                [kind, k["requests"], k["ok"], ", ".join(f"{c}: {n}" for c, n in k["not_ok"].items()) or "-"]
                for kind, k in requests["by_kind"].items()
            ],
        ),
        "Answers during and outside the outages (code, and HTTP status when not 200):\n",
        report._table(
            ["answer", "during outages", "outside outages"],
            [
                [label, requests["during_outages"].get(label, 0), requests["outside_outages"].get(label, 0)]
                for label in dict.fromkeys([*requests["outside_outages"], *requests["during_outages"]])
            ],
        ),
        f"Writes: {writes['memories_acknowledged']} memories acknowledged, {writes['forgotten_acknowledged']} of them "
        f"forgotten (acknowledged) and {writes['forget_outcome_unknown']} sent to `forget` without an OK answer (not "
        f"checked); {writes['memories_found']} of the {writes['memories_expected']} expected found, "
        f"{writes['turns_found']} of {writes['turns_acknowledged']} acknowledged turns found, "
        f"{writes['forgotten_still_there']} forgotten still there: **{writes['lost']} lost**. Writes answered other "
        "than OK (counted by code above) may or may not be stored and are not checked.\n",
    ]
    rows = []
    for p in result["memory"]["processes"]:
        rss, sockets = p.get("rss_mb"), p.get("sockets")
        rows.append(
            [
                p["start"],
                f"{p['from_s']}-{p['to_s']}",
                p["samples"],
                p["judged_samples"],
                f"{rss['max_before_last_third']} → {rss['max_last_third']}" if rss else "-",
                f"{sockets['max_before_last_third']} → {sockets['max_last_third']}" if sockets else "-",
                ("yes" if rss["held"] and sockets["held"] else "**no**") if rss else "not judged (too short)",
            ]
        )
    text += [
        f"The server process's resident memory and sockets, sampled every {result['sample_s']:g} s. The rule: "
        f"past a warm-up of {result['warm_up_s']:g} s from each process's first sample (10 min of an hour's run, "
        f"scaled to the run: minutes / 6), the samples outside the outages are cut in thirds by time; the maximum "
        f"of the last third must be within {result['rule']['growth']:.0%} of the maximum before it (sockets: or "
        f"within {result['rule']['socket_slack']}, one per client: a client has at most one request in flight, "
        "which may hold one Bolt connection more, as when they all retry after Neo4j comes back). A process with "
        f"fewer than {result['rule']['min_samples']} samples past its warm-up is not judged.\n",
        report._table(
            [
                "server process",
                "sampled s",
                "samples",
                "judged",
                "RSS MB max: before → last third",
                "sockets max: before → last third",
                "held",
            ],
            rows,
        ),
        f"![resident memory and sockets]({plot})\n",
    ]
    return "\n".join(text)


def _plot(result: Mapping[str, Any], path: Path) -> None:
    plt = report._pyplot()
    fig, (rss, sockets) = plt.subplots(2, 1, figsize=(10, 5.5), sharex=True)
    for start in sorted({s["start"] for s in result["samples"]}):
        mine = [s for s in result["samples"] if s["start"] == start]
        rss.plot([s["t"] for s in mine], [s["rss_mb"] for s in mine], label=f"server process {start}")
        sockets.plot([s["t"] for s in mine], [s["sockets"] for s in mine], label=f"server process {start}")
    for ax in (rss, sockets):
        for o in result["outages"]:
            ax.axvspan(
                o["kill_s"],
                (o["ready_s"] or result["elapsed_s"]) + result["grace_s"],
                color="tab:red" if o["part"] == "server" else "tab:orange",
                alpha=0.15,
            )
    rss.set_ylabel("resident memory (MB)")
    sockets.set_ylabel("open sockets")
    sockets.set_xlabel("seconds since traffic began (shaded: outages; red server killed, orange Neo4j killed)")
    rss.legend(loc="lower right", fontsize="small")
    report._save(fig, path)
