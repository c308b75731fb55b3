"""Every limit answers LIMIT_EXCEEDED; garbage input answers BAD_USER_INPUT and changes nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from hippograph.operations import limits as input_limits
from hippograph.schema import limits
from api_client import Client

pytestmark = pytest.mark.neo4j

REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) {
  __typename ... on UserError { code message } ... on RememberSuccess { memory { id content } } } }"""


@pytest.fixture(scope="module")
def seeded(alice: Client) -> dict[str, Any]:
    decision = alice.data(
        """mutation { recordDecision(input: {decision: "Use Postgres", project: "lim"}) {
             ... on RecordSuccess { entity { id } memory { id } } } }"""
    )["recordDecision"]
    return {"entity": decision["entity"]["id"], "memory": decision["memory"]["id"]}


def state(client: Client) -> dict[str, Any]:
    """Everything of the caller's that a bad request could have changed."""
    return client.data(
        """{ memories(first: 100, filter: {includeArchived: true}) { nodes { id content summary relevance } }
             entities(first: 100) { nodes { id name active edges { type to { id } } } }
             tierUsage(project: "lim", session: "lim-s") { tier usedTokens items } }"""
    )


def nested(depth: int) -> str:
    query = "id"
    for _ in range(depth):
        query = f"edges {{ to {{ {query} }} }}"
    return f'{{ entity(id: "x") {{ {query} }} }}'


def test_document_limits(alice: Client) -> None:
    assert alice.codes(nested(limits.MAX_DEPTH)) == ["LIMIT_EXCEEDED"]
    aliases = " ".join(f"a{i}: tierUsage {{ tier }}" for i in range(limits.MAX_ALIASES + 1))
    assert alice.codes(f"{{ {aliases} }}") == ["LIMIT_EXCEEDED"]
    tokens = " ".join(["__typename"] * (limits.MAX_TOKENS + 1))
    assert alice.codes(f"{{ {tokens} }}") == ["LIMIT_EXCEEDED"]
    # Within the limits, the same shapes are fine.
    assert alice.codes(" ".join(["{", *["__typename"] * 10, "}"])) == []


def test_a_refused_document_is_refused_every_time_and_a_valid_one_answers_every_time(alice: Client) -> None:
    # Valid documents are parsed and validated once (ValidDocuments); refused ones are never kept.
    too_deep, tokens = nested(limits.MAX_DEPTH), " ".join(["__typename"] * (limits.MAX_TOKENS + 1))
    for _ in range(3):
        assert alice.codes(too_deep) == ["LIMIT_EXCEEDED"]
        assert alice.codes(f"{{ {tokens} }}") == ["LIMIT_EXCEEDED"]
        assert alice.codes("{ nosuchfield }") == ["BAD_USER_INPUT"]
    valid = '{ tierUsage(project: "lim") { tier items } }'
    first = alice.data(valid)
    for _ in range(3):
        assert alice.data(valid) == first


def test_page_size_and_depth_limits(alice: Client, seeded: dict[str, Any]) -> None:
    over = input_limits.MAX_PAGE + 1
    assert alice.codes(f"{{ memories(first: {over}) {{ nodes {{ id }} }} }}") == ["LIMIT_EXCEEDED"]
    assert alice.codes(f"{{ entities(first: {over}) {{ nodes {{ id }} }} }}") == ["LIMIT_EXCEEDED"]
    assert alice.codes(f"{{ chains(first: {over}) {{ error {{ id }} }} }}") == ["LIMIT_EXCEEDED"]
    assert alice.codes(f'{{ entity(id: "{seeded["entity"]}") {{ memories(first: {over}) {{ id }} }} }}') == [
        "LIMIT_EXCEEDED"
    ]
    assert alice.codes(f'{{ trace(from: "{seeded["entity"]}", maxDepth: 7) {{ length }} }}') == ["LIMIT_EXCEEDED"]


