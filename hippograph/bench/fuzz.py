"""Hostile requests against a real ``hippograph serve``, made from the schema, and what every answer must satisfy.

``tests/e2e/test_api_fuzz.py`` sends a few hundred of them in ``make test``; ``hippograph bench fuzz
--requests N`` sends thousands and writes a report. Both call ``run``.

**The requests** (``Generator``) come from the graphql-core schema of ``hippograph.schema``, from a
seeded ``random.Random``: the same seed sends the same requests, up to the ids the server hands out.
Each field, each hostile document, body, content type and method comes in turn, in shuffled rounds,
so that a short run sends every one of them.

* Every query and mutation field, in turn, inline and with variables, with argument values made
  from each argument's type: valid ones, and hostile ones — wrong JSON types, Int outside 32 bits,
  floats for ints, 5,000-digit numbers, NaN and Infinity, unknown enum values, malformed DateTimes,
  input objects without a required field or with an unknown one, lists past the list limit, long
  strings, control characters, lone surrogates (``"\\ud800"``), JSON nested thousands deep.
* Hostile documents: fragment bombs, fragment cycles, deep selections and literals, alias and
  directive spam, overlapping fields, 5,000-digit literals, many operations, the token limit.
* Hostile bodies: JSON that is not an object, nested 5,000–100,000 deep, duplicate keys, invalid
  UTF-8, numbers Python cannot read, past the body limit (also chunked); other content types and
  charsets; GET with a mutation, PUT, DELETE and other methods; a subscription over HTTP.
* Most with the fuzz user's key; some without a key, with an unknown, malformed or revoked one.

**The checks** (``problems`` and ``run``), on every answer: the status is below 500; every
``errors[].extensions.code`` is there, is one the schema's ``ErrorCode`` lists, and is not
``INTERNAL_SERVER_ERROR`` (nor is any union member's ``code``); a request that was refused — an
HTTP error, errors without data, every mutation answering a ``UserError`` — left the state of the
fuzz user, of a second user whose ids it tries, and the store's node and relationship counts as
they were, and so did every read; a request the harness knows must be refused (no key, a revoked
key, a mutation over GET, duplicate keys, a limit the README states …) is; and ``/healthz``, asked
every 100 ms from a thread, answers within 2 s throughout (the slowest answers name the request
in flight). Access bookkeeping and audit events are left out of the state (background writers
add them after the answer, for reads and writes alike), and so are vectors (made from the text).
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

import httpx
from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLUnionType,
    Undefined,
    get_named_type,
    is_leaf_type,
)
from neo4j import READ_ACCESS, Session

from hippograph.bench import api, report
from hippograph.config import ConfigError
from hippograph.graph import inspection
from hippograph.memory import keys
from hippograph.memory.writing.forget import forget_user
from hippograph.schema import schema as hippograph_schema
from hippograph.operations.limits import MAX_LIST
from hippograph.schema.limits import MAX_ALIASES, MAX_BODY_BYTES, MAX_DEPTH, MAX_TOKENS
from hippograph.memory.services import Services

# What a caller without a key may ask (README, "Keys and tenants"); every other root field needs one.
KEYLESS_FIELDS = frozenset({"serverInfo", "__typename", "__schema", "__type"})
# The liveness bound: /healthz must answer within it, every time it is asked.
HEALTHZ_BOUND_S = 2.0
HEALTHZ_EVERY_S = 0.1
# The run stops when the server stops answering: this long without a /healthz answer, or this
# many requests in a row without one (each waits up to the request timeout).
UNRESPONSIVE_S = 15.0
UNANSWERED_IN_A_ROW = 3
T = TypeVar("T")
# Mutations that, answered, would erase the fuzz user and its key: sent as the other user only.
SELF_ERASING = frozenset({"forgetUser"})
# The fragment bomb of the issue: F0 spreads F1 twice, …, down to F30.
BOMB_DEPTH = 30
EXAMPLES = 3
TARGET_REQUESTS = 5000
CHECKS = ("http_5xx", "internal_server_error", "missing_code", "state_change", "unmet_expectation",
          "unanswered", "healthz")

# Request categories and their shares of a run.
CATEGORIES = (
    ("valid-inline", 9), ("valid-variables", 9), ("hostile-inline", 14), ("hostile-variables", 20),
    ("document", 14), ("body", 12), ("content-type", 6), ("method", 6), ("subscription", 2), ("auth", 8),
)
FIELD_CATEGORIES = ("valid-inline", "valid-variables", "hostile-inline", "hostile-variables", "auth")

WORDS = ("deploy docker postgres cache queue retry timeout index vector memory session project decision "
         "error fix pattern budget token release rollback schema migration").split()
PROJECTS = ("fz-p", "fz-q")
SESSIONS = ("fz-s", "fz-t")

SEED = (
    'mutation { remember(input: {content: "The fuzz user deploys with Docker on Fridays", tier: LONG_TERM}) { __typename } }',
    'mutation { recordDecision(input: {decision: "Use Postgres for storage", reason: "the team knows it", project: "fz-p"}) '
    "{ __typename } }",
    'mutation { recordError(input: {error: "Connection pool exhausted", fix: "Raise the pool size", project: "fz-p"}) '
    "{ __typename } }",
    'mutation { startSession(input: {id: "fz-s", project: "fz-p"}) { __typename } }',
    'mutation { appendTurn(input: {session: "fz-s", role: "user", content: "How do we deploy the release?"}) { __typename } }',
    'mutation { setPreference(input: {key: "editor", value: "vim"}) { __typename } }',
)
SEED_IDS = """{ memories(first: 100, filter: {includeArchived: true}) { nodes { id records { id } entities { id } } }
  entities(first: 100) { nodes { id } } }"""

# A long-term-memory.json the importDocument mutation takes (tests/fixtures/izanagi has the full one).
LONG_TERM_DOCUMENT = {
    "user_id": "fuzz", "preferences": {"editor": "vim"},
    "recurring_patterns": {"token_waste": {"count": 2, "last_skill": "backend-engineer", "resolved": False}},
    "skill_evolution": [], "last_updated": "2026-01-01T00:00:00Z",
    "learning_progress": {"completed_lessons": [], "current_lesson": "CQRS", "struggling_topics": []},
}


# ---------------------------------------------------------------- values


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
        for key, value in _items(body):
            target = self.cursors if key == "endCursor" else into if key == "id" else None
            if target is not None and isinstance(value, str) and value not in target:
                target.append(value)
                del target[:-self.limit]


def _items(value: Any) -> Iterator[tuple[str, Any]]:
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
                if _required(f.type, f.default_value) or self.rng.random() < 0.6}

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
        raise ValueError(f"no values for the scalar {type_name}: add it to hippograph.bench.fuzz.Values")

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
                 if _required(f.type, f.default_value)}
        required = list(value)
        roll = rng.randrange(8)
        if roll == 0 and required:
            missing = rng.choice(required)
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


def _required(t: GraphQLInputType, default: Any) -> bool:
    return isinstance(t, GraphQLNonNull) and default is Undefined


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


# ---------------------------------------------------------------- requests


@dataclass(frozen=True)
class Expect:
    """What the harness knows an answer must be, besides the checks every answer passes."""

    why: str
    refused: bool = True
    status: int | None = None
    codes: frozenset[str] = frozenset()
    absent: str | None = None


@dataclass(frozen=True)
class Request:
    """One HTTP request to /graphql. ``kind`` names what is hostile about it; failures group by it."""

    category: str
    kind: str
    body: bytes = b""
    method: str = "POST"
    content_type: str | None = "application/json"
    accept: str = "application/json"
    params: tuple[tuple[str, str], ...] = ()
    operation: str | None = None
    auth: str = "key"
    expect: Expect | None = None
    chunked: bool = False

    def describe(self, limit: int = 300) -> str:
        """The request as a line: method, auth, content type, the start of the body."""
        parts = [self.method, f"auth={self.auth}"]
        if self.content_type:
            parts.append(f"content-type={self.content_type}")
        if self.accept != "application/json":
            parts.append(f"accept={self.accept}")
        if self.params:
            query = _runs("&".join(f"{k}={v}" for k, v in self.params))
            parts.append(f"?{query[:limit]}" + ("…" if len(query) > limit else ""))
        if self.chunked:
            parts.append("chunked")
        if self.body:
            text = _runs(self.body.decode("utf-8", errors="backslashreplace"))
            parts.append(f"body({len(self.body)} bytes)={text[:limit]}" + ("…" if len(text) > limit else ""))
        return " ".join(parts)


def _runs(text: str) -> str:
    """``[[[[…`` as ``[×5000``: a hostile body is mostly one character repeated."""
    return re.sub(r"(.)\1{19,}", lambda run: f"{run.group(1)}×{len(run.group(0))}", text)


# Which keys a request may present (the runner fills in the secrets); all but the first two are refused.
GOOD_AUTH = ("key", "x-api-key")
BAD_AUTH = ("none", "unknown key", "bare prefix", "basic", "8 KB key", "latin-1 bytes", "revoked key", "bearer only")


def auth_headers(auth: str, key: str, revoked: str) -> list[tuple[str, str | bytes]]:
    return {
        "key": [("authorization", f"Bearer {key}")],
        "x-api-key": [("x-api-key", key)],
        "none": [],
        "unknown key": [("authorization", "Bearer hg_" + "A" * 43)],
        "bare prefix": [("authorization", "Bearer hg_")],
        "bearer only": [("authorization", "Bearer")],
        "basic": [("authorization", "Basic ZnV6ejpmdXp6")],
        "8 KB key": [("authorization", "Bearer hg_" + "x" * 8192)],
        "latin-1 bytes": [("authorization", b"Bearer hg_\xe9\xff")],
        "revoked key": [("authorization", f"Bearer {revoked}")],
    }[auth]


# A hostile document: what is hostile about it, its text, its operation type, what its answer must be.
Case = tuple[str, str, str | None, Expect | None]


class Generator:
    """Hostile requests, made from the schema, one at a time, from a seed."""

    def __init__(self, pool: Pool, seed: int, graphql_schema: GraphQLSchema | None = None,
                 bomb_depth: int = BOMB_DEPTH) -> None:
        self.schema = graphql_schema or hippograph_schema._schema
        self.rng = random.Random(seed)
        self.values = Values(self.rng, pool)
        self.bomb_depth = bomb_depth
        self.user_errors = frozenset(
            t.name for t in self.schema.type_map.values()
            if isinstance(t, GraphQLObjectType) and any(i.name == "UserError" for i in t.interfaces)
        )
        error_code = self.schema.type_map["ErrorCode"]
        assert isinstance(error_code, GraphQLEnumType)
        self.error_codes = frozenset(error_code.values)
        self.roots: list[tuple[str, str]] = [
            (operation, name)
            for operation, root in (("query", self.schema.query_type), ("mutation", self.schema.mutation_type))
            if root is not None for name in root.fields
        ]
        self._turns: dict[str, list[int]] = {}
        self.sent: Counter[str] = Counter()

    def next(self) -> Request:
        names, weights = zip(*CATEGORIES)
        category = self.rng.choices(names, weights)[0]
        if category in FIELD_CATEGORIES:
            return self.field_request(category)
        return {"document": self.document, "body": self.body, "content-type": self.content_type,
                "method": self.method, "subscription": self.subscription}[category]()

    # -- one field of the schema

    def _in_turn(self, key: str, choices: Sequence[T]) -> T:
        """One of ``choices``, each in turn in a shuffled round (one round per ``key``): a short run
        still sends every field, every hostile document, every body."""
        turn = self._turns.setdefault(key, [])
        if not turn:
            turn.extend(range(len(choices)))
            self.rng.shuffle(turn)
        return choices[turn.pop()]

    def field_request(self, category: str) -> Request:
        operation, name = self._in_turn(category, self.roots)
        root = self.schema.query_type if operation == "query" else self.schema.mutation_type
        assert root is not None
        definition = root.fields[name]
        inline = category.endswith("inline") or (category == "auth" and self.rng.random() < 0.5)
        values = {arg: self.values.valid(a.type, arg, name) for arg, a in definition.args.items()
                  if _required(a.type, a.default_value) or self.rng.random() < 0.5}
        declarations = {arg: str(definition.args[arg].type) for arg in values}
        kind = category
        if category.startswith("hostile"):
            kind = f"{category} {self._spoil(definition.args, declarations, values, inline, name)}"
        if name in SELF_ERASING:
            self._spare_the_caller(values)
        self.sent[f"{operation}:{name}:{'inline' if inline else 'variables'}"] += 1
        alias = "a1: " if self.rng.random() < 0.2 else ""
        selection = self.selection(definition.type)
        auth = self._in_turn("bad auth", BAD_AUTH) if category == "auth" else self.rng.choice(GOOD_AUTH)
        expect = None
        if auth in BAD_AUTH and name not in KEYLESS_FIELDS:
            expect = Expect(f"{auth} on {name}", codes=frozenset({"UNAUTHENTICATED"}))
        if inline:
            arguments = ", ".join(f"{arg}: {to_literal(value)}" for arg, value in values.items())
            document = f"{operation} {{ {alias}{name}{f'({arguments})' if arguments else ''} {selection} }}"
            body: dict[str, Any] = {"query": document}
        else:
            head = ", ".join(f"${arg}: {t}" for arg, t in declarations.items())
            uses = ", ".join(f"{arg}: ${arg}" for arg in declarations)
            document = (f"{operation} Fuzz{f'({head})' if head else ''} "
                        f"{{ {alias}{name}{f'({uses})' if uses else ''} {selection} }}")
            body = {"query": document, "variables": values}
        return Request(category, kind, to_json(body).encode(), operation=operation, auth=auth, expect=expect)

    def _spare_the_caller(self, values: dict[str, Any]) -> None:
        """``forgetUser`` as the other user: erasing the fuzz user would end the run (its key goes too);
        a non-admin asking for another user must get NOT_FOUND, with that user's state unchanged."""
        value = values.get("input")
        if isinstance(value, dict) and value.get("user") in (None, self.values.pool.user):
            values["input"] = {**value, "user": self.values.pool.other_user}

    def _spoil(self, definitions: Mapping[str, GraphQLArgument], declarations: dict[str, str], values: dict[str, Any],
               inline: bool, name: str) -> str:
        """Make one thing about a field's arguments wrong, in ``declarations`` (the variables a document
        declares, and their types) and ``values`` (the literals, or the variables sent); what, in words."""
        rng = self.rng
        roll = rng.random()
        required = [arg for arg, a in definitions.items() if _required(a.type, a.default_value)]
        if roll < 0.08 and required:
            missing = rng.choice(required)
            declarations.pop(missing, None)
            values.pop(missing, None)
            return f"{name}: without the required argument {missing}"
        if roll < 0.14 or not definitions:
            declarations["zzUnknown"] = "Int"
            values["zzUnknown"] = 1
            return f"{name}: an unknown argument"
        arg = rng.choice(list(definitions))
        declared = str(definitions[arg].type)
        if not inline and roll < 0.22:
            values.setdefault(arg, self.values.valid(definitions[arg].type, arg, name))
            declarations[arg] = wrong = "Float" if declared.startswith(("Int", "ID", "String")) else "Int"
            return f"{name}.{arg}: a variable declared {wrong}"
        if not inline and roll < 0.28 and declared.endswith("!"):
            declarations[arg] = declared
            values.pop(arg, None)
            return f"{name}.{arg}: a non-null variable not given"
        declarations[arg] = declared
        values[arg], label = self.values.hostile(definitions[arg].type, arg, name)
        return f"{name}.{arg}: {label}"

    def selection(self, t: GraphQLOutputType, depth: int = 0) -> str:
        named = get_named_type(t)
        if is_leaf_type(named):
            return ""
        if isinstance(named, GraphQLUnionType):
            parts = ["__typename", "... on UserError { code message }"]
            parts += [f"... on {m.name} {self._object(m, depth)}" for m in named.types if m.name not in self.user_errors]
            return "{ " + " ".join(parts) + " }"
        if isinstance(named, GraphQLInterfaceType):
            return "{ __typename " + " ".join(n for n, f in named.fields.items() if is_leaf_type(get_named_type(f.type))) + " }"
        assert isinstance(named, GraphQLObjectType)
        return self._object(named, depth)

    def _object(self, t: GraphQLObjectType, depth: int) -> str:
        rng = self.rng
        leaves = [n for n, f in t.fields.items() if is_leaf_type(get_named_type(f.type))]
        inner = [n for n, f in t.fields.items() if not is_leaf_type(get_named_type(f.type))]
        chosen = rng.sample(leaves, min(len(leaves), rng.randint(1, 4)))
        if inner and depth < 3 and (not chosen or rng.random() < 0.5):
            name = rng.choice(inner)
            f = t.fields[name]
            args = {a: self.values.valid(arg.type, a, name) for a, arg in f.args.items() if rng.random() < 0.4}
            arguments = ", ".join(f"{a}: {to_literal(v)}" for a, v in args.items())
            chosen.append(f"{name}{f'({arguments})' if arguments else ''} {self.selection(f.type, depth + 1)}")
        return "{ " + " ".join(chosen or ["__typename"]) + " }"

    # -- hostile documents

    def document(self) -> Request:
        rng = self.rng
        over = MAX_ALIASES + 1
        choices: list[Callable[[], Case]] = [
            lambda: self._bomb(rng.choice(sorted({4, 8, 12, self.bomb_depth // 2, self.bomb_depth}))),
            lambda: ("fragment cycle", "query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }",
                     "query", Expect("a fragment cycle", codes=frozenset({"BAD_USER_INPUT"}))),
            lambda: self._type_bomb(rng.choice((8, 16, self.bomb_depth))),
            lambda: self._deep_selection(rng.choice((MAX_DEPTH + 1, 30, 200))),
            lambda: self._deep_unknown(rng.choice((300, MAX_TOKENS // 2 - 5))),
            lambda: self._deep_literal(rng.choice(("list", "object"))),
            lambda: (f"{over} aliases, no key", "{ " + " ".join(f"a{i}: serverInfo {{ version }}" for i in range(over)) + " }",
                     "query", Expect("aliases past the limit", codes=frozenset({"LIMIT_EXCEEDED"}))),
            lambda: (f"{over} aliased writes", "mutation { " + " ".join(
                f'w{i}: remember(input: {{content: "alias {i} {rng.random()}", tier: LONG_TERM}}) {{ __typename }}'
                for i in range(over)) + " }", "mutation",
                Expect("aliases past the limit", codes=frozenset({"LIMIT_EXCEEDED"}))),
            lambda: ("directive spam", "{ __typename " + "@include(if: true) " * rng.choice((50, 250, 280)) + "}",
                     "query", None),
            lambda: ("unknown directives", "{ __typename " + "@x " * 200 + "}", "query",
                     Expect("unknown directives", codes=frozenset({"BAD_USER_INPUT"}))),
            lambda: ("overlapping fields", "{ " + " ".join(
                f"memories(first: {i % 20 + 1}) {{ nodes {{ id }} }}" for i in range(rng.choice((50, 150)))) + " }",
                "query", Expect("conflicting fields", codes=frozenset({"BAD_USER_INPUT", "LIMIT_EXCEEDED"}))),
            lambda: ("5,000-digit Int literal", f"{{ memories(first: {FIVE_THOUSAND_DIGITS}) {{ nodes {{ id }} }} }}",
                     "query", Expect("an Int outside 32 bits")),
            lambda: ("5,000-digit Int default",
                     f"query($n: Int! = {FIVE_THOUSAND_DIGITS}) {{ memories(first: $n) {{ nodes {{ id }} }} }}",
                     "query", Expect("an Int outside 32 bits")),
            lambda: ("5,000-digit Float literal", f'{{ memories(first: 1{"." + "9" * 5000}e999) {{ nodes {{ id }} }} }}',
                     "query", Expect("a Float for an Int")),
            lambda: ("a 100,000-character name", "{ " + "a" * 100_000 + " }", "query", Expect("an unknown field")),
            lambda: ("a 1.5 MB comment", "# " + "c" * 1_500_000 + "\n{ __typename }", "query", None),
            lambda: ("many operations, no operationName", " ".join(f"query Q{i} {{ __typename }}" for i in range(100)),
                     "query", Expect("which operation?", codes=frozenset({"BAD_USER_INPUT"}))),
            lambda: (f"{MAX_TOKENS + 1} tokens", "{ " + " ".join(["__typename"] * (MAX_TOKENS + 1)) + " }", "query",
                     Expect("past the token limit", codes=frozenset({"LIMIT_EXCEEDED"}))),
            lambda: ("a NUL in the document", "{ __typename \x00 }", "query", Expect("a NUL character")),
            lambda: ("an unterminated string", '{ recall(query: "never ends) { profile } }', "query", Expect("a syntax error")),
            lambda: ("an undefined variable", "{ memories(first: $n) { nodes { id } } }", "query",
                     Expect("an undefined variable", codes=frozenset({"BAD_USER_INPUT"}))),
            lambda: self._deep_introspection(rng.choice((8, 40))),
            lambda: ("empty document", rng.choice(("", " ", "{}", "query", "#")), None, Expect("no operation")),
            lambda: ("mutation __typename", "mutation { __typename }", "mutation", None),
        ]
        kind, query, operation, expect = self._in_turn("document", choices)()
        return Request("document", f"document: {kind}", to_json({"query": query}).encode(), operation=operation,
                       expect=expect, auth="none" if "no key" in kind else "key")

    def _bomb(self, depth: int) -> Case:
        fragments = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(depth))
        return (f"fragment bomb, depth {depth}", f"query {{ ...F0 }} {fragments} fragment F{depth} on Query {{ __typename }}",
                "query", None)

    def _type_bomb(self, depth: int) -> Case:
        fragments = " ".join(f"fragment M{i} on Memory {{ ...M{i + 1} ...M{i + 1} }}" for i in range(depth))
        return (f"fragment bomb on Memory, depth {depth}",
                f"{{ memories(first: 100) {{ nodes {{ ...M0 }} }} }} {fragments} fragment M{depth} on Memory {{ id content }}",
                "query", None)

    def _deep_selection(self, depth: int) -> Case:
        query = "id"
        for _ in range(depth):
            query = f"edges {{ to {{ {query} }} }}"
        own = self.values.some_id()
        return (f"selection {depth} deep", f'{{ entity(id: "{own}") {{ {query} }} }}', "query",
                Expect("past the depth limit", codes=frozenset({"LIMIT_EXCEEDED", "BAD_USER_INPUT"})))

    def _deep_unknown(self, depth: int) -> Case:
        return (f"unknown fields {depth} deep", "{ a " * depth + "}" * depth, "query", Expect("unknown fields"))

    def _deep_introspection(self, depth: int) -> Case:
        inner = "name"
        for _ in range(depth):
            inner = f"ofType {{ {inner} }}"
        return (f"introspection {depth} deep", f"{{ __schema {{ types {{ fields {{ type {{ {inner} }} }} }} }} }}",
                "query", None)

    def _deep_literal(self, shape: str) -> Case:
        # Just under the token limit at the deepest: a list level is two tokens, an object level four.
        per_level = 2 if shape == "list" else 4
        depth = self.rng.choice((100, 300, (MAX_TOKENS - 40) // per_level))
        literal = to_literal(nested(depth, shape))
        return (f"{shape} literal {depth} deep", f"{{ memories(filter: {{tiers: {literal}}}) {{ nodes {{ id }} }} }}",
                "query", Expect("a nested literal for a list of enums"))

    # -- hostile bodies, content types, methods

    def body(self) -> Request:
        rng = self.rng
        valid = '{"query": "{ serverInfo { version } }"}'
        remember = ('{"query": "mutation($c: String!) { remember(input: {content: $c, tier: LONG_TERM}) { __typename } }", '
                    '"variables": {"c": "written by a body that should be refused"}}')
        depth = rng.choice((5000, 20_000, 100_000))
        refused = Expect("not a GraphQL request", codes=frozenset({"BAD_USER_INPUT", "LIMIT_EXCEEDED"}))
        choices: list[tuple[str, bytes, str | None, Expect | None]] = [
            ("JSON null", b"null", None, refused), ("a JSON number", b"42", None, refused),
            ("a JSON string", b'"{ __typename }"', None, refused), ("JSON true", b"true", None, refused),
            ("an empty array", b"[]", None, refused), ("a batch of two", f"[{valid}, {valid}]".encode(), "query", refused),
            ("an empty object", b"{}", None, refused), ("an empty body", b"", None, refused),
            ("whitespace", b" \n\t ", None, refused), ("query null", b'{"query": null}', None, refused),
            ("query an object", b'{"query": {"a": 1}}', None, refused),
            ("variables a string", b'{"query": "{ __typename }", "variables": "{}"}', "query", refused),
            ("variables a number", b'{"query": "{ __typename }", "variables": 1}', "query", refused),
            ("operationName a number", b'{"query": "{ __typename }", "operationName": 5}', "query", refused),
            ("extensions a string", b'{"query": "{ __typename }", "extensions": "x"}', "query", None),
            (f"arrays nested {depth} deep", nested(depth).text.encode(), None, refused),
            (f"objects nested {depth} deep", nested(depth, "object").text.encode(), None, refused),
            (f"variables nested {depth} deep",
             f'{{"query": "{{ __typename }}", "variables": {{"v": {nested(depth).text}}}}}'.encode(),
             "query", None),
            (f"query nested {depth} deep", f'{{"query": {nested(depth).text}}}'.encode(), None, refused),
            ("duplicate query keys", b'{"query": "{ __typename }", "query": "{ serverInfo { version } }"}', "query",
             Expect("duplicate keys", codes=frozenset({"BAD_USER_INPUT"}))),
            ("duplicate keys around a write", ('{"query": "{ __typename }", ' + remember[1:]).encode(), "mutation",
             Expect("duplicate keys", codes=frozenset({"BAD_USER_INPUT"}))),
            ("invalid UTF-8", b'{"query": "{ recall(query: \\"caf\xc3\x28\\") { profile } }"}', "query", refused),
            ("a UTF-8-encoded lone surrogate", b'{"query": "{ recall(query: \\"\xed\xa0\x80\\") { profile } }"}', "query",
             refused),
            ("Latin-1 bytes", '{"query": "{ recall(query: \\"café\\") { profile } }"}'.encode("latin-1"), "query", refused),
            ("a byte order mark", b"\xef\xbb\xbf" + valid.encode(), "query", None),
            ("trailing garbage", valid.encode() + b" trailing", None, refused),
            ("NaN in variables", b'{"query": "query($r: Float) { memories { nodes { id } } }", "variables": {"r": NaN}}',
             "query", None),
            ("a 5,000-digit number in variables", ('{"query": "query($n: Int) { memories(first: $n) { nodes { id } } }", '
                                                   f'"variables": {{"n": {FIVE_THOUSAND_DIGITS}}}}}').encode(), "query", None),
            ("a lone surrogate key", b'{"query": "{ __typename }", "variables": {"\\ud800": 1}}', "query", None),
            ("a fragment bomb in the operation named", to_json({"query": "query A { __typename } " + self._bomb(
                self.bomb_depth)[1].replace("query {", "query B {", 1), "operationName": "B"}).encode(), "query",
             Expect("a fragment bomb", codes=frozenset({"LIMIT_EXCEEDED"}))),
            ("operationName naming no operation", b'{"query": "query A { __typename }", "operationName": "Nope"}', "query",
             Expect("no such operation", codes=frozenset({"BAD_USER_INPUT"}))),
            ("past the body limit",
             ('{"query": "{ __typename }", "variables": {"pad": "' + "x" * (MAX_BODY_BYTES + 1) + '"}}').encode(),
             "query", Expect("past the body limit", status=413, codes=frozenset({"LIMIT_EXCEEDED"}))),
        ]
        kind, body, operation, expect = self._in_turn("body", choices)
        chunked = kind == "past the body limit" and rng.random() < 0.5
        return Request("body", f"body: {kind}" + (", chunked" if chunked else ""), body, operation=operation,
                       expect=expect, chunked=chunked)

    def content_type(self) -> Request:
        valid = b'{"query": "{ serverInfo { version } }"}'
        named = json.dumps({"query": "query Q { __typename }", "operationName": "Ã©"}, ensure_ascii=False)
        boundary = "fuzzboundary"
        multipart = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"operations\"\r\n\r\n"
                     '{"query": "{ __typename }"}\r\n' f"--{boundary}\r\nContent-Disposition: form-data; name=\"map\"\r\n\r\n"
                     '{"0": ["variables.file"]}\r\n' f"--{boundary}--\r\n").encode()
        choices: list[tuple[str, bytes, str | None, Expect | None]] = [
            ("none", valid, None, None), ("text/plain", valid, "text/plain", None),
            ("application/graphql", b"{ serverInfo { version } }", "application/graphql", None),
            ("form-urlencoded", b"query=%7B__typename%7D", "application/x-www-form-urlencoded", None),
            ("multipart without a boundary", multipart, "multipart/form-data", Expect("a broken multipart body")),
            ("multipart upload", multipart, f"multipart/form-data; boundary={boundary}", None),
            ("multipart garbage", b"--x\r\n\r\n\xff\xfe--", "multipart/form-data; boundary=x",
             Expect("a broken multipart body")),
            ("application/xml", b"<query>{ __typename }</query>", "application/xml", Expect("XML")),
            ("upper case", valid, "APPLICATION/JSON", None), ("a broken parameter", valid, 'application/json; charset="', None),
            ("charset utf-16", json.dumps({"query": "{ __typename }"}).encode("utf-16"), "application/json; charset=utf-16",
             None),
            ("charset latin-1, read as UTF-8?", named.encode("latin-1"), "application/json; charset=latin-1",
             Expect("a Latin-1 body read as UTF-8 (the operation named 'Ã©' came out as 'é')", refused=False,
                    absent="named 'é'")),
            ("charset unknown", valid, "application/json; charset=x-no-such-charset", None),
            ("graphql-response accept", valid, "application/json", None),
        ]
        kind, body, content_type, expect = self._in_turn("content-type", choices)
        accept = "application/graphql-response+json" if kind == "graphql-response accept" else "application/json"
        return Request("content-type", f"content-type: {kind}", body, content_type=content_type, accept=accept,
                       operation="query", expect=expect)

    def method(self) -> Request:
        rng = self.rng
        remember = 'mutation { remember(input: {content: "written over GET", tier: LONG_TERM}) { __typename } }'
        body = b'{"query": "mutation { remember(input: {content: \\"written by PUT\\", tier: LONG_TERM}) { __typename } }"}'
        not_served = Expect("a method /graphql does not serve")
        depth = rng.choice((1000, 3000))
        choices: list[tuple[str, str, tuple[tuple[str, str], ...], bytes, str | None, Expect | None, str]] = [
            ("GET a query", "GET", (("query", "{ serverInfo { version } }"),), b"", "query", None, "application/json"),
            ("GET a mutation", "GET", (("query", remember),), b"", "mutation", Expect("a mutation over GET"),
             "application/json"),
            ("GET a subscription", "GET", (("query", "subscription { memoryEvents { kind } }"),), b"", "subscription",
             Expect("a subscription over GET"), "application/json"),
            ("GET broken variables", "GET", (("query", "{ __typename }"), ("variables", "{")), b"", "query",
             Expect("variables that are not JSON"), "application/json"),
            (f"GET variables nested {depth} deep", "GET", (("query", "{ __typename }"), ("variables", nested(depth).text)),
             b"", "query", None, "application/json"),
            ("GET without a query", "GET", (), b"", None, Expect("no query"), "application/json"),
            ("GET GraphiQL", "GET", (), b"", None, None, "text/html"),
            ("PUT a write", "PUT", (), body, "mutation", not_served, "application/json"),
            ("DELETE a write", "DELETE", (), body, "mutation", not_served, "application/json"),
            ("PATCH a write", "PATCH", (), body, "mutation", not_served, "application/json"),
            ("OPTIONS", "OPTIONS", (), b"", None, None, "application/json"),
            ("HEAD", "HEAD", (), b"", None, None, "application/json"),
            ("TRACE", "TRACE", (), b"", None, not_served, "application/json"),
            # A method uvicorn's parser knows (an unknown one never reaches the app: uvicorn answers in plain text).
            ("PROPFIND", "PROPFIND", (), body, "mutation", not_served, "application/json"),
        ]
        kind, method, params, content, operation, expect, accept = self._in_turn("method", choices)
        return Request("method", f"method: {kind}", content, method=method, params=params, accept=accept,
                       content_type="application/json" if content else None, operation=operation,
                       expect=expect)

    def subscription(self) -> Request:
        query, kind = self._in_turn("subscription", (
            ("subscription { memoryEvents { kind memoryIds } }", "over HTTP"),
            ('subscription { memoryEvents(project: "fz-p") { kind } }', "over HTTP, one project"),
            ("subscription S { memoryEvents { kind } } query Q { __typename }", "beside a query, no operationName"),
        ))
        return Request("subscription", f"subscription {kind}", to_json({"query": query}).encode(), operation="subscription",
                       expect=Expect("a subscription over HTTP"))


# ---------------------------------------------------------------- answers and checks


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    text: str
    body: Any
    ms: float

    @property
    def plain(self) -> str:
        """The body as text with JSON's escapes undone, so that a check can look for what it says."""
        return json.dumps(self.body, ensure_ascii=False) if self.body is not None else self.text


def error_codes(body: Any) -> list[str | None]:
    """``extensions.code`` of every error (None where an error has none)."""
    if not isinstance(body, Mapping) or not isinstance(body.get("errors"), list):
        return []
    return [(e.get("extensions") or {}).get("code") if isinstance(e, Mapping) else None for e in body["errors"]]


def union_codes(body: Any) -> list[str]:
    """The ``code`` of every union member in ``data`` that carries one (a ``UserError``)."""
    if not isinstance(body, Mapping):
        return []
    return [v for k, v in _items(body.get("data")) if k == "code" and isinstance(v, str)]


def refused(answer: Answer, user_errors: frozenset[str]) -> bool:
    """Whether nothing the request asked for was done: an HTTP error, errors without data, or
    every top-level field null or answering a ``UserError``."""
    if answer.status >= 400 or not isinstance(answer.body, Mapping):
        return True
    data = answer.body.get("data")
    if not isinstance(data, Mapping):
        return True
    return all(value is None or (isinstance(value, Mapping) and value.get("__typename") in user_errors)
               for value in data.values())


def problems(request: Request, answer: Answer, was_refused: bool, known: frozenset[str]) -> list[tuple[str, str, str]]:
    """What is wrong with one answer, given the ``known`` error codes: (check, code, message) for each problem."""
    found: list[tuple[str, str, str]] = []
    codes = error_codes(answer.body)
    first = answer.body["errors"][0] if codes and isinstance(answer.body["errors"][0], Mapping) else {}
    message = str(first.get("message", "")) if first else answer.text[:200]
    if answer.status >= 500:
        found.append(("http_5xx", str(codes[0] if codes else ""), message))
    exempt = request.method == "HEAD" or (request.accept == "text/html" and answer.content_type.startswith("text/html"))
    if not exempt:
        if not isinstance(answer.body, Mapping) or not ({"data", "errors"} & set(answer.body)):
            found.append(("missing_code", "", f"not a GraphQL answer ({answer.content_type or 'no content type'}): "
                                              f"{answer.text[:200]}"))
        elif answer.status >= 400 and not codes:
            found.append(("missing_code", "", f"HTTP {answer.status} without errors: {answer.text[:200]}"))
    for code, error in zip(codes, answer.body.get("errors") if codes else []):
        text = str(error.get("message", "")) if isinstance(error, Mapping) else str(error)
        if code is None:
            found.append(("missing_code", "", text))
        elif code not in known:
            found.append(("missing_code", str(code), f"a code the schema's ErrorCode does not list: {text}"))
        elif code == "INTERNAL_SERVER_ERROR":
            found.append(("internal_server_error", code, text))
    for code in union_codes(answer.body):
        if code == "INTERNAL_SERVER_ERROR":
            found.append(("internal_server_error", code, "a union member's code"))
    expect = request.expect
    if expect is not None:
        unmet = None
        all_codes = {c for c in codes if c} | set(union_codes(answer.body))
        if expect.refused and not was_refused:
            unmet = f"answered; expected a refusal ({expect.why})"
        elif expect.status is not None and answer.status != expect.status:
            unmet = f"HTTP {answer.status}; expected {expect.status} ({expect.why})"
        elif expect.codes and not (all_codes & expect.codes):
            unmet = f"codes {sorted(all_codes)}; expected one of {sorted(expect.codes)} ({expect.why})"
        elif expect.absent is not None and expect.absent in answer.plain:
            unmet = expect.why
        if unmet is not None:
            found.append(("unmet_expectation", ",".join(sorted(all_codes)), f"{unmet}: {message[:160]}"))
    return found


# ---------------------------------------------------------------- state


@dataclass(frozen=True)
class Snapshot:
    """The fuzz users' nodes (properties and outgoing relationships) and the store's totals."""

    nodes: Mapping[str, tuple[str, str]]
    properties: Mapping[str, Mapping[str, Any]]
    totals: tuple[int, int]

    def diff(self, after: Snapshot, limit: int = 6) -> str:
        """What changed, in a line ('' when nothing did)."""
        changes = []
        for eid in sorted(set(self.nodes) | set(after.nodes)):
            old, new = self.nodes.get(eid), after.nodes.get(eid)
            if old == new:
                continue
            if old is None:
                changes.append(f"+{new[0]}")
            elif new is None:
                changes.append(f"-{old[0]}")
            else:
                keys = sorted(k for k in set(self.properties[eid]) | set(after.properties[eid])
                              if self.properties[eid].get(k) != after.properties[eid].get(k))
                changes.append(f"~{new[0]}({', '.join(keys) or 'relationships'})")
        if self.totals != after.totals:
            (nodes, relationships), (nodes_after, relationships_after) = self.totals, after.totals
            changes.append(f"store nodes {nodes}→{nodes_after}, relationships {relationships}→{relationships_after}")
        return "; ".join(changes[:limit]) + (f"; … {len(changes) - limit} more" if len(changes) > limit else "")


def snapshot(session: Session, users: Sequence[str]) -> Snapshot:
    """The users' state and the store's totals, in one read transaction each (read twice a request)."""
    records = session.execute_read(inspection.tenant_state, users)
    nodes: dict[str, tuple[str, str]] = {}
    properties: dict[str, Mapping[str, Any]] = {}
    for r in records:
        props = {k: v for k, v in r["props"].items() if v is not None}
        digest = json.dumps([props, sorted(r["out"], key=lambda o: (o[0], o[1]))], sort_keys=True, default=str)
        nodes[r["eid"]] = (":".join(sorted(r["labels"])), digest)
        properties[r["eid"]] = props
    return Snapshot(nodes, properties, session.execute_read(inspection.store_totals))


# ---------------------------------------------------------------- liveness


class Liveness:
    """``/healthz`` asked every 100 ms from a thread for as long as the run lasts."""

    def __init__(self, base: str, every_s: float = HEALTHZ_EVERY_S, bound_s: float = HEALTHZ_BOUND_S) -> None:
        self.base, self.every_s, self.bound_s = base, every_s, bound_s
        self.latencies: list[float] = []
        self.failures: list[str] = []
        # What the run was sending meanwhile (set by the run), so that a slow answer names its likely cause.
        self.in_flight = ""
        self.slowest: list[tuple[float, str]] = []
        self.last_answer = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fuzz-healthz", daemon=True)

    def __enter__(self) -> Liveness:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.bound_s + 5)

    def _run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=self.bound_s) as http:
            while not self._stop.is_set():
                started = time.monotonic()
                try:
                    status = http.get("/healthz").status_code
                    failure = None if status == 200 else f"HTTP {status}"
                except httpx.HTTPError as exc:
                    failure = f"{type(exc).__name__}: {exc}"[:200]
                elapsed = time.monotonic() - started
                self.latencies.append(elapsed * 1000)
                self.slowest = sorted([*self.slowest, (round(elapsed * 1000, 1), self.in_flight)], reverse=True)[:EXAMPLES]
                if failure is None and elapsed <= self.bound_s:
                    self.last_answer = time.monotonic()
                else:
                    self.failures.append(f"{failure or f'answered after {elapsed:.1f} s'} (sending: {self.in_flight})")
                self._stop.wait(max(0.0, self.every_s - elapsed))

    def silent_for(self) -> float:
        return time.monotonic() - self.last_answer

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        pick = (lambda q: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)) if ordered else (lambda q: None)
        return {"samples": len(ordered), "failures": len(self.failures), "failure_examples": self.failures[:EXAMPLES],
                "bound_s": self.bound_s, "every_ms": self.every_s * 1000,
                "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": round(ordered[-1], 1) if ordered else None,
                "slowest": [{"ms": ms, "while": kind} for ms, kind in self.slowest]}


# ---------------------------------------------------------------- the run


@dataclass(frozen=True)
class Target:
    """The server, the fuzz user's key (and a revoked one), and a second user whose ids are tried."""

    base: str
    key: str
    user: str
    other_key: str
    other_user: str
    revoked_key: str


def prepare(services: Services, base: str, key: str, user: str, other_key: str, other_user: str) -> Target:
    """Revoke a spare key of the fuzz user; the target, both users given something to find."""
    spare = keys.create_key(services.driver, services.database, user, keys.Role.USER)
    keys.revoke_key(services.driver, services.database, spare.record["id"])
    target = Target(base, key, user, other_key, other_user, spare.secret)
    with httpx.Client(base_url=base, timeout=60) as http:
        for secret in (key, other_key):
            for query in SEED:
                answer = http.post("/graphql", json={"query": query}, headers={"authorization": f"Bearer {secret}"})
                body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else None
                if answer.status_code != 200 or not isinstance(body, Mapping) or body.get("errors"):
                    raise RuntimeError(f"seeding the fuzz users failed: {query[:60]}… → "
                                       f"HTTP {answer.status_code} {answer.text[:300]}")
    return target


@dataclass
class Tally:
    """What a run counted, and each distinct failure with the first requests that showed it."""

    by_category: dict[str, Counter[str]] = field(default_factory=dict)
    by_auth: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    checks: Counter[str] = field(default_factory=lambda: Counter({check: 0 for check in CHECKS}))
    failures: dict[tuple[str, ...], dict[str, Any]] = field(default_factory=dict)

    def sent(self, request: Request) -> None:
        self.by_category.setdefault(request.category, Counter())["requests"] += 1
        self.by_auth[request.auth] += 1

    def answered(self, request: Request, answer: Answer, was_refused: bool) -> None:
        counts = self.by_category[request.category]
        counts["ms"] += round(answer.ms)
        counts["refused" if was_refused else "answered"] += 1
        self.statuses[answer.status] += 1
        self.codes.update(c or "(none)" for c in error_codes(answer.body))

    def fail(self, check: str, request: Request, status: int | str, code: str, message: str) -> None:
        self.checks[check] += 1
        self.by_category[request.category][check] += 1
        key = (check, request.kind, str(status), code, _normalise(message))
        entry = self.failures.setdefault(key, {"check": check, "kind": request.kind, "category": request.category,
                                               "status": status, "code": code, "message": message[:300],
                                               "count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < EXAMPLES:
            entry["examples"].append(request.describe())

    def summary(self) -> dict[str, Any]:
        return {
            "requests": sum(c["requests"] for c in self.by_category.values()),
            "checks": dict(self.checks),
            "by_category": {k: dict(v) for k, v in sorted(self.by_category.items())},
            "by_auth": dict(self.by_auth),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "codes": dict(self.codes.most_common()),
            "failures": sorted(self.failures.values(),
                               key=lambda f: (CHECKS.index(f["check"]), -f["count"], f["kind"])),
        }


def run(services: Services, target: Target, requests: int, seed: int = 1, bomb_depth: int = BOMB_DEPTH,
        timeout_s: float = 30.0, log: Path | None = None,
        progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Send ``requests`` generated requests to ``target``, check every answer; the JSON result.
    Given the server's ``log``, the errors it logged meanwhile are in the result, tracebacks' last lines."""
    log_start = log.stat().st_size if log is not None and log.exists() else 0
    pool = Pool(target.user, target.other_user)
    with httpx.Client(base_url=target.base, timeout=60) as http:
        for secret, into in ((target.key, pool.own), (target.other_key, pool.others)):
            answer = http.post("/graphql", json={"query": SEED_IDS}, headers={"authorization": f"Bearer {secret}"})
            pool.learn(answer.json(), into)
    generator = Generator(pool, seed, bomb_depth=bomb_depth)
    users = (target.user, target.other_user)
    tally = Tally()
    recent: list[str] = []
    aborted = None
    unanswered = 0
    started = time.perf_counter()
    with (httpx.Client(base_url=target.base, timeout=timeout_s) as http,
          services.driver.session(database=services.database, default_access_mode=READ_ACCESS) as session,
          Liveness(target.base) as liveness):
        before = snapshot(session, users)
        for sent in range(1, requests + 1):
            request = generator.next()
            recent = [*recent[-2:], request.kind]
            liveness.in_flight = request.kind
            tally.sent(request)
            try:
                answer = send(http, request, target)
            except httpx.LocalProtocolError:
                raise  # httpx would not send it: the generator's fault, not the server's
            except httpx.HTTPError as exc:
                unanswered += 1
                tally.fail("unanswered", request, "-", "", f"{type(exc).__name__}: {exc}")
                if unanswered >= UNANSWERED_IN_A_ROW or liveness.silent_for() > UNRESPONSIVE_S:
                    aborted = f"the server stopped answering after request {sent}; the last ones: " + " | ".join(recent)
                    break
                continue
            unanswered = 0
            was_refused = refused(answer, generator.user_errors)
            tally.answered(request, answer, was_refused)
            for check, code, message in problems(request, answer, was_refused, generator.error_codes):
                tally.fail(check, request, answer.status, code, message)
            after = snapshot(session, users)
            if (was_refused or request.operation == "query") and (change := before.diff(after)):
                tally.fail("state_change", request, answer.status, ",".join(c or "" for c in error_codes(answer.body)),
                           f"{'refused' if was_refused else 'a read'}, yet {change}")
            if not was_refused:
                pool.learn(answer.body)
            before = after
            if sent % 250 == 0:
                progress(f"{sent}/{requests} requests, {sum(tally.checks.values())} failed checks, "
                         f"healthz max {liveness.summary()['max_ms']} ms")
            if liveness.silent_for() > UNRESPONSIVE_S:
                aborted = (f"/healthz silent for {UNRESPONSIVE_S:.0f} s after request {sent}; the last ones: "
                           + " | ".join(recent))
                break
    health = liveness.summary()
    tally.checks["healthz"] = health["failures"]
    summary = tally.summary()
    return {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "server": target.base,
        "seed": seed,
        "requested": requests,
        "elapsed_s": round(time.perf_counter() - started, 1),
        "bomb_depth": bomb_depth,
        "aborted": aborted,
        "passed": not aborted and not any(summary["checks"].values()),
        "healthz": health,
        **summary,
        "fields": {f"{op}:{name}": {way: generator.sent[f"{op}:{name}:{way}"] for way in ("inline", "variables")}
                   for op, name in generator.roots},
        "server_errors": server_errors(log, log_start) if log is not None else None,
        "targets": {"requests": TARGET_REQUESTS, **{check: 0 for check in CHECKS}},
    }


def run_bench(services: Services, requests: int, seed: int, bomb_depth: int, url: str | None, key: str | None,
              progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """The long run, ``hippograph bench fuzz``: against ``url`` as the user of ``key`` (whose memory it
    writes to), or against a ``hippograph serve`` of its own as a new user. The users it made are
    deleted afterwards; the server's log is kept, for the tracebacks of what failed."""
    if requests < 1 or bomb_depth < 1:
        raise ConfigError("--requests and --bomb-depth must be positive")
    run_id = uuid.uuid4().hex[:8]
    made = []
    if key is None:
        user = f"fuzz-{run_id}"
        key = keys.create_key(services.driver, services.database, user, keys.Role.USER).secret
        made.append(user)
    else:
        caller = keys.authenticate(services.driver, services.database, key)
        if caller is None:
            raise ConfigError("--key is not an active API key in this Neo4j (NEO4J_URI must be the server's)")
        user = caller.user_id
    other_user = f"fuzz-other-{run_id}"
    other_key = keys.create_key(services.driver, services.database, other_user, keys.Role.USER).secret
    made.append(other_user)
    try:
        if url is not None:
            target = prepare(services, url.rstrip("/"), key, user, other_key, other_user)
            return run(services, target, requests, seed, bomb_depth, progress=progress)
        log = Path(tempfile.mkdtemp(prefix="hippograph-bench-fuzz-")) / "serve.log"
        with api.served(log, progress) as (base, _):
            target = prepare(services, base, key, user, other_key, other_user)
            result = run(services, target, requests, seed, bomb_depth, log=log, progress=progress)
        return {**result, "server_log": str(log)}
    finally:
        for made_user in made:
            forget_user(services, made_user)


def send(http: httpx.Client, request: Request, target: Target) -> Answer:
    headers: list[tuple[str, str | bytes]] = [("accept", request.accept)]
    if request.content_type is not None:
        headers.append(("content-type", request.content_type))
    headers += auth_headers(request.auth, target.key, target.revoked_key)
    content: bytes | Iterator[bytes] | None = request.body or None
    if request.chunked:
        content = (request.body[i:i + 65536] for i in range(0, len(request.body), 65536))
    started = time.perf_counter()
    response = http.request(request.method, "/graphql", content=content, headers=headers, params=request.params or None)
    ms = (time.perf_counter() - started) * 1000
    text = response.text
    try:
        body = json.loads(text) if text else None
    except ValueError:
        body = None
    return Answer(response.status_code, response.headers.get("content-type", ""), text, body, ms)


def server_errors(log: Path, start: int = 0) -> dict[str, int]:
    """Each distinct error the server logged after byte ``start`` of its JSON-lines log, by how often:
    the message, and for a traceback its last line (the exception)."""
    seen: Counter[str] = Counter()
    with log.open("rb") as lines:
        lines.seek(start)
        for raw in lines:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(line, dict) or line.get("level") not in ("error", "critical"):
                continue
            trace = str(line.get("exception") or "").strip().splitlines()
            seen[_normalise(f"{line.get('message', '')}" + (f" — {trace[-1]}" if trace else ""), 240)] += 1
    return dict(seen.most_common())


def _normalise(message: str, length: int = 120) -> str:
    """A message without what varies between two requests of a kind: ids, numbers, long runs."""
    message = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "<id>", message)
    message = re.sub(r"\d+", "<n>", message)
    return re.sub(r"(.)\1{9,}", r"\1…", message)[:length]


def failed(result: Mapping[str, Any]) -> str:
    """Every distinct failure of a result, a paragraph each ('' when it passed)."""
    lines = []
    if result.get("aborted"):
        lines.append(f"aborted: {result['aborted']}")
    for f in result["failures"]:
        lines.append(f"[{f['check']}] {f['kind']} ×{f['count']}: HTTP {f['status']} {f['code'] or '-'}: {f['message']}\n"
                     f"    e.g. {f['examples'][0]}")
    health = result["healthz"]
    if health["failures"]:
        lines.append(f"[healthz] {health['failures']} of {health['samples']} samples failed: {health['failure_examples']}")
    if lines and result.get("server_errors"):
        lines.append("the server logged: " + "; ".join(f"{m} ×{n}" for m, n in result["server_errors"].items()))
    return "\n".join(lines)


# ---------------------------------------------------------------- the report


def page(result: Mapping[str, Any]) -> str:
    """The markdown page of a fuzz result."""
    health = result["healthz"]
    text = [
        "# fuzz\n",
        "## Hostile requests\n",
        f"{result['requests']} requests generated from the schema (`hippograph.bench.fuzz`, seed {result['seed']}, "
        f"fragment bombs up to depth {result['bomb_depth']}) against {result['server']} in {result['elapsed_s']} s, "
        f"measured {result['when']}. Every answer is checked: status below 500, every error with an "
        "`extensions.code` that the schema's `ErrorCode` lists and that is not `INTERNAL_SERVER_ERROR`, a refused "
        "request (and every read) leaving the "
        "users' state and the store's totals as they were, the refusals the harness expects, and `/healthz` "
        f"answering within {health['bound_s']:g} s, asked every {health['every_ms']:g} ms.\n",
        f"**{'Passed' if result['passed'] else 'Failed'}.**"
        + (f" Aborted: {result['aborted']}" if result["aborted"] else "") + "\n",
        report._table(["check", "failures", "target"],
                      [[c, n, result["targets"].get(c, 0)] for c, n in result["checks"].items()]),
        f"`/healthz`: {health['samples']} samples, {health['failures']} failed; p50 {health['p50_ms']} ms, "
        f"p99 {health['p99_ms']} ms, max {health['max_ms']} ms; slowest while sending "
        + "; ".join(f"{s['while']} ({s['ms']} ms)" for s in health["slowest"]) + ".\n",
        "Requests by category:\n",
        report._table(["category", "requests", "refused", "answered", "5xx", "INTERNAL", "state changes", "unmet"],
                      [[k, v.get("requests", 0), v.get("refused", 0), v.get("answered", 0), v.get("http_5xx", 0),
                        v.get("internal_server_error", 0), v.get("state_change", 0), v.get("unmet_expectation", 0)]
                       for k, v in result["by_category"].items()]),
        "Statuses: " + ", ".join(f"{k}: {v}" for k, v in result["statuses"].items()) + ". Error codes: "
        + ", ".join(f"`{k}` {v}" for k, v in result["codes"].items()) + ".\n",
    ]
    if result["failures"]:
        text.append("Distinct failures:\n")
        text.append(report._table(["check", "request", "count", "status", "code", "message"], [
            [f["check"], f["kind"], f["count"], f["status"], f["code"] or "", _cell(f["message"][:160])]
            for f in result["failures"]]))
    if result.get("server_errors"):
        text.append("What the server logged as errors meanwhile (message — exception):\n")
        text.append(report._table(["logged", "times"], [[_cell(m), n] for m, n in result["server_errors"].items()]))
    return "\n".join(text)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_report(out: Path, result: Mapping[str, Any]) -> list[Path]:
    """``<out>.md`` beside the JSON, then REPORT.md refreshed through ``report.gather``."""
    written = out.with_suffix(".md")
    written.write_text(page(result))
    return [written, report.gather(out.parent)]
