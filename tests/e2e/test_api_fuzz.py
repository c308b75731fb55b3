"""Hostile requests made from the schema (``tests/generators``), a few hundred of them, against the
real server, and what every answer must satisfy.

**The checks** (``problems`` and ``run``), on every answer: the status is below 500; every
``errors[].extensions.code`` is there, is one the schema's ``ErrorCode`` lists, and is not
``INTERNAL_SERVER_ERROR`` (nor is any union member's ``code``); a request that was refused — an
HTTP error, errors without data, every mutation answering a ``UserError`` — left the state of the
fuzz user, of a second user whose ids it tries, and the store's node and relationship counts as
they were, and so did every read; a request the generator knows must be refused (no key, a revoked
key, a mutation over GET, duplicate keys, a limit the README states …) is; and ``/healthz``, asked
every 100 ms from a thread, answers throughout, none stuck past 15 s (the slowest answers name the
request in flight; how soon it answers is measured by ``hippograph bench deadlines``). Access
bookkeeping and audit events are left out of the state (background writers add them after the
answer, for reads and writes alike), and so are vectors (made from the text).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import READ_ACCESS, ManagedTransaction, Session

from hippograph.memory import keys
from hippograph.memory.services import Services
from hippograph_bench.server import Server

from generators.requests import BOMB_DEPTH, Generator, Request, auth_headers
from generators.schema import Pool, json_pairs

pytestmark = pytest.mark.neo4j

REQUESTS = 450
SEED = 7
# A request that hangs this long has found a bug already.
TIMEOUT_S = 20.0
# An answer this late is a /healthz stuck, not a slow one.
HEALTHZ_BOUND_S = 15.0
HEALTHZ_EVERY_S = 0.1
# The run stops when the server stops answering: this long without a /healthz answer, or this
# many requests in a row without one (each waits up to the request timeout).
UNRESPONSIVE_S = 15.0
UNANSWERED_IN_A_ROW = 3
EXAMPLES = 3
CHECKS = ("http_5xx", "internal_server_error", "missing_code", "state_change", "unmet_expectation",
          "unanswered", "healthz")

# What both users are given to find before the run.
SEEDS = (
    'mutation { remember(input: {content: "The fuzz user deploys with Docker on Fridays", tier: LONG_TERM}) { __typename } }',
    'mutation { recordDecision(input: {decision: "Use Postgres for storage", reason: "the team knows it", project: "fz-p"}) '
    "{ __typename } }",
    'mutation { recordError(input: {error: "Connection pool exhausted", fix: "Raise the pool size", project: "fz-p"}) '
    "{ __typename } }",
    'mutation { startSession(input: {id: "fz-s", project: "fz-p"}) { __typename } }',
    'mutation { appendTurn(input: {session: "fz-s", role: "user", content: "How do we deploy the release?"}) { __typename } }',
    'mutation { setPreference(input: {key: "editor", value: "vim"}) { __typename } }',
)
SEED_IDS = """{ memories(first: 100, filter: {includeArchived: true}) { nodes { id records { id } entities { id } } }
  entities(first: 100) { nodes { id } } }"""

# Every node a user owns (the labels a user's deletion removes, and the user), without the
# bookkeeping background writers add after an answer (access counts; audit events are not read)
# or the vectors (made from the text).
TENANT_STATE = """
UNWIND $users AS uid
CALL (uid) {
  MATCH (n:Memory {userId: uid}) RETURN n
  UNION ALL MATCH (n:Entity {userId: uid}) RETURN n
  UNION ALL MATCH (n:Turn {userId: uid}) RETURN n
  UNION ALL MATCH (n:Session {userId: uid}) RETURN n
  UNION ALL MATCH (n:Project {userId: uid}) RETURN n
  UNION ALL MATCH (n:Task {userId: uid}) RETURN n
  UNION ALL MATCH (n:ApiKey {userId: uid}) RETURN n
  UNION ALL MATCH (n:User {id: uid}) RETURN n
}
RETURN elementId(n) AS eid, labels(n) AS labels,
       n {.*, embedding: null, accessCount: null, lastAccessedAt: null} AS props,
       [(n)-[r]->(m) | [type(r), elementId(m), properties(r)]] AS out
