"""Recall latency and scoped exactness on a store of mixed tenants, at growing sizes.

The store: ``hippograph.bench.store.tenants`` — one tenant holding 20 % of it, ten
holding 2 % each, a hundred holding 0.1 % each, the rest small (10–200 memories) —
LoCoMo turns written by ``bulk_import`` with their entities and mentions as real
writes make them, each copy's vector the text's real vector moved a little
(``Perturbed``), so a million memories build in a fraction of the time embedding them
would take. Growing from one size to the next only adds memories.

Per size and tenant-size class, as a random tenant of the class: ``recall`` with the
hybrid profile at critical priority for distinct real LoCoMo questions embedded by the
real model, after a warm-up — the whole call, the embedding and the query apart; the db
hits of one profiled recall; exactness@10: recall's top 10 with the vector signal
alone against an exact cosine scan (numpy) of the tenant's in-scope memories; and, for the
same tenant and question, the bare two-index query (``hippograph.graph.two_index_search``:
one vector-index and one full-text search, as neo4j-graphrag's hybrid retriever) with the
ratio of recall's query part to it — what the graph work costs beyond the two indexes.
Plus the build's time, the store's size on disk, and Neo4j's heap and page cache.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from hippograph.bench import metrics
from hippograph.bench.locomo import VECTOR, load
from hippograph.bench.store import EPOCH, SIZE_CLASSES, Tenant, grow_mixed, tenants
from hippograph.graph import inspection
from hippograph.graph import recall as recall_cypher
from hippograph.graph.two_index_search import two_index_search
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.recall import lucene
from hippograph.memory.recall.analysis import analyse
from hippograph.memory.recall.query import MEMORY_TEXT_FIELDS, build_query, recall
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

NOW = EPOCH + timedelta(days=366)
WARM_UP = 20
CLASSES = tuple(name for name, _, _ in SIZE_CLASSES) + ("small",)
# Exactness: questions per class, spread over at most this many of the class's tenants.
EXACTNESS_QUERIES = 60
EXACTNESS_TENANTS = 3


def run(
    services: Services, sizes: Sequence[int], data: Sequence[str | Path], queries: int,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    conversations = load(data)
    texts = sorted({turn.content for c in conversations for turns in c.sessions.values() for turn in turns})
    questions = [q.text for c in conversations for q in c.questions]
    random.Random(3).shuffle(questions)
    result: dict[str, Any] = {
        "sizes": list(sizes), "classes": list(CLASSES), "model": services.embedder.name, "profile": "hybrid",
        "priority": "critical", "queries": queries, "by_size": {}, "build": {"distinct_texts": len(texts)},
        "method": (
            "A store of mixed tenants (one with 20 % of it, ten with 2 % each, a hundred with 0.1 % each, the rest "
            "10-200 memories each) of LoCoMo turns written by `bulk_import` with their entities; each copy's vector "
            "is its text's real vector moved a little (noise of norm 0.25); other users' memories in the same store, "
            "which share its indexes, are counted in the store table. Per size and tenant class, "
            f"{queries} recalls of real LoCoMo questions embedded by the model (hybrid profile, critical priority, "
            f"a random tenant of the class, after {WARM_UP} warm-up recalls), one at a time; `recall` = embedding + "
            "query + selection, measured in-process around `hippograph.memory.recall.query.recall`; exactness@10 = "
            "recall's top 10 by the vector signal alone against an exact cosine scan of the tenant's memories, "
            "and same texts@10 the share of the scan's top 10 texts among recall's (a text's copies count as one), "
            f"{EXACTNESS_QUERIES} questions per class; on this machine's {os.cpu_count()} cores (1-minute load "
            f"average at the start: {os.getloadavg()[0]:.2f})."
        ),
    }
    for size in sorted(sizes):
        result["build"][f"to_{size}"] = grow_mixed(services, size, texts, progress)
        population = tenants(size)
        by_class = {name: [t for t in population if t.size_class == name] for name in CLASSES}
        with services.driver.session(database=services.database) as session:
            # What each holds: a text comes back in a scope (a user's long-term tier) only as the same memory.
            held = session.execute_read(inspection.memory_counts, [t.user_id for t in population], None)
        measured: dict[str, Any] = {
            "tenants": {name: len(members) for name, members in by_class.items()},
            "memories": {name: sum(held.get(t.user_id, 0) for t in members) for name, members in by_class.items()},
            "store": _store(services), "classes": {}}
        for offset, name in enumerate(CLASSES):
            sample = [questions[(offset * (WARM_UP + queries) + i) % len(questions)] for i in range(WARM_UP + queries)]
            measured["classes"][name] = _measure(services, by_class[name], sample, queries)
            progress(f"{size} {name}: recall p95 {measured['classes'][name]['recall_ms']['p95']} ms, "
                     f"exactness@10 {measured['classes'][name]['exactness']['overlap@10']}")
        result["by_size"][str(size)] = measured
    return result


def _measure(services: Services, members: Sequence[Tenant], questions: Sequence[str], queries: int) -> dict[str, Any]:
    rng = random.Random(11)
    hybrid = PROFILES["hybrid"]
    for text in questions[:WARM_UP]:
        recall(services, text, Scope(rng.choice(members).user_id), "critical", hybrid, now=NOW)
    total, embed, query, bare = [], [], [], []
    for text in questions[WARM_UP:WARM_UP + queries]:
        user_id = rng.choice(members).user_id
        started = time.perf_counter()
        result = recall(services, text, Scope(user_id), "critical", hybrid, now=NOW)
        total.append((time.perf_counter() - started) * 1000)
        embed.append(result.timings.embed_ms)
        query.append(result.timings.query_ms)
        bare.append(_two_index_ms(services, user_id, text, hybrid.gates.candidates))

    def spread(values: list[float]) -> dict[str, float]:
        return {p: round(metrics.percentile(values, q), 2) for p, q in (("p50", 50), ("p95", 95), ("p99", 99))} | {
            "mean": round(sum(values) / len(values), 2)}

    probe = questions[WARM_UP]
    vector = services.embedder.embed_query(probe)
    profiled = recall_cypher.profile_recall(
        services.driver, services.database,
        build_query(hybrid, Scope(members[0].user_id), analyse(probe, NOW), vector.tolist(), NOW, list(Tier),
                    sketch=services.embedder.sketches(vector[None])[0]),
    )
    return {
        "recall_ms": spread(total), "embed_ms": spread(embed), "query_ms": spread(query),
        "two_index_ms": spread(bare),
        "query_over_two_index": {p: round(metrics.percentile(query, q) / max(metrics.percentile(bare, q), 1e-9), 2)
                                 for p, q in (("p50", 50), ("p95", 95))},
        "profile": {"dbHits": profiled["dbHits"], "rows": profiled["rows"], "operators": profiled["operators"][:10]},
        "exactness": _exactness(services, members[:EXACTNESS_TENANTS], questions[:EXACTNESS_QUERIES]),
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


def _exactness(services: Services, owners: Sequence[Tenant], questions: Sequence[str]) -> dict[str, Any]:
    """Recall's top 10 (vector signal only) against an exact scan of the owner's memories, round robin:
    the same memories, and the same texts (the store holds each text many times, each copy's vector
    moved a little, so a search can find the right texts through other copies than the nearest)."""
    scans = {}
    for owner in owners:
        with services.driver.session(database=services.database) as session:
            records = session.execute_read(inspection.owner_vectors, owner.user_id, [t.value for t in Tier])
        scans[owner.user_id] = ([r["id"] for r in records], {r["id"]: r["content"] for r in records},
                                np.array([r["embedding"] for r in records], dtype=np.float32))
    overlaps, text_overlaps = [], []
    for i, text in enumerate(questions):
        owner = owners[i % len(owners)].user_id
        ids, contents, matrix = scans[owner]
        q = services.embedder.embed_query(text)
        exact = [ids[j] for j in np.argsort(-(matrix @ q), kind="stable")[:10]]
        found = [c.id for c in recall(services, text, Scope(owner), "critical", VECTOR, now=NOW, record_access=False).ranking]
        overlaps.append(metrics.overlap_at(found, exact, 10))
        # The same measure over texts, each of the exact top 10's texts once.
        text_overlaps.append(metrics.overlap_at([contents[memory] for memory in found],
                                                list(dict.fromkeys(contents[memory] for memory in exact)), 10))
    return {"owners": [o.user_id for o in owners], "owned": [len(scans[o.user_id][0]) for o in owners],
            "queries": len(questions), "overlap@10": round(sum(overlaps) / len(overlaps), 4),
            "min_overlap@10": round(min(overlaps), 4),
            "text_overlap@10": round(sum(text_overlaps) / len(text_overlaps), 4)}


def _store(services: Services) -> dict[str, Any]:
    """The store's size on disk (the local server's, when this is it), every memory in it, and Neo4j's memory in use."""
    data = services.settings.state_dir / "neo4j" / "data"
    on_disk = sum(f.stat().st_size for f in data.rglob("*") if f.is_file()) if data.is_dir() else None
    with services.driver.session(database=services.database) as session:
        memory = session.execute_read(inspection.server_memory)
        # The mixed tenants may share the store with other users (another benchmark's): the index holds them all.
        in_store = session.execute_read(inspection.memory_total)
    return {"disk_bytes": on_disk, "memories_in_store": in_store, **memory}
