"""No secret reaches storage, through any field of any mutation.

The channels are read from the schema (``schema.graphql``, through ``tests/generators``), not
listed by hand: every String, ID and JSON field of every mutation's arguments, nested input types
and lists included, and for a JSON field — or a String field that holds the text of a JSON value, named in its
``BASES`` line — every key and every string in a valid value of it. A
field added later is planted like the others, and a mutation that needs
more than the generic input gets a line in ``BASES``.

Each channel is given each of 21 kinds of secret, one call each, over HTTP;
then every property of every node and relationship in Neo4j — audit events,
lists and JSON text included — is searched for the raw secret. Each channel's
secrets carry a random tag of their own, so a leak names the channel it came
through, and nothing an earlier run left in the database is mistaken for one.
An id cannot be redacted without naming something else, so an ID field holding
a secret must be refused with BAD_USER_INPUT; under the ``reject`` policy every
channel must be.
"""

from __future__ import annotations

import copy
import json
import os
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from graphql import GraphQLUnionType, get_named_type

from hippograph.memory import keys
from hippograph.memory.services import Services
from hippograph.memory.writing.scrubbing import scrub
from hippograph_bench.server import Server, running_server

from api_client import Client, new_user
from generators.schema import SCHEMA, FieldPath, get_in, json_places, plausible, planted, planted_json, required, text_fields, unique

pytestmark = pytest.mark.neo4j

MUTATIONS = SCHEMA.mutation_type
ERRORS = ("BadUserInputError", "NotFoundError", "LimitExceededError")


# --- the secrets --------------------------------------------------------------


@dataclass(frozen=True)
class Secret:
    kind: str
    text: str  # what is planted: the secret as someone would paste it
    needle: str  # the part that must never be stored


def secrets_tagged(tag: str) -> list[Secret]:
    """The 21 kinds, each holding ``tag`` (eight lower-case hex digits) in its random part.

    Assembled from pieces so that no scanner mistakes this file for a leak. Needles
    hold nothing JSON escapes (no quote, backslash, control or non-ASCII character),
    so a needle inside stored JSON text is found as it is.
    """
    begin, end, private = "-----BEGIN ", "-----END ", "PRIVATE" + " KEY-----"
    rsa = f"MIIEpAIBAAKCAQEA1c7+9z5Pad7O{tag}ecsQ0bu3aozN3tihPmljnnudb9G3HECdnH"
    openssh = f"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{tag}AAAAMwAAAAtzc2gtZWQyNTUxOQ"
    database, password, phrase = f"Zq8vR{tag}pLx!w", f"Tr0ub4dor&3{tag}", f"Sw0rdf1sh{tag}"
    aws_id = "AKIA" + f"{tag.upper()}IOSFODNN"
    aws_secret = "wJalrXUtnFEMI/K7MDENG/" + f"{tag}XWVUTSRQ01"
    github = "ghp_" + f"x7Kp2Qm9Lr4Tn8Vb3Hc6Wd1Fj5Gs0Ya{tag}"
    github_pat = "github_pat_" + f"11ABCDEFG0{tag}_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN"
    slack = "xoxb-" + f"123456789012-{tag}567890123-AbCdEfGhIjKlMnOpQrStUvWx"
    webhook = f"T0{tag}ABCD/B0123EFGH/AbCdEfGhIjKlMnOpQrStUvWx"
    stripe = "sk_" + f"live_51H8{tag}abcdefghijklmnopqrstu"
    openai = "sk-" + f"proj-Abc123def456GHI789jkl012MNO{tag}pqr678"
    anthropic = "sk-" + f"ant-api03-AbCdEf0123456789AbCdEf{tag}456789-XyZ_AA"
    google = "AIza" + f"SyD-abcdefghijklmnopqrstuvw{tag}"
    hugging = "hf_" + f"AbCdEfGhIjKlMnOpQrStUvWxYz{tag}5678"
    gitlab = "glpat-" + f"xY7{tag}kLmNoPqRsTuVwZ12"
    jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + f"dozjgNryP4J3jVmNHl0w5N_{tag}XgL0n3I9PlFUP0THsR8U"
    bearer = f"8f14e45fceea167a{tag}5a36dedd4bea2543"
    sendgrid = "SG." + f"abcdefghijklmn{tag}." + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
    twilio = "SK" + f"0123456789abcdef01234567{tag}"
    return [
        Secret("RSA private key", f"{begin}RSA {private}\n{rsa}\nlWu2/a1gB9JW5TBQ+AVpum9Okx7KfqkfBKL9mcHgSVqOuxyA\n{end}RSA {private}", rsa),
        Secret("OpenSSH private key", f"{begin}OPENSSH {private}\n{openssh}\n{end}OPENSSH {private}", openssh),
        Secret("connection string", f"postgres://app:{database}@db.internal:5432/shop", database),
        Secret("password assignment", f"password={password}", password),
        Secret("password sentence", f"my password is {phrase}", phrase),
        Secret("AWS access key id", aws_id, aws_id),
        Secret("AWS secret access key", f"aws_secret_access_key = {aws_secret}", aws_secret),
        Secret("GitHub token", github, github),
        Secret("GitHub fine-grained token", github_pat, github_pat),
        Secret("Slack bot token", slack, slack),
        Secret("Slack webhook", f"https://hooks.slack.com/services/{webhook}", webhook),
        Secret("Stripe secret key", stripe, stripe),
        Secret("OpenAI key", openai, openai),
        Secret("Anthropic key", anthropic, anthropic),
        Secret("Google API key", google, google),
        Secret("Hugging Face token", hugging, hugging),
        Secret("GitLab token", gitlab, gitlab),
        Secret("JWT", jwt, jwt),
        Secret("Authorization header", f"Authorization: Bearer {bearer}", bearer),
        Secret("SendGrid key", sendgrid, sendgrid),
        Secret("Twilio key", twilio, twilio),
    ]


