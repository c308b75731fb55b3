"""Scoring profiles and what selection does with a ranking: modes, floors, budgets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippograph.memory.recall.profiles import (
    BUDGETS_SAID,
    PROFILES,
    RECALL_BUDGETS,
    Budget,
    Priority,
    ProfileError,
    Selection,
    Source,
    TierSearch,
    Weights,
    describe_budgets,
    get_priority,
    get_profile,
)
from hippograph.graph.recall import Components
from hippograph.memory.recall.query import Candidate, Mode, select, summary_text
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tokens import token_counter

TOKENS = token_counter()


def candidate(id: str, score: float, content: str = "a short memory", summary: str | None = None, tier: Tier = Tier.PROJECT) -> Candidate:
    return Candidate(id, tier, score, Components(None, 0.0, 0.0, 0.0, 0.0, 0.0), content, summary, None, ("keyword",))


def test_izanagi_is_the_spec() -> None:
    izanagi = PROFILES["izanagi"]
    assert izanagi.weights == Weights(vector=0.0, keyword=0.4, recency=0.3, relation=0.3)
    assert (izanagi.gates.full_above, izanagi.gates.summary_above) == (0.5, 0.3)
    assert izanagi.gates.selection is Selection.THRESHOLD and izanagi.gates.tier_first
    assert not izanagi.uses_embedding
    assert izanagi.neighbours.seed_k == 0  # relation depth is distance to the query's entities only


def test_hanzo_is_the_paper() -> None:
    hanzo = PROFILES["hanzo"]
    assert hanzo.vector.tiers == {
        Tier.SESSION: TierSearch(20, 0.3), Tier.PROJECT: TierSearch(10, 0.5), Tier.LONG_TERM: TierSearch(5, 0.6),
    }
    assert hanzo.gates.selection is Selection.TIER_TOP_K and hanzo.gates.rerank
    assert hanzo.sources == frozenset({Source.VECTOR})


def test_hybrid_is_the_default_and_weighs_vector_keyword_and_relation() -> None:
    hybrid = get_profile(None)
    assert hybrid.name == "hybrid"
    weights = hybrid.weights
    assert weights.vector > 0 and weights.keyword > 0 and weights.relation > 0
    assert sum(weights.as_params().values()) == pytest.approx(1.0)


def test_the_budget_table_is_said_from_the_one_table_by_the_schema_and_the_client() -> None:
    from hippograph.client.types import Priority as ClientPriority
    from hippograph.schema import schema

    said = BUDGETS_SAID
    assert said == "The recall budget: critical 3 items / 300 tokens, high 2 / 200, medium 1 / 100, low nothing."
    assert describe_budgets({Priority.CRITICAL: Budget(4, 400), Priority.LOW: Budget(0, 0)}) == (
        "The recall budget: critical 4 items / 400 tokens, low nothing.")
    assert ClientPriority.__doc__ == said
    assert said in schema.as_str()


def test_budgets_are_the_izanagi_table() -> None:
    assert RECALL_BUDGETS == {
        Priority.CRITICAL: Budget(3, 300), Priority.HIGH: Budget(2, 200),
        Priority.MEDIUM: Budget(1, 100), Priority.LOW: Budget(0, 0),
    }


def test_unknown_names_fail_with_the_choices() -> None:
    with pytest.raises(ProfileError, match="izanagi"):
        get_profile("bm42")
    with pytest.raises(ProfileError, match="critical"):
        get_priority("urgent")
    assert get_priority("HIGH") is Priority.HIGH


def test_max_hops_is_bounded() -> None:
    with pytest.raises(ProfileError):
        PROFILES["hybrid"].with_(max_hops=0)
    with pytest.raises(ProfileError):
        PROFILES["hybrid"].with_(max_hops=7)
    with pytest.raises(ProfileError):
        PROFILES["hybrid"].with_(max_hops=2.5)
    assert PROFILES["hybrid"].with_(max_hops=3).relation.max_hops == 3


def test_weights_must_not_be_negative() -> None:
    with pytest.raises(ProfileError):
        Weights(vector=-0.1)


def test_threshold_selection_full_summary_skip() -> None:
    ranked = [candidate("full", 0.8), candidate("summary", 0.4), candidate("skipped", 0.3)]
    items = select(ranked, PROFILES["izanagi"], Budget(3, 300), TOKENS)
    assert [(i.id, i.mode) for i in items] == [("full", Mode.FULL), ("summary", Mode.SUMMARY)]


def test_the_gate_delivers_nothing_under_its_share_of_the_first_score() -> None:
    ranked = [candidate("first", 0.8), candidate("close", 0.65), candidate("far", 0.55), candidate("closer", 0.7)]
    gated = PROFILES["hybrid"].with_(of_top=0.8)
    # 0.8 of the first's 0.8 is 0.64: "far" stops the walk, and what ranks after it is not read.
    assert [i.id for i in select(ranked, gated, Budget(3, 300), TOKENS)] == ["first", "close"]
    whole = PROFILES["hybrid"].with_(of_top=0.0)
    assert [i.id for i in select(ranked, whole, Budget(3, 300), TOKENS)] == ["first", "close", "far"]


def test_summary_is_the_stored_one_or_the_content_cut_short() -> None:
    long = " ".join(f"word{i}" for i in range(200))
    with_summary = candidate("a", 0.4, long, summary="the gist")
    without = candidate("b", 0.4, long)
    izanagi = PROFILES["izanagi"]
    assert summary_text(with_summary, izanagi, TOKENS) == "the gist"
    cut = summary_text(without, izanagi, TOKENS)
    assert cut.endswith("…") and long.startswith(cut[:-1])
    assert TOKENS.count(cut) <= izanagi.gates.summary_tokens


def test_an_entry_too_big_in_full_falls_back_to_its_summary_then_is_passed_over() -> None:
    big = " ".join(["memory"] * 150)  # 150 tokens: over a medium budget of 100 in full
    items = select([candidate("big", 0.9, big, summary="short form")], PROFILES["izanagi"], Budget(1, 100), TOKENS)
    assert [(i.id, i.mode, i.content) for i in items] == [("big", Mode.SUMMARY, "short form")]
    hanzo_items = select([candidate("big", 0.9, big), candidate("small", 0.5)], PROFILES["hanzo"], Budget(1, 100), TOKENS)
    assert [(i.id, i.mode) for i in hanzo_items] == [("small", Mode.FULL)]


def test_low_priority_returns_nothing() -> None:
    assert select([candidate("a", 0.99)], PROFILES["hybrid"], RECALL_BUDGETS[Priority.LOW], TOKENS) == []


words = st.text(alphabet=st.sampled_from("abcdefgh xyz.,"), min_size=1, max_size=600)


@settings(max_examples=200, deadline=None)
@given(
    priority=st.sampled_from(list(Priority)),
    profile=st.sampled_from(sorted(PROFILES)),
    rows=st.lists(st.tuples(st.floats(0, 1), words, st.one_of(st.none(), words)), max_size=30),
)
def test_budgets_are_never_exceeded(priority: Priority, profile: str, rows: list) -> None:
    chosen = PROFILES[profile]
    budget = RECALL_BUDGETS[priority]
    ranked = [candidate(str(i), score, content, summary) for i, (score, content, summary) in enumerate(rows)]
    items = select(ranked, chosen, budget, TOKENS)
    assert len(items) <= budget.items
    assert sum(i.tokens for i in items) <= budget.tokens
    assert all(i.tokens == TOKENS.count(i.content) for i in items)
    if chosen.gates.selection is Selection.THRESHOLD:
        assert all(i.score >= chosen.gates.of_top * max(c.score for c in ranked) for i in items)
        assert all(i.score > chosen.gates.summary_above for i in items)
        assert all(i.mode is Mode.SUMMARY or i.score > chosen.gates.full_above for i in items)


def test_hybrid_weights_are_the_shipped_fit_with_the_figures_that_chose_them() -> None:
    import json

    from hippograph.memory.recall.profiles import HYBRID_FIT, fitted

    shipped = json.loads(HYBRID_FIT.read_text())
    hybrid = PROFILES["hybrid"]
    # Recency is weighed nothing, in every style: the fit does not try it.
    assert hybrid.weights.as_params() == {**shipped["weights"], "recency": 0.0} == fitted().weights.as_params()
    assert {style.value: hybrid.fusion(style).weights.as_params() for style in hybrid.styles} == {
        name: {**style["weights"], "recency": 0.0} for name, style in shipped.get("styles", {}).items()}
    for weights in [shipped["weights"], *(style["weights"] for style in shipped.get("styles", {}).values())]:
        assert sum(weights.values()) == pytest.approx(1.0) and "recency" not in weights
    # The figures that chose it: held out, every set.
    assert shipped["questions"] and shipped["sets"]
    assert all(per["questions"] > 0 and per["leave_one_conversation_out"]["recall@10"] > 0
               for per in shipped["sets"].values())
    assert "floor" not in shipped  # the floor in force is the profile's own (Gates.summary_above)


def test_a_fit_file_gives_the_default_fusion_and_each_style_weighed_otherwise(tmp_path) -> None:
    import json

    from hippograph.memory.recall.analysis import Style
    from hippograph.memory.recall.profiles import fitted

    path = tmp_path / "fit.json"
    path.write_text(json.dumps({
        "weights": {"vector": 0.7, "keyword": 0.1, "relation": 0.2}, "time_boost": 0.3,
        "styles": {"statement": {"weights": {"vector": 1.0, "keyword": 0.0, "relation": 0.0}}},
    }))
    fit = fitted(path)
    assert fit.weights.vector == 0.7 and fit.weights.relation == 0.2
    assert (fit.time.time_boost, fit.time.period_boost) == (0.3, 0.0)
    assert set(fit.styles) == {Style.STATEMENT}
    assert fit.styles[Style.STATEMENT].weights == Weights(vector=1.0)
    profile = PROFILES["hybrid"].with_(weights=fit.weights, time=fit.time, styles=fit.styles)
    assert profile.fusion(Style.QUESTION).weights == fit.weights
    assert profile.fusion(Style.STATEMENT) is fit.styles[Style.STATEMENT]
