"""The store the latency and API benchmarks measure: distinct memories over tenants of mixed sizes.

Tenants (``tenants``): one holding 20 % of the store, ten holding 2 % each, a hundred holding
0.1 % each, and the remaining half in small tenants of 10-200 memories. A small tenant's size
depends on its number only, so a larger store keeps every tenant of a smaller one, each at least
as large.

Texts (``hippograph_bench.texts.pool``): every distinct sentence and short passage of the sets'
turns, each stored once in the whole store, embedded by the service's own model — no copies, no
vector moved by noise. Each tenant owns a stream of them: the pool cut, in tenant order, into the
shares of the largest store the pool can fill, so that a tenant's memories at any size are the
start of its stream, and read like a user's own conversations (a run of consecutive turns'
sentences and passages, with their speaker and time). A tenant's ``k``-th memory is SESSION
(7 in 10), PROJECT (2 in 10) or LONG_TERM (1 in 10), a new session every ``SESSION_LENGTH``
memories and a new project every ``PROJECT_LENGTH``: long agent sessions, so that a million
memories go in as few, large imports.

Written through ``bulk_import`` — the path a user imports by: secrets scrubbed, entities
extracted and linked, one audit line a batch — with capacities raised so that nothing is refused.
What was built is recorded in the store itself: each memory's attributes hold its text's place
in the pool and the pool's fingerprint (``texts.fingerprint``). Each run reads what a tenant short
of its share holds and adds only what is missing from the start of its stream (a run cut short
is completed by the next, a larger size only adds); a memory of another pool, in a tenant short of
its share or in the last tenant, was built from other data, and the run stops and says so. Projects named
``BENCH_WRITES…`` (``bench api``'s writes, forgotten after each run) are not the store's.
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hippograph.config import ConfigError
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import bulk_import
from hippograph.progress import Progress
from hippograph_bench import inspection
from hippograph_bench.texts import Text, fingerprint

# The shares: one tenant with a fifth of the store, ten with 2 % each, a hundred with 0.1 % each,
# and the remaining half in small tenants of 10-200 memories.
SIZE_CLASSES = (("20%", 1, 0.20), ("2%", 10, 0.02), ("0.1%", 100, 0.001))
SMALL = (10, 200)
CLASSES = (*(name for name, _, _ in SIZE_CLASSES), "small")
SESSION_LENGTH = 250
PROJECT_LENGTH = 10 * SESSION_LENGTH
ROOMY = 1_000_000_000
# The projects `bench api` writes into and forgets afterwards: never part of the store.
BENCH_WRITES = "api-bench-"


class StoreError(ConfigError):
    """The store cannot be built as asked; the message says why."""


@dataclass(frozen=True)
class Tenant:
    """One user of the store, and the size class it stands for."""

    user_id: str
    size_class: str
    memories: int


def tenants(size: int) -> list[Tenant]:
    """The tenants of a ``size``-memory store, largest class first."""
    population = [
        Tenant(f"mix-{name.rstrip('%').replace('.', '_')}pct-{i}", name, int(size * share))
        for name, count, share in SIZE_CLASSES
        for i in range(count)
    ]
    remaining = size - sum(t.memories for t in population)
    i = 0
    while remaining >= SMALL[0]:
        wanted = min(random.Random(f"small/{i}").randint(*SMALL), remaining)
        population.append(Tenant(f"mix-small-{i}", "small", wanted))
        remaining -= wanted
        i += 1
    return population


def streams(texts: Sequence[Text]) -> dict[str, range]:
    """Each tenant's stream: where in the pool its texts are, the pool cut into the shares of the
    largest store it fills (every tenant of a smaller store is one of these, and owns no more)."""
    cut, start = {}, 0
    for tenant in tenants(len(texts)):
        cut[tenant.user_id] = range(start, start + tenant.memories)
        start += tenant.memories
    return cut


def tier_of(k: int) -> Tier:
    """The tier of a tenant's ``k``-th memory: 7 in 10 session, 2 project, 1 long term."""
    roll = (k * 7919) % 10
    return Tier.SESSION if roll < 7 else Tier.PROJECT if roll < 9 else Tier.LONG_TERM


