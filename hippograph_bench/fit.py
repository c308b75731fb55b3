"""Fit the hybrid profile's weights, time boost and period boost on LoCoMo-format development sets.

How: every question is asked once through the real recall statement with the hybrid profile's
candidate sources and a wide candidate list (300 rows, no floor), keeping each candidate's weighted
components (``SIGNALS``), its time match, its period match and relation's two parts. A grid — weights
over the simplex of ``SIGNALS`` (weights ≥ 0, step 0.05, summing to 1) times the time boosts of
``BOOSTS`` times the period boosts of ``PERIOD_BOOSTS`` — then re-ranks those rows offline by
``(w·components) × (1 + boost × time) × (1 + period boost × period)``. Because the recall statement
ranks its candidates by exactly that score, and no component depends on the weights or the boosts,
the offline ranking is what recall returns with them.

Every fusion the hybrid profile ships is fitted, each on the queries of its styles (``STYLE_FITS``):
the default on questions and requests (weights, time boost, period boost), keyword queries on every
question said again as its keywords (weights, period boost), statements (LoCoMo-Plus's triggers) on
weights and the carry. A boost's or the carry's grid is widened by its last step whenever the point
chosen sits on its top edge, so that a chosen value is never the grid's limit. The point kept is the one
chosen by the worst set: of each set with at least ``MIN_SET_QUESTIONS`` questions in the fit, its
shortfall from the best that set could have alone (mean Recall@10 + Hit@1 + NDCG@5), and the point
whose largest shortfall is smallest (ties: the best mean over every question, then the earlier grid
point, no boost first). A fit that wins one set by losing another is not kept.

Every grid point is scored once for every question, and its objective summed per fold and set; a fit
on some folds is then made of those sums. A fold is one conversation (a LongMemEval
haystack), and a conversation that two sets hold (LoCoMo and its audited labels, LoCoMo-Plus built
on the same conversations: at least half the smaller one's turns shared) is one fold, so that no
fold is fitted on its own turns. ``leave-one-conversation-out``: for each fold, the point fitted
on the others is scored on it alone; the pooled result says how the fit does on a conversation it
was not fitted on, over every set together and over each set apart. Each signal is checked the
same way with it left out (its weight, or its boost, 0) and the rest refitted (``without``): what it earns
held out.
``reliability``: held out, the share of relevant candidates per band of the score — how likely a
score above hybrid's floor (``summary_above``, 0.1) or its full-entry line (``full_above``, 0.5) is relevant.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from hippograph.config import ConfigError
from hippograph.memory.recall.analysis import Style, analyse
from hippograph.memory.recall.profiles import PROFILES, RecallProfile
from hippograph.memory.recall.query import Candidate
from hippograph.memory.services import Services
from hippograph.progress import Progress
from hippograph_bench import metrics
from hippograph_bench.data import Conversation, DataSet, Question
from hippograph_bench.locomo import ask, bench_services, forgotten_after, ingest, questions

STEP = 0.05
# The weighted signals. Recency is not among them: it earned nothing on any set, held out, on either model
# (bench/REPORT.md), so hybrid weighs it nothing and the fit no longer tries it.
SIGNALS = ("vector", "keyword", "relation")
# The time boosts the grid tries: a memory that says when, asked when, scores (1 + boost) times its sum.
BOOSTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
TIME = "time"
# The period boosts the grid tries: a memory written in a period the question names scores (1 + boost) times its sum.
PERIOD_BOOSTS = (0.0, 0.25, 0.5, 0.75, 1.0)
PERIOD = "period"
# The carries the grid tries for statements: a strong match's session neighbour scores at least carry times
# that match's strength (a cue and the turn after it).
CARRIES = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0)
CARRY = "carry"
# A grid whose chosen value sits on its top edge is widened by its last step, at most this many times.
MOST_WIDENINGS = 20
# Bands of the hybrid score for the reliability table.
BANDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)
# Ranks the metrics look at (recall@20 is the deepest).
DEPTH = 20
# The grid step of the check of relation's parts (``relation_parts``): three grids, so a coarser one.
PARTS_STEP = 0.1
# A row's parts: entity relation, neighbour, and the strength a carry multiplies.
PARTS = 3
# A set with fewer questions in a fit does not vote in the worst-set choice (its mean is too noisy to
# steer by); it still counts in the tie-break's mean.
MIN_SET_QUESTIONS = 30


class FitError(ConfigError):
    """Rows that cannot be fitted as asked (another model's, no question among them); the message says why."""


@dataclass
class Rows:
    # The fold it is held out with (``folds``), and its set.
    conversation: str
    evidence: set[str]
    dia_ids: list[str]
    features: np.ndarray  # (candidates, 5): vector, keyword, relation, time, period
    dataset: str = ""
    style: str = Style.QUESTION.value
    kind: str = ""
    # (candidates, 3): relation's two parts, entity relation and neighbour (relation is their mean), which
    # the check of relation's parts re-weighs, and the strength of the strong match the candidate neighbours,
    # which a carry multiplies (``Table.scores``, as the statement's ``carried``).
    parts: np.ndarray | None = None
    relevant: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.relevant = np.array([d in self.evidence for d in self.dia_ids], dtype=bool)


def extraction_profile(base: RecallProfile | None = None) -> RecallProfile:
    base = base or PROFILES["hybrid"]
    # Every query weighed as a question: every branch searched, whatever its style.
    return base.with_(name="fit", candidates=300, summary_above=-1.0, full_above=-1.0, styles={})


@dataclass(frozen=True)
class Point:
    """One grid point: the weights, the time boost, the period boost and the carry."""

    weights: tuple[float, ...]
    boost: float
    period: float
    carry: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "weights": dict(zip(SIGNALS, self.weights)),
            "time_boost": self.boost,
            "period_boost": self.period,
            "carry": self.carry,
        }

    @classmethod
    def of(cls, fitted: Mapping[str, Any]) -> Point:
        """The point ``as_dict`` gave."""
        return cls(
            tuple(fitted["weights"][signal] for signal in SIGNALS),
            fitted["time_boost"],
            fitted["period_boost"],
            fitted.get("carry", 0.0),
        )


