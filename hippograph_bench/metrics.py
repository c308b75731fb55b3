"""Rank metrics for retrieval against a set of relevant ids (binary relevance)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

METRICS = ("recall@5", "recall@10", "recall@20", "hit@1", "ndcg@5")
# Session-level, as LongMemEval reports retrieval (``recall_any_at``).
SESSION_METRICS = ("recall_any@5", "recall_any@10")


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


def recall_any_at(ranked_sessions: Sequence[str], relevant: set[str], k: int) -> float:
    """1 when any relevant session is among the first ``k`` distinct sessions of the ranking, else 0:
    LongMemEval's session-level recall_any@k of a turn ranking (each turn read as its session,
    repeats dropped, as its ``evaluate_retrieval_turn2session`` does)."""
    return hit_at(dedupe(ranked_sessions), relevant, k)


def score_question(
    ranked: Sequence[str], relevant: set[str], sessions: tuple[Callable[[str], str], set[str]] | None = None
) -> dict[str, float]:
    """Every metric of ``METRICS`` for one ranked list; with ``sessions`` (each id's session, and the
    relevant sessions) those of ``SESSION_METRICS`` too."""
    ranked = dedupe(ranked)
    scores = {
        "recall@5": recall_at(ranked, relevant, 5),
        "recall@10": recall_at(ranked, relevant, 10),
        "recall@20": recall_at(ranked, relevant, 20),
        "hit@1": hit_at(ranked, relevant, 1),
        "ndcg@5": ndcg_at(ranked, relevant, 5),
    }
    if sessions is not None:
        session_of, relevant_sessions = sessions
        ranked_sessions = [session_of(item) for item in ranked]
        scores["recall_any@5"] = recall_any_at(ranked_sessions, relevant_sessions, 5)
        scores["recall_any@10"] = recall_any_at(ranked_sessions, relevant_sessions, 10)
    return scores


def mean_scores(per_question: Sequence[Mapping[str, float]], names: Sequence[str] = METRICS) -> dict[str, float]:
    """The mean of each metric of ``names`` over questions (0 for none)."""
    if not per_question:
        return {name: 0.0 for name in names}
    return {name: sum(q[name] for q in per_question) / len(per_question) for name in names}


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
