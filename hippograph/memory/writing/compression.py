"""When and how a tier is compressed — the policy, as the Izanagi spec states it.

| Tier      | Trigger         | Strategy (the spec's)                         |
|-----------|-----------------|-----------------------------------------------|
| Session   | > 80 % capacity | remove the oldest 30 % of task history        |
| Project   | > 70 % capacity | summarise old decisions, keep active ones     |
| Long Term | > 60 % capacity | archive patterns with count < 3               |

A write that would take its tier past the trigger compresses first. When the
spec's strategy alone does not bring the tier (with the incoming write) back
under the trigger, further steps follow — summarise the oldest memories, then
archive the oldest — never touching active decisions or user preferences. If
even that leaves no room, the write is refused. So after any write every tier
is at or under its trigger, which is at or under 80 % (the storage metric).

The plan is pure: it reads a snapshot of the tier and returns what to change;
``hippograph.graph.compression`` applies it in the writer's transaction.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import trigger

# A summarised memory keeps at most this share of its tokens (and at least a few).
SUMMARY_RATIO = 0.35
SUMMARY_MIN_TOKENS = 12
PATTERN_ARCHIVE_BELOW = 3
SESSION_REMOVE_SHARE = 0.30


@dataclass(frozen=True)
class TierItem:
    id: str
    kind: str
    tokens: int
    created_at: datetime
    active: bool = True  # not superseded (validUntil unset)
    summarised: bool = False
    count: int = 1  # occurrences, for patterns
    relevance: float = 1.0


@dataclass
class CompressionPlan:
    tier: Tier
    used_before: int
    target: int
    delete: list[str] = field(default_factory=list)
    summarise: dict[str, tuple[str, int]] = field(default_factory=dict)
    archive: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    used_after: int = 0

    @property
    def changes(self) -> bool:
        return bool(self.delete or self.summarise or self.archive)


def needs_compression(tier: Tier, used: int, incoming: int, capacity: int) -> bool:
    """True when the write would take the tier past its trigger (and not before)."""
    return used + incoming > trigger(tier) * capacity


def target_tokens(tier: Tier, capacity: int) -> int:
    return math.floor(trigger(tier) * capacity)


def plan(
    tier: Tier,
    items: list[TierItem],
    capacity: int,
    incoming: int,
    summarise: Callable[[str, int], tuple[str, int]],
    texts: dict[str, str],
) -> CompressionPlan:
    """What to change so that ``used + incoming`` fits under the tier's trigger.

    ``summarise(text, max_tokens)`` returns (summary, tokens); ``texts`` maps ids to content.
    """
    live = {item.id: item for item in items}
    used = sum(i.tokens for i in items)
    result = CompressionPlan(tier=tier, used_before=used, target=target_tokens(tier, capacity))

    def total() -> int:
        return sum(i.tokens for i in live.values()) + incoming

    def fits() -> bool:
        return total() <= result.target

    def remove(item: TierItem, into: list[str]) -> None:
        into.append(item.id)
        del live[item.id]

    def shorten(item: TierItem) -> bool:
        budget = max(SUMMARY_MIN_TOKENS, math.floor(item.tokens * SUMMARY_RATIO))
        if item.summarised or item.tokens <= budget:
            return False
        summary, tokens = summarise(texts.get(item.id, ""), budget)
        if tokens >= item.tokens:
            return False
        result.summarise[item.id] = (summary, tokens)
        live[item.id] = TierItem(**{**item.__dict__, "tokens": tokens, "summarised": True})
        return True

    def oldest_first() -> list[TierItem]:
        return sorted(live.values(), key=lambda i: (i.created_at, i.id))

    def protected(item: TierItem) -> bool:
        return (item.kind == "decision" and item.active) or item.kind == "preference"

    if tier is Tier.SESSION:
        result.steps.append("remove the oldest 30% of task history")
        while not fits() and live:
            ordered = oldest_first()
            for item in ordered[: max(1, math.ceil(len(ordered) * SESSION_REMOVE_SHARE))]:
                remove(item, result.delete)
    elif tier is Tier.PROJECT:
        result.steps.append("summarise old decisions, keep active ones")
        for item in oldest_first():
            if item.kind == "decision" and not item.active:
                shorten(item)
    else:
        result.steps.append("archive patterns with count < 3")
        for item in oldest_first():
            if item.kind == "pattern" and item.count < PATTERN_ARCHIVE_BELOW:
                remove(item, result.archive)

    if not fits() and tier is not Tier.SESSION:
        result.steps.append("summarise the oldest memories")
        for item in oldest_first():
            if fits():
                break
            if not protected(item):
                shorten(item)
    if not fits() and tier is not Tier.SESSION:
        result.steps.append("archive the oldest memories")
        for item in oldest_first():
            if fits():
                break
            if not protected(item):
                remove(item, result.archive)
                result.summarise.pop(item.id, None)

    result.used_after = total() - incoming
    return result