# --- valid inputs -------------------------------------------------------------


def mutation(client: Client, name: str, payload: str = "", **input: Any) -> dict[str, Any]:
    """Run one mutation with ``input`` (prerequisites of the bases); it must succeed."""
    result = client.data(
        f"mutation($input: {MUTATIONS.fields[name].args['input'].type}) {{ result: {name}(input: $input) {{"
        f" __typename {payload} ... on UserError {{ code message }} }} }}",
        input=input,
    )["result"]
    assert result["__typename"] not in ERRORS, (name, result)
    return result


def start_session(client: Client) -> dict[str, Any]:
    session = unique("session")
    mutation(client, "startSession", id=session, project="shop")
    return {"session": session}


def end_session(client: Client, made: dict[str, Any]) -> None:
    """Ending the session extracts the facts of its turns and promotes its memories: more writes to check."""
    mutation(client, "endSession", id=made["session"])


def new_memory(client: Client) -> str:
    remembered = mutation(
        client, "remember", "... on RememberSuccess { memory { id } }",
        content=f"We deploy with Docker ({unique('note')})", tier="PROJECT", project="shop",
    )
    return remembered["memory"]["id"]


def project_with_a_memory(client: Client) -> dict[str, Any]:
    new_memory(client)
    return {"id": "shop"}


def new_entity(client: Client) -> str:
    recorded = mutation(
        client, "recordDecision", "... on RecordSuccess { entity { id } }",
        decision=f"Use PostgreSQL for {unique('orders')}", project="shop",
    )
    return recorded["entity"]["id"]


def two_entities(client: Client) -> dict[str, Any]:
    return {"from": new_entity(client), "to": new_entity(client)}


def linked_entities(client: Client) -> dict[str, Any]:
    ends = two_entities(client)
    mutation(client, "link", type="LED_TO", **ends)
    return {**ends, "type": "LED_TO"}


def new_key(client: Client) -> dict[str, Any]:
    created = mutation(client, "createApiKey", "... on ApiKeyCreated { key { id } }", user=unique("owner"))
    return {"id": created["key"]["id"]}


@cache
def long_term_imported(client: Client) -> dict[str, Any]:
    mutation(client, "importDocument", kind="LONG_TERM", document=long_term_document(client))
    return {}


def long_term_document(client: Client) -> dict[str, Any]:
    return {**LONG_TERM_DOCUMENT, "user_id": client.user_id}