@dataclass(frozen=True)
class Grids:
    """What a fit tries beside the weights: time boosts, period boosts and carries (one value: not fitted)."""

    boosts: tuple[float, ...] = (0.0,)
    periods: tuple[float, ...] = (0.0,)
    carries: tuple[float, ...] = (0.0,)

    def on_edge(self, point: Point) -> Grids | None:
        """These grids widened where ``point`` sits on a top edge (the best may lie past it), else None."""
        chosen = {"boosts": point.boost, "periods": point.period, "carries": point.carry}
        wider = {
            name: (*values, round(values[-1] + values[-1] - values[-2], 4))
            for name, values in ((name, getattr(self, name)) for name in chosen)
            if len(values) > 1 and chosen[name] == values[-1]
        }
        return replace(self, **wider) if wider else None

    def varied(self) -> tuple[str, ...]:
        """The boosts (``TIME``, ``PERIOD``) and ``CARRY`` this fit tries more than one value of."""
        return tuple(
            name
            for name, values in ((TIME, self.boosts), (PERIOD, self.periods), (CARRY, self.carries))
            if len(values) > 1
        )


@dataclass(frozen=True)
class StyleFit:
    """A fusion bench fit ships: the query styles whose rows it is fitted on, and what it tries."""

    styles: frozenset[str]
    grids: Grids


# Every fusion the hybrid profile ships (``hippograph/resources/hybrid_fit.json``): the default, fitted on
# questions and requests, and each style weighed its own way (``RecallProfile.styles``). No keyword query
# asks when (every way of asking holds a stop word), so keywords try no time boost; statements carry.
DEFAULT_FIT = StyleFit(frozenset({Style.QUESTION.value, Style.REQUEST.value}), Grids(BOOSTS, PERIOD_BOOSTS))
STYLE_FITS = {
    Style.KEYWORDS.value: StyleFit(frozenset({Style.KEYWORDS.value}), Grids(periods=PERIOD_BOOSTS)),
    Style.STATEMENT.value: StyleFit(frozenset({Style.STATEMENT.value}), Grids(carries=CARRIES)),
}