def test_list_and_capacity_limits(alice: Client) -> None:
    before = state(alice)
    many = [f"id-{i}" for i in range(input_limits.MAX_LIST + 1)]
    result = alice.data(
        """mutation($ids: [ID!]) { recordDecision(input: {decision: "Too many", project: "lim", conflictsWith: $ids}) {
             __typename ... on UserError { code } } }""", ids=many,
    )["recordDecision"]
    assert result == {"__typename": "LimitExceededError", "code": "LIMIT_EXCEEDED"}
    mentions = [{"type": "CONCEPT", "name": f"c{i}"} for i in range(input_limits.MAX_LIST + 1)]
    result = alice.data(REMEMBER, input={"content": "x", "tier": "LONG_TERM", "mentions": mentions})["remember"]
    assert result["code"] == "LIMIT_EXCEEDED"
    # A memory bigger than its tier may ever hold (the session tier holds 1024 tokens).
    big = " ".join(f"word{i}" for i in range(1500))
    result = alice.data(REMEMBER, input={"content": big, "tier": "SESSION", "session": "lim-s"})["remember"]
    assert result["__typename"] == "LimitExceededError" and "tokens" in result["message"]
    assert state(alice) == before


def test_request_size_limit(alice: Client) -> None:
    padding = "x" * (limits.MAX_BODY_BYTES + 1)
    response = alice.post("{ tierUsage { tier } }", {"padding": padding})
    assert response.status_code == 413
    assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["LIMIT_EXCEEDED"]


@pytest.mark.parametrize("body, content_type", [
    ("{not json", "application/json"),
    ('{"variables": {}}', "application/json"),
    ('{"query": 42}', "application/json"),
    ('{"query": "{ __typename }", "variables": [1]}', "application/json"),
    ("query=%7B__typename%7D", "text/plain"),
])
def test_a_request_graphql_cannot_take_answers_bad_user_input(alice: Client, body: str, content_type: str) -> None:
    before = state(alice)
    response = alice.http.post(alice.server.graphql, content=body, headers={"content-type": content_type, **alice.headers()})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/json")
    errors = response.json()["errors"]
    assert [e["extensions"]["code"] for e in errors] == ["BAD_USER_INPUT"] and errors[0]["message"]
    assert state(alice) == before


def test_a_method_graphql_does_not_serve_answers_with_a_code(alice: Client) -> None:
    response = alice.http.request("PUT", alice.server.graphql, content="{}", headers=alice.headers())
    assert response.status_code == 405
    assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["BAD_USER_INPUT"]


GARBAGE_QUERIES = {
    "content not a string": 'mutation { remember(input: {content: 123, tier: LONG_TERM}) { __typename } }',
    "unknown tier": 'mutation { remember(input: {content: "x", tier: NOWHERE}) { __typename } }',
    "first not a number": '{ memories(first: "ten") { nodes { id } } }',
    "unknown argument": '{ recall(query: "x", limit: 5) { profile } }',
    "unknown field": "{ memories { nodes { password } } }",
    "syntax error": "{ memories { nodes { id } ",
    "negative page": "{ memories(first: -1) { nodes { id } } }",
    "zero depth": '{ trace(from: "x", maxDepth: 0) { length } }',
    "cursor not ours": '{ memories(after: "bm90IGEgY3Vyc29y") { nodes { id } } }',
    "cursor garbage": '{ entities(after: "%%%") { nodes { id } } }',
    "cypher in a project id": """{ memories(filter: {project: "x'}) MATCH (n) DETACH DELETE n //"}) { nodes { id } } }""",
    "emoji in a session id": '{ tierUsage(session: "sess-🔥") { tier } }',
    "huge id": '{ memory(id: "' + "a" * 1000 + '") { id } }',
    "huge recall query": '{ recall(query: "' + "why " * 3000 + '") { profile } }',
    "blank recall query": '{ recall(query: "   ") { profile } }',
    "nul character": '{ recall(query: "a\\u0000b") { profile } }',
}