def planned(user_id: str, k: int, texts: Sequence[Text], index: int, pool: str) -> tuple[Scope, MemoryInput]:
    """Where and how the tenant's ``k``-th memory, the pool's text ``index``, is stored."""
    tier = tier_of(k)
    text = texts[index]
    # Project and long-term memories share one import a scope: each tier takes the part of the scope it needs.
    scope = Scope(user_id, f"p{k // PROJECT_LENGTH}", f"s{k // SESSION_LENGTH}" if tier is Tier.SESSION else None)
    return scope, MemoryInput(
        text.content, tier, created_at=text.at, attributes={"speaker": text.speaker, "text": index, "pool": pool}
    )


def held(services: Services, user_ids: Sequence[str]) -> dict[str, int]:
    """Memories each user holds in the store."""
    with services.driver.session(database=services.database) as session:
        counts = session.execute_read(inspection.memory_counts, list(user_ids), BENCH_WRITES)
    return {uid: counts.get(uid, 0) for uid in user_ids}


def grow(services: Services, size: int, texts: Sequence[Text]) -> dict[str, Any]:
    """Bring every tenant of ``tenants(size)`` to its share (progress on stderr); what was added, and how long it
    took."""
    if size > len(texts):
        raise StoreError(
            f"a store of {size} distinct memories needs as many texts; the data holds {len(texts)}: "
            "name more --data files"
        )
    population = tenants(size)
    stream = streams(texts)
    pool = fingerprint(texts)
    have = held(services, [t.user_id for t in population])
    short = [t for t in population if have[t.user_id] < t.memories]
    # A store built whole is of one pool: its last tenant (a small one) says which.
    _stored(services, population[-1].user_id, pool)
    started = time.perf_counter()
    roomy = dataclasses.replace(
        services,
        settings=dataclasses.replace(
            services.settings, session_capacity=ROOMY, project_capacity=ROOMY, long_term_capacity=ROOMY
        ),
    )
    with Progress(
        f"store {size}: {len(short)} tenants to fill", sum(t.memories - have[t.user_id] for t in short), "memories"
    ) as shown:
        for tenant in short:
            mine = stream[tenant.user_id]
            stored = _stored(services, tenant.user_id, pool)
            by_scope: dict[Scope, list[MemoryInput]] = {}
            for k in range(tenant.memories):
                if mine[k] not in stored:
                    scope, item = planned(tenant.user_id, k, texts, mine[k], pool)
                    by_scope.setdefault(scope, []).append(item)
            for scope, items in by_scope.items():
                bulk_import(roomy, scope, items)
                shown.advance(len(items))
    seconds = time.perf_counter() - started
    after = held(services, [t.user_id for t in population])
    created = sum(after.values()) - sum(have.values())
    return {
        "created": created,
        "seconds": round(seconds, 1),
        "reused": not short,
        "memories_per_second": round(created / seconds, 1) if created and seconds else None,
    }


def _stored(services: Services, user_id: str, pool: str) -> set[int]:
    """The places in the pool of the texts a tenant holds; a memory of another pool stops the run."""
    with services.driver.session(database=services.database) as session:
        attributes = [
            json.loads(a or "{}") for a in session.execute_read(inspection.memory_attributes, user_id, BENCH_WRITES)
        ]
    if other := [a for a in attributes if a.get("pool") != pool]:
        raise StoreError(
            f"{user_id} holds {len(other)} memories of another pool ({other[0].get('pool')}, not {pool}): "
            "the store was built from other --data; name the same files, or forget the mix-* users"
        )
    return {a["text"] for a in attributes}


def members(population: Sequence[Tenant]) -> Iterator[tuple[str, list[Tenant]]]:
    """The tenants of each size class, largest class first."""
    for name in CLASSES:
        yield name, [t for t in population if t.size_class == name]