PROJECT_DOCUMENT = {
    "project_id": "proj-docs",
    "type": "web_app",
    "tech_stack": {"backend": "Laravel 11"},
    "architecture": {
        "pattern": "Layered (Controller → Service → Repository)",
        "decisions": [{"id": "adr-001", "decision": "Use JWT in httpOnly cookies", "reason": "XSS protection", "date": "2026-07-15"}],
    },
    "conventions": {"testing": "Pest for unit, Cypress for E2E"},
    "error_history": [{"error": "SQL injection in UserController", "fix": "Use parameterized queries", "count": 2, "last_seen": "2026-07-16"}],
    "last_updated": "2026-07-17T10:00:00Z",
}
LONG_TERM_DOCUMENT = {
    "user_id": "the caller",  # set to the caller's id for each call
    "preferences": {"communication_style": "concise"},
    "recurring_patterns": {"token_waste": {"count": 5, "last_skill": "backend-engineer", "resolved": False}},
    "skill_evolution": [{"skill": "backend-engineer", "version": "1.1.0", "changes": ["Reduced token budget by 10%"], "date": "2026-07-17"}],
    "learning_progress": {"completed_lessons": ["SOLID"], "current_lesson": "CQRS", "struggling_topics": ["Event Sourcing"]},
    "last_updated": "2026-07-17T12:00:00Z",
}
SESSION_DOCUMENT = {
    "session_id": "sess-docs",
    "started_at": "2026-07-17T11:00:00Z",
    "tasks": [{
        "task_id": "task-001", "classification": "new_feature", "decisions": ["Use JWT over sessions"],
        "errors": ["Token refresh loops forever"], "patterns": ["Retry with backoff"],
    }],
    "active_context": {"current_skill": "backend-engineer", "token_used": 1234, "compression_level": "none"},
}


@dataclass(frozen=True)
class Base:
    """What a mutation's input needs beyond the generic one."""

    label: str = ""
    fields: Mapping[str, Any] = field(default_factory=dict)  # over the generic input; JSON channels are read from these
    json_text: Mapping[str, Any] = field(default_factory=dict)  # String fields holding JSON text, each with a valid value
    setup: Callable[[Client], dict[str, Any]] | None = None  # fields made fresh for each call (ids of things it needs)
    after: Callable[[Client, dict[str, Any]], None] | None = None  # run with what setup made, once the call is answered
    admin: bool = False
    one_of: tuple[str, ...] = ()  # fields of which exactly one is given: planting one drops the others


