"""The benchmark store's plan: the tiers' shares, and no text twice in one scope (nothing taken as a duplicate)."""

from __future__ import annotations

from collections import Counter

from hippograph.bench.store import SESSION_LENGTH, plan
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
