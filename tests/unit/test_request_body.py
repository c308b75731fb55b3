"""Request bodies read strictly: one UTF-8 JSON object, no key twice, bounded numbers and nesting."""

from __future__ import annotations

import json

import pytest

from hippograph.api.request_body import MAX_CONTAINERS, MAX_DOCUMENT, MAX_NESTING, BodyError, charset_error, decode, request_data


def test_a_request_reads_as_its_object() -> None:
    assert decode(b'{"query": "{ __typename }", "variables": {"n": 5, "x": 1.5, "s": "caf\\u00e9"}}') == {
        "query": "{ __typename }", "variables": {"n": 5, "x": 1.5, "s": "café"},
    }


@pytest.mark.parametrize("body, reason", [
    (b"null", "JSON object"),
    (b"[]", "JSON object"),
    (b'"{ __typename }"', "JSON object"),
    (b'{"query": "a", "query": "b"}', "twice"),
    (b'{"v": {"k": 1, "k": 2}}', "twice"),
    (b'{"n": ' + b"9" * 5000 + b"}", "too long"),
    (b'{"n": NaN}', "NaN"),
    (b'{"n": -Infinity}', "Infinity"),
    (b'{"a": ' + b"[" * (MAX_NESTING + 1) + b"]" * (MAX_NESTING + 1) + b"}", "nests"),
    (b"[" * 100_000 + b"]" * 100_000, "objects and arrays"),
    (b'{"a": [' + b",".join([b"{}"] * (MAX_CONTAINERS + 1)) + b"]}", "objects and arrays"),
    (b'{"query": 5}', "`query` must be a string"),
    (json.dumps({"query": "{ __typename }" + " " * MAX_DOCUMENT}).encode(), "longer than"),
    (b'{"query": "{ a }", "variables": [1]}', "`variables` must be an object"),
    (b'{"q": "\xff"}', "UTF-8"),
    (b"{", "JSON"),
])
def test_what_is_no_request_is_refused_with_the_reason(body: bytes, reason: str) -> None:
    with pytest.raises(BodyError, match=reason):
        request_data(decode(body))


def test_brackets_inside_strings_are_text() -> None:
    text = '[{"' * 50
    assert decode(json_body(text))["variables"]["a"] == text


def json_body(text: str) -> bytes:
    return json.dumps({"query": "{ __typename }", "variables": {"a": text}}).encode()


def test_only_utf8_is_read() -> None:
    assert charset_error("application/json") is None
    assert charset_error('application/json; charset="UTF-8"') is None
    assert "latin-1" in charset_error("application/json; charset=latin-1")
