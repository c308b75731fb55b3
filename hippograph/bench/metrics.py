"""Rank metrics for retrieval against a set of relevant ids (binary relevance)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

METRICS = ("recall@5", "recall@10", "recall@20", "hit@1", "ndcg@5")


def dedupe(ranked: Iterable[str]) -> list[str]:
    """The ranking with repeats dropped, first occurrence kept."""
    seen: dict[str, None] = {}
    for item in ranked:
        seen.setdefault(item)
    return list(seen)


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Share of the relevant ids found in the first ``k``."""
    if not relevant:
        raise ValueError("recall is undefined without relevant ids")
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def hit_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """1 when any of the first ``k`` is relevant, else 0."""
    return 1.0 if relevant.intersection(ranked[:k]) else 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Normalised discounted cumulative gain with binary gains: position i (from 1) counts 1/log2(i+1)."""
    if not relevant:
        raise ValueError("NDCG is undefined without relevant ids")
    dcg = sum(1.0 / math.log2(i + 2) for i, item in enumerate(ranked[:k]) if item in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal


def score_question(ranked: Sequence[str], relevant: set[str]) -> dict[str, float]:
    """Every metric of ``METRICS`` for one ranked list."""
    ranked = dedupe(ranked)
    return {
        "recall@5": recall_at(ranked, relevant, 5),
        "recall@10": recall_at(ranked, relevant, 10),
        "recall@20": recall_at(ranked, relevant, 20),
        "hit@1": hit_at(ranked, relevant, 1),
        "ndcg@5": ndcg_at(ranked, relevant, 5),
    }


def mean_scores(per_question: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each metric over questions (0 for none)."""
    if not per_question:
        return {name: 0.0 for name in METRICS}
    return {name: sum(q[name] for q in per_question) / len(per_question) for name in METRICS}


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0-100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def overlap_at(found: Sequence[str], exact: Sequence[str], k: int) -> float:
    """|top-k found ∩ top-k exact| / k: how much of the exact top-k a search returned."""
    truth = list(exact[:k])
    if not truth:
        return 1.0
    return len(set(found[:k]).intersection(truth)) / len(truth)
