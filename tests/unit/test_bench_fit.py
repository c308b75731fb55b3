"""The weight fit's held-out check and its ablation, on rows whose relevance one signal decides."""

from __future__ import annotations

import numpy as np

from hippograph.bench.fit import SIGNALS, Rows, best_weights, fit


def rows(seed: int = 7) -> list[Rows]:
    """Per question ten candidates; the relevant one has the best vector, the other signals are noise."""
    rng = np.random.default_rng(seed)
    made = []
    for conversation in ("a", "b", "c"):
        for _ in range(12):
            features = rng.uniform(0.0, 0.6, size=(10, len(SIGNALS)))
            features[0, 0] = 0.9
            features[9] = 0.0  # a candidate no signal found still counts in the lowest band
            made.append(Rows(conversation, {"d0"}, [f"d{i}" for i in range(10)], features))
    return made


def test_a_signal_left_out_gets_no_weight_and_the_others_are_refitted() -> None:
    weights, scores = best_weights(rows(), step=0.25, without="vector")
    assert weights[0] == 0.0 and abs(sum(weights) - 1.0) < 1e-9
    assert scores["hit@1"] < 1.0


def test_the_ablation_shows_what_each_signal_earns_held_out() -> None:
    result = fit(rows(), floor=float("-inf"), step=0.25)
    held = result["leave_one_conversation_out"]
    assert result["weights"]["vector"] > 0 and held["hit@1"] > 0.8
    assert set(result["without"]) == set(SIGNALS)
    # Held out, what a score means: the top band holds the relevant candidates, the bottom none.
    bands = result["reliability"]
    assert sum(b["candidates"] for b in bands) == len(rows()) * 10
    assert bands[-1]["relevant"] > bands[0]["relevant"]
    # Only the vector decides: without it the held-out ranking falls, without any other it barely moves.
    assert result["without"]["vector"]["hit@1"] < held["hit@1"] - 0.3
    for signal in ("keyword", "recency", "relation"):
        assert result["without"][signal]["hit@1"] >= held["hit@1"] - 0.1
