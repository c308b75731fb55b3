"""A key checked moments ago is trusted for the cache's lifetime, and no longer."""

from __future__ import annotations

import time

from hippograph.memory.keys import Caller, CallerCache, Role

ALICE = Caller(user_id="alice", role=Role.USER, key_id="k1")


def test_a_cached_caller_is_returned_until_it_expires() -> None:
    cache = CallerCache(ttl=0.05)
    cache.put("digest", ALICE)
    assert cache.get("digest") == ALICE
    time.sleep(0.06)
    assert cache.get("digest") is None


def test_clearing_forgets_every_key_and_the_size_is_bounded() -> None:
    cache = CallerCache(ttl=60, size=2)
    for digest in ("a", "b", "c"):
        cache.put(digest, ALICE)
    assert cache.get("a") is None and cache.get("c") == ALICE
    cache.clear()
    assert cache.get("b") is None and cache.get("c") is None
