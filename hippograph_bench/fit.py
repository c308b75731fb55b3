"""Fit the hybrid profile's weights, time boost and period boost on LoCoMo-format development sets.

How: every question is asked once through the real recall statement with the hybrid profile's
candidate sources and a wide candidate list (300 rows, no floor), keeping each candidate's four
weighted components, its time match and its period match. A grid — weights over the simplex
(weights ≥ 0, step 0.05, summing to 1) times the time boosts of ``BOOSTS`` times the period boosts
of ``PERIOD_BOOSTS`` — then re-ranks those rows offline by
``(w·components) × (1 + boost × time) × (1 + period boost × period)`` and keeps the point with the
best mean Recall@10 + Hit@1 + NDCG@5 (ties: the earlier grid point, no boost first). Because the
recall statement ranks its candidates by exactly that score, and no component depends on the
weights or the boosts, the offline ranking is what recall returns with them.

Every grid point is scored once for every question, and its objective summed per fold; a fit on
some folds is then the best mean over their questions. A fold is one conversation (a LongMemEval
haystack), and a conversation that two sets hold (LoCoMo and its audited labels, LoCoMo-Plus built
on the same conversations: at least half the smaller one's turns shared) is one fold, so that no
fold is fitted on its own turns. ``leave-one-conversation-out``: for each fold, the point fitted
on the others is scored on it alone; the pooled result says how the fit does on a conversation it
was not fitted on, over every set together and over each set apart. Each signal is checked the same way with it left out (its
weight, or its boost, 0) and the rest refitted (``without``): what it earns held out.
``reliability``: held out, the share of relevant candidates per band of the score — whether a
score above the 0.3 / 0.5 gates is as likely relevant as the gates assume.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hippograph.memory.recall.profiles import PROFILES, RecallProfile
from hippograph.memory.services import Services
from hippograph.progress import Progress
from hippograph_bench import metrics
from hippograph_bench.data import DataSet
from hippograph_bench.locomo import ask, bench_services, forgotten_after, ingest, questions

STEP = 0.05
SIGNALS = ("vector", "keyword", "recency", "relation")
# The time boosts the grid tries: a memory that says when, asked when, scores (1 + boost) times its sum.
BOOSTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
TIME = "time"
# The period boosts the grid tries: a memory written in a period the question names scores (1 + boost) times its sum.
PERIOD_BOOSTS = (0.0, 0.25, 0.5, 0.75, 1.0)
PERIOD = "period"
# Bands of the hybrid score for the reliability table: the gates sit at 0.3 and 0.5.
BANDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)
# Ranks the metrics look at (recall@20 is the deepest).
DEPTH = 20


@dataclass
class Rows:
    # The fold it is held out with (``folds``), and its set.
    conversation: str
    evidence: set[str]
    dia_ids: list[str]
    features: np.ndarray  # (candidates, 6): vector, keyword, recency, relation, time, period
    dataset: str = ""
    relevant: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.relevant = np.array([d in self.evidence for d in self.dia_ids], dtype=bool)


def extraction_profile(base: RecallProfile | None = None) -> RecallProfile:
    base = base or PROFILES["hybrid"]
    # Every query weighed as a question: every branch searched, whatever its style.
    return base.with_(name="fit", candidates=300, summary_above=-1.0, full_above=-1.0, styles={})


@dataclass(frozen=True)
class Point:
    """One grid point: the four weights, the time boost and the period boost."""

    weights: tuple[float, ...]
    boost: float
    period: float

    def as_dict(self) -> dict[str, Any]:
        return {"weights": dict(zip(SIGNALS, self.weights)), "time_boost": self.boost, "period_boost": self.period}


class Table:
    """The rows padded into arrays, so that a grid point is scored for every question at once."""

    def __init__(self, rows: Sequence[Rows]) -> None:
        width = max((len(r.dia_ids) for r in rows), default=0) or 1
        self.features = np.zeros((len(rows), width, len(SIGNALS) + 2))
        self.found = np.zeros((len(rows), width), dtype=bool)
        self.relevant = np.zeros((len(rows), width), dtype=bool)
        for i, r in enumerate(rows):
            self.features[i, :len(r.dia_ids)] = r.features
            self.found[i, :len(r.dia_ids)] = True
            self.relevant[i, :len(r.dia_ids)] = r.relevant
        self.evidence = np.array([len(r.evidence) for r in rows], dtype=np.float64)
        self.conversations = np.array([r.conversation for r in rows])
        self.datasets = np.array([r.dataset for r in rows])
        self.discounts = 1.0 / np.log2(np.arange(2, 7))
        self.ideal = np.array([self.discounts[:int(min(n, 5))].sum() for n in self.evidence])

    def scores(self, point: Point) -> np.ndarray:
        """(questions, candidates): each candidate's score at ``point``."""
        summed = self.features[..., :len(SIGNALS)] @ np.asarray(point.weights, dtype=np.float64)
        return (summed * (1.0 + point.boost * self.features[..., len(SIGNALS)])
                * (1.0 + point.period * self.features[..., len(SIGNALS) + 1]))

    def per_question(self, point: Point, floor: float = float("-inf")) -> dict[str, np.ndarray]:
        """Each metric of ``hippograph_bench.metrics.METRICS`` per question, ranked at ``point`` above ``floor``."""
        scores = np.where(self.found, self.scores(point), -np.inf)
        # Ties keep the rows' order (the recall statement's), as a stable sort of the statement's list does.
        order = np.argsort(-scores, axis=1, kind="stable")[:, :DEPTH]
        kept = np.take_along_axis(scores, order, axis=1) > floor
        hits = np.take_along_axis(self.relevant, order, axis=1) & kept
        width = hits.shape[1]
        return {
            "recall@5": hits[:, :5].sum(1) / self.evidence,
            "recall@10": hits[:, :10].sum(1) / self.evidence,
            "recall@20": hits.sum(1) / self.evidence,
            "hit@1": hits[:, 0].astype(np.float64),
            "ndcg@5": (hits[:, :5] * self.discounts[:min(5, width)]).sum(1) / self.ideal,
        }


