"""The store the latency and API benchmarks measure: LoCoMo turns over 100 users, written by ``bulk_import``.

Each user (``lat-u0`` … ``lat-u99``) owns 1 % of it: sessions of 25 turns (70 %),
one project (20 %), long term (10 %), five minutes apart from 2025-01-01. Memories
go in through ``bulk_import`` — the path a user imports by: secrets scrubbed,
entities extracted and linked, one audit line a batch — with capacities raised so
that nothing is refused, and through the service's embedder, which keeps recent
vectors by text, so the ~2,800 distinct turns are encoded about once however large
the store. Within a scope (a session, the project, long term) no text repeats, so
nothing is taken for a duplicate. Growing from one size to the next only adds
memories; a store already at a size is reused.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from hippograph.graph import inspection
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.store import MemoryInput, bulk_import

USERS = 100
SESSION_LENGTH = 25
EPOCH = datetime(2025, 1, 1, tzinfo=timezone.utc)
PROJECT = "p1"
ROOMY = 1_000_000_000


def user_id(i: int) -> str:
    return f"lat-u{i}"


def owned(services: Services, skip_projects: str | None = None) -> dict[str, int]:
    """Memories per store user (those of projects named ``skip_projects…`` left out)."""
    ids = [user_id(i) for i in range(USERS)]
    with services.driver.session(database=services.database) as session:
        counts = session.execute_read(inspection.memory_counts, ids, skip_projects)
    return {uid: counts.get(uid, 0) for uid in ids}


def tier_of(n: int) -> Tier:
    """The tier of a user's ``n``-th memory: 7 in 10 session, 2 project, 1 long term."""
    roll = (n * 7919) % 10
    return Tier.SESSION if roll < 7 else Tier.PROJECT if roll < 9 else Tier.LONG_TERM


def plan(uid: str, have: int, want: int, texts: Sequence[str]) -> list[tuple[Scope, MemoryInput]]:
    """The user's memories ``have`` … ``want - 1``: each scope walks the texts from its own start with a
    step prime to their number, so a text comes back in a scope only after all the others have."""
    step = next(s for s in range(7919, 7919 + len(texts) + 1) if math.gcd(s, len(texts)) == 1)
    seen: dict[tuple[Tier, str | None], int] = {}
    planned = []
    for n in range(want):
        tier = tier_of(n)
        session = f"s{n // SESSION_LENGTH}" if tier is Tier.SESSION else None
        k = seen[tier, session] = seen.get((tier, session), -1) + 1
        if n < have:
            continue
        start = random.Random(f"{uid}/{tier.value}/{session}").randrange(len(texts))
        text = texts[(start + k * step) % len(texts)]
        # Project and long-term memories share one import: each tier takes the part of the scope it needs.
        planned.append((Scope(uid, PROJECT, session), MemoryInput(text, tier, created_at=EPOCH + timedelta(minutes=n * 5))))
    return planned


def grow(services: Services, size: int, texts: Sequence[str], progress: Callable[[str], None]) -> dict[str, Any]:
    """Add memories until every user owns ``size / USERS``; what was added, and how fast."""
    per_user = size // USERS
    roomy = dataclasses.replace(services, settings=dataclasses.replace(
        services.settings, session_capacity=ROOMY, project_capacity=ROOMY, long_term_capacity=ROOMY))
    have = owned(services)
    started = time.perf_counter()
    created = 0
    for i in range(USERS):
        uid = user_id(i)
        by_scope: dict[Scope, list[MemoryInput]] = {}
        for scope, item in plan(uid, have[uid], per_user, texts):
            by_scope.setdefault(scope, []).append(item)
        for scope, items in by_scope.items():
            created += len(set(bulk_import(roomy, scope, items)))
        if i % 20 == 19:
            progress(f"  store {size}: users {i + 1}/{USERS}, {created} memories added")
    seconds = time.perf_counter() - started
    return {"created": created, "seconds": round(seconds, 1),
            "memories_per_second": round(created / seconds, 1) if created and seconds else None}
