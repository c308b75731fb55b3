"""The shapes of the three Izanagi documents, checked with the JSON path of the first error.

A small declarative spec — ``Record``, ``MapOf``, ``ListOf``, ``Text``,
``Timestamp``, ``Integer``, ``Boolean``, ``Scalar`` — describes each document as
the seed's "Storage Format" shows it. Every key the seed shows is required and
no other key is accepted (except in ``active_context``, a bag of scalars), so
what validates is exactly what the graph can hold and give back unchanged.
Errors read ``$.architecture.decisions[0].date: expected a string``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from hippograph.memory.writing.entities import MAX_NAME_LENGTH, normalise_name
from hippograph.memory.errors import InvalidInput
from hippograph.memory.writing.knowledge import PREFERENCE_KEY
from hippograph.memory.tiers import CALLER_ID

MAX_TEXT = 2000
MAX_ITEMS = 500
MAX_COUNT = 10**9
# A preference is stored as the entity "key: value", whose name has at most MAX_NAME_LENGTH characters.
MAX_PREFERENCE_VALUE = MAX_NAME_LENGTH - 64 - 2

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class DocumentKind(str, Enum):
    SESSION = "session"
    PROJECT = "project"
    LONG_TERM = "long-term"


class DocumentError(InvalidInput):
    """A document does not have the expected shape; ``path`` is the JSON path of the first problem."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


def child(path: str, step: str | int) -> str:
    """``$.a`` + ``b`` → ``$.a.b``; indexes and keys that are not identifiers use brackets."""
    if isinstance(step, int):
        return f"{path}[{step}]"
    if _IDENTIFIER.match(step):
        return f"{path}.{step}"
    return f"{path}[{json.dumps(step, ensure_ascii=False)}]"


@dataclass(frozen=True)
class Text:
    max_length: int = MAX_TEXT
    name: bool = False  # becomes an entity name: needs more than punctuation
    pattern: re.Pattern[str] | None = None
    pattern_help: str = ""

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise DocumentError(path, "expected a string")
        if not value.strip():
            raise DocumentError(path, "must not be empty")
        if len(value) > self.max_length:
            raise DocumentError(path, f"has at most {self.max_length} characters, got {len(value)}")
        if _CONTROL.search(value):
            raise DocumentError(path, "must not contain control characters")
        if self.name and not normalise_name(value):
            raise DocumentError(path, "must contain more than spaces and punctuation")
        if self.pattern is not None and not self.pattern.match(value):
            raise DocumentError(path, self.pattern_help or f"must match {self.pattern.pattern}")


@dataclass(frozen=True)
class Timestamp:
    """An ISO 8601 date or date-time string, kept verbatim."""

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise DocumentError(path, "expected a string")
        if parse_timestamp(value) is None:
            raise DocumentError(path, "expected an ISO 8601 date or date-time, e.g. 2026-07-17 or 2026-07-17T10:00:00Z")


@dataclass(frozen=True)
class Integer:
    minimum: int = 0
    maximum: int = MAX_COUNT

    def check(self, value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise DocumentError(path, "expected a whole number")
        if not self.minimum <= value <= self.maximum:
            raise DocumentError(path, f"must be between {self.minimum} and {self.maximum}, got {value}")


@dataclass(frozen=True)
class Boolean:
    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, bool):
            raise DocumentError(path, "expected true or false")


@dataclass(frozen=True)
class Scalar:
    """A string, number, boolean or null."""

    text: Text = Text()

    def check(self, value: Any, path: str) -> None:
        if value is None or isinstance(value, (bool, int)):
            return
        if isinstance(value, float):
            if not math.isfinite(value):
                raise DocumentError(path, "expected a finite number")
            return
        if isinstance(value, str):
            self.text.check(value, path)
            return
        raise DocumentError(path, "expected a string, number, boolean or null")


@dataclass(frozen=True)
class ListOf:
    item: Spec
    max_items: int = MAX_ITEMS
    unique: str | None = None  # a key of Record items whose value may appear once

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise DocumentError(path, "expected a list")
        if len(value) > self.max_items:
            raise DocumentError(path, f"has at most {self.max_items} items, got {len(value)}")
        seen: dict[Any, int] = {}
        for index, item in enumerate(value):
            self.item.check(item, child(path, index))
            if self.unique is not None:
                key = item[self.unique]
                if key in seen:
                    first = child(child(path, seen[key]), self.unique)
                    raise DocumentError(
                        child(child(path, index), self.unique),
                        f"{json.dumps(key, ensure_ascii=False)} is already used at {first}",
                    )
                seen[key] = index


