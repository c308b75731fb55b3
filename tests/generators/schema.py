"""Values made from the types of ``schema.graphql``, parsed with graphql-core: what every generated
request carries.

``SCHEMA`` is the checked-in SDL (``tests/unit/test_schema_sdl.py`` holds it equal to the schema the
code builds). From an input type, ``plausible`` makes the plainest valid value (required fields,
first enum values, unique texts), ``Values.valid`` a random valid one and ``Values.hostile`` a
labelled hostile one — wrong JSON types, Int outside 32 bits, floats for ints, 5,000-digit numbers,
NaN and Infinity, unknown enum values, malformed DateTimes, input objects without a required field
or with an unknown one, lists past the list limit, long strings, control characters, lone
surrogates, JSON nested thousands deep; ``text_fields`` finds every String, ID and JSON field a
caller's text enters by. The values a seeded ``random.Random`` makes are the same for a seed.
"""

from __future__ import annotations

import copy
import json
import random
import re
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
    build_schema,
    get_nullable_type,
    is_list_type,
    is_non_null_type,
)

from hippograph.operations.limits import MAX_LIST
from hippograph.schema.limits import MAX_BODY_BYTES

SDL = Path(__file__).resolve().parents[2] / "schema.graphql"
SCHEMA = build_schema(SDL.read_text(encoding="utf-8"))
TEXT_SCALARS = ("String", "ID", "JSON")

WORDS = ("deploy docker postgres cache queue retry timeout index vector memory session project decision "
         "error fix pattern budget token release rollback schema migration").split()
PROJECTS = ("fz-p", "fz-q")
SESSIONS = ("fz-s", "fz-t")
# A long-term-memory.json the importDocument mutation takes (tests/fixtures/izanagi has the full one).
LONG_TERM_DOCUMENT = {
    "user_id": "fuzz", "preferences": {"editor": "vim"},
    "recurring_patterns": {"token_waste": {"count": 2, "last_skill": "backend-engineer", "resolved": False}},
    "skill_evolution": [], "last_updated": "2026-01-01T00:00:00Z",
    "learning_progress": {"completed_lessons": [], "current_lesson": "CQRS", "struggling_topics": []},
}


def required(f: Any) -> bool:
    """A field or argument the caller must give: non-null, without a default (graphql-core keeps the
    SDL's default in ``default``)."""
    return is_non_null_type(f.type) and f.default is None


