"""The bounds of every operation's input, and the checks that hold inputs to them — the same for
GraphQL and MCP (the document limits of GraphQL alone are ``hippograph.schema.limits``).

Passing a *limit* — page size, list length, a string larger than any field takes — answers
``LIMIT_EXCEEDED``. A value that is wrong in itself — text that is too long for its field,
control characters, broken Unicode, a malformed id — answers ``BAD_USER_INPUT``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Hashable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from hippograph.memory.errors import InvalidInput
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.entities import clean_name
from hippograph.operations.errors import BadInput, LimitExceeded

MAX_PAGE = 100
DEFAULT_PAGE = 20
MAX_LIST = 50
MAX_ID = 128
# An opaque page cursor, as a page returned it (GraphQL's connections, the audit log's own).
MAX_CURSOR = 1024
MAX_QUERY = 4000
MAX_TEXT = 20_000
MAX_SHORT_TEXT = 2000
MAX_ATTRIBUTES = 10_000
# A stored item's value is the caller's data, kept whole: as large as a request may carry.
MAX_ITEM_ATTRIBUTES = 2 * 1024 * 1024
MAX_STRING = 2 * 1024 * 1024
MAX_TRACE_PATHS = 100
MAX_CHAINS = 100
# GraphQL's Int, and so the most any whole number an operation takes may be, over MCP too.
MAX_INT = 2**31 - 1
# How far a caller's ``now`` may be from the server's clock: enough for a client's skew or a replay
# of today, not enough to age (and so decay) a whole memory.
MAX_CLOCK_SKEW = timedelta(days=1)
# The widest UTC offset a time may carry: Neo4j's (Java's) bound. Python takes up to ±23:59, which Neo4j
# refuses; no zone on earth is past ±14:00.
MAX_UTC_OFFSET = timedelta(hours=18)

# Tab, newline and carriage return are text; other C0 controls, DEL and NUL are not.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

T = TypeVar("T")
H = TypeVar("H", bound=Hashable)


def check_strings(value: Any, path: str = "input") -> None:
    """Every string inside an interface's arguments is valid Unicode without control characters.

    Each interface runs it on its arguments as they arrived, so a refusal names the argument as
    its caller spelled it (``input.content`` for GraphQL, ``content`` for MCP)."""
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise LimitExceeded(f"{path} is larger than any field accepts", field=path)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput(f"{path} is not valid Unicode (a lone surrogate)", field=path) from None
        if _CONTROL.search(value):
            raise BadInput(f"{path} contains control characters", field=path)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_strings(key, path)
            check_strings(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_strings(item, f"{path}[{index}]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            check_strings(getattr(value, f.name), f"{path}.{f.name}")


def text(value: str, field: str, max_length: int = MAX_SHORT_TEXT) -> str:
    """A non-blank text of at most ``max_length`` characters."""
    if not value.strip():
        raise BadInput(f"{field} must not be blank", field=field)
    if len(value) > max_length:
        raise BadInput(f"{field} has at most {max_length} characters, got {len(value)}", field=field)
    return value


def optional_text(value: str | None, field: str, max_length: int = MAX_SHORT_TEXT) -> str | None:
    return None if value is None else text(value, field, max_length)


def ident(value: str, field: str) -> str:
    """An id as the caller sent it: non-blank and at most ``MAX_ID`` characters."""
    if not value or len(value) > MAX_ID:
        raise BadInput(f"{field} must be an id of 1 to {MAX_ID} characters", field=field)
    return value


def optional_ident(value: str | None, field: str) -> str | None:
    return None if value is None else ident(value, field)


def caller_scope(user_id: str, project: str | None, session: str | None) -> Scope:
    """The caller's scope: the user from the key, never from the request; project and session as named."""
    return Scope(user_id, optional_ident(project, "project"), optional_ident(session, "session"))


def entity_name(value: str, field: str) -> str:
    """An entity's name, cleaned as it is stored; a refusal names the field."""
    try:
        return clean_name(value)
    except InvalidInput as exc:
        raise BadInput(f"{field}: {exc}", field=field) from None


def bounded(value: int, field: str, most: int = MAX_PAGE, least: int = 1) -> int:
    """A whole number from ``least`` to ``most`` (a page size by default): under it is a wrong value,
    over it a limit passed."""
    if value < least:
        raise BadInput(f"{field} must be at least {least}, got {value}", field=field)
    if value > most:
        raise LimitExceeded(f"{field} is at most {most}, got {value}", field=field)
    return value


def utc(value: datetime | None, field: str) -> datetime | None:
    """A time a caller sent, in UTC — the rule of every time an operation takes: a time without a zone is UTC;
    an offset past ±18:00, or a time outside the years 1 to 9999 once in UTC, is no time Neo4j can hold."""
    if value is None:
        return None
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    offset = aware.utcoffset()
    if offset is not None and abs(offset) > MAX_UTC_OFFSET:
        raise BadInput(f"{field} has a UTC offset beyond ±18:00, which no time zone has", field=field)
    try:
        return aware.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before the first year in UTC
        raise BadInput(f"{field} is outside the years 1 to 9999 in UTC", field=field) from None


def moment(value: datetime | None, field: str) -> datetime | None:
    """A caller's ``now``, in UTC: within ``MAX_CLOCK_SKEW`` of the server's clock."""
    at = utc(value, field)
    if at is not None and abs(at - datetime.now(UTC)) > MAX_CLOCK_SKEW:
        raise BadInput(f"{field} must be within {MAX_CLOCK_SKEW.days} day of the server's clock", field=field)
    return at


def as_of(value: datetime | None, field: str = "asOf") -> datetime | None:
    """A moment to read the store as of, in UTC: any past moment, or now; a moment still to come has no
    store to read yet. Every read that takes ``asOf`` checks it here, and so does ``verifyErasure`` the
    time of its receipt."""
    at = utc(value, field)
    if at is not None and at > datetime.now(UTC) + MAX_CLOCK_SKEW:
        raise BadInput(f"{field} is in the future: it takes now or any moment before", field=field)
    return at


def bounded_list(values: Sequence[T] | None, field: str, max_items: int = MAX_LIST) -> list[T] | None:
    if values is None:
        return None
    if len(values) > max_items:
        raise LimitExceeded(f"{field} takes at most {max_items} items, got {len(values)}", field=field)
    return list(values)


def attributes(value: Any, field: str = "attributes", most: int = MAX_ATTRIBUTES) -> dict[str, Any] | None:
    """A JSON object of at most ``most`` characters when serialised."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadInput(f"{field} must be a JSON object", field=field)
    if len(json.dumps(value, ensure_ascii=False, default=str)) > most:
        raise BadInput(f"{field} has at most {most} characters as JSON", field=field)
    return value


def distinct(values: Sequence[H] | None) -> list[H] | None:
    """The values given (enum members, say), each once, in the order first given."""
    return None if values is None else list(dict.fromkeys(values))
