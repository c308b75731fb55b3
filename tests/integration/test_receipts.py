"""Erasure receipts: exact about what went, checkable against the live store, and saying so when
something of the erased is back.

The store holds two users who said the same words; each erasure's receipt is compared with a census
the test takes itself (every node of the user and every relationship touching one, before and after).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from hippograph.graph.receipts import kind
from hippograph.graph.vocabulary import Tier
from hippograph.memory import receipts
from hippograph.memory.lifecycle import sessions
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import forget, knowledge
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from hippograph.memory.writing.updates import update_memory

pytestmark = pytest.mark.neo4j

ERASED, OTHER = "erased-user", "other-user"
WORDS = [
    "the billing export runs every night at two",
    "we chose Kafka for the order events because of replay",
    "the staging database password rotates weekly",
]

CENSUS = """
MATCH (n) WHERE n.userId = $userId OR (n:User AND n.id = $userId)
WITH collect(n) AS nodes
RETURN [n IN nodes | {element: elementId(n), id: n.id, labels: labels(n)}] AS nodes,
       COLLECT { UNWIND nodes AS n MATCH (n)-[r]-() RETURN DISTINCT {element: elementId(r), type: type(r)} } AS rels
"""


def census(services: Services, user_id: str) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    record = services.driver.execute_query(CENSUS, userId=user_id, database_=services.database).records[0]
    return ({n["element"]: dict(n) for n in record["nodes"]}, {r["element"]: r["type"] for r in record["rels"]})


def gone(before: tuple[dict[str, dict[str, Any]], dict[str, str]],
         after: tuple[dict[str, dict[str, Any]], dict[str, str]]) -> tuple[Counter[str], Counter[str], list[str]]:
    """Counts per label and per relationship type, and the sorted ids, of what went between two censuses."""
    nodes = [n for element, n in before[0].items() if element not in after[0]]
    rels = [t for element, t in before[1].items() if element not in after[1]]
    return (Counter(kind(n["labels"]) for n in nodes), Counter(rels),
            sorted(n["id"] for n in nodes if n["id"] is not None))


def fill(services: Services, user_id: str) -> dict[str, Any]:
    """A store with every kind of thing: sessions, a project, knowledge, edits (versions), shared words."""
    project = Scope(user_id, "shop")
    made: dict[str, Any] = {"notes": []}
    for text in WORDS:
        made["notes"].append(remember(services, project, MemoryInput(text, Tier.PROJECT)).id)
    update_memory(services, user_id, made["notes"][0], content="the billing export runs every night at three")
    update_memory(services, user_id, made["notes"][0], content="the billing export runs every night at four")
    decision = knowledge.record_decision(services, project, "Use Kafka for order events", reason="replay")
    knowledge.record_error(services, project, "Kafka consumer lag on Black Friday", fix="Add consumer partitions",
                           caused_by=decision.entity_id)
    remember(services, Scope(user_id), MemoryInput("prefers answers in short bullet points", Tier.LONG_TERM))
    for session_id in ("call-1", "call-2"):
        scope = Scope(user_id, "shop", session_id)
        sessions.start_session(services, scope)
        remember(services, scope, MemoryInput(f"in {session_id} we discussed the billing export", Tier.SESSION))
    made["decision"] = decision.entity_id
    return made


def check(receipt: receipts.Receipt | None, expected: tuple[Counter[str], Counter[str], list[str]]) -> receipts.Receipt:
    assert receipt is not None
    nodes, rels, ids = expected
    assert receipt.nodes == dict(nodes)
    assert receipt.relationships == dict(rels)
    assert receipt.ids == ids
    assert receipt.digest == receipts.digest(ids)
    return receipt


def test_each_erasure_receipt_is_exact_and_checks_out(clean_hashed: Services) -> None:
    services = clean_hashed
    made = fill(services, ERASED)
    fill(services, OTHER)

    before = census(services, ERASED)
    forgotten = forget.forget_memory(services, ERASED, made["notes"][0])
    receipt = check(forgotten.receipt, gone(before, census(services, ERASED)))
    # The memory went with its two earlier texts.
    assert receipt.nodes["MemoryVersion"] == 2 and receipt.relationships["HAD_VERSION"] == 2
    assert receipts.verify(services, receipt).erased

    before = census(services, ERASED)
    check(forget.forget_session(services, ERASED, "call-1").receipt, gone(before, census(services, ERASED)))

    before = census(services, ERASED)
    check(forget.forget_entity(services, ERASED, made["decision"]).receipt, gone(before, census(services, ERASED)))

    before = census(services, ERASED)
    receipt = check(forget.forget_project(services, ERASED, "shop").receipt, gone(before, census(services, ERASED)))
    assert receipt.scope == "project" and receipt.tombstone_id
    assert receipts.verify(services, receipt).erased


def test_a_user_erasure_leaves_nothing_of_them_and_the_check_finds_a_node_planted_back(clean_hashed: Services) -> None:
    services = clean_hashed
    fill(services, ERASED)
    fill(services, OTHER)
    others = census(services, OTHER)
    services.audit.flush()

    before = census(services, ERASED)
    forgotten = forget.forget_user(services, ERASED)
    after = census(services, ERASED)
    nodes, rels, ids = gone(before, after)
    receipt = check(forgotten.receipt, (nodes, rels, ids))
    assert receipt.nodes["User"] == 1 and receipt.nodes["MemoryVersion"] == 2 and receipt.nodes["AuditEvent"] > 0
    # The tombstone is all that carries the user now.
    assert [n["labels"] for n in after[0].values()] == [["AuditEvent"]]
    assert receipt.tombstone_id == next(iter(after[0].values()))["id"]

    checked = receipts.verify(services, receipt)
    assert checked.erased and checked.remaining == [] and set(checked.user_remains.values()) == {0}
    # The other user, who said the same words, keeps every node and relationship and still recalls them.
    assert census(services, OTHER) == others
    found = recall(services, "when does the billing export run", Scope(OTHER, "shop"), priority="CRITICAL")
    assert found.items and all(item.id not in receipt.ids for item in found.items)

    # One node planted back by hand, with an id the receipt names: the check says so.
    services.driver.execute_query("CREATE (:Memory {id: $id, userId: $userId, content: 'planted'})",
                                  id=receipt.ids[0], userId=ERASED, database_=services.database)
    planted = receipts.verify(services, receipt)
    assert not planted.erased and planted.remaining == [receipt.ids[0]]
    assert planted.user_remains["nodes"] == 1 and planted.user_remains["memoryText"] == 1


def test_a_tampered_receipt_does_not_check_out(clean_hashed: Services) -> None:
    services = clean_hashed
    note = remember(services, Scope(ERASED), MemoryInput("a note to erase", Tier.LONG_TERM))
    receipt = forget.forget_memory(services, ERASED, note.id).receipt
    assert receipt is not None
    as_sent = receipt.as_json()
    assert receipts.Receipt.from_json(as_sent) == receipt
    tampered = receipts.Receipt.from_json({**as_sent, "ids": as_sent["ids"][1:]})
    assert not receipts.verify(services, tampered).intact
