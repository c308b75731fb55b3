"""The bounds every request lives within, and the checks that hold inputs to them.

Passing a *limit* — document depth, aliases, tokens, page size, list length,
request size — answers ``LIMIT_EXCEEDED``. A value that is wrong in itself —
the wrong type, text that is too long for its field, control characters,
broken Unicode, a malformed id or cursor — answers ``BAD_USER_INPUT``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from enum import Enum
from typing import Any, TypeVar

from hippograph.memory.errors import InvalidInput
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.entities import clean_name
from hippograph.schema.errors import BadInput, LimitExceeded

MAX_DEPTH = 10
MAX_ALIASES = 20
MAX_TOKENS = 2000
# Counted as the operation expands (``hippograph.schema.operation_cost``), fragments and all.
MAX_FIELDS = 500
MAX_FRAGMENTS = 50
MAX_SPREADS = 200
MAX_REPEATS = 20
MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_PAGE = 100
DEFAULT_PAGE = 20
MAX_LIST = 50
MAX_ID = 128
MAX_QUERY = 4000
MAX_TEXT = 20_000
MAX_SHORT_TEXT = 2000
MAX_ATTRIBUTES = 10_000
MAX_STRING = 2 * 1024 * 1024
MAX_TRACE_PATHS = 100
MAX_CHAINS = 100
MAX_SUBSCRIPTIONS_PER_CONNECTION = 10
# How far a caller's ``now`` may be from the server's clock: enough for a client's skew or a replay
# of today, not enough to age (and so decay) a whole memory.
MAX_CLOCK_SKEW = timedelta(days=1)

# Tab, newline and carriage return are text; other C0 controls, DEL and NUL are not.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

T = TypeVar("T")


def check_strings(value: Any, path: str = "input") -> None:
    """Every string inside a resolver's arguments is valid Unicode without control characters."""
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


def page_size(first: int, field: str = "first") -> int:
    if first < 1:
        raise BadInput(f"{field} must be at least 1", field=field)
    if first > MAX_PAGE:
        raise LimitExceeded(f"{field} is at most {MAX_PAGE}, got {first}", field=field)
    return first


def positive(value: int, field: str) -> int:
    if value < 1:
        raise BadInput(f"{field} must be at least 1, got {value}", field=field)
    return value


def moment(value: datetime | None, field: str) -> datetime | None:
    """A caller's ``now``: within ``MAX_CLOCK_SKEW`` of the server's clock (a time without a zone is UTC)."""
    if value is None:
        return None
    aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
    if abs(aware - datetime.now(timezone.utc)) > MAX_CLOCK_SKEW:
        raise BadInput(f"{field} must be within {MAX_CLOCK_SKEW.days} day of the server's clock", field=field)
    return value


def bounded_list(values: Sequence[T] | None, field: str, max_items: int = MAX_LIST) -> list[T] | None:
    if values is None:
        return None
    if len(values) > max_items:
        raise LimitExceeded(f"{field} takes at most {max_items} items, got {len(values)}", field=field)
    return list(values)


def attributes(value: Any, field: str = "attributes") -> dict[str, Any] | None:
    """A JSON object of at most ``MAX_ATTRIBUTES`` characters when serialised."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadInput(f"{field} must be a JSON object", field=field)
    if len(json.dumps(value, ensure_ascii=False, default=str)) > MAX_ATTRIBUTES:
        raise BadInput(f"{field} has at most {MAX_ATTRIBUTES} characters as JSON", field=field)
    return value


def enum_values(values: Sequence[Enum] | None) -> list[Any] | None:
    return None if values is None else list(dict.fromkeys(values))
