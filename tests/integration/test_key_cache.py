"""With HIPPOGRAPH_AUTH_CACHE_MS set, a checked key is trusted briefly; revoking it, or erasing its user, in-process
drops it at once."""

from __future__ import annotations

import asyncio

import pytest

from hippograph.memory.keys import CallerCache, authenticate, create_key, revoke_key
from hippograph.memory.services import Services
from hippograph.operations import forget as forgetting
from hippograph.operations.call import Call
from hippograph.operations.event_bus import EventBus

pytestmark = pytest.mark.neo4j


def test_revoking_through_this_process_drops_the_cached_key(clean_db: Services) -> None:
    issued = create_key(clean_db.driver, clean_db.database, "alice")
    cache = CallerCache(ttl=60)
    caller = authenticate(clean_db.driver, clean_db.database, issued.secret, cache)
    assert caller is not None and caller.user_id == "alice"

    # Revoked by another process (the CLI): the cached answer stands for the cache's lifetime.
    clean_db.driver.execute_query("MATCH (k:ApiKey {id: $id}) SET k.revoked = true", id=issued.record["id"],
                                  database_=clean_db.database)
    assert authenticate(clean_db.driver, clean_db.database, issued.secret, cache) == caller
    assert authenticate(clean_db.driver, clean_db.database, issued.secret) is None

    other = create_key(clean_db.driver, clean_db.database, "bob")
    assert authenticate(clean_db.driver, clean_db.database, other.secret, cache) is not None
    revoke_key(clean_db.driver, clean_db.database, other.record["id"])
    assert authenticate(clean_db.driver, clean_db.database, other.secret, cache) is None
    assert authenticate(clean_db.driver, clean_db.database, issued.secret, cache) is None


def test_erasing_a_user_through_this_process_drops_their_cached_key(clean_db: Services) -> None:
    issued = create_key(clean_db.driver, clean_db.database, "alice")
    cache = CallerCache(ttl=60)
    caller = authenticate(clean_db.driver, clean_db.database, issued.secret, cache)
    assert caller is not None and authenticate(clean_db.driver, clean_db.database, issued.secret, cache) == caller

    # The operation the API and MCP call (the rule erases; the operation drops what this process cached).
    forgotten = asyncio.run(forgetting.forget_user(Call(clean_db, caller, EventBus())))
    assert forgotten.api_keys == 1
    assert authenticate(clean_db.driver, clean_db.database, issued.secret, cache) is None
