"""Hostile requests to /graphql, made from the schema (``SCHEMA``) and a seed.

``Generator.next`` hands out one request at a time, from a seeded ``random.Random``: the same seed
sends the same requests, up to the ids the server hands out. Each field, each hostile document,
body, content type and method comes in turn, in shuffled rounds, so that a short run sends every
one of them.

* Every query and mutation field, in turn, inline and with variables, with argument values made
  from each argument's type (``schema.Values``): valid ones, and hostile ones.
* Hostile documents: fragment bombs, fragment cycles, deep selections and literals, alias and
  directive spam, overlapping fields, 5,000-digit literals, many operations, the token limit.
* Hostile bodies: JSON that is not an object, nested 5,000–100,000 deep, duplicate keys, invalid
  UTF-8, numbers Python cannot read, past the body limit (also chunked); other content types and
  charsets; GET with a mutation, PUT, DELETE and other methods; a subscription over HTTP.
* Most with the caller's key; some without a key, with an unknown, malformed or revoked one.

What the answer to a request must be, where the README says it (no key, a revoked key, a mutation
over GET, duplicate keys, a limit …), rides with the request as its ``Expect``.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLUnionType,
    get_named_type,
    is_leaf_type,
)

from hippograph.schema.limits import MAX_ALIASES, MAX_BODY_BYTES, MAX_DEPTH, MAX_TOKENS

from generators.schema import FIVE_THOUSAND_DIGITS, SCHEMA, Pool, Values, nested, required, to_json, to_literal

# What a caller without a key may ask (README, "Keys and tenants"); every other root field needs one.
KEYLESS_FIELDS = frozenset({"serverInfo", "__typename", "__schema", "__type"})
T = TypeVar("T")
# Mutations that, answered, would erase the caller and its key: sent as the other user only.
SELF_ERASING = frozenset({"forgetUser"})
# The fragment bomb of the issue: F0 spreads F1 twice, …, down to F30.
BOMB_DEPTH = 30

# Request categories and their shares of a run.
CATEGORIES = (
    ("valid-inline", 9), ("valid-variables", 9), ("hostile-inline", 14), ("hostile-variables", 20),
    ("document", 14), ("body", 12), ("content-type", 6), ("method", 6), ("subscription", 2), ("auth", 8),
)
FIELD_CATEGORIES = ("valid-inline", "valid-variables", "hostile-inline", "hostile-variables", "auth")



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
        self.schema = graphql_schema or SCHEMA
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
                  if required(a) or self.rng.random() < 0.5}
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
        needed = [arg for arg, a in definitions.items() if required(a)]
        if roll < 0.08 and needed:
            missing = rng.choice(needed)
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