def grid(step: float = STEP) -> list[tuple[float, ...]]:
    n = round(1 / step)
    return [
        tuple(round(c * step, 4) for c in (a, b, c, n - a - b - c))
        for a, b, c in itertools.product(range(n + 1), repeat=3) if a + b + c <= n
    ]


def points(step: float = STEP) -> list[Point]:
    """Every grid point, no boost first (so that a tie keeps the plainer fit)."""
    return [Point(weights, boost, period) for period in PERIOD_BOOSTS for boost in BOOSTS for weights in grid(step)]


class Grid:
    """Every grid point's objective summed per fold, computed once for all the fits made of them."""

    def __init__(self, table: Table, step: float = STEP) -> None:
        self.table = table
        self.points = points(step)
        self.folds, fold_of = np.unique(table.conversations, return_inverse=True)
        self.questions = np.bincount(fold_of, minlength=len(self.folds)).astype(np.float64)
        self.sums = np.stack([np.bincount(fold_of, weights=objective(table.per_question(p)), minlength=len(self.folds))
                              for p in self.points])

    def best(self, folds: np.ndarray, without: str | None = None) -> Point:
        """The point with the best mean objective over the questions of ``folds`` (a mask over
        ``self.folds``); ``without`` a signal (or a boost), among the points giving it nothing."""
        allowed = np.array([_gives_nothing(p, without) for p in self.points])
        means = np.where(allowed, self.sums[:, folds].sum(axis=1) / self.questions[folds].sum(), -np.inf)
        return self.points[int(np.argmax(means))]


def _gives_nothing(point: Point, signal: str | None) -> bool:
    if signal is None:
        return True
    if signal == TIME:
        return point.boost == 0
    if signal == PERIOD:
        return point.period == 0
    return point.weights[SIGNALS.index(signal)] == 0


def objective(scores: Mapping[str, Any]) -> Any:
    """Recall@10 + Hit@1 + NDCG@5: of one mean, or per question."""
    return scores["recall@10"] + scores["hit@1"] + scores["ndcg@5"]


def mean(per_question: Mapping[str, np.ndarray], questions: np.ndarray | None = None) -> dict[str, float]:
    return {k: round(float(v[questions].mean() if questions is not None else v.mean()), 4)
            for k, v in per_question.items()}


def held_out(grid_: Grid, floor: float, without: str | None = None) -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    """Leave one fold out: per fold the point fitted on the others and its scores on it, and the
    scores per question, each from its own fold's fit."""
    table = grid_.table
    folds = []
    pooled = {k: np.zeros(len(table.evidence)) for k in metrics.METRICS}
    for i, conversation in enumerate(grid_.folds):
        test = table.conversations == conversation
        others = np.arange(len(grid_.folds)) != i
        point = grid_.best(others, without)
        scores = table.per_question(point, floor)
        for k in pooled:
            pooled[k][test] = scores[k][test]
        folds.append({"held_out": str(conversation), "questions": int(test.sum()), **point.as_dict(),
                      "results": mean(scores, test)})
    return folds, pooled


