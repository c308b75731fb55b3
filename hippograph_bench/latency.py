"""Recall latency and scoped exactness on a store of distinct memories over mixed tenants, at growing sizes.

The store: ``hippograph_bench.store`` — one tenant holding 20 % of it, ten holding 2 % each, a
hundred holding 0.1 % each, the rest small (10–200 memories) — every memory a distinct sentence or
short passage of the sets' turns, embedded by the real model and written by ``bulk_import`` with
its entities and mentions as real writes make them. Growing from one size to the next only adds
memories, and a store built before (or cut short) is reused.

Per size and tenant-size class, as a random tenant of the class: ``recall`` with the
hybrid profile at critical priority for distinct real questions of the sets embedded by the
real model, after the service's warm-up (``hippograph.memory.warmup``, as ``hippograph serve`` runs it)
and a few recalls — the whole call, the embedding and the query apart; the db
hits of one profiled recall; exactness@10: recall's top 10 with the vector signal
alone against an exact cosine scan (numpy) of the tenant's in-scope memories; and, for the
same tenant and question, the bare two-index query (``hippograph_bench.two_index``:
one vector-index and one full-text search, as neo4j-graphrag's hybrid retriever) with the
ratio of recall's query part to it — what the graph work costs beyond the two indexes.
Plus how long building took, the store's size on disk, and Neo4j's heap and page cache.
"""

from __future__ import annotations

import dataclasses
import os
import random
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, UTC
from pathlib import Path
from typing import Any

import numpy as np

from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall import lucene
from hippograph.memory.recall.analysis import analyse
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.recall.query import MEMORY_TEXT_FIELDS, build_query, recall
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.warmup import warm_up
from hippograph.progress import Progress
from hippograph_bench import branches, inspection, metrics
from hippograph_bench.data import load
from hippograph_bench.locomo import VECTOR
from hippograph_bench.store import CLASSES, Tenant, grow, held, members, tenants
from hippograph_bench.texts import latest, pool
from hippograph_bench.two_index import two_index_search

WARM_UP = 20
# Exactness: questions per class, spread over at most this many of the class's tenants.
EXACTNESS_QUERIES = 60
EXACTNESS_TENANTS = 3
# Questions per class whose statement is also timed part by part (``hippograph_bench.branches``).
PARTS_QUERIES = 60


