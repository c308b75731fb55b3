"""Fit the hybrid profile's weights on LoCoMo-format development data.

How: every question is asked once through the real recall statement with the
hybrid profile's candidate sources and a wide candidate list (300 rows, no
floor), keeping each candidate's four components. A grid over the simplex
(weights ≥ 0, step 0.05, summing to 1) then re-ranks those rows offline by
``w·components`` and keeps the weights with the best mean Recall@10 + Hit@1 +
NDCG@5 (ties: the earlier grid point). Because the recall statement ranks its
candidates by exactly that weighted sum, and no component depends on the
weights, the offline ranking is what recall returns with those weights.

``leave-one-conversation-out``: for each conversation, weights fitted on the
others are scored on it alone; the pooled result says how the weights do on a
conversation they were not fitted on.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hippograph.bench import metrics
from hippograph.bench.locomo import Conversation, bench_services, ingest
from hippograph.memory.recall.profiles import PROFILES, RecallProfile
from hippograph.memory.recall.query import recall
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

STEP = 0.05
SIGNALS = ("vector", "keyword", "recency", "relation")


@dataclass
class Rows:
    conversation: str
    evidence: set[str]
    dia_ids: list[str]
    features: np.ndarray  # (candidates, 4): vector, keyword, recency, relation
    relevant: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.relevant = np.array([d in self.evidence for d in self.dia_ids], dtype=bool)


def extraction_profile(base: RecallProfile | None = None) -> RecallProfile:
    base = base or PROFILES["hybrid"]
    return base.with_(name="fit", candidates=300, summary_above=-1.0, full_above=-1.0)


def extract(
    services: Services, conversations: Sequence[Conversation], progress: Callable[[str], None] = lambda _: None,
) -> list[Rows]:
    services = bench_services(services)
    profile = extraction_profile()
    found: list[Rows] = []
    for conversation in conversations:
        dia_ids = ingest(services, conversation)
        started = time.perf_counter()
        for question in conversation.questions:
            result = recall(services, question.text, Scope(conversation.user_id), "critical", profile,
                            now=conversation.now, record_access=False)
            ranked = [c for c in result.ranked if c.id in dia_ids]
            features = np.array([
                [c.components.vector or 0.0, c.components.keyword, c.components.recency, c.components.relation]
                for c in ranked
            ], dtype=np.float64).reshape(-1, 4)
            found.append(Rows(conversation.sample_id, set(question.evidence), [dia_ids[c.id] for c in ranked], features))
        progress(f"{conversation.sample_id}: {len(conversation.questions)} questions in {time.perf_counter() - started:.0f}s")
    return found


def grid(step: float = STEP) -> list[tuple[float, ...]]:
    n = round(1 / step)
    return [
        tuple(round(c * step, 4) for c in (a, b, c, n - a - b - c))
        for a, b, c in itertools.product(range(n + 1), repeat=3) if a + b + c <= n
    ]


def evaluate(rows: Sequence[Rows], weights: Sequence[float], floor: float = float("-inf")) -> dict[str, float]:
    """The metrics of ``hippograph.bench.metrics`` for the rows ranked by ``weights``, above ``floor``."""
    w = np.asarray(weights, dtype=np.float64)
    totals = dict.fromkeys(metrics.METRICS, 0.0)
    discounts = 1.0 / np.log2(np.arange(2, 7))
    for r in rows:
        scores = r.features @ w if len(r.features) else np.zeros(0)
        order = np.argsort(-scores, kind="stable")[:20]
        order = order[scores[order] > floor]
        hits = r.relevant[order]  # dia_ids are unique per conversation, so no repeats to drop
        n = len(r.evidence)
        totals["recall@5"] += hits[:5].sum() / n
        totals["recall@10"] += hits[:10].sum() / n
        totals["recall@20"] += hits[:20].sum() / n
        totals["hit@1"] += float(hits[:1].any())
        totals["ndcg@5"] += float((hits[:5] * discounts[:len(hits[:5])]).sum() / discounts[:min(n, 5)].sum())
    return {k: v / len(rows) for k, v in totals.items()} if rows else totals


def objective(scores: dict[str, float]) -> float:
    return scores["recall@10"] + scores["hit@1"] + scores["ndcg@5"]


def best_weights(rows: Sequence[Rows], step: float = STEP) -> tuple[tuple[float, ...], dict[str, float]]:
    best: tuple[float, tuple[float, ...], dict[str, float]] | None = None
    for weights in grid(step):
        scores = evaluate(rows, weights)
        if best is None or objective(scores) > best[0] + 1e-12:
            best = (objective(scores), weights, scores)
    assert best is not None
    return best[1], best[2]


def fit(rows: Sequence[Rows], floor: float, step: float = STEP) -> dict[str, Any]:
    """Weights fitted on all rows, and a leave-one-conversation-out check."""
    weights, in_sample = best_weights(rows, step)
    folds, pooled = [], []
    for held_out in sorted({r.conversation for r in rows}):
        train = [r for r in rows if r.conversation != held_out]
        test = [r for r in rows if r.conversation == held_out]
        fold_weights, _ = best_weights(train, step)
        fold_scores = evaluate(test, fold_weights, floor)
        folds.append({"held_out": held_out, "questions": len(test), "weights": dict(zip(SIGNALS, fold_weights)),
                      "results": _round(fold_scores)})
        pooled.extend([fold_scores] * len(test))
    return {
        "weights": dict(zip(SIGNALS, weights)),
        "objective": "mean recall@10 + hit@1 + ndcg@5",
        "grid_step": step,
        "questions": len(rows),
        "in_sample": _round(evaluate(rows, weights, floor)),
        "leave_one_conversation_out": _round(metrics.mean_scores(pooled)),
        "folds": folds,
        "floor": floor,
    }


def _round(values: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in values.items()}
