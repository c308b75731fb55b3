"""The API's own rules, without I/O: error codes, limits, cursors, events, keys in headers."""

from __future__ import annotations

import asyncio
import hashlib

import pytest
from graphql import GraphQLError
from neo4j.exceptions import ClientError, ServiceUnavailable, SessionExpired

from hippograph.api.auth import key_from_headers, key_from_params
from hippograph.api.logs import accept_request_id
from hippograph.graph.vocabulary import Tier
from hippograph.memory.errors import CapacityExceeded, InvalidInput, NotFound
from hippograph.memory.keys import hash_secret
from hippograph.memory.writing.scrubbing import SecretRejected
from hippograph.memory.tiers import ScopeError
from hippograph.operations.errors import MASKED_MESSAGE, UNAVAILABLE_MESSAGE, BadInput, ErrorCode, LimitExceeded, code_of
from hippograph.operations.event_bus import Event, EventBus
from hippograph.operations.limits import MAX_PAGE, attributes, bounded, bounded_list, check_strings, distinct
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError, user_error
from hippograph.schema.extensions import classify
from hippograph.schema.pagination import decode_cursor, encode_cursor


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InvalidInput("x"), ErrorCode.BAD_USER_INPUT),
        (ScopeError("x"), ErrorCode.BAD_USER_INPUT),
        (SecretRejected(["password"]), ErrorCode.BAD_USER_INPUT),
        (NotFound("x"), ErrorCode.NOT_FOUND),
        (CapacityExceeded("x"), ErrorCode.LIMIT_EXCEEDED),
        (LimitExceeded("x"), ErrorCode.LIMIT_EXCEEDED),
        (ServiceUnavailable("down"), ErrorCode.UNAVAILABLE),
        (SessionExpired("gone"), ErrorCode.UNAVAILABLE),
        (KeyError("bug"), None),
        (ClientError("syntax"), None),
    ],
)
def test_code_of(error: Exception, code: ErrorCode | None) -> None:
    assert code_of(error) is code


def test_classify_masks_the_unexpected_and_keeps_the_rest() -> None:
    assert classify(GraphQLError("boom", original_error=KeyError("secret detail"))) == (
        ErrorCode.INTERNAL_SERVER_ERROR, MASKED_MESSAGE,
    )
    assert classify(GraphQLError("x", original_error=ServiceUnavailable("bolt://10.0.0.1"))) == (
        ErrorCode.UNAVAILABLE, UNAVAILABLE_MESSAGE,
    )
    assert classify(GraphQLError("memory 1 not found", original_error=NotFound("memory 1 not found"))) == (
        ErrorCode.NOT_FOUND, "memory 1 not found",
    )
    assert classify(GraphQLError("no", extensions={"code": "FORBIDDEN"}))[0] is ErrorCode.FORBIDDEN
    # graphql-core's own complaint about a variable (no path: nothing was being resolved) is the caller's.
    coercion = GraphQLError("Int cannot represent non 32-bit signed integer value: 2147483648")
    assert classify(GraphQLError("Variable '$n' has invalid value", original_error=coercion))[0] is ErrorCode.BAD_USER_INPUT
    assert classify(GraphQLError("x", original_error=ValueError("Exceeds the limit (4300 digits)")))[0] \
        is ErrorCode.BAD_USER_INPUT
    assert classify(GraphQLError("maximum recursion depth exceeded", original_error=RecursionError()))[0] \
        is ErrorCode.LIMIT_EXCEEDED
    # The same errors while a field was being resolved are ours: masked.
    assert classify(GraphQLError("x", original_error=ValueError("bad state"), path=["recall"])) == (
        ErrorCode.INTERNAL_SERVER_ERROR, MASKED_MESSAGE,
    )
    assert classify(GraphQLError("Syntax Error: Document contains more than 2000 tokens."))[0] is ErrorCode.LIMIT_EXCEEDED
    assert classify(GraphQLError("Cannot query field 'x' on type 'Query'."))[0] is ErrorCode.BAD_USER_INPUT


