"""What the API tests talk to: the server (``hippograph_bench.server``, the benchmarks' own), a
small GraphQL client, and subscriptions over graphql-transport-ws."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import uuid
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from hippograph import cli
from hippograph_bench.server import Server

HIPPOGRAPH = str(Path(sys.executable).with_name("hippograph"))


def hippograph_here(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``hippograph ARGS`` as the command runs it (its ``main``: exit code, stdout, stderr), in this process,
    with ``env`` added to the environment meanwhile: for a test of what a command does, not of its process,
    without a new interpreter importing torch each time (seconds, a minute on a loaded machine)."""
    out, err = io.StringIO(), io.StringIO()
    before = {name: os.environ.get(name) for name in env or {}}
    os.environ.update(env or {})
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(list(args))
    except SystemExit as exit:  # argparse's refusals and --help
        code = exit.code if isinstance(exit.code, int) else 1
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    return subprocess.CompletedProcess(["hippograph", *args], code, out.getvalue(), err.getvalue())


class Client:
    """POSTs GraphQL with an API key; ``data`` and ``errors`` as the server sent them."""

    def __init__(self, server: Server, key: str | None, user_id: str | None = None) -> None:
        self.server = server
        self.key = key
        self.user_id = user_id
        self.http = httpx.Client(timeout=60)
        # Its connection closed when the client goes, not left for the collector to find open (warnings are errors).
        weakref.finalize(self, self.http.close)

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.key}"} if self.key else {}

    def post(self, query: str, variables: dict[str, Any] | None = None, **headers: str) -> httpx.Response:
        # Encoded here, ASCII-escaped, so that tests can send what httpx would refuse (a lone surrogate).
        body = json.dumps({"query": query, "variables": variables or {}})
        return self.http.post(
            self.server.graphql, content=body,
            headers={"content-type": "application/json", **self.headers(), **headers},
        )

    def run(self, query: str, **variables: Any) -> dict[str, Any]:
        """The response body (data and errors), whose HTTP status must be the one its errors call for."""
        response = self.post(query, variables)
        body = response.json()
        assert_status(response, body)
        return body

    def data(self, query: str, **variables: Any) -> dict[str, Any]:
        """The data of a response that must have no errors."""
        body = self.run(query, **variables)
        assert not body.get("errors"), body
        return body["data"]

    def codes(self, query: str, **variables: Any) -> list[str]:
        """The extensions.code of every error of a response."""
        body = self.run(query, **variables)
        return [error["extensions"]["code"] for error in body.get("errors") or []]


def assert_status(response: httpx.Response, body: dict[str, Any]) -> None:
    """401 with a Bearer challenge for a missing or refused key, 503 with Retry-After while Neo4j
    is down, 200 for everything else GraphQL answered."""
    codes = {error["extensions"]["code"] for error in body.get("errors") or []}
    if "UNAVAILABLE" in codes:
        assert response.status_code == 503 and int(response.headers["retry-after"]) > 0, response.text
    elif "UNAUTHENTICATED" in codes:
        assert response.status_code == 401, response.text
        assert response.headers["www-authenticate"].startswith("Bearer "), response.headers
    else:
        assert response.status_code == 200, response.text


def new_user(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


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


def until(check: Callable[[], bool], timeout: float) -> bool:
    """Whether ``check`` came true within ``timeout`` seconds (asked twice a second)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.5)
    return False
