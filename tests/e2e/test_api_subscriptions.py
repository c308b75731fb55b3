"""memoryEvents over graphql-transport-ws: a subscriber gets its own project's events, and nobody else's."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from hippograph_bench.server import Server
from api_client import HIPPOGRAPH, PROTOCOL, SUBSCRIBE, Client, events, new_user, subscription
from hippograph.memory import keys
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j


def closing(ws: ClientConnection, wait: float = 5) -> tuple[list[dict[str, Any]], int, str]:
    """The messages received until the server closed the socket, and its close code and reason; the
    bound is generous (checks run twice a second, on a machine that may be busy): the point is that it closes."""
    received = []
    deadline = time.monotonic() + wait
    try:
        while (left := deadline - time.monotonic()) > 0:
            received.append(json.loads(ws.recv(timeout=left)))
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "the server closed the socket without a close frame"
        return received, closed.rcvd.code, closed.rcvd.reason
    except TimeoutError:
        pass
    pytest.fail(f"the socket was still open {wait} s later; it received {received}")


def keyed_client(server: Server, services: Services, prefix: str) -> tuple[Client, str]:
    """A client of a new user, and the id of its key."""
    issued = keys.create_key(services.driver, services.database, new_user(prefix))
    return Client(server, issued.secret, issued.record["userId"]), issued.record["id"]


def remember(client: Client, content: str, project: str) -> str:
    return client.data(
        """mutation($c: String!, $p: ID!) { remember(input: {content: $c, tier: PROJECT, project: $p}) {
             ... on RememberSuccess { memory { id } } } }""", c=content, p=project,
    )["remember"]["memory"]["id"]


def test_a_subscriber_receives_its_own_projects_events_only(alice: Client, bob: Client) -> None:
    with subscription(alice, "radio") as alices, subscription(bob, "radio") as bobs, subscription(alice, None) as everything:
        in_radio = remember(alice, "The radio project streams Opus audio", "radio")
        remember(alice, "The tv project encodes AV1", "tv")
        got = events(alices, 3)
        assert [(e["kind"], e["project"], e["memoryIds"][0]) for e in got] == [("REMEMBERED", "radio", in_radio)]
        assert got[0]["entityIds"] and got[0]["at"]
        assert {e["project"] for e in events(everything, 1)} == {"radio", "tv"}
        assert events(bobs, 1) == []  # Bob named the same project id; it is his own, and empty


def test_other_mutations_publish_events(alice: Client) -> None:
    with subscription(alice, "radio") as ws:
        decision = alice.data(
            """mutation { recordDecision(input: {decision: "Stream with HLS", project: "radio"}) {
                 ... on RecordSuccess { memory { id } entity { id } } } }"""
        )["recordDecision"]
        memory_id = decision["memory"]["id"]
        alice.data(f'mutation {{ updateMemory(input: {{id: "{memory_id}", relevance: 0.3}}) {{ __typename }} }}')
        alice.data(f'mutation {{ forget(input: {{memory: "{memory_id}"}}) {{ __typename }} }}')
        kinds = [e["kind"] for e in events(ws, 3)]
        assert kinds == ["DECISION_RECORDED", "UPDATED", "FORGOTTEN"]


def test_a_subscription_needs_a_valid_key(alice: Client) -> None:
    # No key at all is 4401, the convention for "no credentials"; a key refused is 4403.
    for payload, code in (({"Authorization": "Bearer hg_forged"}, 4403), ({}, 4401), ({"Authorization": ""}, 4401)):
        with connect(alice.server.websocket, subprotocols=[PROTOCOL], open_timeout=10) as ws:
            ws.send(json.dumps({"type": "connection_init", "payload": payload}))
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == code, payload


def test_subscriptions_per_connection_are_bounded(alice: Client) -> None:
    from hippograph.schema.limits import MAX_SUBSCRIPTIONS_PER_CONNECTION

    with subscription(alice, None) as ws:  # subscription "1"
        for n in range(2, MAX_SUBSCRIPTIONS_PER_CONNECTION + 2):
            ws.send(json.dumps({"id": str(n), "type": "subscribe", "payload": {"query": SUBSCRIBE}}))
        message = json.loads(ws.recv(timeout=10))
        assert message["type"] == "error" and message["id"] == str(MAX_SUBSCRIPTIONS_PER_CONNECTION + 1)


def test_forgetting_a_session_or_a_project_publishes_an_event(alice: Client) -> None:
    alice.data('mutation { startSession(input: {id: "chat-9", project: "radio"}) { __typename } }')
    with subscription(alice, "radio") as ws:
        alice.data('mutation { forgetSession(input: {id: "chat-9"}) { __typename } }')
        remember(alice, "The radio project archives shows for a year", "radio")
        alice.data('mutation { forgetProject(input: {id: "radio"}) { __typename } }')
        got = events(ws, 3)
    assert [(e["kind"], e["project"], e["session"]) for e in got] == [
        ("SESSION_FORGOTTEN", "radio", "chat-9"), ("REMEMBERED", "radio", None), ("PROJECT_FORGOTTEN", "radio", None),
    ]
    assert got[1]["memoryIds"][0] in got[2]["memoryIds"]


def test_revoking_a_key_closes_its_open_subscriptions(api_server: Server, services: Services, make_client) -> None:
    by_command, command_key = keyed_client(api_server, services, "revoked-by-cli")
    by_api, api_key = keyed_client(api_server, services, "revoked-by-api")
    admin, bystander = make_client("admin", keys.Role.ADMIN), make_client("bystander")
    with subscription(by_command, None) as first, subscription(by_api, None) as second, \
            subscription(bystander, "radio") as third:
        # Another process revokes the key: the server learns it from Neo4j, not from a call of its own.
        revoked = subprocess.run([HIPPOGRAPH, "keys", "revoke", command_key], capture_output=True, text=True, timeout=120)
        assert revoked.returncode == 0, revoked.stderr
        assert closing(first) == ([], 4403, "API key revoked")
        assert admin.data(f'mutation {{ revokeApiKey(input: {{id: "{api_key}"}}) {{ __typename }} }}') == {
            "revokeApiKey": {"__typename": "ApiKeyRevoked"}}
        assert closing(second) == ([], 4403, "API key revoked")
        # A good key's socket stays open and keeps receiving.
        remember(bystander, "The radio project streams Opus audio", "radio")
        assert [e["kind"] for e in events(third, 3)] == ["REMEMBERED"]


def test_erasing_a_user_closes_their_subscriptions(make_client) -> None:
    carol = make_client("carol")
    with subscription(carol, None) as ws:
        assert carol.data("mutation { forgetUser(input: {}) { __typename } }") == {"forgetUser": {"__typename": "ScopeForgotten"}}
        received, code, reason = closing(ws)
    assert [m["payload"]["data"]["memoryEvents"]["kind"] for m in received] == ["USER_FORGOTTEN"]
    assert (code, reason) == (4403, "API key gone: its user was erased")
