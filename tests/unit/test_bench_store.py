"""The benchmark store's plan: tenants of mixed sizes, each with a stream of distinct texts of its own
that a larger store only extends, the tiers' shares; and the texts cut from the sets' turns."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

from hippograph.graph.vocabulary import Tier
from hippograph_bench.store import planned, streams, tenants, tier_of
from hippograph_bench.texts import LONGEST, SHORTEST, Text, cut, fingerprint

AT = datetime(2023, 5, 1, tzinfo=timezone.utc)
TEXTS = [Text(f"User: sentence number {i} of the pool, long enough", "User", AT) for i in range(30_000)]


def test_the_mixed_store_has_its_size_classes_and_only_grows() -> None:
    small, large = tenants(100_000), tenants(1_000_000)
    by_class = Counter(t.size_class for t in small)
    assert (by_class["20%"], by_class["2%"], by_class["0.1%"]) == (1, 10, 100)
    assert sum(t.memories for t in small) == 100_000 and sum(t.memories for t in large) == 1_000_000
    shares = {t.size_class: t.memories for t in small if t.size_class != "small"}
    assert shares == {"20%": 20_000, "2%": 2_000, "0.1%": 100}
    assert all(10 <= t.memories <= 200 for t in small if t.size_class == "small")
    grown = {t.user_id: t.memories for t in large}
    assert all(grown[t.user_id] >= t.memories for t in small)


def test_every_tenant_owns_a_stream_of_its_own_long_enough_for_any_store_the_pool_fills() -> None:
    cut_up = streams(TEXTS)
    places = [i for stream in cut_up.values() for i in stream]
    assert len(places) == len(set(places)) == sum(t.memories for t in tenants(len(TEXTS)))
    for size in (1_000, 10_000, len(TEXTS)):
        assert all(t.memories <= len(cut_up[t.user_id]) for t in tenants(size))


def test_the_tiers_take_seven_two_and_one_in_ten() -> None:
    assert Counter(tier_of(k) for k in range(1000)) == {Tier.SESSION: 700, Tier.PROJECT: 200, Tier.LONG_TERM: 100}


def test_a_memory_says_where_in_the_pool_it_came_from_and_keeps_its_text_speaker_and_time() -> None:
    kinds = {tier_of(k): k for k in range(2600, 2620)}
    for tier, k in kinds.items():
        scope, item = planned("mix-small-3", k, TEXTS, 123, "pool-1")
        assert (item.content, item.tier, item.created_at) == (TEXTS[123].content, tier, AT)
        assert item.attributes == {"speaker": "User", "text": 123, "pool": "pool-1"}
        # Sessions of 250 memories, projects of 2,500: a session memory in both, the others in their project.
        assert scope.session_id == ("s10" if tier is Tier.SESSION else None)
        assert scope.project_id == "p1"


def test_a_turn_is_cut_into_its_sentences_and_passages_of_two_and_three() -> None:
    turn = ("First sentence here. Second one follows! Third asks a question? Fourth.\n"
            "Fifth on a line of its own. Sixth closes it.")
    pieces = list(cut(turn))
    assert pieces == [
        "First sentence here.", "Second one follows!", "First sentence here. Second one follows!",
        "Third asks a question?", "Fourth.", "Fifth on a line of its own.",
        "Third asks a question? Fourth. Fifth on a line of its own.",
        "Sixth closes it.",
    ]
    assert SHORTEST < LONGEST


def test_a_pool_is_known_by_its_texts_in_order() -> None:
    assert fingerprint(TEXTS[:100]) == fingerprint(list(TEXTS[:100]))
    assert fingerprint(TEXTS[:100]) != fingerprint(TEXTS[1:101])
    assert fingerprint(TEXTS[:100]).startswith("100-")