@pytest.mark.parametrize("name", list(GARBAGE_QUERIES))
def test_garbage_queries_are_bad_user_input(alice: Client, name: str) -> None:
    assert alice.codes(GARBAGE_QUERIES[name]) == ["BAD_USER_INPUT"], name


GARBAGE_INPUTS = {
    "huge content": {"content": "a " * 15_000, "tier": "LONG_TERM"},
    "blank content": {"content": " \n\t ", "tier": "LONG_TERM"},
    "lone surrogate": {"content": "broken \ud800 text", "tier": "LONG_TERM"},
    "control characters": {"content": "bell \x07 and escape \x1b[31m", "tier": "LONG_TERM"},
    "relevance out of range": {"content": "x", "tier": "LONG_TERM", "relevance": 7.5},
    "project memory without project": {"content": "x", "tier": "PROJECT"},
    "cypher in a project id": {"content": "x", "tier": "PROJECT", "project": "p'}) DETACH DELETE n //"},
    "raw transcript in project tier": {"content": "User: hi\nAssistant: hello\nUser: bye", "tier": "PROJECT", "project": "lim"},
    "attributes not an object": {"content": "x", "tier": "LONG_TERM", "attributes": [1, 2]},
    "mention without letters": {"content": "x", "tier": "LONG_TERM", "mentions": [{"type": "CONCEPT", "name": "!!!"}]},
}


def test_garbage_mutation_inputs_are_bad_user_input_and_change_nothing(alice: Client, seeded: dict[str, Any]) -> None:
    before = state(alice)
    for name, value in GARBAGE_INPUTS.items():
        result = alice.data(REMEMBER, input=value)["remember"]
        assert (result["__typename"], result["code"]) == ("BadUserInputError", "BAD_USER_INPUT"), (name, result)
    others = {
        "decision of symbols": 'recordDecision(input: {decision: "?!?", project: "lim"})',
        "huge reason": 'recordDecision(input: {decision: "d", reason: "' + "r" * 5000 + '", project: "lim"})',
        "preference key with spaces": 'setPreference(input: {key: "not a key", value: "v"})',
        "forget both": f'forget(input: {{memory: "{seeded["memory"]}", entity: "{seeded["entity"]}"}})',
        "forget neither": "forget(input: {})",
        "link to itself": f'link(input: {{from: "{seeded["entity"]}", to: "{seeded["entity"]}", type: RELATED_TO}})',
        "update nothing": f'updateMemory(input: {{id: "{seeded["memory"]}"}})',
        "update to blank": f'updateMemory(input: {{id: "{seeded["memory"]}", content: "  "}})',
        "session id with spaces": 'startSession(input: {id: "my session"})',
        "negative pattern count": 'recordPattern(input: {pattern: "p", count: -3})',
    }
    for name, call in others.items():
        result = alice.data(f"mutation {{ result: {call} {{ __typename ... on UserError {{ code }} }} }}")["result"]
        assert result == {"__typename": "BadUserInputError", "code": "BAD_USER_INPUT"}, (name, result)
    assert state(alice) == before


def test_query_syntax_in_text_is_only_text(alice: Client) -> None:
    for content in ("'}) MATCH (n) DETACH DELETE n //", "title:x AND * OR [a TO z]~2 \\ \"q\" -y +z",
                    "Zero\u200bwidth, \u202eright-to-left\u202c, e\u0301 and 🧠 are text"):
        result = alice.data(REMEMBER, input={"content": content, "tier": "LONG_TERM"})["remember"]
        assert result["memory"]["content"] == content
    for query in ("title:x AND * OR [a TO z]~2", "*", "\\", '") RETURN 1 //', "\u202e🧠"):
        assert alice.codes("query($q: String!) { recall(query: $q) { profile } }", q=query) == [], query
    assert alice.codes('{ entities(search: "*)(\' OR 1=1") { nodes { id } } }') == []
    with httpx.Client() as http:
        assert http.get(alice.server.base + "/healthz").status_code == 200
