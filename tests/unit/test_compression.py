"""The compression policy, as the Izanagi spec states it, on hand-made tier snapshots."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippograph.memory.writing.compression import TierItem, needs_compression, plan
from hippograph.graph.vocabulary import Tier

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def items(kind: str, sizes: list[int], **extra) -> list[TierItem]:
    return [TierItem(id=f"{kind}{i}", kind=kind, tokens=t, created_at=T0 + timedelta(minutes=i), **extra) for i, t in enumerate(sizes)]


def halve(text: str, budget: int) -> tuple[str, int]:
    return f"summary of {text}", budget


@pytest.mark.parametrize(("tier", "capacity", "limit"), [(Tier.SESSION, 1000, 800), (Tier.PROJECT, 1000, 700), (Tier.LONG_TERM, 1000, 600)])
def test_trigger_fires_above_its_threshold_and_not_at_it(tier: Tier, capacity: int, limit: int) -> None:
    assert not needs_compression(tier, limit - 10, 10, capacity)
    assert needs_compression(tier, limit - 10, 11, capacity)


def test_session_removes_the_oldest_30_percent_of_task_history() -> None:
    snapshot = items("note", [80] * 10)  # 800 of 1000: at the trigger
    result = plan(Tier.SESSION, snapshot, 1000, 10, halve, {})
    assert result.delete == ["note0", "note1", "note2"]  # ceil(30 % of 10), oldest first
    assert result.used_after == 560
    assert result.steps == ["remove the oldest 30% of task history"]


def test_session_keeps_removing_30_percent_until_the_write_fits() -> None:
    snapshot = items("note", [100] * 8)
    result = plan(Tier.SESSION, snapshot, 1000, 700, halve, {})
    assert result.used_after + 700 <= 800
    assert result.delete == ["note0", "note1", "note2", "note3", "note4", "note5", "note6"]


def test_project_summarises_old_decisions_and_keeps_active_ones() -> None:
    old = [TierItem(id=f"old{i}", kind="decision", tokens=100, created_at=T0 + timedelta(minutes=i), active=False) for i in range(4)]
    active = [TierItem(id=f"act{i}", kind="decision", tokens=100, created_at=T0 + timedelta(hours=1, minutes=i)) for i in range(3)]
    result = plan(Tier.PROJECT, old + active, 1000, 50, halve, {i.id: i.id for i in old + active})
    assert set(result.summarise) == {"old0", "old1", "old2", "old3"}
    assert all(tokens == 35 for _, tokens in result.summarise.values())
    assert not result.delete and not result.archive
    assert result.used_after == 4 * 35 + 300
    assert result.steps == ["summarise old decisions, keep active ones"]


def test_long_term_archives_patterns_seen_fewer_than_3_times() -> None:
    rare = [TierItem(id=f"rare{i}", kind="pattern", tokens=100, created_at=T0, count=c) for i, c in enumerate([1, 2])]
    common = [TierItem(id="common", kind="pattern", tokens=100, created_at=T0, count=3)]
    prefs = items("preference", [150, 150])
    result = plan(Tier.LONG_TERM, rare + common + prefs, 1000, 100, halve, {})
    assert sorted(result.archive) == ["rare0", "rare1"]
    assert result.used_after == 400


def test_fallbacks_never_touch_active_decisions_or_preferences() -> None:
    snapshot = items("decision", [200, 200]) + items("preference", [100]) + items("note", [200, 200])
    result = plan(Tier.PROJECT, snapshot, 1000, 150, halve, {})
    touched = set(result.summarise) | set(result.archive) | set(result.delete)
    assert touched == {"note0", "note1"}
    assert result.used_after + 150 <= 700
    # Were the protected ones alone too big, nothing would be dropped for them: the caller refuses.
    refused = plan(Tier.PROJECT, snapshot, 1000, 300, halve, {})
    assert refused.used_after + 300 > refused.target


@settings(max_examples=200, deadline=None)
@given(
    tier=st.sampled_from(list(Tier)),
    sizes=st.lists(st.integers(1, 300), max_size=30),
    kinds=st.lists(st.sampled_from(["note", "fact", "pattern", "decision"]), min_size=30, max_size=30),
    incoming=st.integers(1, 500),
)
def test_after_a_plan_the_tier_fits_under_its_trigger_or_the_write_is_refused(tier, sizes, kinds, incoming) -> None:
    capacity = 2000
    snapshot = [
        TierItem(id=str(i), kind=kinds[i], tokens=t, created_at=T0 + timedelta(seconds=i), active=i % 2 == 0, count=i % 4)
        for i, t in enumerate(sizes)
    ]
    result = plan(tier, snapshot, capacity, incoming, lambda text, budget: (text, budget), {})
    kept = {i.id: i.tokens for i in snapshot if i.id not in result.delete and i.id not in result.archive}
    kept.update({k: t for k, (_, t) in result.summarise.items() if k in kept})
    assert result.used_after == sum(kept.values())
    protected = sum(i.tokens for i in snapshot if i.kind == "decision" and i.active)
    if tier is not Tier.SESSION and protected + incoming > result.target:
        return  # the write is refused by the caller: nothing may be dropped to make room
    assert result.used_after + incoming <= result.target <= 0.8 * capacity