"""

# The store's totals, from the count store: another user's nodes, a relationship anywhere.
STORE_TOTALS = """
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH (a:AuditEvent) RETURN count(a) AS audit }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
RETURN nodes - audit AS nodes, relationships
"""


def _tenant_state(tx: ManagedTransaction, users: Sequence[str]) -> list[dict[str, Any]]:
    return tx.run(TENANT_STATE, users=list(users)).data()


def _store_totals(tx: ManagedTransaction) -> tuple[int, int]:
    """(nodes other than audit events, relationships)."""
    record = tx.run(STORE_TOTALS).single(strict=True)
    return record["nodes"], record["relationships"]


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    text: str
    body: Any
    ms: float

    @property
    def plain(self) -> str:
        """The body as text with JSON's escapes undone, so that a check can look for what it says."""
        return json.dumps(self.body, ensure_ascii=False) if self.body is not None else self.text


def error_codes(body: Any) -> list[str | None]:
    """``extensions.code`` of every error (None where an error has none)."""
    if not isinstance(body, Mapping) or not isinstance(body.get("errors"), list):
        return []
    return [(e.get("extensions") or {}).get("code") if isinstance(e, Mapping) else None for e in body["errors"]]


def union_codes(body: Any) -> list[str]:
    """The ``code`` of every union member in ``data`` that carries one (a ``UserError``)."""
    if not isinstance(body, Mapping):
        return []
    return [v for k, v in json_pairs(body.get("data")) if k == "code" and isinstance(v, str)]


def refused(answer: Answer, user_errors: frozenset[str]) -> bool:
    """Whether nothing the request asked for was done: an HTTP error, errors without data, or
    every top-level field null or answering a ``UserError``."""
    if answer.status >= 400 or not isinstance(answer.body, Mapping):
        return True
    data = answer.body.get("data")
    if not isinstance(data, Mapping):
        return True
    return all(value is None or (isinstance(value, Mapping) and value.get("__typename") in user_errors)
               for value in data.values())


def problems(request: Request, answer: Answer, was_refused: bool, known: frozenset[str]) -> list[tuple[str, str, str]]:
    """What is wrong with one answer, given the ``known`` error codes: (check, code, message) for each problem."""
    found: list[tuple[str, str, str]] = []
    codes = error_codes(answer.body)
    first = answer.body["errors"][0] if codes and isinstance(answer.body["errors"][0], Mapping) else {}
    message = str(first.get("message", "")) if first else answer.text[:200]
    if answer.status >= 500:
        found.append(("http_5xx", str(codes[0] if codes else ""), message))
    exempt = request.method == "HEAD" or (request.accept == "text/html" and answer.content_type.startswith("text/html"))
    if not exempt:
        if not isinstance(answer.body, Mapping) or not ({"data", "errors"} & set(answer.body)):
            found.append(("missing_code", "", f"not a GraphQL answer ({answer.content_type or 'no content type'}): "
                                              f"{answer.text[:200]}"))
        elif answer.status >= 400 and not codes:
            found.append(("missing_code", "", f"HTTP {answer.status} without errors: {answer.text[:200]}"))
    for code, error in zip(codes, answer.body.get("errors") if codes else []):
        text = str(error.get("message", "")) if isinstance(error, Mapping) else str(error)
        if code is None:
            found.append(("missing_code", "", text))
        elif code not in known:
            found.append(("missing_code", str(code), f"a code the schema's ErrorCode does not list: {text}"))
        elif code == "INTERNAL_SERVER_ERROR":
            found.append(("internal_server_error", code, text))
    for code in union_codes(answer.body):
        if code == "INTERNAL_SERVER_ERROR":
            found.append(("internal_server_error", code, "a union member's code"))
    expect = request.expect
    if expect is not None:
        unmet = None
        all_codes = {c for c in codes if c} | set(union_codes(answer.body))
        if expect.refused and not was_refused:
            unmet = f"answered; expected a refusal ({expect.why})"
        elif expect.status is not None and answer.status != expect.status:
            unmet = f"HTTP {answer.status}; expected {expect.status} ({expect.why})"
        elif expect.codes and not (all_codes & expect.codes):
            unmet = f"codes {sorted(all_codes)}; expected one of {sorted(expect.codes)} ({expect.why})"
        elif expect.absent is not None and expect.absent in answer.plain:
            unmet = expect.why
        if unmet is not None:
            found.append(("unmet_expectation", ",".join(sorted(all_codes)), f"{unmet}: {message[:160]}"))
    return found


