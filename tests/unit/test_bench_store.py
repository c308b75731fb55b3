"""The benchmark store's plan: the tiers' shares, and no text twice in one scope (nothing taken as a duplicate)."""

from __future__ import annotations

from collections import Counter

from hippograph.bench.store import SESSION_LENGTH, plan, tenants
from hippograph.graph.vocabulary import Tier

TEXTS = [f"turn {i}" for i in range(300)]


def test_the_tiers_take_seven_two_and_one_in_ten() -> None:
    tiers = Counter(item.tier for _, item in plan("lat-u0", 0, 1000, TEXTS))
    assert tiers == {Tier.SESSION: 700, Tier.PROJECT: 200, Tier.LONG_TERM: 100}


def test_no_text_repeats_within_a_scope_until_every_text_has_come() -> None:
    planned = plan("lat-u0", 0, 3000, TEXTS)
    by_scope: dict[tuple, list[str]] = {}
    for scope, item in planned:
        by_scope.setdefault((item.tier, scope.session_id), []).append(item.content)
    assert len(by_scope[Tier.PROJECT, None]) == 600
    for texts in by_scope.values():
        for start in range(0, len(texts), len(TEXTS)):
            chunk = texts[start:start + len(TEXTS)]
            assert len(set(chunk)) == len(chunk)
    assert all(len(texts) <= SESSION_LENGTH for (tier, _), texts in by_scope.items() if tier is Tier.SESSION)


def test_growing_plans_only_what_is_missing_and_the_same_as_at_once() -> None:
    whole = plan("lat-u3", 0, 500, TEXTS)
    grown = plan("lat-u3", 0, 200, TEXTS) + plan("lat-u3", 200, 500, TEXTS)
    assert [(s, i.content, i.tier, i.created_at) for s, i in grown] == [(s, i.content, i.tier, i.created_at) for s, i in whole]


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

