"""API keys: who is calling, and with which role.

A key is ``hg_`` and 43 URL-safe random characters (256 bits). It is shown once,
when created; the store keeps only its SHA-256, so a leaked database does not
leak usable keys. A key belongs to one user — every read and write made with
it is scoped to that user — and has a role: ``user``, or ``admin``, which may
also manage keys.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum
from typing import Any

from neo4j import READ_ACCESS, Driver

from hippograph.graph import keys as key_cypher
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.ids import check_id
from hippograph.memory.tiers import ScopeError, check_caller_id
from hippograph.memory.writing import outcomes

PREFIX = "hg_"
# Longer than any key we issue, short enough that hashing a hostile header costs nothing.
MAX_PRESENTED = 256


class Role(str, Enum):
    USER = "user"
    ADMIN = "admin"


@dataclass(frozen=True)
class Caller:
    """The owner of the key a request presented."""

    user_id: str
    role: Role
    key_id: str

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN


@dataclass(frozen=True)
class IssuedKey:
    """A new key: its record, and the secret, which is never shown again."""

    record: dict[str, Any]
    secret: str


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def create_key(driver: Driver, database: str, user_id: str, role: Role | str = Role.USER) -> IssuedKey:
    """Issue a key for ``user_id`` (the user is created if new)."""
    if not user_id:
        raise InvalidInput("a key needs a user id")
    try:
        check_caller_id("user", user_id)
        role = Role(role)
    except (ScopeError, ValueError) as exc:
        raise InvalidInput(str(exc)) from None
    secret = PREFIX + secrets.token_urlsafe(32)
    key_id = uuid.uuid4().hex[:16]
    with driver.session(database=database) as session:
        record = outcomes.write(session, key_cypher.create_key, key_id, hash_secret(secret), user_id, role.value)
    return IssuedKey(record, secret)


def list_keys(driver: Driver, database: str, user_id: str | None = None) -> list[dict[str, Any]]:
    """Every key (of one user, when given), oldest first; never a secret or a hash."""
    with driver.session(database=database, default_access_mode=READ_ACCESS) as session:
        return session.execute_read(key_cypher.list_keys, user_id)


def revoke_key(driver: Driver, database: str, key_id: str) -> dict[str, Any]:
    """Revoke a key for good; revoking a revoked key changes nothing."""
    check_id("key id", key_id)
    with driver.session(database=database) as session:
        record = outcomes.write(session, key_cypher.revoke_key, key_id)
    if record is None:
        raise NotFound(f"API key {key_id} not found")
    clear_caches()
    return record


def key_states(driver: Driver, database: str, key_ids: Collection[str]) -> dict[str, bool]:
    """For the keys among ``key_ids`` that still exist, whether each is revoked (a key missing went with its user)."""
    with driver.session(database=database, default_access_mode=READ_ACCESS) as session:
        return key_cypher.key_states(session, sorted(key_ids))


def clear_caches() -> None:
    """Forget every key checked so far, in every ``CallerCache`` of this process (a key was revoked or deleted)."""
    for cache in list(_CACHES):
        cache.clear()


class CallerCache:
    """Keys checked in the last ``ttl`` seconds, by hash: a burst of requests with one key costs one lookup.

    Only good keys are kept (a wrong key is looked up every time). Revoking a key
    through this process (``revoke_key``), or erasing its user, drops the whole cache at
    once; a key revoked by another process (the CLI) stops working within ``ttl``.
    """

    def __init__(self, ttl: float, size: int = 10_000) -> None:
        self.ttl = ttl
        self._size = size
        self._entries: OrderedDict[str, tuple[float, Caller]] = OrderedDict()
        self._lock = threading.Lock()
        _CACHES.add(self)

    def get(self, digest: str) -> Caller | None:
        with self._lock:
            entry = self._entries.get(digest)
            if entry is None or entry[0] < time.monotonic():
                self._entries.pop(digest, None)
                return None
            return entry[1]

    def put(self, digest: str, caller: Caller) -> None:
        with self._lock:
            self._entries[digest] = (time.monotonic() + self.ttl, caller)
            self._entries.move_to_end(digest)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_CACHES: weakref.WeakSet[CallerCache] = weakref.WeakSet()


def authenticate(
    driver: Driver, database: str, presented: str | None, cache: CallerCache | None = None
) -> Caller | None:
    """The caller a presented key belongs to, or None for a missing, malformed, unknown or revoked key.

    One auto-commit read, without the managed retry loop: while Neo4j is down a request
    fails at once (``ServiceUnavailable``) instead of retrying for half a minute; and it
    is one round trip, where an explicit transaction is three (begin, run, commit).
    """
    if not presented or len(presented) > MAX_PRESENTED or not presented.startswith(PREFIX):
        return None
    digest = hash_secret(presented)
    if cache is not None and (known := cache.get(digest)) is not None:
        return known
    with driver.session(database=database, default_access_mode=READ_ACCESS) as session:
        found = key_cypher.find_active_key(session, digest)
    if found is None:
        return None
    caller = Caller(user_id=found["userId"], role=Role(found["role"] or Role.USER.value), key_id=found["id"])
    if cache is not None:
        cache.put(digest, caller)
    return caller
