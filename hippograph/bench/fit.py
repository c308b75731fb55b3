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
conversation they were not fitted on. Each signal is checked the same way with
it left out and the others refitted (``without``): what it earns held out.
``reliability``: held out, the share of relevant candidates per band of the
score — whether a score above the 0.3 / 0.5 gates is as likely relevant as the
gates assume.
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
# Bands of the hybrid score for the reliability table: the gates sit at 0.3 and 0.5.
BANDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)


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


def reliability(rows: Sequence[Rows], folds: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Held out, per band of the weighted sum (each fold's weights fitted on the other conversations): how
    many candidates scored in it and the share of them that were relevant."""
    scores, relevant = [], []
    for fold in folds:
        weights = np.asarray([fold["weights"][signal] for signal in SIGNALS], dtype=np.float64)
        for r in rows:
            if r.conversation == fold["held_out"] and len(r.features):
                scores.append(r.features @ weights)
                relevant.append(r.relevant)
    s, y = np.concatenate(scores), np.concatenate(relevant)
    # Band i holds the scores in (BANDS[i - 1], BANDS[i]]; the first band holds a score of 0 too.
    band = np.clip(np.searchsorted(BANDS, s, side="left"), 1, len(BANDS) - 1)
    bands = []
    for i, (low, high) in enumerate(zip(BANDS, BANDS[1:]), start=1):
        inside = band == i
        if inside.any():
            bands.append({"from": low, "to": high, "candidates": int(inside.sum()),
                          "relevant": round(float(y[inside].mean()), 4)})
    return bands


def objective(scores: dict[str, float]) -> float:
    return scores["recall@10"] + scores["hit@1"] + scores["ndcg@5"]


def best_weights(
    rows: Sequence[Rows], step: float = STEP, without: str | None = None,
) -> tuple[tuple[float, ...], dict[str, float]]:
    """The grid point with the best objective on ``rows``; ``without`` a signal, among points giving it 0."""
    left_out = SIGNALS.index(without) if without is not None else None
    best: tuple[float, tuple[float, ...], dict[str, float]] | None = None
    for weights in grid(step):
        if left_out is not None and weights[left_out] > 0:
            continue
        scores = evaluate(rows, weights)
        if best is None or objective(scores) > best[0] + 1e-12:
            best = (objective(scores), weights, scores)
    assert best is not None
    return best[1], best[2]


def held_out(
    rows: Sequence[Rows], floor: float, step: float = STEP, without: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Leave one conversation out: per fold the weights fitted on the others and their scores on it, and
    the scores pooled over questions."""
    folds, pooled = [], []
    for conversation in sorted({r.conversation for r in rows}):
        train = [r for r in rows if r.conversation != conversation]
        test = [r for r in rows if r.conversation == conversation]
        fold_weights, _ = best_weights(train, step, without)
        fold_scores = evaluate(test, fold_weights, floor)
        folds.append({"held_out": conversation, "questions": len(test), "weights": dict(zip(SIGNALS, fold_weights)),
                      "results": _round(fold_scores)})
        pooled.extend([fold_scores] * len(test))
    return folds, _round(metrics.mean_scores(pooled))


def fit(rows: Sequence[Rows], floor: float, step: float = STEP) -> dict[str, Any]:
    """Weights fitted on all rows, a leave-one-conversation-out check (with what a score means held
    out), and the same check with each signal left out in turn (the others refitted): what each
    signal earns on conversations it was not fitted on."""
    weights, _ = best_weights(rows, step)
    folds, pooled = held_out(rows, floor, step)
    return {
        "weights": dict(zip(SIGNALS, weights)),
        "objective": "mean recall@10 + hit@1 + ndcg@5",
        "grid_step": step,
        "questions": len(rows),
        "in_sample": _round(evaluate(rows, weights, floor)),
        "leave_one_conversation_out": pooled,
        "folds": folds,
        "reliability": reliability(rows, folds),
        "without": {signal: held_out(rows, floor, step, signal)[1] for signal in SIGNALS},
        "floor": floor,
    }


def _round(values: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in values.items()}