# ---------------------------------------------------------------- state


@dataclass(frozen=True)
class Snapshot:
    """The fuzz users' nodes (properties and outgoing relationships) and the store's totals."""

    nodes: Mapping[str, tuple[str, str]]
    properties: Mapping[str, Mapping[str, Any]]
    totals: tuple[int, int]

    def diff(self, after: Snapshot, limit: int = 6) -> str:
        """What changed, in a line ('' when nothing did)."""
        changes = []
        for eid in sorted(set(self.nodes) | set(after.nodes)):
            old, new = self.nodes.get(eid), after.nodes.get(eid)
            if old == new:
                continue
            if old is None:
                changes.append(f"+{new[0]}")
            elif new is None:
                changes.append(f"-{old[0]}")
            else:
                keys = sorted(k for k in set(self.properties[eid]) | set(after.properties[eid])
                              if self.properties[eid].get(k) != after.properties[eid].get(k))
                changes.append(f"~{new[0]}({', '.join(keys) or 'relationships'})")
        if self.totals != after.totals:
            (nodes, relationships), (nodes_after, relationships_after) = self.totals, after.totals
            changes.append(f"store nodes {nodes}→{nodes_after}, relationships {relationships}→{relationships_after}")
        return "; ".join(changes[:limit]) + (f"; … {len(changes) - limit} more" if len(changes) > limit else "")


def snapshot(session: Session, users: Sequence[str]) -> Snapshot:
    """The users' state and the store's totals, in one read transaction each (read twice a request)."""
    records = session.execute_read(_tenant_state, users)
    nodes: dict[str, tuple[str, str]] = {}
    properties: dict[str, Mapping[str, Any]] = {}
    for r in records:
        props = {k: v for k, v in r["props"].items() if v is not None}
        digest = json.dumps([props, sorted(r["out"], key=lambda o: (o[0], o[1]))], sort_keys=True, default=str)
        nodes[r["eid"]] = (":".join(sorted(r["labels"])), digest)
        properties[r["eid"]] = props
    return Snapshot(nodes, properties, session.execute_read(_store_totals))


# ---------------------------------------------------------------- liveness


class Liveness:
    """``/healthz`` asked every 100 ms from a thread for as long as the run lasts."""

    def __init__(self, base: str, every_s: float = HEALTHZ_EVERY_S, bound_s: float = HEALTHZ_BOUND_S) -> None:
        self.base, self.every_s, self.bound_s = base, every_s, bound_s
        self.latencies: list[float] = []
        self.failures: list[str] = []
        # What the run was sending meanwhile (set by the run), so that a slow answer names its likely cause.
        self.in_flight = ""
        self.slowest: list[tuple[float, str]] = []
        self.last_answer = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fuzz-healthz", daemon=True)

    def __enter__(self) -> Liveness:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.bound_s + 5)

    def _run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=self.bound_s) as http:
            while not self._stop.is_set():
                started = time.monotonic()
                try:
                    status = http.get("/healthz").status_code
                    failure = None if status == 200 else f"HTTP {status}"
                except httpx.HTTPError as exc:
                    failure = f"{type(exc).__name__}: {exc}"[:200]
                elapsed = time.monotonic() - started
                self.latencies.append(elapsed * 1000)
                self.slowest = sorted([*self.slowest, (round(elapsed * 1000, 1), self.in_flight)], reverse=True)[:EXAMPLES]
                if failure is None and elapsed <= self.bound_s:
                    self.last_answer = time.monotonic()
                else:
                    self.failures.append(f"{failure or f'answered after {elapsed:.1f} s'} (sending: {self.in_flight})")
                self._stop.wait(max(0.0, self.every_s - elapsed))

    def silent_for(self) -> float:
        return time.monotonic() - self.last_answer

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        pick = (lambda q: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)) if ordered else (lambda q: None)
        return {"samples": len(ordered), "failures": len(self.failures), "failure_examples": self.failures[:EXAMPLES],
                "bound_s": self.bound_s, "every_ms": self.every_s * 1000,
                "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": round(ordered[-1], 1) if ordered else None,
                "slowest": [{"ms": ms, "while": kind} for ms, kind in self.slowest]}


