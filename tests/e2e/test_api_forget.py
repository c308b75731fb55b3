"""forgetSession, forgetProject, forgetUser and forget of a turn over HTTP, and `hippograph forget` as a command."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest

from api_client import Client, hippograph_here
from hippograph.memory import keys
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

COUNTS = "... on ScopeForgotten { memories entities turns sessions projects apiKeys }"
ERROR = "... on UserError { code message }"
FORGET = {
    "forgetSession": f"mutation($id: ID!) {{ forgetSession(input: {{id: $id}}) {{ __typename {COUNTS} {ERROR} }} }}",
    "forgetProject": f"mutation($id: ID!) {{ forgetProject(input: {{id: $id}}) {{ __typename {COUNTS} {ERROR} }} }}",
    "forgetUser": f"mutation($user: ID) {{ forgetUser(input: {{user: $user}}) {{ __typename {COUNTS} {ERROR} }} }}",
}
ALL_PROPERTIES = """
MATCH (n) RETURN n {.*, embedding: null} AS properties
UNION ALL
MATCH ()-[r]->() RETURN properties(r) AS properties
"""


def marker() -> str:
    """A word said nowhere else, so that any trace of a text holding it can be found."""
    return "zq" + uuid.uuid4().hex[:8]


def forget(client: Client, field: str, **variables: Any) -> dict[str, Any]:
    return client.data(FORGET[field], **variables)[field]


def converse(client: Client, session: str, project: str, lines: list[str]) -> None:
    """A session in the project: the lines as turns, a session memory, then its end (facts, promotions)."""
    client.data(f'mutation {{ startSession(input: {{id: "{session}", project: "{project}"}}) {{ __typename }} }}')
    for i, line in enumerate(lines):
        appended = client.data(
            """mutation($s: ID!, $p: ID!, $r: String!, $c: String!) { appendTurn(input: {session: $s, project: $p,
                 role: $r, content: $c}) { __typename } }""", s=session, p=project, r=("user", "assistant")[i % 2], c=line,
        )
        assert appended["appendTurn"]["__typename"] == "TurnAppended", appended
    client.data(
        """mutation($s: ID!, $c: String!) { remember(input: {content: $c, tier: SESSION, session: $s, kind: FACT}) {
             __typename } }""", s=session, c=f"The team calls the nightly job {lines[0].split()[-1]}",
    )
    ended = client.data(f'mutation {{ endSession(input: {{id: "{session}"}}) {{ __typename }} }}')
    assert ended["endSession"]["__typename"] == "SessionEnded", ended


def sentences(word: str) -> list[str]:
    return [f"We decided to deploy the billing service with {word}.",
            f"The release failed because the {word} token rotated at noon.",
            f"I fixed it by reloading the {word} secret from Vault."]


def traces(client: Client, services: Services, words: list[str], project: str) -> list[str]:
    """Where any of the words is still found: recall, full-text search, vector search, any property."""
    found = []
    for word in words:
        items = client.data('query($q: String!, $p: ID) { recall(query: $q, priority: CRITICAL, project: $p) { items { content } } }',
                            q=f"what about {word}?", p=project)["recall"]["items"]
        found += [f"recall: {word}" for item in items if word in item["content"].lower()]
        for index in ("memory_text", "entity_name"):
            hits = services.driver.execute_query("CALL db.index.fulltext.queryNodes($i, $q) YIELD node RETURN node",
                                                 i=index, q=word, database_=services.database).records
            found += [f"{index}: {word}" for _ in hits]
        vector = services.embedder.embed_query(f"the {word} token").tolist()
        hits = services.driver.execute_query("CALL db.index.vector.queryNodes('memory_embedding', 100, $v) YIELD node "
                                             "RETURN node.content AS content", v=vector, database_=services.database).records
        found += [f"vector: {word}" for hit in hits if word in (hit["content"] or "").lower()]
    for record in services.driver.execute_query(ALL_PROPERTIES, database_=services.database).records:
        text = json.dumps(record["properties"], default=str).lower()
        found += [f"property: {word}" for word in words if word in text]
    return found


def tombstones(services: Services, user_id: str) -> list[Any]:
    services.audit.flush()
    events, _ = services.audit.query(user_id=user_id, operations=["forget_session", "forget_project", "forget_user"])
    return events


def test_forget_session_erases_it_and_what_derives_from_it(make_client, services: Services) -> None:
    client = make_client("erin")
    gone, kept = marker(), marker()
    converse(client, "s1", "shop", sentences(gone))
    converse(client, "s2", "shop", sentences(kept))
    assert traces(client, services, [gone], "shop"), "before forgetting, the words are found"

    counts = forget(client, "forgetSession", id="s1")
    assert counts["__typename"] == "ScopeForgotten", counts
    assert counts["memories"] >= 3 and counts["sessions"] == 1 and counts["projects"] == 0 and counts["apiKeys"] == 0
    assert traces(client, services, [gone], "shop") == []
    assert {f"recall: {kept}", f"property: {kept}"} <= set(traces(client, services, [kept], "shop"))
    assert client.codes('{ session(id: "s1") { id } }') == ["NOT_FOUND"]
    assert client.data('{ session(id: "s2") { id } }')["session"] == {"id": "s2"}
    [tombstone] = tombstones(services, client.user_id)
    assert tombstone.ids[0] == "s1" and gone not in tombstone.detail
    assert tombstone.detail.startswith(f"memories {counts['memories']}, entities {counts['entities']}")
    assert forget(client, "forgetSession", id="s1")["code"] == "NOT_FOUND"


def test_forget_project_erases_its_sessions_and_memories(make_client, services: Services) -> None:
    client = make_client("fay")
    gone = marker()
    converse(client, "s1", "radio", sentences(gone))
    client.data(f'mutation {{ recordDecision(input: {{decision: "Stream {gone} audio with HLS", project: "radio"}}) {{ __typename }} }}')
    other = client.data('mutation { remember(input: {content: "The tv project encodes AV1", tier: PROJECT, project: "tv"}) '
                        '{ ... on RememberSuccess { memory { id } } } }')["remember"]["memory"]["id"]

    counts = forget(client, "forgetProject", id="radio")
    assert counts["__typename"] == "ScopeForgotten", counts
    assert counts["projects"] == 1 and counts["sessions"] == 1 and counts["memories"] >= 4
    assert traces(client, services, [gone], "radio") == [] and traces(client, services, [gone], None) == []
    assert client.data(f'{{ memory(id: "{other}") {{ id }} }}')["memory"] == {"id": other}
    assert [t.ids[0] for t in tombstones(services, client.user_id)] == ["radio"]
    assert forget(client, "forgetProject", id="radio")["code"] == "NOT_FOUND"


def test_nobody_forgets_another_users_scope(make_client, services: Services) -> None:
    owner, other = make_client("gus"), make_client("hal")
    kept = marker()
    converse(owner, "s1", "shop", sentences(kept))
    assert forget(other, "forgetSession", id="s1")["code"] == "NOT_FOUND"
    assert forget(other, "forgetProject", id="shop")["code"] == "NOT_FOUND"
    assert forget(other, "forgetUser", user=owner.user_id)["code"] == "NOT_FOUND"
    assert forget(other, "forgetSession", id="bad id!")["code"] == "BAD_USER_INPUT"
    assert owner.data('{ session(id: "s1") { id } }')["session"] == {"id": "s1"}
    assert tombstones(services, owner.user_id) == [] and tombstones(services, other.user_id) == []


def test_forget_a_turn_erases_it_from_the_transcript_and_the_store(make_client, services: Services) -> None:
    client, other = make_client("lee"), make_client("max")
    kept, gone = marker(), marker()
    client.data('mutation { startSession(input: {id: "s1", project: "shop"}) { __typename } }')
    turns = [client.data("""mutation($c: String!) { appendTurn(input: {session: "s1", role: "user", content: $c}) {
                              ... on TurnAppended { turnId } } }""", c=f"The {word} job runs at noon.")["appendTurn"]["turnId"]
             for word in (kept, gone)]
    erase = ("mutation($t: ID) { forget(input: {turn: $t}) { __typename ... on ForgetSuccess { memories turns "
             f"receipt {{ scope ids }} }} {ERROR} }} }}")

    assert other.data(erase, t=turns[1])["forget"]["code"] == "NOT_FOUND"
    assert client.data(erase, t="C0rrect" + "H0rse")["forget"]["code"] == "BAD_USER_INPUT"  # an id shaped like a password
    done = client.data(erase, t=turns[1])["forget"]
    assert done == {"__typename": "ForgetSuccess", "memories": [], "turns": [turns[1]],
                    "receipt": {"scope": "turn", "ids": [turns[1]]}}
    assert traces(client, services, [gone], "shop") == []
    assert f"property: {kept}" in traces(client, services, [kept], "shop")
    assert [t["id"] for t in client.data('{ session(id: "s1") { transcript { id } } }')["session"]["transcript"]] == turns[:1]
    assert client.data(erase, t=turns[1])["forget"]["code"] == "NOT_FOUND"


def test_forget_user_erases_yourself_or_with_an_admin_key_anyone(make_client, services: Services) -> None:
    me, them, admin = make_client("ivy"), make_client("jon"), make_client("root", keys.Role.ADMIN)
    mine, theirs = marker(), marker()
    converse(me, "s1", "shop", sentences(mine))
    converse(them, "s1", "shop", sentences(theirs))

    counts = forget(me, "forgetUser")  # no id: the caller
    assert counts["__typename"] == "ScopeForgotten", counts
    assert counts["apiKeys"] == 1 and counts["sessions"] == 1 and counts["projects"] == 1 and counts["memories"] >= 3
    assert me.codes('{ memories { nodes { id } } }') == ["UNAUTHENTICATED"]  # the key went with its user
    assert traces(admin, services, [mine], None) == []
    [tombstone] = tombstones(services, me.user_id)
    assert tombstone.operation == "forget_user" and mine not in tombstone.detail
    assert f"; by {me.user_id} (key " in tombstone.detail

    counts = forget(admin, "forgetUser", user=them.user_id)
    assert counts["__typename"] == "ScopeForgotten" and counts["apiKeys"] == 1, counts
    assert traces(admin, services, [theirs], None) == []
    assert f"by {admin.user_id} (key " in tombstones(services, them.user_id)[0].detail
    assert forget(admin, "forgetUser", user=them.user_id)["code"] == "NOT_FOUND"
    assert forget(admin, "forgetUser", user="bad user!")["code"] == "BAD_USER_INPUT"


def test_the_forget_command(make_client, services: Services) -> None:
    client = make_client("kit")
    gone, also = marker(), marker()
    converse(client, "s1", "shop", sentences(gone))
    converse(client, "s2", "lab", sentences(also))

    done = hippograph_here("forget", "session", "s1", "--user", client.user_id)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"forgot session s1 of user {client.user_id}: memories ")
    # Progress on stderr, a plain line off a terminal: one transaction, so all its memories at once.
    memories = re.search(r": memories (\d+)", done.stdout)[1]
    assert done.stderr.splitlines()[-1].startswith(f"forget session s1: {memories}/{memories} memories ("), done.stderr
    assert traces(client, services, [gone], "shop") == []
    done = hippograph_here("forget", "project", "lab", "--user", client.user_id)
    assert done.returncode == 0 and "sessions 1, projects 1" in done.stdout, done.stderr
    assert traces(client, services, [also], "lab") == []
    missing = hippograph_here("forget", "session", "s1", "--user", client.user_id)
    assert missing.returncode == 1 and missing.stderr.strip() == "hippograph: error: session s1 not found"

    done = hippograph_here("forget", "user", client.user_id)
    assert done.returncode == 0 and "api keys 1" in done.stdout, done.stderr
    assert re.match(rf"forget user {client.user_id}: (\d+)/\1 nodes \(", done.stderr.splitlines()[-1]), done.stderr
    assert client.codes('{ memories { nodes { id } } }') == ["UNAUTHENTICATED"]
    assert [e.operation for e in tombstones(services, client.user_id)] == ["forget_user"]
    assert tombstones(services, client.user_id)[0].detail.endswith("; by the command line")
    missing = hippograph_here("forget", "user", client.user_id)
    assert missing.returncode == 1 and "not found" in missing.stderr
