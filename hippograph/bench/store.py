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
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np

from hippograph.graph import inspection
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.store import MemoryInput, bulk_import

USERS = 100
SESSION_LENGTH = 25
# The mixed store's sessions are long agent sessions: ten times fewer, larger imports, so a million
# memories build in well under an hour; and a new project every ten sessions, since a large tenant's
# one project would outgrow the texts.
MIXED_SESSION_LENGTH = 250
MIXED_PROJECT_LENGTH = 10 * MIXED_SESSION_LENGTH
EPOCH = datetime(2025, 1, 1, tzinfo=timezone.utc)
PROJECT = "p1"
ROOMY = 1_000_000_000
PROGRESS_EVERY = 10_000


def user_id(i: int) -> str:
    return f"lat-u{i}"


@dataclass(frozen=True)
class Tenant:
    """One user of the mixed store, and the size class it stands for."""

    user_id: str
    size_class: str
    memories: int


# The mixed store's shares: one tenant with a fifth of it, ten with 2 % each, a hundred with
# 0.1 % each, and the remaining half in small tenants of 10-200 memories.
SIZE_CLASSES = (("20%", 1, 0.20), ("2%", 10, 0.02), ("0.1%", 100, 0.001))
SMALL = (10, 200)


def tenants(size: int) -> list[Tenant]:
    """The tenants of a ``size``-memory mixed store. A small tenant's size depends on its number only,
    so a larger store keeps every tenant of a smaller one, each at least as large."""
    population = [Tenant(f"mix-{name.rstrip('%').replace('.', '_')}pct-{i}", name, int(size * share))
                  for name, count, share in SIZE_CLASSES for i in range(count)]
    remaining = size - sum(t.memories for t in population)
    i = 0
    while remaining >= SMALL[0]:
        wanted = min(random.Random(f"small/{i}").randint(*SMALL), remaining)
        population.append(Tenant(f"mix-small-{i}", "small", wanted))
        remaining -= wanted
        i += 1
    return population


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


def plan(uid: str, have: int, want: int, texts: Sequence[str], session_length: int = SESSION_LENGTH,
         project_length: int | None = None) -> list[tuple[Scope, MemoryInput]]:
    """The user's memories ``have`` … ``want - 1``: each scope walks the texts from its own start with a
    step prime to their number, so a text comes back in a scope only after all the others have. A new
    session every ``session_length`` memories; a new project every ``project_length`` (None: one project)."""
    step = next(s for s in range(7919, 7919 + len(texts) + 1) if math.gcd(s, len(texts)) == 1)
    seen: dict[tuple[Tier, str | None], int] = {}
    planned = []
    for n in range(want):
        tier = tier_of(n)
        session = f"s{n // session_length}" if tier is Tier.SESSION else None
        project = PROJECT if project_length is None else f"p{n // project_length}"
        place = (tier, session if tier is Tier.SESSION else project if tier is Tier.PROJECT else None)
        k = seen[place] = seen.get(place, -1) + 1
        if n < have:
            continue
        start = random.Random(f"{uid}/{tier.value}/{place[1]}").randrange(len(texts))
        text = texts[(start + k * step) % len(texts)]
        # Project and long-term memories share one import: each tier takes the part of the scope it needs.
        planned.append((Scope(uid, project, session), MemoryInput(text, tier, created_at=EPOCH + timedelta(minutes=n * 5))))
    return planned


def grow(services: Services, size: int, texts: Sequence[str], progress: Callable[[str], None]) -> dict[str, Any]:
    """Add memories until every one of the ``USERS`` users owns ``size / USERS``; what was added, and how fast."""
    have = owned(services)
    return _fill(services, [(user_id(i), have[user_id(i)], size // USERS) for i in range(USERS)], texts,
                 lambda line: progress(f"  store {size}: {line}"))


class Perturbed:
    """The real vectors of the corpus's texts, each copy moved a little at random (a noise of norm
    about ``noise`` on a unit vector; cosine to the text's own vector about 1 - noise² / 2), so that a
    store many times the corpus is built in minutes and no two memories tie."""

    def __init__(self, services: Services, noise: float = 0.25, seed: int = 5) -> None:
        self.services = services
        self.scale = noise / math.sqrt(services.embedder.dimension)
        self.rng = np.random.default_rng(seed)

    def __call__(self, texts: list[str]) -> np.ndarray:
        vectors = self.services.embedder.embed_documents(texts)
        moved = vectors + self.rng.standard_normal(vectors.shape).astype(np.float32) * self.scale
        return moved / np.linalg.norm(moved, axis=1, keepdims=True)


def grow_mixed(services: Services, size: int, texts: Sequence[str], progress: Callable[[str], None]) -> dict[str, Any]:
    """Add memories until every tenant of ``tenants(size)`` owns its share, each copy's vector moved a
    little (``Perturbed``); what was added, and how fast."""
    population = tenants(size)
    with services.driver.session(database=services.database) as session:
        counts = session.execute_read(inspection.memory_counts, [t.user_id for t in population], None)
    wanted = [(t.user_id, counts.get(t.user_id, 0), t.memories) for t in population]
    return _fill(services, wanted, texts, lambda line: progress(f"  store {size}: {line}"), Perturbed(services),
                 MIXED_SESSION_LENGTH, MIXED_PROJECT_LENGTH)


def _fill(
    services: Services, wanted: Sequence[tuple[str, int, int]], texts: Sequence[str],
    progress: Callable[[str], None], vectors: Callable[[list[str]], np.ndarray] | None = None,
    session_length: int = SESSION_LENGTH, project_length: int | None = None,
) -> dict[str, Any]:
    """Bring each (user, has, wants) to what it wants through ``bulk_import``, capacities raised so
    that nothing is refused, saying how far it got every ``PROGRESS_EVERY`` memories. A planned text
    the scope already holds is stored once (``bulk_import`` answers with the memory it has), so what
    was added is counted in the store, before and after."""
    roomy = dataclasses.replace(services, settings=dataclasses.replace(
        services.settings, session_capacity=ROOMY, project_capacity=ROOMY, long_term_capacity=ROOMY))
    started = time.perf_counter()
    sent = reported = 0
    for n, (uid, have, want) in enumerate(wanted):
        by_scope: dict[Scope, list[MemoryInput]] = {}
        for scope, item in plan(uid, have, want, texts, session_length, project_length):
            by_scope.setdefault(scope, []).append(item)
        for scope, items in by_scope.items():
            bulk_import(roomy, scope, items)
            sent += len(items)
        if sent - reported >= PROGRESS_EVERY or n == len(wanted) - 1:
            reported = sent
            progress(f"users {n + 1}/{len(wanted)}, {sent} memories sent ({sent / (time.perf_counter() - started):.0f}/s)")
    seconds = time.perf_counter() - started
    with services.driver.session(database=services.database) as session:
        held = session.execute_read(inspection.memory_counts, [uid for uid, _, _ in wanted], None)
    created = sum(held.get(uid, 0) - have for uid, have, _ in wanted)
    return {"created": created, "sent": sent, "seconds": round(seconds, 1),
            "memories_per_second": round(created / seconds, 1) if created and seconds else None}