@dataclass(frozen=True)
class MapOf:
    key: Text
    value: Spec
    max_items: int = MAX_ITEMS

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise DocumentError(path, "expected an object")
        if len(value) > self.max_items:
            raise DocumentError(path, f"has at most {self.max_items} entries, got {len(value)}")
        for key, item in value.items():
            at = child(path, key)
            try:
                self.key.check(key, at)
            except DocumentError as exc:
                raise DocumentError(at, f"key {exc.problem}") from None
            self.value.check(item, at)


@dataclass(frozen=True)
class Record:
    fields: dict[str, Spec]
    optional: frozenset[str] = field(default_factory=frozenset)
    extra: Spec | None = None  # the spec of keys not in ``fields``; None refuses them

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise DocumentError(path, "expected an object")
        for key, item in value.items():
            spec = self.fields.get(key, self.extra)
            if spec is None:
                expected = ", ".join(self.fields)
                raise DocumentError(child(path, key), f"unexpected key; expected only {expected}")
            if key not in self.fields:
                Text(max_length=64).check(key, child(path, key))
            spec.check(item, child(path, key))
        for key in self.fields:
            if key not in value and key not in self.optional:
                raise DocumentError(child(path, key), "is required but missing")


Spec = Text | Timestamp | Integer | Boolean | Scalar | ListOf | MapOf | Record

SCOPE_ID_TEXT = Text(
    max_length=128,
    pattern=CALLER_ID,
    pattern_help="must be 1-128 letters, digits and . _ : @ / -, starting with a letter or digit",
)
LABEL = Text(max_length=200)
NAME = Text(max_length=MAX_NAME_LENGTH, name=True)
KEY = Text(max_length=64, name=True)

SESSION = Record(
    {
        "session_id": SCOPE_ID_TEXT,
        "started_at": Timestamp(),
        "tasks": ListOf(
            Record(
                {
                    "task_id": LABEL,
                    "classification": LABEL,
                    "decisions": ListOf(NAME),
                    "errors": ListOf(NAME),
                    "patterns": ListOf(NAME),
                }
            ),
            unique="task_id",
        ),
        "active_context": Record(
            {"current_skill": LABEL, "token_used": Integer(), "compression_level": LABEL},
            optional=frozenset({"current_skill", "token_used", "compression_level"}),
            extra=Scalar(),
        ),
    }
)

PROJECT = Record(
    {
        "project_id": SCOPE_ID_TEXT,
        "type": LABEL,
        "tech_stack": MapOf(KEY, NAME),
        "architecture": Record(
            {
                "pattern": NAME,
                "decisions": ListOf(Record({"id": LABEL, "decision": NAME, "reason": Text(), "date": Timestamp()})),
            }
        ),
        "conventions": MapOf(KEY, Text()),
        "error_history": ListOf(Record({"error": NAME, "fix": NAME, "count": Integer(), "last_seen": Timestamp()})),
        "last_updated": Timestamp(),
    }
)

LONG_TERM = Record(
    {
        "user_id": SCOPE_ID_TEXT,
        "preferences": MapOf(
            Text(max_length=64, pattern=PREFERENCE_KEY, pattern_help="must be 1-64 letters, digits, '_', '.' or '-'"),
            Text(max_length=MAX_PREFERENCE_VALUE, name=True),
        ),
        "recurring_patterns": MapOf(NAME, Record({"count": Integer(), "last_skill": LABEL, "resolved": Boolean()})),
        "skill_evolution": ListOf(
            Record({"skill": LABEL, "version": LABEL, "changes": ListOf(Text()), "date": Timestamp()})
        ),
        "learning_progress": Record(
            {
                "completed_lessons": ListOf(NAME),
                "current_lesson": NAME,
                "struggling_topics": ListOf(NAME),
            }
        ),
        "last_updated": Timestamp(),
    }
)

SPECS: dict[DocumentKind, Record] = {
    DocumentKind.SESSION: SESSION,
    DocumentKind.PROJECT: PROJECT,
    DocumentKind.LONG_TERM: LONG_TERM,
}


def validate(kind: DocumentKind | str, document: Any) -> None:
    """Raise :class:`DocumentError` at the first place ``document`` departs from its kind's shape."""
    SPECS[DocumentKind(kind)].check(document, "$")


def parse_timestamp(value: str) -> datetime | None:
    """The moment an ISO 8601 date or date-time names (no zone: UTC), or None when it names none."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def load(text: str) -> Any:
    """Parse a document's JSON text; a syntax error becomes a :class:`DocumentError` at ``$``."""

    def refuse_constant(name: str) -> Any:
        raise DocumentError("$", f"{name} is not valid JSON")

    try:
        return json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as exc:
        raise DocumentError("$", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
