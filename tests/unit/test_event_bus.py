"""The event bus's record of erasures under way: the socket watch (hippograph.api.sockets) keeps an erased
user's sockets open until their USER_FORGOTTEN is published, so the record must hold exactly while the
erasure runs, nested or failed."""

from __future__ import annotations

import asyncio

import pytest

from hippograph.operations.event_bus import Event, EventBus


def test_a_user_is_being_erased_exactly_while_the_block_runs_nested_or_failed() -> None:
    bus = EventBus()
    assert bus.being_erased() == frozenset()
    with bus.erasing("carol"):
        assert bus.being_erased() == {"carol"}
        with bus.erasing("carol"), bus.erasing("dave"):
            assert bus.being_erased() == {"carol", "dave"}
        # The inner erasure of carol ended; the outer one still runs.
        assert bus.being_erased() == {"carol"}
    assert bus.being_erased() == frozenset()
    with pytest.raises(LookupError), bus.erasing("erin"):
        raise LookupError("the erasure failed")
    assert bus.being_erased() == frozenset()


def test_the_last_event_of_an_erasure_reaches_the_users_subscriber_before_the_record_ends() -> None:
    async def run() -> tuple[str, frozenset[str]]:
        bus = EventBus()
        async with bus.subscribe("carol") as queue:
            with bus.erasing("carol"):
                bus.publish(Event("USER_FORGOTTEN", "carol"))
                during = bus.being_erased()
            return (await asyncio.wait_for(queue.get(), 1)).kind, during

    assert asyncio.run(run()) == ("USER_FORGOTTEN", frozenset({"carol"}))
