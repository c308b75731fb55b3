"""For analysts, over HTTP and the command line: reads as of a moment, erasure receipts and their check."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from api_client import Client, hippograph_here

pytestmark = pytest.mark.neo4j

RECEIPT = "receipt { userId scope scopeId at tombstoneId nodes { name count } relationships { name count } ids digest }"
CHECK = "erased intact remaining userRemains { name count }"


def moment() -> str:
    time.sleep(0.01)
    at = datetime.now(timezone.utc).isoformat()
    time.sleep(0.01)
    return at


def remember(client: Client, content: str) -> str:
    made = client.data("""mutation($c: String!) { remember(input: {content: $c, tier: PROJECT, project: "ops"}) {
        ... on RememberSuccess { memory { id } } } }""", c=content)
    return made["remember"]["memory"]["id"]


def test_every_read_takes_as_of_and_answers_the_store_as_it_was(alice: Client) -> None:
    memory_id = remember(alice, "the deploy window is Tuesday at nine")
    decision = alice.data("""mutation { recordDecision(input: {decision: "Deploy on Tuesdays", project: "ops"}) {
        ... on RecordSuccess { entity { id } } } }""")["recordDecision"]["entity"]["id"]
    before = moment()
    alice.data("""mutation($id: ID!) { updateMemory(input: {id: $id, content: "the deploy window is Thursday at ten"}) {
        __typename } }""", id=memory_id)
    alice.data("""mutation($d: ID!) { recordDecision(input: {decision: "Deploy on Thursdays", project: "ops",
        conflictsWith: [$d]}) { __typename } }""", d=decision)

    reads = """query($id: ID!, $at: DateTime) {
      memory(id: $id, asOf: $at) { content }
      memories(filter: {project: "ops"}, asOf: $at) { nodes { content validUntil } }
      recall(query: "when is the deploy window", project: "ops", priority: CRITICAL, asOf: $at) { items { id content } recallId }
      tierUsage(project: "ops", asOf: $at) { tier items }
    }"""
    then = alice.data(reads, id=memory_id, at=before)
    now = alice.data(reads, id=memory_id, at=None)
    assert then["memory"]["content"] == "the deploy window is Tuesday at nine"
    assert now["memory"]["content"] == "the deploy window is Thursday at ten"
    assert [i["content"] for i in then["recall"]["items"]][0] == "the deploy window is Tuesday at nine"
    # As of then, the Tuesday decision was open and the Thursday one not yet recorded.
    assert all(node["validUntil"] is None for node in then["memories"]["nodes"])
    assert "Deploy on Thursdays" not in " ".join(node["content"] for node in then["memories"]["nodes"])
    assert any(node["validUntil"] is not None for node in now["memories"]["nodes"])
    assert now["recall"]["recallId"]

    future = alice.run("""query { recall(query: "deploy", asOf: "2999-01-01T00:00:00Z") { items { id } } }""")
    assert future["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


# The six reads that take asOf, each with what it needs to answer: a memory's id and an entity's.
AS_OF_READS = {
    "memory": 'memory(id: "{memory}", asOf: $at) {{ id }}',
    "memories": 'memories(asOf: $at) {{ nodes {{ id }} }}',
    "recall": 'recall(query: "deploy", asOf: $at) {{ items {{ id }} }}',
    "trace": 'trace(from: "{entity}", asOf: $at) {{ nodes {{ id }} }}',
    "chains": 'chains(asOf: $at) {{ error {{ id }} }}',
    "tierUsage": 'tierUsage(project: "ops", asOf: $at) {{ tier }}',
}


def test_every_read_with_as_of_takes_the_same_moments_and_refuses_the_same(alice: Client) -> None:
    memory_id = remember(alice, "the deploy freeze starts on the twentieth")
    entity_id = alice.data("""mutation { recordDecision(input: {decision: "Freeze deploys in December", project: "ops"}) {
        ... on RecordSuccess { entity { id } } } }""")["recordDecision"]["entity"]["id"]
    # An offset past ±18:00 is no time zone's (Neo4j refuses it); a moment to come has no store yet.
    refused = {"2026-01-01T00:00:00-23:59": "offset", "2026-01-01T00:00:00+18:01": "offset",
               "2026-01-01T00:00:00-19:00": "offset", "9999-12-31T23:59:59Z": "future",
               "2999-01-01T00:00:00+18:00": "future"}
    now = datetime.now(timezone.utc)
    for field, selection in AS_OF_READS.items():
        read = f"query($at: DateTime) {{ {selection.format(memory=memory_id, entity=entity_id)} }}"
        for at, why in refused.items():
            body = alice.run(read, at=at)
            [error] = body["errors"]
            assert error["extensions"]["code"] == "BAD_USER_INPUT" and why in error["message"], (field, at, error)
            assert error["path"] == [field] and (body["data"] or {}).get(field) is None, (field, at, body)
        for hours in (-18, 14, 18):
            at = now.astimezone(timezone(timedelta(hours=hours))).isoformat()
            assert not alice.run(read, at=at).get("errors"), (field, at)


def test_the_audit_log_takes_since_and_until_by_the_rule_of_as_of(alice: Client) -> None:
    remember(alice, "the audit log reads its times as asOf does")
    [event] = alice.data("{ auditLog(first: 1) { nodes { id at } } }")["auditLog"]["nodes"]
    at = datetime.fromisoformat(event["at"])
    page = "query($s: DateTime, $u: DateTime) { auditLog(filter: {since: $s, until: $u}, first: 100) { nodes { id } } }"
    # The same instant however spelled: without a zone (UTC), or at any offset a zone has.
    for spelled in (at.replace(tzinfo=None).isoformat(),
                    *(at.astimezone(timezone(timedelta(hours=hours))).isoformat() for hours in (-18, 14, 18))):
        since = [node["id"] for node in alice.data(page, s=spelled, u=None)["auditLog"]["nodes"]]
        until = [node["id"] for node in alice.data(page, s=None, u=spelled)["auditLog"]["nodes"]]
        assert event["id"] in since and event["id"] not in until, spelled
    # An offset no zone has, or a time before year 1 or after 9999 once in UTC, is refused by name.
    refused = {"2026-01-01T00:00:00-23:59": "offset", "2026-01-01T00:00:00+18:01": "offset",
               "0001-01-01T00:00:00+01:00": "years 1 to 9999", "9999-12-31T23:59:59-01:00": "years 1 to 9999"}
    for bound in ("since", "until"):
        for spelled, why in refused.items():
            body = alice.run(f"query($t: DateTime) {{ auditLog(filter: {{{bound}: $t}}) {{ nodes {{ id }} }} }}", t=spelled)
            errors = body.get("errors") or []
            assert [error["extensions"]["code"] for error in errors] == ["BAD_USER_INPUT"], (bound, spelled, body)
            assert f"filter.{bound}" in errors[0]["message"] and why in errors[0]["message"], (bound, spelled, body)


def test_a_receipt_checks_out_and_a_tampered_or_foreign_one_does_not(alice: Client, bob: Client) -> None:
    memory_id = remember(alice, "the vault token is rotated by the on-call")
    forgotten = alice.data(f"""mutation($id: ID!) {{ forget(input: {{memory: $id}}) {{
        ... on ForgetSuccess {{ memories entities {RECEIPT} }} }} }}""", id=memory_id)["forget"]
    receipt = forgotten["receipt"]
    # The memory, and the entities only it mentioned.
    assert receipt["ids"] == sorted(forgotten["memories"] + forgotten["entities"])
    assert {"name": "Memory", "count": 1} in receipt["nodes"]

    verify = f"query($r: ErasureReceiptInput!) {{ verifyErasure(receipt: $r) {{ {CHECK} }} }}"
    assert alice.data(verify, r=receipt)["verifyErasure"]["erased"] is True
    tampered = alice.data(verify, r={**receipt, "digest": "0" * 64})["verifyErasure"]
    assert tampered["erased"] is False and tampered["intact"] is False
    assert bob.codes(verify, r=receipt) == ["NOT_FOUND"]
    assert alice.codes(verify, r={**receipt, "scope": "galaxy"}) == ["BAD_USER_INPUT"]


def test_a_receipts_time_is_held_to_the_rule_of_as_of(alice: Client) -> None:
    memory_id = remember(alice, "the receipt's time is checked like asOf")
    receipt = alice.data(f"""mutation($id: ID!) {{ forget(input: {{memory: $id}}) {{
        ... on ForgetSuccess {{ {RECEIPT} }} }} }}""", id=memory_id)["forget"]["receipt"]
    verify = f"query($r: ErasureReceiptInput!) {{ verifyErasure(receipt: $r) {{ {CHECK} }} }}"
    refused = {"2026-01-01T00:00:00+18:01": "offset", "2026-01-01T00:00:00-19:00": "offset",
               "9999-12-31T23:59:59Z": "future", "9999-12-31T23:59:59-01:00": "years 1 to 9999"}
    for at, why in refused.items():
        [error] = alice.run(verify, r={**receipt, "at": at})["errors"]
        assert error["extensions"]["code"] == "BAD_USER_INPUT", (at, error)
        assert "receipt.at" in error["message"] and why in error["message"], (at, error)
    moved = datetime.fromisoformat(receipt["at"]).astimezone(timezone(timedelta(hours=-18))).isoformat()
    assert alice.data(verify, r={**receipt, "at": moved})["verifyErasure"]["erased"] is True


def test_a_receipt_for_another_users_erasure_is_refused_not_answered_with_the_callers_counts(
    alice: Client, bob: Client,
) -> None:
    verify = f"query($r: ErasureReceiptInput!) {{ verifyErasure(receipt: $r) {{ {CHECK} }} }}"
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # the SHA-256 of no ids
    receipt = {"userId": bob.user_id, "scope": "user", "scopeId": alice.user_id, "at": moment(), "tombstoneId": "t",
               "nodes": [], "relationships": [], "ids": [], "digest": empty}
    body = bob.run(verify, r=receipt)
    [error] = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT" and "scopeId is its userId" in error["message"], error
    assert body["data"] is None
    # Named as the user it checks, it speaks of bob's store; naming alice alone, it is not bob's to check.
    assert bob.data(verify, r={**receipt, "scopeId": bob.user_id})["verifyErasure"]["intact"] is True
    assert bob.codes(verify, r={**receipt, "userId": alice.user_id}) == ["NOT_FOUND"]


def test_the_forget_command_writes_a_receipt_that_forget_verify_checks(
    make_client, services, tmp_path: Path,
) -> None:
    client = make_client("receipts")
    remember(client, "the staging cluster lives in eu-west")
    path = tmp_path / "receipt.json"
    run = hippograph_here("forget", "user", client.user_id, "--receipt", str(path))
    assert run.returncode == 0, run.stderr
    receipt = json.loads(path.read_text())
    assert receipt["scope"] == "user" and receipt["nodes"]["Memory"] == 1 and receipt["nodes"]["User"] == 1

    checked = hippograph_here("forget", "verify", str(path))
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["erased"] is True

    services.driver.execute_query("CREATE (:Entity {id: 'planted', userId: $u, name: 'x'})", u=client.user_id,
                                  database_=services.database)
    try:
        planted = hippograph_here("forget", "verify", str(path))
        assert planted.returncode == 1 and "NOT erased" in planted.stderr
        assert json.loads(planted.stdout)["user_remains"]["nodes"] == 1
    finally:
        services.driver.execute_query("MATCH (n:Entity {id: 'planted'}) DELETE n", database_=services.database)


def test_a_decision_names_the_recall_that_informed_it_and_shows_it_as_it_was(alice: Client) -> None:
    memory_id = remember(alice, "the image registry keeps ninety days of tags")
    recalled = alice.data("""query { recall(query: "how long does the image registry keep tags", project: "ops",
        priority: CRITICAL) { items { id } recallId } }""")["recall"]
    assert memory_id in [item["id"] for item in recalled["items"]]
    entity = alice.data("""mutation($r: ID!) { recordDecision(input: {decision: "Prune registry tags weekly",
        project: "ops", informedBy: $r}) { ... on RecordSuccess { entity { id } } } }""",
                        r=recalled["recallId"])["recordDecision"]["entity"]["id"]
    alice.data("""mutation($id: ID!) { updateMemory(input: {id: $id, content: "the image registry keeps a year of tags"}) {
        __typename } }""", id=memory_id)
    context = alice.data("""query($id: ID!) { entity(id: $id) { context { recallId recordedAt
        memories { id erasedAt memory { content } } } } }""", id=entity)["entity"]["context"]
    assert context["recallId"] == recalled["recallId"]
    shown = {row["id"]: row for row in context["memories"]}
    assert shown[memory_id]["memory"]["content"] == "the image registry keeps ninety days of tags"
    refused = alice.data("""mutation { recordDecision(input: {decision: "Guess", project: "ops",
        informedBy: "no-such-recall"}) { __typename ... on UserError { code } } }""")["recordDecision"]
    assert refused == {"__typename": "NotFoundError", "code": "NOT_FOUND"}
