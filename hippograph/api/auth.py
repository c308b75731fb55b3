"""Who is calling: the API key from a request's headers or a WebSocket's connection_init payload.

A key travels as ``Authorization: Bearer <key>`` (or ``x-api-key: <key>``); over
graphql-transport-ws as ``{"Authorization": "Bearer <key>"}`` (or ``{"apiKey": …}``)
in the connection_init payload. The user id is always the key's — never a value
from the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hippograph.memory.keys import Caller, CallerCache
from hippograph.memory.services import Services
from hippograph.operations.errors import UNAVAILABLE_ERRORS
from hippograph.operations.keys import key_owner


def key_from_headers(headers: Mapping[str, str]) -> str | None:
    authorization = headers.get("authorization")
    if authorization:
        scheme, _, value = authorization.partition(" ")
        return value.strip() if scheme.lower() == "bearer" else None
    return headers.get("x-api-key")


def key_from_params(params: Mapping[str, Any] | None) -> str | None:
    if not params:
        return None
    lowered = {str(k).lower(): v for k, v in params.items()}
    value = lowered.get("authorization") or lowered.get("apikey") or lowered.get("x-api-key")
    if not isinstance(value, str):
        return None
    scheme, _, rest = value.partition(" ")
    return rest.strip() if rest and scheme.lower() == "bearer" else value


async def identify(
    services: Services,
    presented: str | None,
    cache: CallerCache | None = None,
) -> tuple[Caller | None, BaseException | None]:
    """(caller, None) for a good key, (None, None) for a missing or bad one, (None, error) when
    the key could not be checked because Neo4j is unavailable. ``cache`` spares a lookup for a
    key checked moments ago (``HIPPOGRAPH_AUTH_CACHE_MS``)."""
    try:
        return await key_owner(services, presented, cache), None
    except UNAVAILABLE_ERRORS as exc:
        return None, exc