def test_user_errors_become_union_members() -> None:
    assert isinstance(user_error(BadInput("bad", field="content")), BadUserInputError)
    assert isinstance(user_error(NotFound("gone")), NotFoundError)
    assert isinstance(user_error(CapacityExceeded("full")), LimitExceededError)
    assert user_error(ServiceUnavailable("down")) is None
    assert user_error(RuntimeError("bug")) is None


def test_strings_are_checked_everywhere_in_the_input() -> None:
    check_strings({"a": ["fine", "émoji 🧠", "tab\tand\nnewline"]})
    with pytest.raises(BadInput):
        check_strings({"a": {"b": ["x\x00y"]}})
    with pytest.raises(BadInput):
        check_strings("lone \ud800 surrogate")


def test_page_sizes_and_lists() -> None:
    assert bounded(MAX_PAGE, "first") == MAX_PAGE
    with pytest.raises(LimitExceeded):
        bounded(MAX_PAGE + 1, "first")
    with pytest.raises(BadInput):
        bounded(0, "first")
    with pytest.raises(LimitExceeded, match="maxDepth is at most 6"):
        bounded(7, "maxDepth", 6)
    with pytest.raises(LimitExceeded):
        bounded_list(list(range(51)), "ids")
    with pytest.raises(BadInput):
        attributes([1, 2])


def test_distinct_keeps_the_members_each_once_in_order() -> None:
    assert distinct([Tier.PROJECT, Tier.SESSION, Tier.PROJECT]) == [Tier.PROJECT, Tier.SESSION]
    assert all(isinstance(t, Tier) for t in distinct([Tier.LONG_TERM]) or [])
    assert distinct(None) is None


def test_cursors_round_trip_and_refuse_forgeries() -> None:
    cursor = encode_cursor("m", 1700000000, 123, "id-1")
    assert decode_cursor(cursor, "m", (int, int, str)) == (1700000000, 123, "id-1")
    for bad in ("", "%%%", encode_cursor("e", "a", "b"), encode_cursor("m", "1", 2, "x"), "x" * 5000):
        with pytest.raises(BadInput):
            decode_cursor(bad, "m", (int, int, str))


def test_event_bus_delivers_by_user_then_project() -> None:
    async def scenario() -> tuple[list[str], list[str], int]:
        bus = EventBus()
        async with bus.subscribe("alice", "p1") as alices, bus.subscribe("bob", "p1") as bobs:
            bus.publish(Event("A", "alice", "p1"))
            bus.publish(Event("B", "alice", "p2"))
            bus.publish(Event("C", "bob", "p1"))
            return [alices.get_nowait().kind], [bobs.get_nowait().kind], alices.qsize() + bobs.qsize()

    assert asyncio.run(scenario()) == (["A"], ["C"], 0)


def test_a_slow_subscriber_loses_its_oldest_events() -> None:
    async def scenario() -> list[str]:
        bus = EventBus(queue_size=2)
        async with bus.subscribe("u") as queue:
            for kind in "abc":
                bus.publish(Event(kind, "u"))
            return [queue.get_nowait().kind for _ in range(queue.qsize())]

    assert asyncio.run(scenario()) == ["b", "c"]


def test_keys_in_headers_and_connection_params() -> None:
    assert key_from_headers({"authorization": "Bearer hg_abc"}) == "hg_abc"
    assert key_from_headers({"authorization": "Basic abc"}) is None
    assert key_from_headers({"x-api-key": "hg_abc"}) == "hg_abc"
    assert key_from_params({"Authorization": "Bearer hg_abc"}) == "hg_abc"
    assert key_from_params({"apiKey": "hg_abc"}) == "hg_abc"
    assert key_from_params({"authorization": 42}) is None
    assert key_from_params(None) is None


def test_keys_are_stored_as_sha256() -> None:
    assert hash_secret("hg_x") == hashlib.sha256(b"hg_x").hexdigest()


def test_request_ids() -> None:
    assert accept_request_id("abc-1.2:3_4") == "abc-1.2:3_4"
    assert len(accept_request_id("has space")) == 32
    assert len(accept_request_id("x" * 200)) == 32
    assert len(accept_request_id(None)) == 32