# ---------------------------------------------------------------- the run


@dataclass(frozen=True)
class Target:
    """The server, the fuzz user's key (and a revoked one), and a second user whose ids are tried."""

    base: str
    key: str
    user: str
    other_key: str
    other_user: str
    revoked_key: str


def prepare(services: Services, base: str, key: str, user: str, other_key: str, other_user: str) -> Target:
    """Revoke a spare key of the fuzz user; the target, both users given something to find."""
    spare = keys.create_key(services.driver, services.database, user, keys.Role.USER)
    keys.revoke_key(services.driver, services.database, spare.record["id"])
    target = Target(base, key, user, other_key, other_user, spare.secret)
    with httpx.Client(base_url=base, timeout=60) as http:
        for secret in (key, other_key):
            for query in SEEDS:
                answer = http.post("/graphql", json={"query": query}, headers={"authorization": f"Bearer {secret}"})
                body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else None
                if answer.status_code != 200 or not isinstance(body, Mapping) or body.get("errors"):
                    raise RuntimeError(f"seeding the fuzz users failed: {query[:60]}… → "
                                       f"HTTP {answer.status_code} {answer.text[:300]}")
    return target


@dataclass
class Tally:
    """What a run counted, and each distinct failure with the first requests that showed it."""

    by_category: dict[str, Counter[str]] = field(default_factory=dict)
    by_auth: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    checks: Counter[str] = field(default_factory=lambda: Counter({check: 0 for check in CHECKS}))
    failures: dict[tuple[str, ...], dict[str, Any]] = field(default_factory=dict)

    def sent(self, request: Request) -> None:
        self.by_category.setdefault(request.category, Counter())["requests"] += 1
        self.by_auth[request.auth] += 1

    def answered(self, request: Request, answer: Answer, was_refused: bool) -> None:
        counts = self.by_category[request.category]
        counts["ms"] += round(answer.ms)
        counts["refused" if was_refused else "answered"] += 1
        self.statuses[answer.status] += 1
        self.codes.update(c or "(none)" for c in error_codes(answer.body))

    def fail(self, check: str, request: Request, status: int | str, code: str, message: str) -> None:
        self.checks[check] += 1
        self.by_category[request.category][check] += 1
        key = (check, request.kind, str(status), code, _normalise(message))
        entry = self.failures.setdefault(key, {"check": check, "kind": request.kind, "category": request.category,
                                               "status": status, "code": code, "message": message[:300],
                                               "count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < EXAMPLES:
            entry["examples"].append(request.describe())

    def summary(self) -> dict[str, Any]:
        return {
            "requests": sum(c["requests"] for c in self.by_category.values()),
            "checks": dict(self.checks),
            "by_category": {k: dict(v) for k, v in sorted(self.by_category.items())},
            "by_auth": dict(self.by_auth),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "codes": dict(self.codes.most_common()),
            "failures": sorted(self.failures.values(),
                               key=lambda f: (CHECKS.index(f["check"]), -f["count"], f["kind"])),
        }


def run(services: Services, target: Target, requests: int, seed: int = 1, bomb_depth: int = BOMB_DEPTH,
        timeout_s: float = 30.0, log: Path | None = None) -> dict[str, Any]:
    """Send ``requests`` generated requests to ``target``, check every answer; the JSON result.
    Given the server's ``log``, the errors it logged meanwhile are in the result, tracebacks' last lines."""
    log_start = log.stat().st_size if log is not None and log.exists() else 0
    pool = Pool(target.user, target.other_user)
    with httpx.Client(base_url=target.base, timeout=60) as http:
        for secret, into in ((target.key, pool.own), (target.other_key, pool.others)):
            answer = http.post("/graphql", json={"query": SEED_IDS}, headers={"authorization": f"Bearer {secret}"})
            pool.learn(answer.json(), into)
    generator = Generator(pool, seed, bomb_depth=bomb_depth)
    users = (target.user, target.other_user)
    tally = Tally()
    recent: list[str] = []
    aborted = None
    unanswered = 0
    started = time.perf_counter()
    with (httpx.Client(base_url=target.base, timeout=timeout_s) as http,
          services.driver.session(database=services.database, default_access_mode=READ_ACCESS) as session,
          Liveness(target.base) as liveness):
        before = snapshot(session, users)
        for sent in range(1, requests + 1):
            request = generator.next()
            recent = [*recent[-2:], request.kind]
            liveness.in_flight = request.kind
            tally.sent(request)
            try:
                answer = send(http, request, target)
            except httpx.LocalProtocolError:
                raise  # httpx would not send it: the generator's fault, not the server's
            except httpx.HTTPError as exc:
                unanswered += 1
                tally.fail("unanswered", request, "-", "", f"{type(exc).__name__}: {exc}")
                if unanswered >= UNANSWERED_IN_A_ROW or liveness.silent_for() > UNRESPONSIVE_S:
                    aborted = f"the server stopped answering after request {sent}; the last ones: " + " | ".join(recent)
                    break
                continue
            unanswered = 0
            was_refused = refused(answer, generator.user_errors)
            tally.answered(request, answer, was_refused)
            for check, code, message in problems(request, answer, was_refused, generator.error_codes):
                tally.fail(check, request, answer.status, code, message)
            after = snapshot(session, users)
            if (was_refused or request.operation == "query") and (change := before.diff(after)):
                tally.fail("state_change", request, answer.status, ",".join(c or "" for c in error_codes(answer.body)),
                           f"{'refused' if was_refused else 'a read'}, yet {change}")
            if not was_refused:
                pool.learn(answer.body)
            before = after
            if liveness.silent_for() > UNRESPONSIVE_S:
                aborted = (f"/healthz silent for {UNRESPONSIVE_S:.0f} s after request {sent}; the last ones: "
                           + " | ".join(recent))
                break
    health = liveness.summary()
    tally.checks["healthz"] = health["failures"]
    summary = tally.summary()
    return {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "server": target.base,
        "seed": seed,
        "requested": requests,
        "elapsed_s": round(time.perf_counter() - started, 1),
        "bomb_depth": bomb_depth,
        "aborted": aborted,
        "passed": not aborted and not any(summary["checks"].values()),
        "healthz": health,
        **summary,
        "fields": {f"{op}:{name}": {way: generator.sent[f"{op}:{name}:{way}"] for way in ("inline", "variables")}
                   for op, name in generator.roots},
        "server_errors": server_errors(log, log_start) if log is not None else None,
    }


def send(http: httpx.Client, request: Request, target: Target) -> Answer:
    headers: list[tuple[str, str | bytes]] = [("accept", request.accept)]
    if request.content_type is not None:
        headers.append(("content-type", request.content_type))
    headers += auth_headers(request.auth, target.key, target.revoked_key)
    content: bytes | Iterator[bytes] | None = request.body or None
    if request.chunked:
        content = (request.body[i:i + 65536] for i in range(0, len(request.body), 65536))
    started = time.perf_counter()
    response = http.request(request.method, "/graphql", content=content, headers=headers, params=request.params or None)
    ms = (time.perf_counter() - started) * 1000
    text = response.text
    try:
        body = json.loads(text) if text else None
    except ValueError:
        body = None
    return Answer(response.status_code, response.headers.get("content-type", ""), text, body, ms)


def server_errors(log: Path, start: int = 0) -> dict[str, int]:
    """Each distinct error the server logged after byte ``start`` of its JSON-lines log, by how often:
    the message, and for a traceback its last line (the exception)."""
    seen: Counter[str] = Counter()
    with log.open("rb") as lines:
        lines.seek(start)
        for raw in lines:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(line, dict) or line.get("level") not in ("error", "critical"):
                continue
            trace = str(line.get("exception") or "").strip().splitlines()
            seen[_normalise(f"{line.get('message', '')}" + (f" — {trace[-1]}" if trace else ""), 240)] += 1
    return dict(seen.most_common())


def _normalise(message: str, length: int = 120) -> str:
    """A message without what varies between two requests of a kind: ids, numbers, long runs."""
    message = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "<id>", message)
    message = re.sub(r"\d+", "<n>", message)
    return re.sub(r"(.)\1{9,}", r"\1…", message)[:length]


def failed(result: Mapping[str, Any]) -> str:
    """Every distinct failure of a result, a paragraph each ('' when it passed)."""
    lines = []
    if result.get("aborted"):
        lines.append(f"aborted: {result['aborted']}")
    for f in result["failures"]:
        lines.append(f"[{f['check']}] {f['kind']} ×{f['count']}: HTTP {f['status']} {f['code'] or '-'}: {f['message']}\n"
                     f"    e.g. {f['examples'][0]}")
    health = result["healthz"]
    if health["failures"]:
        lines.append(f"[healthz] {health['failures']} of {health['samples']} samples failed: {health['failure_examples']}")
    if lines and result.get("server_errors"):
        lines.append("the server logged: " + "; ".join(f"{m} ×{n}" for m, n in result["server_errors"].items()))
    return "\n".join(lines)




# ---------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def fuzzed(api_server: Server, make_client, services: Services) -> dict[str, Any]:
    fuzzer, other = make_client("fuzz"), make_client("fuzz-other")
    target = prepare(services, api_server.base, fuzzer.key, fuzzer.user_id, other.key, other.user_id)
    return run(services, target, REQUESTS, seed=SEED, timeout_s=TIMEOUT_S, log=api_server.log)


def failures(result: dict[str, Any], *checks: str) -> str:
    """The distinct failures of these checks, one paragraph each, for the assertion message."""
    shown = {**result, "failures": [f for f in result["failures"] if f["check"] in checks]}
    return failed(shown)


def test_the_run_finished_and_asked_every_field_inline_and_as_variables(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["aborted"] is None, fuzzed["aborted"]
    assert fuzzed["requests"] == REQUESTS
    missing = [name for name, ways in fuzzed["fields"].items() if not (ways["inline"] and ways["variables"])]
    assert not missing, missing


def test_no_answer_is_a_5xx(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["http_5xx"] == 0, failures(fuzzed, "http_5xx")


def test_every_error_has_a_code_and_none_is_internal(fuzzed: dict[str, Any]) -> None:
    checks = fuzzed["checks"]
    assert checks["internal_server_error"] + checks["missing_code"] == 0, \
        failures(fuzzed, "internal_server_error", "missing_code")


def test_a_refused_request_changes_nothing(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["state_change"] == 0, failures(fuzzed, "state_change")


def test_what_must_be_refused_is(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["unmet_expectation"] == 0, failures(fuzzed, "unmet_expectation")


def test_every_request_is_answered_and_healthz_answers_throughout(fuzzed: dict[str, Any]) -> None:
    assert fuzzed["checks"]["unanswered"] == 0, failures(fuzzed, "unanswered")
    health = fuzzed["healthz"]
    assert health["samples"] > 0
    assert health["failures"] == 0, f"/healthz failed {health['failures']} times: {health['failure_examples']}"