class Table:
    """The rows padded into arrays, so that a grid point is scored for every question at once."""

    def __init__(self, rows: Sequence[Rows]) -> None:
        width = max((len(r.dia_ids) for r in rows), default=0) or 1
        self.features = np.zeros((len(rows), width, len(SIGNALS) + 2))
        self.found = np.zeros((len(rows), width), dtype=bool)
        self.relevant = np.zeros((len(rows), width), dtype=bool)
        self.strength = np.zeros((len(rows), width))
        for i, r in enumerate(rows):
            self.features[i, : len(r.dia_ids)] = r.features
            self.strength[i, : len(r.dia_ids)] = _parts(r)[:, 2]
            self.found[i, : len(r.dia_ids)] = True
            self.relevant[i, : len(r.dia_ids)] = r.relevant
        self.evidence = np.array([len(r.evidence) for r in rows], dtype=np.float64)
        self.conversations = np.array([r.conversation for r in rows])
        self.datasets = np.array([r.dataset for r in rows])
        self.kinds = np.array([r.kind for r in rows])
        self.discounts = 1.0 / np.log2(np.arange(2, 7))
        self.ideal = np.array([self.discounts[: int(min(n, 5))].sum() for n in self.evidence])

    def scores(self, point: Point) -> np.ndarray:
        """(questions, candidates): each candidate's score at ``point``; with its carry, at least carry
        times the strength of the strong match it neighbours, as the recall statement scores it."""
        summed = self.features[..., : len(SIGNALS)] @ np.asarray(point.weights, dtype=np.float64)
        boosted = (
            summed
            * (1.0 + point.boost * self.features[..., len(SIGNALS)])
            * (1.0 + point.period * self.features[..., len(SIGNALS) + 1])
        )
        return np.maximum(boosted, point.carry * self.strength) if point.carry else boosted

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
            "ndcg@5": (hits[:, :5] * self.discounts[: min(5, width)]).sum(1) / self.ideal,
        }


def grid(step: float = STEP) -> list[tuple[float, ...]]:
    """Every weighing of ``SIGNALS`` at ``step``: weights ≥ 0 summing to 1."""
    n = round(1 / step)
    return [
        tuple(round(c * step, 4) for c in (*free, n - sum(free)))
        for free in itertools.product(range(n + 1), repeat=len(SIGNALS) - 1)
        if sum(free) <= n
    ]


def points(step: float = STEP, grids: Grids = DEFAULT_FIT.grids) -> list[Point]:
    """Every grid point, no boost or carry first (so that a tie keeps the plainer fit)."""
    return [
        Point(weights, boost, period, carry)
        for carry in grids.carries
        for period in grids.periods
        for boost in grids.boosts
        for weights in grid(step)
    ]


class Grid:
    """Every grid point's objective summed per fold and set (a cell), computed once for all the fits made of them."""

    def __init__(self, table: Table, step: float = STEP, grids: Grids = DEFAULT_FIT.grids) -> None:
        self.table = table
        self.grids = grids
        self.points = points(step, grids)
        self.folds, fold_of = np.unique(table.conversations, return_inverse=True)
        self.sets, set_of = np.unique(table.datasets, return_inverse=True)
        cells, cell_of = np.unique(fold_of * len(self.sets) + set_of, return_inverse=True)
        self.cell_fold, self.cell_set = cells // len(self.sets), cells % len(self.sets)
        self.questions = np.bincount(cell_of, minlength=len(cells)).astype(np.float64)
        self.sums = np.stack(
            [np.bincount(cell_of, weights=objective(table.per_question(p)), minlength=len(cells)) for p in self.points]
        )

    def best(self, folds: np.ndarray, without: str | None = None) -> Point:
        """The point chosen by the worst set over the questions of ``folds`` (a mask over ``self.folds``):
        the smallest largest shortfall of a set from its own best; ``without`` a signal (or a boost),
        among the points giving it nothing."""
        allowed = np.array([_gives_nothing(p, without) for p in self.points])
        cells = folds[self.cell_fold]
        return self.points[by_worst_set(self.sums[:, cells], self.questions[cells], self.cell_set[cells], allowed)]