def unique(name: str) -> str:
    """A plausible value for any text or id field: letters, digits and '-' pass every field's form."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


def plausible(type_: GraphQLInputType, name: str) -> Any:
    """The plainest valid value of ``type_``: required fields filled, enums their first value, texts unique."""
    nullable = get_nullable_type(type_)
    if is_list_type(nullable):
        return [plausible(nullable.of_type, name)]
    if isinstance(nullable, GraphQLInputObjectType):
        return {key: plausible(f.type, key) for key, f in nullable.fields.items() if required(f)}
    if isinstance(nullable, GraphQLEnumType):
        return next(iter(nullable.values))
    scalars: dict[str, Callable[[], Any]] = {
        "String": lambda: unique(name), "ID": lambda: unique(name), "JSON": dict, "Int": lambda: 1,
        "Float": lambda: 0.5, "Boolean": lambda: False, "DateTime": lambda: datetime.now(timezone.utc).isoformat(),
    }
    if nullable.name not in scalars:
        raise ValueError(f"no plausible value for the scalar {nullable.name}: teach plausible() one")
    return scalars[nullable.name]()


# Where in an argument a value is: input fields by name, list items by place.
FieldPath = tuple[str | int, ...]


def text_fields(fields: Mapping[str, Any], prefix: FieldPath = (), seen: frozenset[str] = frozenset()) -> Iterator[tuple[FieldPath, str]]:
    """Every String, ID and JSON field under ``fields`` (arguments or input fields), through inputs and lists."""
    for name, f in fields.items():
        path: FieldPath = (*prefix, name)
        type_ = get_nullable_type(f.type)
        if is_list_type(type_):
            type_, path = get_nullable_type(type_.of_type), (*path, 0)
        if isinstance(type_, GraphQLInputObjectType) and type_.name not in seen:
            yield from text_fields(type_.fields, path, seen | {type_.name})
        elif isinstance(type_, GraphQLScalarType) and type_.name in TEXT_SCALARS:
            yield path, type_.name



def json_places(value: Any, at: FieldPath = ()) -> Iterator[tuple[str, FieldPath]]:
    """Every key and every string inside a JSON value, as ("key" or "value", where)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield "key", (*at, key)
            yield from json_places(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_places(item, (*at, index))
    elif isinstance(value, str):
        yield "value", at


def get_in(value: Any, path: FieldPath) -> Any:
    for step in path:
        if isinstance(value, dict) and step not in value:
            return None
        value = value[step]
    return value


def planted_json(value: Any, inside: tuple[str, FieldPath], secret: str) -> Any:
    """A JSON value with ``secret`` as the key or the value at a place of it, or as a new key or value."""
    how, at = inside
    value = copy.deepcopy(value) if isinstance(value, dict) else {}
    if how == "new key":
        value[secret] = "planted"
    elif how == "new value":
        value["planted"] = secret
    else:
        parent, last = get_in(value, at[:-1]), at[-1]
        if how == "key":
            parent[secret] = parent.pop(last)
        else:
            parent[last] = secret
    return value


def planted(value: Any, type_: GraphQLInputType, path: FieldPath, secret: Any) -> Any:
    """``value`` (of ``type_``) with ``secret`` at ``path``; whatever the path passes through is made if missing."""
    if not path:
        return secret
    nullable = get_nullable_type(type_)
    step, rest = path[0], path[1:]
    if is_list_type(nullable):
        items = list(value or [plausible(nullable.of_type, "item")])
        items[step] = planted(items[step], nullable.of_type, rest, secret)
        return items
    current = dict(value if value is not None else plausible(nullable, "input"))
    current[step] = planted(current.get(step), nullable.fields[step].type, rest, secret)
    return current


@dataclass(frozen=True)
class Raw:
    """Text written into the JSON (or, as ``literal``, the GraphQL) as it is: what ``json.dumps``
    will not write — 5,000-digit numbers, NaN, nesting past Python's recursion limit."""

    text: str
    literal: str | None = None


@dataclass(frozen=True)
class EnumValue:
    """An enum value: a bare name in a document, a string in variables."""

    name: str


def to_json(value: Any) -> str:
    """JSON text, ASCII only: a lone surrogate goes as its ``\\ud800`` escape."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, EnumValue):
        return json.dumps(value.name)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json.dumps(str(k))}:{to_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_json(v) for v in value) + "]"
    return json.dumps(value)


NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*\Z")


def to_literal(value: Any) -> str:
    """A GraphQL value literal (its string escapes are JSON's). An object key that is not a GraphQL
    name is written quoted, which no parser takes: one more way for a value to be wrong."""
    if isinstance(value, Raw):
        return value.literal if value.literal is not None else value.text
    if isinstance(value, EnumValue):
        return value.name
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k if NAME.match(str(k)) else json.dumps(str(k))}: {to_literal(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_literal(v) for v in value) + "]"
    return json.dumps(value)


def nested(depth: int, shape: str = "list") -> Raw:
    """JSON (and a GraphQL literal) nested ``depth`` deep: ``[[[…]]]`` or ``{"a":{"a":…}}``."""
    if shape == "list":
        text = "[" * depth + "]" * depth
        return Raw(text, text)
    return Raw('{"a":' * depth + "1" + "}" * depth, "{a: " * depth + "1" + "}" * depth)


@dataclass
class Pool:
    """Ids the requests name: the fuzz user's (learnt from answers), the other user's, cursors seen."""

    user: str
    other_user: str
    own: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    limit: int = 64

    def learn(self, body: Any, into: list[str] | None = None) -> None:
        into = self.own if into is None else into
        for key, value in json_pairs(body):
            target = self.cursors if key == "endCursor" else into if key == "id" else None
            if target is not None and isinstance(value, str) and value not in target:
                target.append(value)
                del target[:-self.limit]


def json_pairs(value: Any) -> Iterator[tuple[str, Any]]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, inner in item.items():
                yield key, inner
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


class Values:
    """Argument values made from an input type: ``valid`` ones, and ``hostile`` ones with a label."""

    def __init__(self, rng: random.Random, pool: Pool) -> None:
        self.rng = rng
        self.pool = pool
        # A fixed moment, so that a seed's requests do not depend on the day they are sent.
        self.now = datetime(2026, 1, 1, tzinfo=timezone.utc)

    # -- valid

    def valid(self, t: GraphQLInputType, name: str, parent: str = "") -> Any:
        if isinstance(t, GraphQLNonNull):
            return self._valid(t.of_type, name, parent)
        return None if self.rng.random() < 0.08 else self._valid(t, name, parent)

    def _valid(self, t: GraphQLInputType, name: str, parent: str) -> Any:
        if isinstance(t, GraphQLList):
            return [self.valid(t.of_type, name, parent) for _ in range(self.rng.randint(0, 3))]
        if isinstance(t, GraphQLEnumType):
            return EnumValue(self.rng.choice(list(t.values)))
        if isinstance(t, GraphQLInputObjectType):
            return self.valid_object(t)
        return self.scalar(t.name, name, parent)

    def valid_object(self, t: GraphQLInputObjectType) -> dict[str, Any]:
        return {name: self.valid(f.type, name, t.name) for name, f in t.fields.items()
                if required(f) or self.rng.random() < 0.6}

    def scalar(self, type_name: str, name: str, parent: str) -> Any:
        rng = self.rng
        if type_name == "ID":
            # An ``id`` of a project or session field (``project(id:)``, ``EndSessionInput.id`` …) names one.
            if name == "project" or (name == "id" and "project" in parent.lower()):
                return rng.choice(PROJECTS)
            if name == "session" or (name == "id" and "session" in parent.lower()):
                return rng.choice(SESSIONS)
            if name == "user":
                return self.pool.user
            return self.some_id()
        if type_name == "String":
            if name == "key":
                return rng.choice(("editor", "theme", "language"))
            if name == "role":
                return rng.choice(("user", "assistant", "tool"))
            if name in ("search", "operations"):
                return rng.choice(("remember", "recall", "postgres", "docker"))
            if name == "after":
                return rng.choice(self.pool.cursors) if self.pool.cursors else None
            return self.sentence()
        if type_name == "Int":
            return {"first": rng.randint(1, 20), "maxDepth": rng.randint(1, 6), "count": rng.randint(1, 6),
                    "contextWindow": rng.choice((512, 2048, 8192))}.get(name, rng.randint(0, 10))
        if type_name == "Float":
            return round(rng.random(), 3)
        if type_name == "Boolean":
            return rng.random() < 0.5
        if type_name == "DateTime":
            return (self.now - timedelta(days=rng.randint(0, 400))).isoformat()
        if type_name == "JSON":
            return LONG_TERM_DOCUMENT if name == "document" else {"source": "fuzz", "n": rng.randint(0, 9)}
        raise ValueError(f"no values for the scalar {type_name}: add it to generators.schema.Values")

    def some_id(self) -> str:
        roll = self.rng.random()
        if self.pool.own and roll < 0.75:
            return self.rng.choice(self.pool.own)
        if self.pool.others and roll < 0.87:
            return self.rng.choice(self.pool.others)
        return str(uuid.UUID(int=self.rng.getrandbits(128)))

    def sentence(self) -> str:
        return " ".join(self.rng.sample(WORDS, self.rng.randint(2, 8))).capitalize() + "."

    # -- hostile

    def hostile(self, t: GraphQLInputType, name: str, parent: str = "") -> tuple[Any, str]:
        if isinstance(t, GraphQLNonNull):
            if self.rng.random() < 0.08:
                return None, "null for a non-null"
            return self.hostile(t.of_type, name, parent)
        if isinstance(t, GraphQLList):
            return self._hostile_list(t, name, parent)
        if isinstance(t, GraphQLInputObjectType):
            return self._hostile_object(t)
        if isinstance(t, GraphQLEnumType):
            return self._pick(self._enum(t))
        return self._pick(self._scalar(t.name, name))

    def _pick(self, choices: Sequence[tuple[Any, str]]) -> tuple[Any, str]:
        return self.rng.choice(choices)

    def _hostile_list(self, t: GraphQLList, name: str, parent: str) -> tuple[Any, str]:
        rng = self.rng
        roll = rng.randrange(6)
        if roll == 0:
            return [self.valid(t.of_type, name, parent) for _ in range(MAX_LIST + 1)], "list: one past the list limit"
        if roll == 1:
            return [self.valid(t.of_type, name, parent) for _ in range(10_000)], "list: 10,000 items"
        if roll == 2:
            return [None], "list: a null item"
        if roll == 3:
            return {"item": 1}, "list: an object"
        if roll == 4:
            return nested(rng.choice((64, 1000, 5000))), "list: nested lists"
        item, label = self.hostile(t.of_type, name, parent)
        return [item], f"list item: {label}"

    def _hostile_object(self, t: GraphQLInputObjectType) -> tuple[Any, str]:
        rng = self.rng
        value = {name: self.valid(f.type, name, t.name) for name, f in t.fields.items()
                 if required(f)}
        needed = list(value)
        roll = rng.randrange(8)
        if roll == 0 and needed:
            missing = rng.choice(needed)
            del value[missing]
            return value, f"{t.name}: without the required {missing}"
        if roll == 1:
            return {**value, "zzUnknown": 1}, f"{t.name}: an unknown field"
        if roll == 2:
            return [value], f"{t.name}: a list of it"
        if roll == 3:
            return rng.choice(("{}", 42, True)), f"{t.name}: a scalar"
        if roll == 4:
            return nested(rng.choice((64, 1000, 5000)), "object"), f"{t.name}: objects nested deep"
        name = rng.choice(list(t.fields))
        inner, label = self.hostile(t.fields[name].type, name, t.name)
        value[name] = inner
        return value, f"{t.name}.{name}: {label}"

    def _enum(self, t: GraphQLEnumType) -> list[tuple[Any, str]]:
        known = list(t.values)
        return [
            (EnumValue("NOWHERE"), "enum: an unknown value"),
            (EnumValue(self.rng.choice(known).lower()), "enum: lower case"),
            (EnumValue("CRITICAL" if t.name != "Priority" else "SESSION"), "enum: another enum's value"),
            (EnumValue("__typename"), "enum: __typename"),
            (EnumValue("A" * 10_000), "enum: a 10,000-character name"),
            (1, "enum: a number"),
            ([EnumValue(known[0])], "enum: a list"),
            (Raw(json.dumps(known[0]), json.dumps(known[0])), "enum: a string literal"),
        ]

    def _scalar(self, type_name: str, name: str) -> list[tuple[Any, str]]:
        if type_name == "Int":
            return INT
        if type_name == "Float":
            return FLOAT
        if type_name == "Boolean":
            return BOOLEAN
        if type_name == "DateTime":
            return DATETIME
        if type_name == "JSON":
            return _json_values()
        strings = _strings()
        if type_name == "ID":
            made_up = str(uuid.UUID(int=self.rng.getrandbits(128)))
            other = self.rng.choice(self.pool.others) if self.pool.others else made_up
            return [*strings, *IDS, (other, "ID: another user's id"), (made_up, "ID: an unknown id")]
        return strings


FIVE_THOUSAND_DIGITS = "9" * 5000

INT: list[tuple[Any, str]] = [
    (2**31, "Int: 2^31"), (-(2**31) - 1, "Int: below -2^31"), (2**63, "Int: 2^63"), (-(2**70), "Int: -2^70"),
    (Raw(FIVE_THOUSAND_DIGITS), "Int: 5,000 digits"), (Raw("-" + FIVE_THOUSAND_DIGITS), "Int: -(5,000 digits)"),
    (1.5, "Int: a float"), (2.0, "Int: 2.0"), (1e300, "Int: 1e300"), (Raw("1e999"), "Int: 1e999"),
    (Raw("NaN"), "Int: NaN"), (Raw("Infinity"), "Int: Infinity"), ("12", "Int: a string"), (True, "Int: a boolean"),
    (-1, "Int: -1"), (0, "Int: 0"), (10**9, "Int: 10^9"), ([1], "Int: a list"), ({"n": 1}, "Int: an object"),
]
FLOAT: list[tuple[Any, str]] = [
    (Raw("NaN"), "Float: NaN"), (Raw("Infinity"), "Float: Infinity"), (Raw("-Infinity"), "Float: -Infinity"),
    (Raw("1e999"), "Float: 1e999"), (Raw(FIVE_THOUSAND_DIGITS), "Float: 5,000 digits"),
    (Raw("0." + "1" * 5000), "Float: 5,000 decimals"), ("0.5", "Float: a string"), (True, "Float: a boolean"),
    (-1e308, "Float: -1e308"), (5e-324, "Float: 5e-324"), (7.5, "Float: 7.5"), (-0.0, "Float: -0.0"),
    (2**63, "Float: 2^63"), ([0.5], "Float: a list"),
]
BOOLEAN: list[tuple[Any, str]] = [
    ("true", "Boolean: a string"), (1, "Boolean: 1"), (0, "Boolean: 0"), ([True], "Boolean: a list"),
    ({"b": True}, "Boolean: an object"), (Raw("NaN"), "Boolean: NaN"),
]
DATETIME: list[tuple[Any, str]] = [
    ("not a date", "DateTime: words"), ("2024-13-45T25:61:61Z", "DateTime: month 13"),
    ("2024-02-30T00:00:00Z", "DateTime: 30 February"), ("0000-00-00T00:00:00", "DateTime: year 0"),
    ("9999999-01-01T00:00:00Z", "DateTime: year 9999999"), ("10000-01-01T00:00:00Z", "DateTime: year 10000"),
    ("2024-01-01T00:00:00+99:00", "DateTime: offset +99:00"), ("2024-01-01T00:00:00.1234567890123Z", "DateTime: 13 decimals"),
    ("-2024-01-01T00:00:00Z", "DateTime: negative year"), (1700000000, "DateTime: a number"), ("", "DateTime: empty"),
    ("2024-01-01T00:00:00Z\x00", "DateTime: NUL"), (FIVE_THOUSAND_DIGITS, "DateTime: 5,000 digits"),
    ("P1D", "DateTime: a duration"), ("0001-01-01T00:00:00-23:59", "DateTime: before year 1 in UTC"),
    ("9999-12-31T23:59:59+00:00", "DateTime: the last second"),
    ("9999-12-31T23:59:59-23:59", "DateTime: after year 9999 in UTC"),
]
IDS: list[tuple[Any, str]] = [
    (123, "ID: a number"), (1.5, "ID: a float"), ("a" * 129, "ID: 129 characters"), ("a" * 10_000, "ID: 10,000 characters"),
    ("../../etc/passwd", "ID: a path"), ("id\nnext", "ID: a newline"), (" padded ", "ID: spaces"),
    ("x'}) MATCH (n) DETACH DELETE n //", "ID: Cypher"), ("bm90IGEgY3Vyc29y", "ID: base64"),
]


def _strings() -> list[tuple[Any, str]]:
    return [
        ("a" * 100_000, "String: 100,000 characters"), ("word " * 4000, "String: 4,000 words"),
        ("x" * (MAX_BODY_BYTES + 16), "String: past the body limit"),
        ("a\x00b", "String: NUL"), ("bell \x07 escape \x1b[31m", "String: control characters"),
        ("broken \ud800 text", "String: a lone high surrogate"), ("\udfff", "String: a lone low surrogate"),
        ("\udc00\ud800", "String: a reversed surrogate pair"), ("\ufeffBOM", "String: a byte order mark"),
        ("\u202eright-to-left\u202c", "String: bidi override"), ("zero\u200bwidth", "String: zero-width space"),
        ("", "String: empty"), ("   \n\t ", "String: blank"), ("'}) MATCH (n) DETACH DELETE n //", "String: Cypher"),
        ("title:x AND * OR [a TO z]~2 \\", "String: Lucene syntax"), ("🧠" * 5000, "String: 5,000 astral characters"),
        ("\r\n" * 1000, "String: 2,000 line breaks"), ("\x7f\x85\u2028\u2029", "String: DEL, NEL, line separators"),
        ("\uffff\ufffe", "String: non-characters"), (12345, "String: a number"), (True, "String: a boolean"),
        (["a"], "String: a list"), ({"a": "b"}, "String: an object"), (Raw("NaN"), "String: NaN"),
    ]


def _json_values() -> list[tuple[Any, str]]:
    return [
        (nested(5000), "JSON: lists nested 5,000 deep"), (nested(100_000), "JSON: lists nested 100,000 deep"),
        (nested(5000, "object"), "JSON: objects nested 5,000 deep"), ({f"k{i}": i for i in range(10_000)}, "JSON: 10,000 keys"),
        ({"__proto__": {"admin": True}}, "JSON: __proto__"), ({"": 1, "\x00": 2}, "JSON: empty and NUL keys"),
        ("x" * 1_000_000, "JSON: a 1 MB string"), (Raw("NaN"), "JSON: NaN"), (Raw(FIVE_THOUSAND_DIGITS), "JSON: 5,000 digits"),
        ([1, 2], "JSON: a list"), ("text", "JSON: a string"), (12, "JSON: a number"),
        ({"a": "\ud800"}, "JSON: a lone surrogate"),
    ]


