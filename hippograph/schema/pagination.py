"""Opaque cursors and page info for connection fields (keyset pagination underneath)."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import strawberry

from hippograph.operations.errors import BadInput
from hippograph.operations.limits import MAX_CURSOR, MAX_ID


@strawberry.type(description="Where a page ends; pass `endCursor` as `after` for the next page.")
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


def encode_cursor(kind: str, *values: Any) -> str:
    raw = json.dumps([kind, *values], separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None, kind: str, types: tuple[type, ...]) -> tuple[Any, ...] | None:
    """The keyset a cursor holds, checked against the expected kind and value types."""
    if cursor is None:
        return None
    invalid = BadInput("after is not a cursor this field returned", field="after")
    if len(cursor) > MAX_CURSOR:
        raise invalid
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        values = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")).decode())
    except (ValueError, UnicodeError, binascii.Error):
        raise invalid from None
    if not isinstance(values, list) or len(values) != len(types) + 1 or values[0] != kind:
        raise invalid
    keyset = tuple(values[1:])
    for value, expected in zip(keyset, types):
        if isinstance(value, bool) or not isinstance(value, expected):
            raise invalid
        if isinstance(value, str) and len(value) > MAX_ID * 4:
            raise invalid
        if isinstance(value, int) and not -(2**62) < value < 2**62:
            raise invalid
    return keyset