def run(
    services: Services,
    sizes: Sequence[int],
    data: Sequence[str | Path],
    queries: int,
) -> dict[str, Any]:
    """Each size's store grown, then each tenant class's recalls timed (progress on stderr)."""
    texts = pool(data)
    now = latest(texts) + timedelta(days=1)
    questions = list(dict.fromkeys(q.text for c in load(data) for q in c.questions))
    random.Random(3).shuffle(questions)
    result: dict[str, Any] = {
        "sizes": list(sizes),
        "classes": list(CLASSES),
        "model": services.embedder.name,
        "profile": "hybrid",
        "encoding": services.embedder.running(),
        "priority": "critical",
        "queries": queries,
        "by_size": {},
        "build": {"distinct_texts": len(texts)},
        "data": [Path(p).name for p in data],
        "method": (
            "A store of mixed tenants (one with 20 % of it, ten with 2 % each, a hundred with 0.1 % each, the rest "
            "10-200 memories each) of distinct memories: the sentences and 2-3-sentence passages of the sets' turns "
            f"({len(texts)} distinct texts), each stored once, embedded by the model and written by `bulk_import` "
            "with their entities; other users' memories in the same store, which share its indexes, are counted in "
            f"the store table. Per size and tenant class, {queries} recalls of real questions of the sets embedded "
            "by the model (hybrid profile, critical priority, a random tenant of the class, after the service's own "
            f"warm-up, `hippograph.memory.warmup`, as `hippograph serve` runs it at start, and {WARM_UP} warm-up "
            "recalls, each also as of a moment), one at a time; `recall` = embedding + query + selection, "
            "measured in-process around "
            "`hippograph.memory.recall.query.recall`; `recall asOf` = the same recall asked as of the moment "
            "the store is read (every memory recorded by then visible: the as-of path of the one statement, "
            "its index searches of memories in use or not and its scan of versions included), charged the "
            "embedding of the recall before it (whose vector of the question it finds kept); exactness@10 = "
            "recall's top 10 by the vector signal alone "
            f"against an exact cosine scan of the tenant's memories, {EXACTNESS_QUERIES} questions per class; the "
            f"statement's parts, p50 over the first {PARTS_QUERIES} questions of each class: the statement with one "
            "branch off at a time (keywords, relation traversal, session neighbours), the branch's cost the time "
            "saved, and the bare vector index search, the vector branch alone's time beyond it being the "
            "statement's fixed work and scoring (`hippograph_bench.branches`); on "
            f"this machine's {os.cpu_count()} cores (1-minute load average at the start: {os.getloadavg()[0]:.2f})."
        ),
    }
    for size in sorted(sizes):
        result["build"][f"to_{size}"] = grow(services, size, texts)
        # What `hippograph serve` does before it serves: each statement planned once, so that no timed recall
        # pays Neo4j's planning of a statement text or parameter types the warm-up recalls below did not meet.
        result["build"][f"warm_up_{size}"] = dataclasses.asdict(warm_up(services))
        population = tenants(size)
        counts = held(services, [t.user_id for t in population])
        by_class = dict(members(population))
        measured: dict[str, Any] = {
            "tenants": {name: len(group) for name, group in by_class.items()},
            "memories": {name: sum(counts[t.user_id] for t in group) for name, group in by_class.items()},
            "store": _store(services),
            "classes": {},
        }
        with Progress(f"bench latency at {size}", len(CLASSES), "tenant classes") as shown:
            for offset, name in enumerate(CLASSES):
                sample = [
                    questions[(offset * (WARM_UP + queries) + i) % len(questions)] for i in range(WARM_UP + queries)
                ]
                measured["classes"][name] = _measure(services, by_class[name], sample, queries, now)
                shown.write(
                    f"{size} {name}: recall p95 {measured['classes'][name]['recall_ms']['p95']} ms, "
                    f"exactness@10 {measured['classes'][name]['exactness']['overlap@10']}"
                )
                shown.advance(1)
        result["by_size"][str(size)] = measured
    return result


def _measure(
    services: Services, group: Sequence[Tenant], questions: Sequence[str], queries: int, now: datetime
) -> dict[str, Any]:
    rng = random.Random(11)
    hybrid = PROFILES["hybrid"]
    # A few recalls of the class's tenants first, as of now and as of a moment, untimed.
    for text in questions[:WARM_UP]:
        recall(services, text, Scope(rng.choice(group).user_id), "critical", hybrid, now=now)
        recall(services, text, Scope(rng.choice(group).user_id), "critical", hybrid, as_of=datetime.now(UTC))
    total, embed, query, bare, parts, as_of = [], [], [], [], [], []
    for n, text in enumerate(questions[WARM_UP : WARM_UP + queries]):
        user_id = rng.choice(group).user_id
        started = time.perf_counter()
        result = recall(services, text, Scope(user_id), "critical", hybrid, now=now)
        total.append((time.perf_counter() - started) * 1000)
        assert result.timings is not None  # recall() always times itself
        embed.append(result.timings.embed_ms)
        query.append(result.timings.query_ms)
        bare.append(_two_index_ms(services, user_id, text, hybrid.gates.candidates))
        started = time.perf_counter()
        past = recall(services, text, Scope(user_id), "critical", hybrid, as_of=datetime.now(UTC))
        # The encoder keeps recent queries, so this recall finds the question's vector made by the one before:
        # it is charged that one's embedding instead of its own, and the two differ by their statements' work.
        assert past.timings is not None
        as_of.append((time.perf_counter() - started) * 1000 - past.timings.embed_ms + result.timings.embed_ms)
        if n < PARTS_QUERIES:
            parts.append(branches.times(services, hybrid, user_id, text, now))

    def spread(values: list[float]) -> dict[str, float]:
        return {p: round(metrics.percentile(values, q), 2) for p, q in (("p50", 50), ("p95", 95), ("p99", 99))} | {
            "mean": round(sum(values) / len(values), 2)
        }

    def over(values: list[float], base: list[float]) -> dict[str, float]:
        """``values`` against ``base``, percentile by percentile."""
        return {
            p: round(metrics.percentile(values, q) / max(metrics.percentile(base, q), 1e-9), 2)
            for p, q in (("p50", 50), ("p95", 95))
        }

    probe = questions[WARM_UP]
    vector = services.embedder.embed_query(probe)
    profiled = inspection.profiled(
        services.driver,
        services.database,
        build_query(hybrid, Scope(group[0].user_id), analyse(probe, now), vector.tolist(), now, list(Tier)),
    )
    return {
        "recall_ms": spread(total),
        "embed_ms": spread(embed),
        "query_ms": spread(query),
        "two_index_ms": spread(bare),
        "as_of_recall_ms": spread(as_of),
        "as_of_over_recall": over(as_of, total),
        "parts_ms": branches.median(parts) | {"queries": len(parts)},
        "query_over_two_index": over(query, bare),
        "profile": {"dbHits": profiled["dbHits"], "rows": profiled["rows"], "operators": profiled["operators"][:10]},
        "exactness": _exactness(services, group[:EXACTNESS_TENANTS], questions[:EXACTNESS_QUERIES], now),
    }