def reliability(table: Table, folds: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Held out, per band of the score (each fold's point fitted on the other conversations): how
    many candidates scored in it and the share of them that were relevant."""
    scores, relevant = [], []
    for fold in folds:
        test = table.conversations == fold["held_out"]
        point = Point(tuple(fold["weights"][signal] for signal in SIGNALS), fold["time_boost"], fold["period_boost"])
        found = table.found[test]
        scores.append(table.scores(point)[test][found])
        relevant.append(table.relevant[test][found])
    s, y = np.concatenate(scores), np.concatenate(relevant)
    # Band i holds the scores in (BANDS[i - 1], BANDS[i]]; the first band holds a score of 0 too, the last
    # one a boosted score above 1.
    band = np.clip(np.searchsorted(BANDS, s, side="left"), 1, len(BANDS) - 1)
    bands = []
    for i, (low, high) in enumerate(zip(BANDS, BANDS[1:]), start=1):
        inside = band == i
        if inside.any():
            bands.append({"from": low, "to": high, "candidates": int(inside.sum()),
                          "relevant": round(float(y[inside].mean()), 4)})
    return bands


def fit(rows: Sequence[Rows], floor: float, step: float = STEP) -> dict[str, Any]:
    """The point fitted on all rows, a leave-one-conversation-out check (with what a score means held
    out), and the same check with each signal (and each boost) left out in turn, the rest refitted:
    what each earns on conversations it was not fitted on; every set together, and each apart."""
    table = Table(rows)
    grid_ = Grid(table, step)
    point = grid_.best(np.ones(len(grid_.folds), dtype=bool))
    folds, pooled = held_out(grid_, floor)
    without = {signal: held_out(grid_, floor, signal)[1] for signal in (*SIGNALS, TIME, PERIOD)}
    in_sample = table.per_question(point, floor)

    def per_set(name: str) -> dict[str, Any]:
        mine = table.datasets == name
        return {"questions": int(mine.sum()), "in_sample": mean(in_sample, mine),
                "leave_one_conversation_out": mean(pooled, mine),
                "without": {signal: mean(scores, mine) for signal, scores in without.items()}}

    return {
        **point.as_dict(),
        "objective": "mean recall@10 + hit@1 + ndcg@5",
        "grid_step": step,
        "time_boosts": list(BOOSTS),
        "period_boosts": list(PERIOD_BOOSTS),
        "questions": len(rows),
        "in_sample": mean(in_sample),
        "leave_one_conversation_out": mean(pooled),
        "folds": folds,
        "reliability": reliability(table, folds),
        "without": {signal: mean(scores) for signal, scores in without.items()},
        "sets": {name: per_set(name) for name in dict.fromkeys(r.dataset for r in rows)},
        "floor": floor,
    }


def conversation_folds(sets: Sequence[DataSet]) -> dict[tuple[str, str], str]:
    """(set, conversation) → its fold: one a conversation, and one for a conversation that two sets
    hold (at least half the turns of the smaller one's shared, by text)."""
    nodes = [(data.name, c.sample_id) for data in sets for c in data.conversations]
    turns = {(data.name, c.sample_id): {t.content for t in c.turns} for data in sets for c in data.conversations}
    holders: dict[str, list[tuple[str, str]]] = {}
    for node, texts in turns.items():
        for text in texts:
            holders.setdefault(text, []).append(node)
    shared: dict[tuple[tuple[str, str], tuple[str, str]], int] = {}
    for held in holders.values():
        if len({name for name, _ in held}) > 1:
            for a, b in itertools.combinations(held, 2):
                if a[0] != b[0]:
                    shared[a, b] = shared.get((a, b), 0) + 1
    root = {node: node for node in nodes}

    def find(node: tuple[str, str]) -> tuple[str, str]:
        while root[node] != node:
            node = root[node]
        return node

    for (a, b), n in shared.items():
        if 2 * n >= min(len(turns[a]), len(turns[b])):
            root[find(b)] = find(a)
    return {node: "/".join(find(node)) for node in nodes}


def extract(services: Services, sets: Sequence[DataSet]) -> list[Rows]:
    services = bench_services(services)
    profile = extraction_profile()
    fold = conversation_folds(sets)
    found: list[Rows] = []
    with Progress("bench fit: extraction", questions(sets), "questions") as shown:
        for data in sets:
            for conversation in data.conversations:
                with forgotten_after(services, conversation):
                    dia_ids = ingest(services, conversation)
                    started = time.perf_counter()
                    for question in conversation.questions:
                        # A row a turn: one stored as parts keeps the row of the part the statement ranked first.
                        firsts = {}
                        for c in ask(services, conversation, question, profile).ranking:
                            for dia_id in dia_ids.get(c.id, ()):
                                firsts.setdefault(dia_id, c)
                        features = np.array([
                            [c.components.vector or 0.0, c.components.keyword, c.components.recency,
                             c.components.relation, c.components.time, c.components.period]
                            for c in firsts.values()
                        ], dtype=np.float64).reshape(-1, len(SIGNALS) + 2)
                        found.append(Rows(fold[data.name, conversation.sample_id], set(question.evidence),
                                          list(firsts), features, data.name))
                        shown.advance(1)
                shown.write(f"{data.name} {conversation.sample_id}: {len(conversation.questions)} questions in "
                            f"{time.perf_counter() - started:.0f}s")
    return found
