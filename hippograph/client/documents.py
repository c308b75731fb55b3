"""GraphQL selections built from the result dataclasses, and answers read back into them.

One description serves both directions, so what the client asks for and what it reads cannot
drift apart; ``tests/unit/test_client_documents.py`` checks both against ``schema.graphql``.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")


def graphql_name(python_name: str) -> str:
    """``created_at`` → ``createdAt``; ``from_`` → ``from``."""
    head, *rest = python_name.rstrip("_").split("_")
    return head + "".join(part.capitalize() for part in rest)


@functools.cache
def hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def unwrap(annotation: Any) -> tuple[Any, bool, bool]:
    """(the named type, whether None is allowed, whether it is a list) of a field's annotation."""
    nullable = False
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(members) < len(typing.get_args(annotation))
        annotation = members[0]
    if typing.get_origin(annotation) is list:
        return typing.get_args(annotation)[0], nullable, True
    return annotation, nullable, False


def selection(cls: type) -> str:
    """The selection set of a result dataclass: its fields, nested classes selected in turn."""
    parts = []
    for f in dataclasses.fields(cls):
        named, _, _ = unwrap(hints(cls)[f.name])
        text = graphql_name(f.name)
        if "args" in f.metadata:
            text += f"({f.metadata['args']})"
        if isinstance(named, type) and dataclasses.is_dataclass(named):
            text += " " + selection(named)
        parts.append(text)
    return "{ " + " ".join(parts) + " }"


def decode(cls: type[T], value: dict[str, Any]) -> T:
    """A result dataclass from the JSON of its selection."""
    shape: type = cls  # T is any result dataclass; unbounded, so each caller keeps its own type
    return cls(**{f.name: _value(hints(shape)[f.name], value[graphql_name(f.name)]) for f in dataclasses.fields(shape)})


def _value(annotation: Any, value: Any) -> Any:
    named, _, many = unwrap(annotation)
    if value is None:
        return None
    if many:
        return [_one(named, item) for item in value]
    return _one(named, value)


def _one(named: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(named, type) and dataclasses.is_dataclass(named):
        return decode(named, value)
    if isinstance(named, type) and issubclass(named, Enum):
        return named(value)
    if named is datetime:
        return datetime.fromisoformat(value)
    if named is float:
        return float(value)
    return value


def plain(value: Any) -> Any:
    """A variable's value as JSON: enums by value, times in ISO 8601, keys of dicts left as they are."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
