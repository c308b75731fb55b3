"""Tenant isolation: a second user's key, trying every field that takes an id or a scope,
sees nothing of the first user's and changes nothing of it."""

from __future__ import annotations

from typing import Any

import pytest

from api_client import Client, assert_status

pytestmark = pytest.mark.neo4j

SHARED_PROJECT = "acme"
SHARED_SESSION = "acme-s1"


@pytest.fixture(scope="module")
def alices(alice: Client) -> dict[str, Any]:
    """Alice's memory, under project and session ids that Bob will name too."""
    alice.data(f'mutation {{ startSession(input: {{id: "{SHARED_SESSION}", project: "{SHARED_PROJECT}"}}) {{ __typename }} }}')
    memory = alice.data(
        f"""mutation {{ remember(input: {{content: "Alice's launch code word is bluebird", tier: PROJECT,
               project: "{SHARED_PROJECT}"}}) {{ ... on RememberSuccess {{ memory {{ id }} }} }} }}"""
    )["remember"]["memory"]["id"]
    decision = alice.data(
        f"""mutation {{ recordDecision(input: {{decision: "Bluebird uses Redis streams", project: "{SHARED_PROJECT}"}}) {{
               ... on RecordSuccess {{ entity {{ id }} }} }} }}"""
    )["recordDecision"]["entity"]["id"]
    error = alice.data(
        f"""mutation($d: ID!) {{ recordError(input: {{error: "Bluebird stream lag", fix: "Add consumer groups",
               causedBy: $d, project: "{SHARED_PROJECT}"}}) {{ ... on RecordSuccess {{ entity {{ id }} fix {{ id }} }} }} }}""",
        d=decision,
    )["recordError"]
    return {"memory": memory, "decision": decision, "error": error["entity"]["id"], "fix": error["fix"]["id"]}


def snapshot(client: Client, ids: dict[str, Any]) -> dict[str, Any]:
    return client.data(
        f"""{{ memories(first: 100) {{ nodes {{ id content relevance }} }}
              entity(id: "{ids['decision']}") {{ id name active edges {{ type to {{ id }} }} }}
              chains(project: "{SHARED_PROJECT}") {{ error {{ id }} }}
              session(id: "{SHARED_SESSION}") {{ status }} }}"""
    )


def test_reads_by_id_answer_not_found(bob: Client, alices: dict[str, Any]) -> None:
    assert bob.codes(f'{{ memory(id: "{alices["memory"]}") {{ id content }} }}') == ["NOT_FOUND"]
    assert bob.codes(f'{{ entity(id: "{alices["decision"]}") {{ id name }} }}') == ["NOT_FOUND"]
    assert bob.codes(f'{{ trace(from: "{alices["decision"]}") {{ length }} }}') == ["NOT_FOUND"]
    assert bob.codes(f'{{ session(id: "{SHARED_SESSION}") {{ id }} }}') == ["NOT_FOUND"]
    # Not found and not someone else's read exactly alike.
    mine = bob.run('{ memory(id: "00000000-0000-4000-8000-000000000000") { id } }')["errors"][0]
    theirs = bob.run(f'{{ memory(id: "{alices["memory"]}") {{ id }} }}')["errors"][0]
    assert mine["extensions"] == theirs["extensions"] and mine["message"].split()[0] == theirs["message"].split()[0]


def test_scoped_reads_show_nothing_of_another_user(bob: Client, alices: dict[str, Any]) -> None:
    recalled = bob.data(
        f"""{{ recall(query: "launch code word bluebird Redis streams", priority: CRITICAL,
               project: "{SHARED_PROJECT}", session: "{SHARED_SESSION}") {{ items {{ id content }} }} }}"""
    )["recall"]["items"]
    assert recalled == []
    data = bob.data(
        f"""{{ memories(filter: {{project: "{SHARED_PROJECT}"}}) {{ nodes {{ id }} }}
              entities(search: "bluebird") {{ nodes {{ id }} }}
              chains(project: "{SHARED_PROJECT}") {{ error {{ id }} }}
              tierUsage(project: "{SHARED_PROJECT}", session: "{SHARED_SESSION}") {{ usedTokens items }} }}"""
    )
    assert data["memories"]["nodes"] == [] and data["entities"]["nodes"] == [] and data["chains"] == []
    assert all(usage == {"usedTokens": 0, "items": 0} for usage in data["tierUsage"])


def test_writes_naming_another_users_ids_change_nothing(bob: Client, alice: Client, alices: dict[str, Any]) -> None:
    before = snapshot(alice, alices)
    attempts = {
        "updateMemory": f'updateMemory(input: {{id: "{alices["memory"]}", content: "pwned"}})',
        "forget": f'forget(input: {{memory: "{alices["memory"]}"}})',
        "forgetEntity": f'forget(input: {{entity: "{alices["decision"]}"}})',
        "link": f'link(input: {{from: "{alices["decision"]}", to: "{alices["fix"]}", type: RELATED_TO}})',
        "unlink": f'unlink(input: {{from: "{alices["decision"]}", to: "{alices["error"]}", type: CAUSED}})',
        "conflicts": f'recordDecision(input: {{decision: "Drop Redis", project: "{SHARED_PROJECT}", conflictsWith: ["{alices["decision"]}"]}})',
        "causedBy": f'recordError(input: {{error: "Bob error", causedBy: "{alices["decision"]}", project: "{SHARED_PROJECT}"}})',
        "endSession": f'endSession(input: {{id: "{SHARED_SESSION}"}})',
    }
    for name, call in attempts.items():
        result = bob.data(f"mutation {{ result: {call} {{ __typename ... on UserError {{ code }} }} }}")["result"]
        assert result == {"__typename": "NotFoundError", "code": "NOT_FOUND"}, (name, result)
    # Bob starting "the same" session starts his own; Alice's is untouched.
    started = bob.data(
        f"""mutation {{ startSession(input: {{id: "{SHARED_SESSION}", project: "{SHARED_PROJECT}"}}) {{
               __typename ... on SessionStarted {{ session {{ status }} }} }} }}"""
    )["startSession"]
    assert started["session"]["status"] == "active"
    assert snapshot(alice, alices) == before


def test_the_user_comes_from_the_key_not_the_request(bob: Client, alices: dict[str, Any]) -> None:
    # No field takes a user id; sending one is a schema error, not a way in.
    assert bob.codes('{ memories(filter: {userId: "alice"}) { nodes { id } } }') == ["BAD_USER_INPUT"]
    assert bob.codes('mutation { remember(input: {content: "x", tier: LONG_TERM, userId: "alice"}) { __typename } }') == [
        "BAD_USER_INPUT"
    ]


def test_missing_or_bad_keys_are_unauthenticated(anonymous: Client, bob: Client) -> None:
    for query in ('{ recall(query: "bluebird") { profile } }', "{ memories { nodes { id } } }",
                  'mutation { remember(input: {content: "x", tier: LONG_TERM}) { __typename } }'):
        assert set(anonymous.codes(query)) == {"UNAUTHENTICATED"}
    for header in ("Bearer hg_not-a-real-key", "Bearer", "Basic dXNlcjpwdw==", "hg_raw", "Bearer " + "x" * 5000):
        response = bob.http.post(bob.server.graphql, json={"query": "{ tierUsage { tier } }"},
                                 headers={"authorization": header})
        assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["UNAUTHENTICATED"], header
        assert_status(response, response.json())
