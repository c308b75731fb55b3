"""Recall latency at growing store sizes, and scoped exactness at each size.

The store: ``hippograph.bench.store`` (LoCoMo turns over 100 users, each owning
1 % of it, written by ``bulk_import``); growing from one size to the next only
adds memories, and a store already at a size is reused.

Timed: ``recall`` with the hybrid profile at critical priority for distinct
LoCoMo questions (so the embedder's cache never answers), as a random user,
after a warm-up; embedding and query time are reported apart. Exactness: for
``lat-u0`` (1 % of the store), recall's top-10 with the vector signal alone
against an exact numpy scan of that user's vectors, and what "vector index top-10
then filter by user" would have found.
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
from hippograph.bench.store import EPOCH, USERS, grow, owned, user_id
from hippograph.graph import inspection
from hippograph.graph import recall as recall_cypher
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.recall.query import build_query, recall
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

NOW = EPOCH + timedelta(days=366)
WARM_UP = 20
# Questions the exactness check asks of lat-u0 (recall against an exact numpy scan).
EXACTNESS_QUERIES = 100


def run(
    services: Services, sizes: Sequence[int], data: Sequence[str | Path], queries: int,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    conversations = load(data)
    texts = sorted({turn.content for c in conversations for turns in c.sessions.values() for turn in turns})
    questions = [q.text for c in conversations for q in c.questions]
    random.Random(3).shuffle(questions)

    result: dict[str, Any] = {
        "sizes": list(sizes), "users": USERS, "model": services.embedder.name, "profile": "hybrid",
        "priority": "critical", "queries": queries, "by_size": {},
        "build": {"distinct_texts": len(texts)},
        "method": (
            f"LoCoMo turns over {USERS} users (each owns 1 % of the store), written by `bulk_import`. "
            f"{queries} recalls per size of distinct LoCoMo questions (hybrid profile, critical priority, a random "
            f"user, after {WARM_UP} warm-up recalls), one at a time; `recall` = embedding + query + selection, "
            "measured in-process around `hippograph.memory.recall.query.recall`, on this machine's 2 cores (1-minute load "
            f"average at the start: {os.getloadavg()[0]:.2f})."
        ),
    }
    smallest = min(sizes) // USERS
    largest = max(owned(services).values())
    if largest > smallest:
        # Memories are only ever added: a store past the smallest size cannot be measured at it.
        raise ValueError(
            f"the store already holds {largest} memories of one benchmark user, more than a {min(sizes)}-memory "
            f"store gives one ({smallest}); measure on a store without those lat-u* users, or from that size up"
        )
    offset = 0
    for size in sorted(sizes):
        built = grow(services, size, texts, progress)
        result["build"][f"to_{size}"] = built
        sample = questions[offset:offset + WARM_UP + queries]
        offset += WARM_UP + queries
        if len(sample) < WARM_UP + queries:
            sample = (questions * 2)[:WARM_UP + queries]
        result["by_size"][str(size)] = _measure(services, sample, queries, progress)
        progress(f"{size}: recall p95 {result['by_size'][str(size)]['recall_ms']['p95']} ms")
    return result


def _measure(services: Services, questions: Sequence[str], queries: int, progress: Callable[[str], None]) -> dict[str, Any]:
    rng = random.Random(11)
    hybrid = PROFILES["hybrid"]
    for text in questions[:WARM_UP]:
        recall(services, text, Scope(user_id(rng.randrange(USERS))), "critical", hybrid, now=NOW)
    total, embed, query = [], [], []
    for text in questions[WARM_UP:WARM_UP + queries]:
        started = time.perf_counter()
        result = recall(services, text, Scope(user_id(rng.randrange(USERS))), "critical", hybrid, now=NOW)
        total.append((time.perf_counter() - started) * 1000)
        embed.append(result.timings.embed_ms)
        query.append(result.timings.query_ms)

    def spread(values: list[float]) -> dict[str, float]:
        return {p: round(metrics.percentile(values, q), 2) for p, q in (("p50", 50), ("p95", 95), ("p99", 99))} | {
            "mean": round(sum(values) / len(values), 2)}

    probe = questions[WARM_UP]
    vector = services.embedder.embed_query(probe)
    profiled = recall_cypher.profile_recall(
        services.driver, services.database,
        build_query(hybrid, Scope(user_id(0)), probe, vector.tolist(), NOW, list(Tier),
                    sketch=services.embedder.sketches(vector[None])[0]),
    )
    return {
        "recall_ms": spread(total), "embed_ms": spread(embed), "query_ms": spread(query),
        "profile": {"dbHits": profiled["dbHits"], "rows": profiled["rows"], "operators": profiled["operators"][:10]},
        "exactness": _exactness(services, questions[:EXACTNESS_QUERIES]),
    }


def _exactness(services: Services, questions: Sequence[str]) -> dict[str, Any]:
    owner = user_id(0)
    with services.driver.session(database=services.database) as session:
        records = session.execute_read(inspection.owner_vectors, owner, [t.value for t in Tier])
    ids = [r["id"] for r in records]
    created = [r["createdAt"] for r in records]
    matrix = np.array([r["embedding"] for r in records], dtype=np.float32)
    overlaps, tied, naive = [], [], []
    cosine_of = {}
    for text in questions:
        q = services.embedder.embed_query(text)
        scores = matrix @ q
        cosine_of = dict(zip(ids, scores))
        # Recall breaks ties as the scan does here: newer first, then by id (texts repeat, so equal vectors tie).
        order = sorted(range(len(ids)), key=lambda i: (-round(float(scores[i]), 6), -created[i], ids[i]))
        exact = [ids[i] for i in order[:10]]
        found = [c.id for c in recall(services, text, Scope(owner), "critical", VECTOR, now=NOW, record_access=False).ranked]
        overlaps.append(metrics.overlap_at(found, exact, 10))
        # And counting any memory as good as the 10th as a match.
        tenth = cosine_of[exact[-1]]
        tied.append(sum(1 for i in found[:10] if cosine_of[i] >= tenth - 1e-5) / 10)
        with services.driver.session(database=services.database) as session:
            naive.append(session.execute_read(inspection.owned_in_global_top_k, q.tolist(), owner, 10))
    return {"owner": owner, "owned": len(ids), "queries": len(questions),
            "overlap@10": round(sum(overlaps) / len(overlaps), 4), "min_overlap@10": round(min(overlaps), 4),
            "overlap@10_ties_as_matches": round(sum(tied) / len(tied), 4),
            "naive_found": round(sum(naive) / len(naive), 2)}
