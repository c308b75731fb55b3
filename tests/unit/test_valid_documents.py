"""ValidDocuments keeps parsed, valid documents only, bounded in count and text size."""

from __future__ import annotations

import asyncio

import pytest

from hippograph.memory.keys import Caller, Role
from hippograph.schema import schema
from hippograph.schema.context import Context
from hippograph.operations.event_bus import EventBus
from hippograph.schema.extensions import ValidDocuments


@pytest.fixture(autouse=True)
def empty_cache():
    ValidDocuments._valid.clear()
    yield
    ValidDocuments._valid.clear()


def run(query: str) -> list[str]:
    # No services: every resolver would fail, but parsing and validation happen before that.
    caller = Caller(user_id="u", role=Role.USER, key_id="k")
    result = asyncio.run(schema.execute(query, context_value=Context(services=None, events=EventBus(), caller=caller)))
    return [e.extensions.get("code") for e in result.errors or []]


def test_only_a_valid_document_is_kept_and_it_is_reused() -> None:
    assert run("{ nosuchfield }") == ["BAD_USER_INPUT"]
    assert "{ nosuchfield }" not in ValidDocuments._valid
    run("{ __typename }")
    kept = ValidDocuments._valid["{ __typename }"]
    run("{ __typename }")
    assert ValidDocuments._valid["{ __typename }"] is kept


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ValidDocuments, "CAPACITY", 3)
    for i in range(5):
        run(f"{{ a{i}: __typename }}")
    assert list(ValidDocuments._valid) == [f"{{ a{i}: __typename }}" for i in (2, 3, 4)]
    long = "{ __typename " + " " * ValidDocuments.MAX_TEXT + "}"
    run(long)
    assert long not in ValidDocuments._valid
