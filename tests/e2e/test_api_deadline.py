"""A tight deadline under many concurrent writers (``HIPPOGRAPH_REQUEST_TIMEOUT=1``, 64 at once): every
write answered with an error is absent from the store and every success is present. A write cut off
before it began never begins; one that had begun is answered with its outcome, or OUTCOME_UNKNOWN.
And work cut off at the deadline stops there: a burst of requests stuck past it leaves the server
answering the requests after it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from hippograph_bench.server import Server, running_server
from hippograph.graph.vocabulary import Tier
from hippograph.memory import keys
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from api_client import Client, new_user, until

pytestmark = pytest.mark.neo4j

WRITERS = 64
WRITES_EACH = 6
BURST = 32
# Each client of the burst edits again as soon as it is answered: enough edits for every worker thread.
EDITS_EACH = 3
UPDATE = """mutation($input: UpdateMemoryInput!) { updateMemory(input: $input) {
  __typename ... on UserError { code } } }"""
REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) {
  __typename ... on UserError { code } ... on RememberSuccess { memory { id content } created } } }"""


@pytest.fixture(scope="module")
def hurried(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # A project large enough that nothing is compressed: a summary replacing a stored text would hide
    # it from the check by content below (384 writes of about 40 tokens; the default holds 4,096).
    settings = {"HIPPOGRAPH_REQUEST_TIMEOUT": "1", "HIPPOGRAPH_PROJECT_CAPACITY": "100000"}
    with running_server(tmp_path_factory.mktemp("deadline") / "serve.log", settings) as server:
        yield server


def content(tag: str, n: int) -> str:
    # Long enough that 64 at once keep the two cores busy past the deadline: embedding is most of a write.
    paragraph = f"Note {tag}-{n}: the build farm in region {n} rotates its runners every night. " * 2
    return paragraph.strip()


def answer(client: Client, text: str) -> dict[str, Any]:
    """What the caller was told about one write: its memory, or its error code."""
    body = client.run(REMEMBER, input={"content": text, "tier": "PROJECT", "project": "deadline"})
    if body.get("errors"):
        return {"text": text, "code": body["errors"][0]["extensions"]["code"]}
    result = body["data"]["remember"]
    if result["__typename"] != "RememberSuccess":
        return {"text": text, "code": result["code"]}
    return {"text": text, "id": result["memory"]["id"]}


def test_every_write_answered_with_an_error_is_absent_and_every_success_present(
    hurried: Server, services: Services,
) -> None:
    user = new_user("deadline")
    secret = keys.create_key(services.driver, services.database, user, keys.Role.USER).secret
    tag = uuid.uuid4().hex[:8]

    def writer(w: int) -> list[dict[str, Any]]:
        client = Client(hurried, secret, user)  # a connection of its own, as 64 clients would have
        return [answer(client, content(tag, w * WRITES_EACH + i)) for i in range(WRITES_EACH)]

    with ThreadPoolExecutor(WRITERS) as pool:
        answers = [a for each in pool.map(writer, range(WRITERS)) for a in each]
    stored = {r["content"]: r["id"] for r in services.driver.execute_query(
        "MATCH (m:Memory {userId: $u}) RETURN m.content AS content, m.id AS id", u=user, database_=services.database,
    ).records}
    told = {code: sum(a.get("code") == code for a in answers) for code in {a.get("code") for a in answers}}
    cut_off = [a for a in answers if a.get("code") == "LIMIT_EXCEEDED"]
    assert cut_off, f"no write passed the deadline, so nothing was tested: {told}"
    # UNAVAILABLE: no connection came within the share of its deadline a request may wait for one.
    assert {a["code"] for a in answers if "code" in a} <= {"LIMIT_EXCEEDED", "OUTCOME_UNKNOWN", "UNAVAILABLE"}, told
    # Told "cut off" or "unavailable" (any failure but "unknown"): not stored — not now, and not later either.
    refused = [a for a in answers if a.get("code") in {"LIMIT_EXCEEDED", "UNAVAILABLE"}]
    assert [a["text"][:30] for a in refused if a["text"] in stored] == []
    # Told "stored": stored, as the memory it was told of.
    assert [a for a in answers if "id" in a and stored.get(a["text"]) != a["id"]] == []


def test_a_burst_stuck_past_its_deadline_leaves_the_server_answering_the_next_request(
    hurried: Server, services: Services,
) -> None:
    """32 clients edit one user's memory while this test holds that user's lock, so that every edit is
    stuck in Neo4j past its deadline (an edit has begun writing: OUTCOME_UNKNOWN after twice the
    deadline). Their work must stop there, its transactions ended and its threads and connections
    given back: another user's request, made after the burst while the lock is still held, is
    answered as usual. Before, the stuck edits kept every worker thread, and it never was."""
    stuck, other = new_user("stuck"), new_user("after")
    memory = remember(services, Scope(stuck), MemoryInput("The burst edits this note", Tier.LONG_TERM)).id
    stuck_key = keys.create_key(services.driver, services.database, stuck, keys.Role.USER).secret
    after = Client(hurried, keys.create_key(services.driver, services.database, other, keys.Role.USER).secret, other)
    logged = len(hurried.log_lines())

    def editor(c: int) -> list[str]:
        client = Client(hurried, stuck_key, stuck)
        return [answer_code(client.run(UPDATE, input={"id": memory, "relevance": (c * EDITS_EACH + i) / 1000}))
                for i in range(EDITS_EACH)]

    with services.driver.session(database=services.database) as session:
        holding = session.begin_transaction()
        try:
            holding.run("MATCH (u:User {id: $id}) SET u.heldByTest = true", id=stuck).consume()
            with ThreadPoolExecutor(BURST) as pool:
                codes = [code for each in pool.map(editor, range(BURST)) for code in each]
            # UNAVAILABLE: a request that waited for a connection past its share of the deadline, refused unstored.
            assert set(codes) <= {"LIMIT_EXCEEDED", "OUTCOME_UNKNOWN", "UNAVAILABLE"} and codes, codes
            answered = until(lambda: not after.codes("{ tierUsage { tier } }"), 60)
        finally:
            holding.rollback()
    assert answered, "a request after the burst was not answered: the cut-off work still held the server"
    # What the cut-off work met on its way out is logged as that, not as an unexpected error.
    assert [line for line in hurried.log_lines()[logged:] if "unexpected error" in line] == []


def answer_code(body: dict[str, Any]) -> str:
    if body.get("errors"):
        return body["errors"][0]["extensions"]["code"]
    return body["data"]["updateMemory"].get("code") or body["data"]["updateMemory"]["__typename"]
