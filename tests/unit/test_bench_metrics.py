"""Rank metrics of the benchmarks, against hand-computed values."""

from __future__ import annotations

import math

import pytest

from hippograph_bench import metrics


def test_recall_counts_the_share_of_relevant_ids_found() -> None:
    ranked = ["a", "x", "b", "y", "z", "c"]
    assert metrics.recall_at(ranked, {"a", "b", "c"}, 5) == pytest.approx(2 / 3)
    assert metrics.recall_at(ranked, {"a", "b", "c"}, 6) == 1.0
    assert metrics.recall_at([], {"a"}, 10) == 0.0


def test_hit_at_one_looks_only_at_the_first() -> None:
    assert metrics.hit_at(["a", "b"], {"a"}, 1) == 1.0
    assert metrics.hit_at(["b", "a"], {"a"}, 1) == 0.0


def test_ndcg_with_binary_gains() -> None:
    # Relevant at ranks 2 and 4 of two relevant: (1/log2(3) + 1/log2(5)) / (1 + 1/log2(3)).
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert metrics.ndcg_at(["x", "a", "y", "b"], {"a", "b"}, 5) == pytest.approx(expected)
    assert metrics.ndcg_at(["a", "b"], {"a", "b"}, 5) == pytest.approx(1.0)
    assert metrics.ndcg_at(["x"], {"a"}, 5) == 0.0


def test_ndcg_ideal_is_capped_at_k() -> None:
    relevant = {str(i) for i in range(10)}
    assert metrics.ndcg_at([str(i) for i in range(5)], relevant, 5) == pytest.approx(1.0)


def test_score_question_deduplicates_the_ranking() -> None:
    scores = metrics.score_question(["a", "a", "a", "a", "a", "b"], {"a", "b"})
    assert scores["recall@5"] == 1.0  # the repeats of "a" do not push "b" out of the top 5


def test_mean_scores() -> None:
    one = metrics.score_question(["a"], {"a"})
    none = metrics.score_question(["x"], {"a"})
    mean = metrics.mean_scores([one, none])
    assert mean == {name: 0.5 for name in metrics.METRICS}
    assert metrics.mean_scores([]) == {name: 0.0 for name in metrics.METRICS}


def test_metrics_need_relevant_ids() -> None:
    with pytest.raises(ValueError):
        metrics.recall_at(["a"], set(), 5)


def test_percentile_interpolates() -> None:
    values = [float(v) for v in range(1, 101)]
    assert metrics.percentile(values, 50) == pytest.approx(50.5)
    assert metrics.percentile(values, 95) == pytest.approx(95.05)
    assert metrics.percentile([3.0], 99) == 3.0


def test_overlap_at_k() -> None:
    assert metrics.overlap_at(["a", "b", "c"], ["c", "b", "a"], 3) == 1.0
    assert metrics.overlap_at(["a", "x"], ["a", "b"], 2) == 0.5


def test_recall_any_counts_an_evidence_session_among_the_first_k_distinct_sessions() -> None:
    # Turns D1:1 … of six sessions; the evidence is in session D6, its turn ranked eighth.
    ranked = ["D1:1", "D1:2", "D2:1", "D2:3", "D3:1", "D4:1", "D5:2", "D6:4"]
    session_of = lambda dia_id: dia_id.split(":")[0]  # noqa: E731
    sessions = [session_of(d) for d in ranked]
    # The eighth turn is the sixth distinct session: not among the first five, among the first ten.
    assert metrics.recall_any_at(sessions, {"D6"}, 5) == 0.0
    assert metrics.recall_any_at(sessions, {"D6"}, 10) == 1.0
    assert metrics.recall_any_at(sessions, {"D9", "D2"}, 5) == 1.0
    scores = metrics.score_question(ranked, {"D6:4", "D9:1"}, (session_of, {"D6", "D9"}))
    assert (scores["recall_any@5"], scores["recall_any@10"], scores["recall@5"]) == (0.0, 1.0, 0.0)
    assert set(metrics.score_question(ranked, {"D6:4"})) == set(metrics.METRICS)


def test_mean_scores_of_the_metrics_named() -> None:
    scores = [{**metrics.score_question(["a"], {"a"}), "recall_any@5": 1.0, "recall_any@10": 1.0},
              {**metrics.score_question(["x"], {"a"}), "recall_any@5": 0.0, "recall_any@10": 1.0}]
    names = (*metrics.METRICS, *metrics.SESSION_METRICS)
    assert metrics.mean_scores(scores, names)["recall_any@10"] == 1.0
    assert "recall_any@5" not in metrics.mean_scores(scores)
