"""Requests built to hurt: none stalls the server, each is a clear error with the right status, none changes anything."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from hippograph_bench.server import Server
from api_client import Client, assert_status

pytestmark = pytest.mark.neo4j

# Answers far sooner than this or the server is stuck; the frozen server of the report took minutes.
STUCK = 20.0


def fragment_bomb(levels: int, on: str = "Query", leaf: str = "__typename", root: str = "{ ...F0 }") -> str:
    """A hundred tokens that stand for 2**levels fields: each fragment spreads the next one twice."""
    fragments = " ".join(f"fragment F{i} on {on} {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels))
    return f"{root} {fragments} fragment F{levels} on {on} {{ {leaf} }}"


def post(client: Client, body: str | bytes, **headers: str) -> httpx.Response:
    return client.http.post(client.server.graphql, content=body, timeout=STUCK,
                            headers={"content-type": "application/json", **client.headers(), **headers})


def codes_of(response: httpx.Response) -> list[str]:
    return [error["extensions"]["code"] for error in response.json()["errors"]]


def test_a_fragment_bomb_without_a_key_is_refused_before_validation(anonymous: Client) -> None:
    response = post(anonymous, json.dumps({"query": fragment_bomb(30)}))
    assert codes_of(response) == ["UNAUTHENTICATED"]
    assert_status(response, response.json())


def test_a_fragment_bomb_with_a_key_is_a_limit(alice: Client) -> None:
    for document in (fragment_bomb(30), fragment_bomb(30, "ServerInfo", "version", "{ serverInfo { ...F0 } }")):
        response = post(alice, json.dumps({"query": document}))
        assert response.status_code == 200 and codes_of(response) == ["LIMIT_EXCEEDED"], response.text


def test_without_a_key_nothing_but_parsing_runs(anonymous: Client) -> None:
    # Validation would call this an unknown field; the caller without a key never gets that far.
    assert anonymous.codes("{ memories { nodes { nosuchfield } } }") == ["UNAUTHENTICATED"]
    assert anonymous.codes("mutation { consolidate { __typename } }") == ["UNAUTHENTICATED"]
    # What needs no key still answers.
    assert anonymous.data("{ serverInfo { version } }")["serverInfo"]["version"]


@pytest.mark.parametrize("document", [
    "{ " + " ".join(["serverInfo { version }"] * 300) + " }",  # one key asked 300 times
    "{ " + "__typename " * 600 + "}",  # more fields than any operation needs
    "{ " + "a { " * 600 + "b" + " }" * 600 + " }",  # deeper than the parser goes
    "{ memories(first: " + "[" * 600 + "1" + "]" * 600 + ") { nodes { id } } }",
    "{ memories(first: " + "9" * 5000 + ") { nodes { id } } }",  # past Python's 4,300-digit conversion
    " ".join(f"fragment G{i} on Query {{ __typename }}" for i in range(60)) + " { ...G0 }",
])
def test_documents_within_the_token_limit_but_costly_are_refused(alice: Client, document: str) -> None:
    response = post(alice, json.dumps({"query": document}))
    assert response.status_code == 200, response.text
    assert set(codes_of(response)) <= {"LIMIT_EXCEEDED", "BAD_USER_INPUT"} and codes_of(response), response.text


def test_healthz_keeps_answering_while_hostile_requests_run(api_server: Server, alice: Client) -> None:
    hostile = [
        json.dumps({"query": fragment_bomb(40)}),
        json.dumps({"query": "{ " + " ".join(["serverInfo { version version }"] * 20) + " }"}),
        json.dumps({"query": "{ " + "a { " * 600 + "b" + " }" * 600 + " }"}),
        '{"query": "{ __typename }", "variables": ' + "[" * 100_000 + "]" * 100_000 + "}",
        json.dumps({"query": "{ __typename }", "variables": {"a": list(range(200_000))}}),
        json.dumps({"query": '{ recall(query: "' + "x" * 1_000_000 + '") { profile } }'}),
    ]
    stop = time.monotonic() + 6
    failures: list[str] = []

    def attack(worker: int) -> None:
        with httpx.Client(timeout=STUCK) as http:
            sent = 0
            while time.monotonic() < stop:
                headers = {"content-type": "application/json", **(alice.headers() if worker % 2 else {})}
                response = http.post(api_server.graphql, content=hostile[sent % len(hostile)], headers=headers)
                sent += 1
                if response.status_code >= 500:
                    failures.append(response.text)

    attackers = [threading.Thread(target=attack, args=(worker,)) for worker in range(6)]
    for thread in attackers:
        thread.start()
    # Answered, not stuck; how fast is measured by `hippograph bench deadlines`.
    answered = 0
    with httpx.Client(timeout=STUCK) as http:
        while time.monotonic() < stop:
            assert http.get(f"{api_server.base}/healthz").status_code == 200
            answered += 1
            time.sleep(0.05)
    for thread in attackers:
        thread.join()
    assert not failures
    assert answered


BAD_VARIABLES = {
    "Int past 32 bits": ("query($n: Int!) { memories(first: $n) { nodes { id } } }", {"n": 2147483648}),
    "Int not whole": ("query($n: Int!) { memories(first: $n) { nodes { id } } }", {"n": 1.5}),
    "Int a string": ("query($n: Int!) { memories(first: $n) { nodes { id } } }", {"n": "ten"}),
    "unknown enum": ('query($p: Priority!) { recall(query: "x", priority: $p) { profile } }', {"p": "URGENT"}),
    "Float a string": ('mutation($r: Float) { updateMemory(input: {id: "m", relevance: $r}) { __typename } }',
                       {"r": "high"}),
    "DateTime malformed": ("mutation($t: DateTime) { consolidate(input: {now: $t}) { __typename } }",
                           {"t": "2024-13-45T99:00"}),
    "DateTime a number": ("mutation($t: DateTime) { consolidate(input: {now: $t}) { __typename } }", {"t": 5}),
    "input a list": ("mutation($i: RememberInput!) { remember(input: $i) { __typename } }", {"i": [1, 2]}),
    "input missing fields": ("mutation($i: RememberInput!) { remember(input: $i) { __typename } }", {"i": {"x": 1}}),
    "required variable missing": ("query($n: Int!) { memories(first: $n) { nodes { id } } }", {}),
}


@pytest.mark.parametrize("name", list(BAD_VARIABLES))
def test_bad_variable_values_are_bad_user_input_not_internal(alice: Client, api_server: Server, name: str) -> None:
    logged = len(api_server.log_lines())
    query, variables = BAD_VARIABLES[name]
    assert set(alice.codes(query, **variables)) == {"BAD_USER_INPUT"}, name
    assert not [line for line in api_server.log_lines()[logged:] if '"level": "error"' in line], name


def test_a_subscription_over_http_is_refused(alice: Client) -> None:
    for accept in ("application/json", "text/event-stream", "multipart/mixed;subscriptionSpec=1.0"):
        response = post(alice, json.dumps({"query": "subscription { memoryEvents { kind } }"}), accept=accept)
        assert response.status_code == 200 and codes_of(response) == ["BAD_USER_INPUT"], response.text


BAD_BODIES = {
    "null": "null",
    "a number": "5",
    "a string": '"{ __typename }"',
    "an array": '[{"query": "{ __typename }"}]',
    "nested 5,000 deep": '{"query": "{ __typename }", "variables": {"a": ' + "[" * 5000 + "]" * 5000 + "}}",
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "nested 40 deep in variables": '{"query": "{ __typename }", "variables": {"a": ' + "[" * 40 + "]" * 40 + "}}",
    "a 5,000-digit number": '{"query": "{ __typename }", "variables": {"a": ' + "7" * 5000 + "}}",
    "NaN": '{"query": "{ __typename }", "variables": {"a": NaN}}',
    "not UTF-8": b'{"query": "{ __typename }", "variables": {"a": "\xff\xfe"}}',
}


TOO_LARGE = {"nested 5,000 deep", "nested 100,000 deep", "nested 40 deep in variables"}


@pytest.mark.parametrize("name", list(BAD_BODIES))
def test_bodies_that_are_no_request_answer_4xx_with_a_code(alice: Client, anonymous: Client, name: str) -> None:
    status, code = (413, "LIMIT_EXCEEDED") if name in TOO_LARGE else (400, "BAD_USER_INPUT")
    for client in (alice, anonymous):
        response = post(client, BAD_BODIES[name])
        assert response.status_code == status, (name, response.text)
        assert codes_of(response) == [code], name


def test_a_document_longer_than_any_operation_needs_is_refused_before_parsing(anonymous: Client) -> None:
    # GraphQL's lexer reads a string literal a character at a time: two megabytes took a second.
    response = post(anonymous, json.dumps({"query": '{ recall(query: "' + "x" * 2_000_000 + '") { profile } }'}))
    assert response.status_code == 413 and codes_of(response) == ["LIMIT_EXCEEDED"], response.text


@pytest.mark.parametrize("variables", ['{"a": ' + "[" * 5000 + "]" * 5000 + "}", '{"a": 1, "a": 2}', "NaN"])
def test_a_get_request_reads_its_variables_as_strictly(alice: Client, variables: str) -> None:
    response = alice.http.get(alice.server.graphql, params={"query": "{ __typename }", "variables": variables},
                              headers=alice.headers())
    assert 400 <= response.status_code < 500 and codes_of(response) in (["BAD_USER_INPUT"], ["LIMIT_EXCEEDED"]), \
        response.text


def test_several_operations_need_a_name_to_choose_one(alice: Client) -> None:
    document = "query A { __typename } query B { serverInfo { version } }"
    for body in ({"query": document}, {"query": document, "operationName": "C"}):
        response = post(alice, json.dumps(body))
        assert codes_of(response) == ["BAD_USER_INPUT"], response.text
    assert post(alice, json.dumps({"query": document, "operationName": "A"})).json() == {"data": {"__typename": "Query"}}


def test_media_types_are_case_insensitive_and_a_byte_order_mark_is_allowed(alice: Client) -> None:
    response = post(alice, b'\xef\xbb\xbf{"query": "{ __typename }"}', **{"content-type": "Application/JSON"})
    assert response.json() == {"data": {"__typename": "Query"}}, response.text


def test_a_key_said_twice_is_refused_not_the_last_one_run(alice: Client) -> None:
    before = alice.data("{ memories(first: 100) { nodes { id } } }")
    body = ('{"query": "{ __typename }", '
            '"query": "mutation { remember(input: {content: \\"smuggled\\", tier: LONG_TERM}) { __typename } }"}')
    response = post(alice, body)
    assert response.status_code == 400 and codes_of(response) == ["BAD_USER_INPUT"]
    assert "query" in response.json()["errors"][0]["message"]
    assert alice.data("{ memories(first: 100) { nodes { id } } }") == before


def test_a_charset_other_than_utf8_is_refused_not_misread(alice: Client) -> None:
    body = '{"query": "{ recall(query: \\"caf\u00e9\\") { profile } }"}'.encode("latin-1")
    response = post(alice, body, **{"content-type": "application/json; charset=latin-1"})
    assert response.status_code == 415 and codes_of(response) == ["BAD_USER_INPUT"]
    response = post(alice, '{"query": "{ __typename }"}', **{"content-type": "application/json; charset=UTF-8"})
    assert response.json() == {"data": {"__typename": "Query"}}


def result_of(client: Client, call: str) -> dict[str, Any]:
    return client.data(f"mutation {{ result: {call} {{ __typename ... on UserError {{ code message }} }} }}")["result"]


def test_a_pattern_seen_zero_times_is_not_stored(alice: Client) -> None:
    before = alice.data("{ entities(first: 100) { nodes { id } } }")
    result = result_of(alice, 'recordPattern(input: {pattern: "never happened", count: 0})')
    assert (result["__typename"], result["code"]) == ("BadUserInputError", "BAD_USER_INPUT")
    assert alice.data("{ entities(first: 100) { nodes { id } } }") == before


def test_consolidation_refuses_a_now_far_from_the_clock(make_client) -> None:
    client = make_client("decay")
    client.data('mutation { remember(input: {content: "Kept fresh", tier: LONG_TERM}) { __typename } }')
    before = client.data("{ memories { nodes { id relevance } } }")
    clock = datetime.now(timezone.utc)
    # Far from the clock, or now at an offset no zone has (Neo4j takes none past ±18:00).
    for now in ("9999-12-31T23:59:59", "2000-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00",
                clock.astimezone(timezone(-timedelta(hours=23, minutes=59))).isoformat()):
        result = result_of(client, f'consolidate(input: {{now: "{now}"}})')
        assert (result["__typename"], result["code"]) == ("BadUserInputError", "BAD_USER_INPUT"), now
    assert client.data("{ memories { nodes { id relevance } } }") == before
    assert result_of(client, "consolidate(input: {})")["__typename"] == "Consolidated"
    now = clock.astimezone(timezone(-timedelta(hours=18))).isoformat()
    assert result_of(client, f'consolidate(input: {{now: "{now}"}})')["__typename"] == "Consolidated"


def test_a_missing_or_bad_key_answers_401_with_a_bearer_challenge(anonymous: Client, make_client) -> None:
    for client in (anonymous, Client(anonymous.server, "hg_not-a-key")):
        response = client.post("{ memories { nodes { id } } }")
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer ")
        assert response.json() == {"data": None, "errors": [{
            "message": "a valid API key is required: send `Authorization: Bearer <key>`",
            "extensions": {"code": "UNAUTHENTICATED"},
        }]}
    assert make_client("status").post("{ memories { nodes { id } } }").status_code == 200
