"""The fit's held-out check and its ablation, on rows whose relevance one signal decides."""

from __future__ import annotations

import numpy as np

from hippograph.bench.fit import SIGNALS, TIME, Grid, Point, Rows, Table, fit


def rows(seed: int = 7, decided_by_time: bool = False) -> list[Rows]:
    """Per question ten candidates; the relevant one has the best vector (or, ``decided_by_time``, the
    only time match, each of its signals at 0.7 of the best other), the other signals are noise."""
    rng = np.random.default_rng(seed)
    made = []
    for conversation in ("a", "b", "c"):
        for _ in range(12):
            features = np.hstack([rng.uniform(0.0, 0.6, size=(10, len(SIGNALS))), np.zeros((10, 1))])
            if decided_by_time:
                features[0, :len(SIGNALS)] = 0.7 * features[1:9, :len(SIGNALS)].max(axis=0)
                features[0, len(SIGNALS)] = 1.0
            else:
                features[0, 0] = 0.9
            features[9] = 0.0  # a candidate no signal found still counts in the lowest band
            made.append(Rows(conversation, {"d0"}, [f"d{i}" for i in range(10)], features))
    return made


def test_a_signal_left_out_gets_no_weight_and_the_others_are_refitted() -> None:
    table = Table(rows())
    point = Grid(table, step=0.25).best(np.ones(len(table.evidence), dtype=bool), without="vector")
    assert point.weights[0] == 0.0 and abs(sum(point.weights) - 1.0) < 1e-9
    assert table.per_question(point)["hit@1"].mean() < 1.0


def test_the_ablation_shows_what_each_signal_earns_held_out() -> None:
    result = fit(rows(), floor=float("-inf"), step=0.25)
    held = result["leave_one_conversation_out"]
    assert result["weights"]["vector"] > 0 and held["hit@1"] > 0.8
    assert set(result["without"]) == {*SIGNALS, TIME}
    # Held out, what a score means: the top band holds the relevant candidates, the bottom none.
    bands = result["reliability"]
    assert sum(b["candidates"] for b in bands) == len(rows()) * 10
    assert bands[-1]["relevant"] > bands[0]["relevant"]
    # Only the vector decides: without it the held-out ranking falls, without any other it barely moves.
    assert result["without"]["vector"]["hit@1"] < held["hit@1"] - 0.3
    for signal in ("keyword", "recency", "relation", TIME):
        assert result["without"][signal]["hit@1"] >= held["hit@1"] - 0.1
    # No question here asks when, so no boost is fitted (a tie keeps the plainer point).
    assert result["time_boost"] == 0.0


def test_the_time_boost_is_fitted_when_saying_when_decides() -> None:
    result = fit(rows(decided_by_time=True), floor=float("-inf"), step=0.25)
    assert result["time_boost"] > 0 and all(fold["time_boost"] > 0 for fold in result["folds"])
    assert result["leave_one_conversation_out"]["hit@1"] > 0.8
    assert result["without"][TIME]["hit@1"] < result["leave_one_conversation_out"]["hit@1"] - 0.3


def test_a_boosted_score_is_the_weighted_sum_times_one_plus_the_boost() -> None:
    table = Table(rows(decided_by_time=True))
    point = Point((0.25, 0.25, 0.25, 0.25), 0.5)
    summed = table.features[..., :len(SIGNALS)].mean(axis=-1)
    assert np.allclose(table.scores(point), summed * (1.0 + 0.5 * table.features[..., len(SIGNALS)]))