def _two_index_ms(services: Services, user_id: str, text: str, k: int) -> float:
    """The bare two-index query's time for the question recall just answered (its vector is cached)."""
    embedding = services.embedder.embed_query(text).tolist()
    # Timed as recall's query part is: the statement's parameters, a session, the read.
    started = time.perf_counter()
    text_query = lucene.owned_query(user_id, lucene.keywords(text), MEMORY_TEXT_FIELDS)
    with services.driver.session(database=services.database, default_access_mode="READ") as session:
        session.execute_read(two_index_search, user_id, embedding, text_query, k)
    return (time.perf_counter() - started) * 1000


def _exactness(services: Services, owners: Sequence[Tenant], questions: Sequence[str], now: datetime) -> dict[str, Any]:
    """Recall's top 10 (vector signal only) against an exact scan of the owner's memories, round robin."""
    scans = {}
    for owner in owners:
        with services.driver.session(database=services.database) as session:
            records = session.execute_read(inspection.owner_vectors, owner.user_id, [t.value for t in Tier])
        scans[owner.user_id] = (
            [r["id"] for r in records],
            np.array([r["embedding"] for r in records], dtype=np.float32),
        )
    overlaps = []
    for i, text in enumerate(questions):
        asker = owners[i % len(owners)].user_id
        ids, matrix = scans[asker]
        q = services.embedder.embed_query(text)
        exact = [ids[j] for j in np.argsort(-(matrix @ q), kind="stable")[:10]]
        found = [
            c.id for c in recall(services, text, Scope(asker), "critical", VECTOR, now=now, record_access=False).ranking
        ]
        overlaps.append(metrics.overlap_at(found, exact, 10))
    return {
        "owners": [o.user_id for o in owners],
        "owned": [len(scans[o.user_id][0]) for o in owners],
        "queries": len(questions),
        "overlap@10": round(sum(overlaps) / len(overlaps), 4),
        "min_overlap@10": round(min(overlaps), 4),
    }


def _store(services: Services) -> dict[str, Any]:
    """The store's size on disk (the local server's, when this is it), every memory in it, and Neo4j's memory in use."""
    data = services.settings.state_dir / "neo4j" / "data"
    on_disk = sum(f.stat().st_size for f in data.rglob("*") if f.is_file()) if data.is_dir() else None
    with services.driver.session(database=services.database) as session:
        memory = session.execute_read(inspection.server_memory)
        # The mixed tenants may share the store with other users (another benchmark's): the index holds them all.
        in_store = session.execute_read(inspection.memory_total)
    return {"disk_bytes": on_disk, "memories_in_store": in_store, **memory}