# Only where the generic input is not valid: an id that must exist first, a scope a tier needs.
BASES: dict[str, list[Base]] = {
    "endSession": [Base(setup=lambda c: {"id": start_session(c)["session"]})],
    "appendTurn": [Base(setup=start_session, after=end_session, json_text={"item": {
        "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "We ship on Fridays."}]}})],
    "remember": [Base(fields={
        "tier": "PROJECT", "project": "shop",
        "attributes": {"owner": "platform", "deploy": {"env": "prod", "hosts": ["web-1"]}, "count": 2},
    })],
    "updateMemory": [Base(fields={"relevance": 0.5}, setup=lambda c: {"id": new_memory(c)})],
    "forget": [Base(setup=lambda c: {"memory": new_memory(c)}, one_of=("memory", "entity", "turn"))],
    "forgetSession": [Base(setup=lambda c: {"id": start_session(c)["session"]})],
    "forgetProject": [Base(setup=project_with_a_memory)],
    "link": [Base(setup=two_entities)],
    "unlink": [Base(setup=linked_entities)],
    "recordDecision": [Base(fields={"project": "shop"})],
    "recordError": [Base(fields={"project": "shop"})],
    "importDocument": [
        Base("PROJECT", fields={"kind": "PROJECT", "document": PROJECT_DOCUMENT}),
        Base("LONG_TERM", fields={"kind": "LONG_TERM", "document": LONG_TERM_DOCUMENT},
             setup=lambda c: {"document": long_term_document(c)}),
        Base("SESSION", fields={"kind": "SESSION", "document": SESSION_DOCUMENT}),
    ],
    "exportDocument": [Base(fields={"kind": "LONG_TERM"}, setup=long_term_imported)],
    "createApiKey": [Base(admin=True)],
    "revokeApiKey": [Base(admin=True, setup=new_key)],
}


# --- the channels -------------------------------------------------------------


@dataclass(frozen=True)
class Channel:
    """One place a caller's text enters: a field of a mutation's arguments, and inside JSON where."""

    mutation: str
    path: FieldPath  # from the argument: ("input", "mentions", 0, "name")
    scalar: str
    base: str = ""
    inside: tuple[str, FieldPath] | None = None  # a JSON field's "key" or "value" at a path, or a "new key" / "new value"

    def __str__(self) -> str:
        where = ".".join(str(step) for step in self.path)
        variant = f"[{self.base}]" if self.base else ""
        if self.inside is not None:
            how, at = self.inside
            where += "{" + how + (" " + ".".join(str(step) for step in at) if at else "") + "}"
        return f"{self.mutation}{variant}.{where}"


def bases(name: str) -> list[Base]:
    return BASES.get(name, [Base()])


def channels() -> list[Channel]:
    found: list[Channel] = []
    for name, f in MUTATIONS.fields.items():
        for base in bases(name):
            for path, scalar in text_fields(f.args):
                if scalar != "JSON" and path[1:] not in [(k,) for k in base.json_text]:
                    found.append(Channel(name, path, scalar, base.label))
                    continue
                value = get_in({"input": {**base.fields, **base.json_text}}, path)
                places = [*json_places(value), ("new key", ()), ("new value", ())]
                found.extend(Channel(name, path, scalar, base.label, place) for place in places)
    return found


CHANNELS = channels()


def valid_arguments(name: str, base: Base, client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """Arguments the mutation accepts, and what ``base.setup`` made for them."""
    made = base.setup(client) if base.setup else {}
    args = {arg: plausible(a.type, arg) for arg, a in MUTATIONS.fields[name].args.items() if required(a)}
    args["input"] = {**args.get("input", {}), **copy.deepcopy(dict(base.fields)),
                     **{k: json.dumps(v) for k, v in base.json_text.items()}, **made}
    return args, made


def arguments(channel: Channel, base: Base, client: Client, secret: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Valid arguments for the channel's mutation with ``secret`` planted in the channel, and what setup made."""
    args, made = valid_arguments(channel.mutation, base, client)
    if channel.path[1] in base.one_of:
        for other in base.one_of:
            args["input"].pop(other, None)
    argument = channel.path[0]
    value = secret
    if channel.inside is not None and channel.scalar == "JSON":
        value = planted_json(get_in(args, channel.path), channel.inside, secret)
    elif channel.inside is not None:  # JSON text: planted in the value it holds, sent as text again
        value = json.dumps(planted_json(json.loads(get_in(args, channel.path)), channel.inside, secret))
    args[argument] = planted(args.get(argument), MUTATIONS.fields[channel.mutation].args[argument].type, channel.path[1:], value)
    return args, made


def send(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The mutation's answer; a planted secret may be refused by the mutation's error member, never fail the request."""
    f = MUTATIONS.fields[name]
    declared = ", ".join(f"${arg}: {a.type}" for arg, a in f.args.items() if arg in args)
    passed = ", ".join(f"{arg}: ${arg}" for arg in f.args if arg in args)
    errors = "... on UserError { code message }" if isinstance(get_named_type(f.type), GraphQLUnionType) else ""
    body = client.run(f"mutation({declared}) {{ result: {name}({passed}) {{ __typename {errors} }} }}", **args)
    assert not body.get("errors"), (name, body["errors"])
    return body["data"]["result"]


# --- the scan -----------------------------------------------------------------

# Every property as text: a list by its strings (numbers hold no secret), anything else by toString.
_TEXTS = """
WITH item, key, item[key] AS value
WITH item, key, CASE WHEN value IS :: LIST<ANY> THEN [x IN value WHERE x IS :: STRING] ELSE [toString(value)] END AS texts
UNWIND texts AS text
UNWIND $needles AS needle
WITH item, key, needle WHERE toLower(text) CONTAINS needle
"""
NODES_HOLDING = "MATCH (item) UNWIND keys(item) AS key" + _TEXTS + "RETURN DISTINCT labels(item) AS holder, key, needle"
RELATIONSHIPS_HOLDING = "MATCH ()-[item]->() UNWIND keys(item) AS key" + _TEXTS + "RETURN DISTINCT [type(item)] AS holder, key, needle"


def stored(services: Services, planted: list[Secret]) -> list[str]:
    """Where in Neo4j any of the secrets is stored (case-insensitively), as ``kind in Label.property``."""
    kinds = {secret.needle.lower(): secret.kind for secret in planted}
    found = []
    for statement in (NODES_HOLDING, RELATIONSHIPS_HOLDING):
        records = services.driver.execute_query(statement, needles=list(kinds), database_=services.database).records
        found += [f"{kinds[r['needle']]} in {':'.join(r['holder'])}.{r['key']}" for r in records]
    return sorted(found)


# --- the strict server --------------------------------------------------------


@pytest.fixture(scope="module")
def strict_server(api_server: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A second `hippograph serve` on the same database, with HIPPOGRAPH_SECRET_POLICY=reject."""
    env = {**os.environ, "HIPPOGRAPH_SECRET_POLICY": "reject"}
    with running_server(tmp_path_factory.mktemp("strict") / "serve.log", env) as server:
        yield server


def client_of(server: Server, services: Services, admin: bool) -> Client:
    user_id = new_user("planter")
    issued = keys.create_key(services.driver, services.database, user_id, keys.Role.ADMIN if admin else keys.Role.USER)
    return Client(server, issued.secret, user_id)


# --- the tests ----------------------------------------------------------------


KINDS = 21


def test_the_planted_secrets_are_21_kinds_the_scrubber_knows() -> None:
    planted = secrets_tagged("0a1b2c3d")
    assert len({secret.kind for secret in planted}) == len(planted) == KINDS
    assert len(CHANNELS) >= KINDS  # the reject-policy run tries every kind
    for secret in planted:
        assert secret.needle in secret.text and "0a1b2c3d" in secret.needle.lower()
        assert secret.needle.isascii() and not any(c in secret.needle for c in "\"\\ \n"), secret.kind
        assert secret.needle not in scrub(secret.text).text, secret.kind


def test_the_channels_cover_every_mutation_and_the_fields_known_to_have_leaked() -> None:
    # A mutation without a channel must be one whose input holds no text at all.
    silent = {name for name in MUTATIONS.fields} - {c.mutation for c in CHANNELS}
    assert all(not list(text_fields(MUTATIONS.fields[name].args)) for name in silent)
    names = {str(c) for c in CHANNELS}
    assert {
        "link.input.note", "appendTurn.input.role", "appendTurn.input.session", "startSession.input.project",
        "appendTurn.input.item{value content.0.text}", "appendTurn.input.item{new key}",
        "remember.input.attributes{new key}", "remember.input.attributes{key deploy.env}",
        "remember.input.mentions.0.name", "setPreference.input.key", "recordDecision.input.conflictsWith.0",
        "importDocument[PROJECT].input.document{value tech_stack.backend}",
    } <= names


@pytest.mark.parametrize(("mutation_name", "base"), [(n, b) for n in MUTATIONS.fields for b in bases(n)],
                         ids=lambda value: value if isinstance(value, str) else value.label or "-")
def test_every_base_input_is_accepted(mutation_name: str, base: Base, api_server: Server, services: Services) -> None:
    """The channels are only worth planting if the inputs around them are valid."""
    client = client_of(api_server, services, base.admin)
    args, made = valid_arguments(mutation_name, base, client)
    answer = send(client, mutation_name, args)
    assert answer["__typename"] not in ERRORS, f"{mutation_name}: {answer}; give it a base in BASES"
    if base.after is not None:
        base.after(client, made)


def plant_each_secret(channel: Channel, server: Server, services: Services, all_refused: bool,
                      kinds: slice = slice(None)) -> None:
    """One call per secret (those of ``kinds``); an ID field (every field when ``all_refused``) must
    refuse it; nothing may be stored."""
    base = next(b for b in bases(channel.mutation) if b.label == channel.base)
    client = client_of(server, services, base.admin)
    planted = secrets_tagged(uuid.uuid4().hex[:8])[kinds]
    made_for_each = []
    for secret in planted:
        args, made = arguments(channel, base, client, secret.text)
        answer = send(client, channel.mutation, args)
        if all_refused or channel.scalar == "ID":
            assert answer["__typename"] == "BadUserInputError", (secret.kind, answer)
        made_for_each.append(made)
    # Looked for before and after what follows the calls: a raw turn lives only until its session ends.
    assert stored(services, planted) == []
    if base.after is not None:
        for made in made_for_each:
            base.after(client, made)
        assert stored(services, planted) == []


@pytest.mark.parametrize("channel", CHANNELS, ids=str)
def test_no_secret_planted_in_a_channel_is_stored(channel: Channel, api_server: Server, services: Services) -> None:
    plant_each_secret(channel, api_server, services, all_refused=False)


@pytest.mark.parametrize("index", range(len(CHANNELS)), ids=lambda index: str(CHANNELS[index]))
def test_under_the_reject_policy_every_channel_refuses_a_secret(
    index: int, strict_server: Server, services: Services
) -> None:
    # The policy is one decision per write, taken where the scrubber runs: each channel is tried with
    # one kind, the kinds taken in turn, so that every channel and every kind is tried.
    kind = index % KINDS
    plant_each_secret(CHANNELS[index], strict_server, services, all_refused=True, kinds=slice(kind, kind + 1))


def test_a_secret_only_its_name_gives_away_is_not_stored(api_server: Server, services: Services) -> None:
    """ "S3cr3t!…" is a word on its own; as the value of db_password it is a password, in every channel that names it."""
    client = client_of(api_server, services, admin=False)
    value = "Kq7!vRm2#" + uuid.uuid4().hex[:6]
    mutation(client, "setPreference", key="db_password", value=value)
    mutation(client, "remember", content="Staging database credentials were rotated", tier="PROJECT", project="shop",
             attributes={"db_password": value, "nested": {"api_token": value}})
    assert stored(services, [Secret("password named by its key", value, value)]) == []


# Issue 38: bare passwords named where an id, a key or a ref goes (assembled, so no scanner takes this file for a leak).
ID_PASSWORDS = ["passw0rd" + "123", "hunter" + "2", "C0rrect" + "H0rse"]
REF_PASSWORDS = ["Summer" + "2024!", "Xk9#mQ2" + "$vL7p", "Adm1n" + "!"]


def test_a_password_named_as_an_id_key_or_ref_is_refused_and_nothing_is_stored(
    api_server: Server, services: Services,
) -> None:
    client = client_of(api_server, services, admin=False)
    session = start_session(client)["session"]
    calls: list[tuple[str, dict[str, Any], str]] = []
    for password in ID_PASSWORDS:
        calls += [
            ("remember", {"content": "pw note p", "tier": "PROJECT", "project": password}, "project id"),
            ("remember", {"content": "pw note s", "tier": "SESSION", "session": password}, "session id"),
            ("remember", {"content": "pw note r", "tier": "LONG_TERM", "requestId": password}, "request id"),
            ("setPreference", {"key": password, "value": "vim"}, "preference key"),
            ("startSession", {"id": password}, "session id"),
            ("appendTurn", {"session": password, "role": "user", "content": "hi"}, "session id"),
            ("appendTurn", {"session": session, "role": "user", "content": "hi", "ref": password}, "ref"),
        ]
    calls += [("appendTurn", {"session": session, "role": "user", "content": "hi", "ref": password}, "ref")
              for password in REF_PASSWORDS]
    for name, input, named in calls:
        answer = client.data(
            f"mutation($input: {MUTATIONS.fields[name].args['input'].type}) {{ result: {name}(input: $input) {{"
            " __typename ... on UserError { code message } } }", input=input)["result"]
        assert answer["__typename"] == "BadUserInputError", (name, input, answer)
        assert f"{named} looks like a secret (password)" in answer["message"], (name, input, answer)
    # Looked for in this user's nodes only: the words are the issue's own, and another run may have stored them.
    owned = "MATCH (item {userId: $user}) UNWIND keys(item) AS key" + _TEXTS + "RETURN DISTINCT labels(item), key"
    needles = [password.lower() for password in ID_PASSWORDS + REF_PASSWORDS]
    assert services.driver.execute_query(owned, user=client.user_id, needles=needles, database_=services.database).records == []
