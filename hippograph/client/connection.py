"""The two clients: ``Client`` (blocking) and ``AsyncClient`` (asyncio), both over ``httpx``.

Each sends an ``Operation`` (``hippograph.client.operations``) as one POST to ``/graphql`` with
the key in the ``Authorization`` header, and reads the answer into the operation's result type;
every error the server gives becomes a ``HippographError`` carrying its code. The operations are
defined once, so the two clients differ only in how they wait. ``AsyncClient.subscribe`` speaks
graphql-transport-ws on the same endpoint.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any, TypeVar

import httpx

from hippograph.client.errors import HippographError
from hippograph.client.operations import Operation
from hippograph.client.types import ErrorCode

T = TypeVar("T")
PROTOCOL = "graphql-transport-ws"
# graphql-transport-ws closes a refused connection (no key, a revoked one) with 4403.
REFUSED = 4403
# A body that is not GraphQL's (a proxy's page) is read by its HTTP status.
_BY_STATUS = {
    401: ErrorCode.UNAUTHENTICATED,
    403: ErrorCode.FORBIDDEN,
    404: ErrorCode.NOT_FOUND,
    413: ErrorCode.LIMIT_EXCEEDED,
    429: ErrorCode.LIMIT_EXCEEDED,
    502: ErrorCode.UNAVAILABLE,
    503: ErrorCode.UNAVAILABLE,
    504: ErrorCode.UNAVAILABLE,
}


def endpoint(url: str) -> str:
    """The GraphQL endpoint of a server given by its base address (``http://127.0.0.1:8000``) or the endpoint."""
    url = url.rstrip("/")
    return url if url.endswith("/graphql") else url + "/graphql"


def _body(operation: Operation[Any]) -> dict[str, Any]:
    return {"query": operation.document, "variables": operation.variables, "operationName": operation.name}


def _answer(operation: Operation[T], response: httpx.Response) -> T:
    try:
        body = response.json()
    except ValueError:
        code = _BY_STATUS.get(response.status_code, ErrorCode.INTERNAL_SERVER_ERROR)
        raise HippographError(code.value, f"HTTP {response.status_code}: {response.text[:200]}") from None
    return _data(operation, body)


def _data(operation: Operation[T], body: dict[str, Any]) -> T:
    if errors := body.get("errors"):
        raise _refusal(errors)
    return operation.read(body["data"])


def _refusal(errors: list[dict[str, Any]]) -> HippographError:
    first = errors[0]
    code = (first.get("extensions") or {}).get("code", ErrorCode.INTERNAL_SERVER_ERROR.value)
    return HippographError(code, first.get("message", ""), errors=errors)


class Client:
    """A blocking client: ``with Client(url, key) as hg: hg.send(recall("…"))``."""

    def __init__(self, url: str, key: str, *, timeout: float = 60.0) -> None:
        self.endpoint = endpoint(url)
        self._http = httpx.Client(headers={"authorization": f"Bearer {key}"}, timeout=timeout)

    def send(self, operation: Operation[T]) -> T:
        return _answer(operation, self._http.post(self.endpoint, json=_body(operation)))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class AsyncClient:
    """An asyncio client: ``async with AsyncClient(url, key) as hg: await hg.send(recall("…"))``."""

    def __init__(self, url: str, key: str, *, timeout: float = 60.0) -> None:
        self.endpoint = endpoint(url)
        self._key = key
        self._http = httpx.AsyncClient(headers={"authorization": f"Bearer {key}"}, timeout=timeout)

    async def send(self, operation: Operation[T]) -> T:
        return _answer(operation, await self._http.post(self.endpoint, json=_body(operation)))

    async def subscribe(self, operation: Operation[T]) -> AsyncIterator[T]:
        """Each event of a subscription (``memory_events()``), for as long as the caller iterates.

        A refused key ends the iteration with ``HippographError`` (``UNAUTHENTICATED``), at the start or
        when the key is revoked while the socket is open; so does an error the server sends.
        """
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed
        from websockets.typing import Subprotocol

        url = "ws" + self.endpoint.removeprefix("http")
        try:
            async with connect(url, subprotocols=[Subprotocol(PROTOCOL)], open_timeout=30) as ws:
                await ws.send(
                    json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {self._key}"}})
                )
                if json.loads(await ws.recv()).get("type") != "connection_ack":
                    raise HippographError(ErrorCode.UNAUTHENTICATED.value, "the server did not accept the connection")
                await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": _body(operation)}))
                async for raw in ws:
                    message = json.loads(raw)
                    if message["type"] == "next":
                        yield _data(operation, message["payload"])
                    elif message["type"] == "error":
                        raise _refusal(message["payload"])
                    elif message["type"] == "complete":
                        return
                    elif message["type"] == "ping":
                        await ws.send(json.dumps({"type": "pong"}))
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == REFUSED:
                raise HippographError(ErrorCode.UNAUTHENTICATED.value, closed.rcvd.reason or "refused") from None
            raise HippographError(ErrorCode.UNAVAILABLE.value, f"the connection closed: {closed}") from None

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