def by_worst_set(sums: np.ndarray, questions: np.ndarray, sets: np.ndarray, allowed: np.ndarray | None = None) -> int:
    """The option chosen by the worst set: ``sums`` holds each option's objective (a row) summed over each
    group of questions (a column), ``questions`` how many a group holds and ``sets`` its set. Of each set
    with at least ``MIN_SET_QUESTIONS`` questions, an option's shortfall from the set's best mean; the
    option whose largest shortfall is smallest, among the ``allowed`` (ties: the best mean over every
    question, then the earlier option)."""
    allowed = np.ones(len(sums), dtype=bool) if allowed is None else allowed
    overall = np.where(allowed, sums.sum(axis=1) / questions.sum(), -np.inf)
    worst = np.zeros(len(sums))
    for name in np.unique(sets):
        mine = sets == name
        if questions[mine].sum() >= MIN_SET_QUESTIONS:
            means = np.where(allowed, sums[:, mine].sum(axis=1) / questions[mine].sum(), -np.inf)
            worst = np.maximum(worst, means.max() - means)
    # Shortfalls within a rounding error are ties, settled by the mean over every question.
    tied = allowed & (worst <= worst[allowed].min() + 1e-9)
    return int(np.argmax(np.where(tied, overall, -np.inf)))


def _gives_nothing(point: Point, signal: str | None) -> bool:
    if signal is None:
        return True
    if signal == TIME:
        return point.boost == 0
    if signal == PERIOD:
        return point.period == 0
    if signal == CARRY:
        return point.carry == 0
    return point.weights[SIGNALS.index(signal)] == 0


def objective(scores: Mapping[str, Any]) -> Any:
    """Recall@10 + Hit@1 + NDCG@5: of one mean, or per question."""
    return scores["recall@10"] + scores["hit@1"] + scores["ndcg@5"]


def mean(per_question: Mapping[str, np.ndarray], questions: np.ndarray | None = None) -> dict[str, float]:
    return {
        k: round(float(v[questions].mean() if questions is not None else v.mean()), 4) for k, v in per_question.items()
    }


