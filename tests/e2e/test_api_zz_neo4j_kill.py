"""Neo4j killed (kill -9) under a load of writes: no write answered as failed is stored, unless its
answer was OUTCOME_UNKNOWN; every write answered as stored is stored; and a retry with the same
request id answers with the first outcome — the memory it stored, or a first store now. Runs after
every other test (it stops Neo4j)."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from hippograph.local import neo4j_server
from hippograph.config import Settings
from hippograph.graph.vocabulary import Tier
from hippograph.memory.errors import OutcomeUnknown
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from api_client import Client, until

pytestmark = [pytest.mark.neo4j, pytest.mark.neo4j_restart]

WRITERS = 12  # of each kind: over HTTP, and in this process with request ids
REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) {
  __typename ... on UserError { code } ... on RememberSuccess { memory { id } } } }"""


def over_http(client: Client, text: str) -> dict[str, Any]:
    body = client.run(REMEMBER, input={"content": text, "tier": "PROJECT", "project": "kill"})
    if body.get("errors"):
        return {"text": text, "code": body["errors"][0]["extensions"]["code"]}
    result = body["data"]["remember"]
    return {"text": text, "id": result["memory"]["id"]} if "memory" in result else {"text": text, "code": result["code"]}


def in_process(services: Services, scope: Scope, text: str, request_id: str) -> dict[str, Any]:
    try:
        stored = remember(services, scope, MemoryInput(text, Tier.PROJECT), request_id=request_id)
    except OutcomeUnknown:
        return {"text": text, "rid": request_id, "code": "OUTCOME_UNKNOWN"}
    except Exception as exc:  # the store was down: the write's answer is that it failed
        return {"text": text, "rid": request_id, "code": type(exc).__name__}
    return {"text": text, "rid": request_id, "id": stored.id}


def stored_texts(services: Services, user_id: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for r in services.driver.execute_query("MATCH (m:Memory {userId: $u}) RETURN m.content AS content, m.id AS id",
                                           u=user_id, database_=services.database).records:
        found.setdefault(r["content"], []).append(r["id"])
    return found


def test_writes_answered_while_neo4j_is_killed_are_answered_truly(
    settings: Settings, services: Services, make_client: Callable[..., Client],
) -> None:
    client = make_client("kill")
    mine = Scope(f"kill-{uuid.uuid4().hex[:8]}", "kill")
    tag = uuid.uuid4().hex[:8]
    stop = threading.Event()
    http_answers: list[dict[str, Any]] = []
    process_answers: list[dict[str, Any]] = []

    def http_writer(w: int) -> None:
        own = Client(client.server, client.key, client.user_id)
        n = 0
        while not stop.is_set():
            http_answers.append(over_http(own, f"Over HTTP {tag}: writer {w} note {n} about the night build"))
            if "code" in http_answers[-1]:
                time.sleep(0.1)  # refused at once while the store is down: no need to spin
            n += 1

    def process_writer(w: int) -> None:
        n = 0
        while not stop.is_set():
            rid = f"kill-{tag}-{w}-{n}"
            process_answers.append(in_process(services, mine, f"In process {tag}: writer {w} note {n}", rid))
            n += 1

    threads = [threading.Thread(target=http_writer, args=(w,)) for w in range(WRITERS)]
    threads += [threading.Thread(target=process_writer, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    try:
        assert until(lambda: len(http_answers) >= 3 * WRITERS and len(process_answers) >= 3 * WRITERS, 120)
        pid = neo4j_server.status(settings).pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # mid-load: some commits are in flight
        assert until(lambda: not neo4j_server.status(settings).running, 60)
        before = len(http_answers), len(process_answers)
        # The writers go on against the dead store until each kind has been refused a few times.
        assert until(lambda: len(http_answers) >= before[0] + WRITERS and len(process_answers) >= before[1] + WRITERS, 120)
    finally:
        stop.set()
        for thread in threads:
            thread.join(120)
        neo4j_server.start(settings, log=lambda _: None)
    assert until(lambda: not client.codes("{ tierUsage { tier } }"), 120), "the service did not recover"
    assert {a["code"] for a in http_answers if "code" in a}, "no write failed: the kill was not under load"

    # Over HTTP: told failed (but not "unknown") means absent; told stored means present.
    stored = stored_texts(services, client.user_id)
    assert [a for a in http_answers if a.get("code") not in (None, "OUTCOME_UNKNOWN") and a["text"] in stored] == []
    assert [a for a in http_answers if "id" in a and stored.get(a["text"]) != [a["id"]]] == []

    # In process, each write retried with its request id: the first outcome, or a first store now.
    stored = stored_texts(services, mine.user_id)
    for first in process_answers:
        retried = remember(services, mine, MemoryInput(first["text"], Tier.PROJECT), request_id=first["rid"])
        if "id" in first:
            assert (retried.id, retried.created) == (first["id"], False), first
        elif first["code"] != "OUTCOME_UNKNOWN":
            assert first["text"] not in stored and retried.created, first
    counts = services.driver.execute_query(
        "MATCH (m:Memory {userId: $u}) RETURN m.requestId AS rid, count(*) AS n", u=mine.user_id,
        database_=services.database,
    ).records
    assert {r["rid"]: r["n"] for r in counts} == {a["rid"]: 1 for a in process_answers}
