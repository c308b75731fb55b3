"""memoryEvents over graphql-transport-ws: a subscriber gets its own project's events, and nobody else's."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from api_client import Client

pytestmark = pytest.mark.neo4j

PROTOCOL = "graphql-transport-ws"
SUBSCRIBE = "subscription($p: ID) { memoryEvents(project: $p) { kind project session memoryIds entityIds at } }"


@contextmanager
def subscription(client: Client, project: str | None, key: str | None = None) -> Iterator[ClientConnection]:
    with connect(client.server.websocket, subprotocols=[PROTOCOL], open_timeout=10) as ws:
        ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key or client.key}"}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "connection_ack"
        ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": SUBSCRIBE, "variables": {"p": project}}}))
        time.sleep(0.5)  # let the server register the subscriber before anything is published
        yield ws


def events(ws: ClientConnection, wait: float) -> list[dict[str, Any]]:
    """The events delivered within ``wait`` seconds."""
    received = []
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = json.loads(ws.recv(timeout=left))
        except TimeoutError:
            break
        assert message["type"] == "next", message
        assert not message["payload"].get("errors"), message
        received.append(message["payload"]["data"]["memoryEvents"])
    return received


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
    for payload in ({"Authorization": "Bearer hg_forged"}, {}):
        with connect(alice.server.websocket, subprotocols=[PROTOCOL], open_timeout=10) as ws:
            ws.send(json.dumps({"type": "connection_init", "payload": payload}))
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == 4403


def test_subscriptions_per_connection_are_bounded(alice: Client) -> None:
    from hippograph.schema.limits import MAX_SUBSCRIPTIONS_PER_CONNECTION

    with subscription(alice, None) as ws:  # subscription "1"
        for n in range(2, MAX_SUBSCRIPTIONS_PER_CONNECTION + 2):
            ws.send(json.dumps({"id": str(n), "type": "subscribe", "payload": {"query": SUBSCRIBE}}))
        message = json.loads(ws.recv(timeout=10))
        assert message["type"] == "error" and message["id"] == str(MAX_SUBSCRIPTIONS_PER_CONNECTION + 1)