def held_out(
    grid_: Grid, floor: float, without: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
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
        folds.append(
            {
                "held_out": str(conversation),
                "questions": int(test.sum()),
                **point.as_dict(),
                "results": mean(scores, test),
            }
        )
    return folds, pooled


def reliability(table: Table, folds: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Held out, per band of the score (each fold's point fitted on the other conversations): how
    many candidates scored in it and the share of them that were relevant."""
    scores, relevant = [], []
    for fold in folds:
        test = table.conversations == fold["held_out"]
        point = Point.of(fold)
        found = table.found[test]
        scores.append(table.scores(point)[test][found])
        relevant.append(table.relevant[test][found])
    s, y = np.concatenate(scores), np.concatenate(relevant)
    # Band i holds the scores in (BANDS[i - 1], BANDS[i]]; the first band holds a score of 0 too, the last
    # one a boosted score above 1.
    band = np.clip(np.searchsorted(BANDS, s, side="left"), 1, len(BANDS) - 1)
    bands = []
    for i, (low, high) in enumerate(itertools.pairwise(BANDS), start=1):
        inside = band == i
        if inside.any():
            bands.append(
                {
                    "from": low,
                    "to": high,
                    "candidates": int(inside.sum()),
                    "relevant": round(float(y[inside].mean()), 4),
                }
            )
    return bands


def fit(rows: Sequence[Rows], floor: float, step: float = STEP) -> dict[str, Any]:
    """Every fusion the hybrid profile ships, each fitted on its own rows (``fit_style``): the default
    (``DEFAULT_FIT``) and, under ``styles``, each of ``STYLE_FITS``. What ``bench fit --ship`` writes."""
    return {
        **fit_style(rows, DEFAULT_FIT, floor, step),
        "styles": {name: fit_style(rows, style_fit, floor, step) for name, style_fit in STYLE_FITS.items()},
    }


def fitted_grid(table: Table, grids: Grids, step: float = STEP) -> Grid:
    """The grid of ``grids`` widened until the point chosen on every fold sits on no top edge of it."""
    for _ in range(MOST_WIDENINGS):
        grid_ = Grid(table, step, grids)
        wider = grids.on_edge(grid_.best(np.ones(len(grid_.folds), dtype=bool)))
        if wider is None:
            return grid_
        grids = wider
    raise FitError(f"the fit still sits on the edge of its grid after {MOST_WIDENINGS} widenings: {grids}")


def fit_style(rows: Sequence[Rows], style_fit: StyleFit, floor: float, step: float = STEP) -> dict[str, Any]:
    """The point fitted on the rows of ``style_fit``'s styles (its grids widened where the point sat on an
    edge), a leave-one-conversation-out check (with what a score means held out), and the same check with
    each signal (and each boost or carry it fits) left out in turn, the rest refitted: what each earns on
    conversations it was not fitted on; every set together, and each apart."""
    rows = [r for r in rows if r.style in style_fit.styles]
    if not rows:
        raise FitError(
            f"no query of the styles {', '.join(sorted(style_fit.styles))} among the rows to fit: every "
            "fusion hybrid ships is fitted, so the sets must hold some (LoCoMo-Plus holds statements; "
            "every question is also asked as its keywords)"
        )
    table = Table(rows)
    grid_ = fitted_grid(table, style_fit.grids, step)
    grids = grid_.grids
    point = grid_.best(np.ones(len(grid_.folds), dtype=bool))
    folds, pooled = held_out(grid_, floor)
    without = {signal: held_out(grid_, floor, signal)[1] for signal in (*SIGNALS, *grids.varied())}
    in_sample = table.per_question(point, floor)
    parts = relation_parts(rows, floor, grids)

    def per_set(name: str) -> dict[str, Any]:
        mine = table.datasets == name
        return {
            "questions": int(mine.sum()),
            "in_sample": mean(in_sample, mine),
            "leave_one_conversation_out": mean(pooled, mine),
            "without": {signal: mean(scores, mine) for signal, scores in without.items()},
            "relation_parts": {name_: mean(scores, mine) for name_, scores in parts.items()},
            "kinds": {
                kind: {
                    "questions": int((mine & (table.kinds == kind)).sum()),
                    "leave_one_conversation_out": mean(pooled, mine & (table.kinds == kind)),
                }
                for kind in sorted(set(table.kinds[mine]))
            },
        }

    return {
        **point.as_dict(),
        "objective": (
            f"recall@10 + hit@1 + ndcg@5, chosen by the worst set: of each set with {MIN_SET_QUESTIONS} "
            "questions or more in the fit, its shortfall from the best it could have alone; the point whose "
            "largest shortfall is smallest (ties: the best mean over every question)"
        ),
        "styles_fitted": sorted({r.style for r in rows}),
        "grid_step": step,
        "time_boosts": list(grids.boosts),
        "period_boosts": list(grids.periods),
        "carries": list(grids.carries),
        "questions": len(rows),
        "in_sample": mean(in_sample),
        "leave_one_conversation_out": mean(pooled),
        "folds": folds,
        "reliability": reliability(table, folds),
        "without": {signal: mean(scores) for signal, scores in without.items()},
        "relation_parts_step": PARTS_STEP,
        "relation_parts": {name: mean(scores) for name, scores in parts.items()},
        "sets": {name: per_set(name) for name in dict.fromkeys(r.dataset for r in rows)},
    }


def relation_parts(
    rows: Sequence[Rows], floor: float, grids: Grids = DEFAULT_FIT.grids
) -> dict[str, dict[str, np.ndarray]]:
    """Held out, what each part of relation earns: the leave-one-conversation-out check (at
    ``PARTS_STEP``) with relation as both parts' mean (as served), as its entity part alone (what the
    profile gives without neighbours, ``seed_k`` 0) and as its neighbour part alone (half the neighbour:
    what it gives without entities); the metrics per question of each."""
    variants = {"both": None, "entity part only": lambda p: p[:, 0], "neighbour part only": lambda p: p[:, 1] / 2.0}
    found = {}
    for name, relation in variants.items():
        changed = rows
        if relation is not None:
            changed = []
            for r in rows:
                features = r.features.copy()
                features[:, SIGNALS.index("relation")] = relation(_parts(r))
                changed.append(replace(r, features=features))
        found[name] = held_out(Grid(Table(changed), PARTS_STEP, grids), floor)[1]
    return found


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
                        as_keywords = said_as_keywords(question, conversation.asked_at(question))
                        for asked in filter(None, (question, as_keywords)):
                            found.append(
                                _row(
                                    services,
                                    conversation,
                                    asked,
                                    profile,
                                    dia_ids,
                                    fold[data.name, conversation.sample_id],
                                    data.name,
                                )
                            )
                        shown.advance(1)
                shown.write(
                    f"{data.name} {conversation.sample_id}: {len(conversation.questions)} questions in "
                    f"{time.perf_counter() - started:.0f}s"
                )
    return found


def said_as_keywords(question: Question, at: datetime) -> Question | None:
    """A question (or request) said as its keywords, as a person searching types it ("support group
    caroline"), for the keyword style's fit: the same evidence; None for a query of another style, or one
    whose keywords do not read as keywords."""
    analysis = analyse(question.text, at)
    if analysis.style.value not in DEFAULT_FIT.styles:
        return None
    text = " ".join(analysis.keywords)
    return replace(question, text=text) if text and analyse(text, at).style is Style.KEYWORDS else None


def _row(
    services: Services,
    conversation: Conversation,
    question: Question,
    profile: RecallProfile,
    dia_ids: Mapping[str, Sequence[str]],
    fold: str,
    dataset: str,
) -> Rows:
    """The question asked through the recall statement: a row per turn it ranked, with its components."""
    # A row a turn: one stored as parts keeps the row of the part the statement ranked first.
    firsts: dict[str, Candidate] = {}
    for c in ask(services, conversation, question, profile).ranking:
        for dia_id in dia_ids.get(c.id, ()):
            firsts.setdefault(dia_id, c)
    features = np.array(
        [
            [
                c.components.vector or 0.0,
                c.components.keyword,
                c.components.relation,
                c.components.time,
                c.components.period,
            ]
            for c in firsts.values()
        ],
        dtype=np.float64,
    ).reshape(-1, len(SIGNALS) + 2)
    parts = np.array([[c.entity_relation, c.neighbour, c.strength] for c in firsts.values()], dtype=np.float64).reshape(
        -1, PARTS
    )
    style = analyse(question.text, conversation.asked_at(question)).style.value
    return Rows(fold, set(question.evidence), list(firsts), features, dataset, style, question.kind, parts)


def save(rows: Sequence[Rows], path: Path, model: str) -> None:
    """The extracted rows, so that a later fit of the same data and model skips the extraction."""
    sizes = [len(r.dia_ids) for r in rows]
    np.savez_compressed(
        path,
        model=np.array(model),
        offsets=np.cumsum([0, *sizes]),
        features=np.concatenate([r.features for r in rows]) if rows else np.zeros((0, len(SIGNALS) + 2)),
        dia_ids=np.array([d for r in rows for d in r.dia_ids], dtype=str),
        conversations=np.array([r.conversation for r in rows], dtype=str),
        datasets=np.array([r.dataset for r in rows], dtype=str),
        styles=np.array([r.style for r in rows], dtype=str),
        kinds=np.array([r.kind for r in rows], dtype=str),
        parts=np.concatenate([_parts(r) for r in rows]) if rows else np.zeros((0, PARTS)),
        evidence=np.array([json.dumps(sorted(r.evidence)) for r in rows], dtype=str),
    )


def load(path: Path, model: str) -> list[Rows]:
    """Rows saved by ``save``; refused when they were extracted with another model."""
    with np.load(path, allow_pickle=False) as npz:
        # Each read of an npz member unpacks it again: read each once.
        saved = {name: npz[name] for name in npz.files}
    if str(saved["model"]) != model:
        raise FitError(f"{path} holds rows extracted with {saved['model']}, not {model}: extract again")
    offsets, dia_ids, features, parts = saved["offsets"], saved["dia_ids"].tolist(), saved["features"], saved["parts"]
    if parts.shape[1:] != (PARTS,):
        raise FitError(f"{path} holds rows saved before they kept the strength a carry multiplies: extract again")
    return [
        Rows(
            str(conversation),
            set(json.loads(str(evidence))),
            dia_ids[a:b],
            features[a:b],
            str(dataset),
            str(style),
            str(kind),
            parts[a:b],
        )
        for conversation, evidence, dataset, style, kind, a, b in zip(
            saved["conversations"],
            saved["evidence"],
            saved["datasets"],
            saved["styles"],
            saved["kinds"],
            offsets,
            offsets[1:],
        )
    ]


def _parts(rows: Rows) -> np.ndarray:
    return rows.parts if rows.parts is not None else np.zeros((len(rows.dia_ids), PARTS))
