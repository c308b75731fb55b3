"""Which memories a scope holds: declared once, read by every Cypher fragment and by the Python rule.

A memory belongs to a user and, by its tier, to a project or a session (``PLACED_BY``). Two
rules follow from that one table:

- **where a memory goes** (:func:`tier_ids`, ``IN_TIER_SCOPE``): a memory keeps the ids its tier
  is placed by, and its tier scope is the narrowest of them (a SESSION memory is one session's,
  and still says its project);
- **what a caller sees** (:func:`seen_by`, ``SEEN``, :func:`index_filter`): each tier narrowed by
  the narrowest of its ids the caller names. A tier of the user alone is always seen; a tier
  placed by none of the ids the caller names is not seen, unless the caller names none at all.

So a user alone sees all their memories; naming a project adds that project's PROJECT memories
and sessions; naming a session narrows the SESSION tier to itself.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from hippograph.graph.vocabulary import Tier

# The scope's ids beside the user, as memory properties (and Cypher parameters), with the word a caller uses.
SCOPE_IDS = {"projectId": "project", "sessionId": "session"}

# What places a tier's memories, beside their user: its scope ids, narrowest first.
PLACED_BY: dict[Tier, tuple[str, ...]] = {
    Tier.LONG_TERM: (),
    Tier.PROJECT: ("projectId",),
    Tier.SESSION: ("sessionId", "projectId"),
}


def tier_key(tier: Tier) -> str | None:
    """The id a memory of ``tier`` cannot go without (its tier scope); None for a tier of the user alone."""
    placed = PLACED_BY[tier]
    return placed[0] if placed else None


def tier_ids(tier: Tier, ids: Mapping[str, str | None]) -> dict[str, str | None]:
    """Of a scope's ``ids`` (by property), those a memory of ``tier`` keeps; the others are None."""
    return {name: ids.get(name) if name in PLACED_BY[tier] else None for name in SCOPE_IDS}


def seen_by(tier: Tier, named: Collection[str]) -> str | bool:
    """How a caller naming the scope ids ``named`` sees ``tier``: the property its memories must
    match (``"projectId"``, ``"sessionId"``), True for the whole tier, False for none of it."""
    placed = PLACED_BY[tier]
    if not placed:
        return True
    for name in placed:
        if name in named:
            return name
    return not named


def index_filter(tier: Tier, named: Collection[str]) -> str | None:
    """What :func:`seen_by` asks of ``tier`` as a vector index filter on `m`, for a statement made
    for a scope naming ``named``: a conjunction to append, or None when the tier is not seen."""
    seen = seen_by(tier, named)
    if seen is False:
        return None
    return "" if seen is True else f" AND m.{seen} = ${seen}"


def _seen(tier: Tier) -> str:
    # seen_by, asked at run time: the parameters of the ids the caller does not name are null.
    placed = PLACED_BY[tier]
    if not placed:
        return "true"
    narrowed = " ".join(f"WHEN ${name} IS NOT NULL THEN m.{name} = ${name}" for name in placed)
    unnamed = " AND ".join(f"${name} IS NULL" for name in SCOPE_IDS if name not in placed) or "true"
    return f"CASE {narrowed} ELSE {unnamed} END"


def _in_tier(tier: Tier) -> str:
    key = tier_key(tier)
    return "true" if key is None else f"m.{key} = ${key}"


# Whether memory `m` (of the caller's user) is seen by the scope in $projectId and $sessionId.
SEEN = "CASE m.tier " + " ".join(f"WHEN '{tier.value}' THEN {_seen(tier)}" for tier in PLACED_BY) + " ELSE false END"

# Whether memory `m` of tier $tier is in the tier scope of $projectId and $sessionId (as tier_ids keeps them).
IN_TIER_SCOPE = (
    "CASE $tier " + " ".join(f"WHEN '{tier.value}' THEN {_in_tier(tier)}" for tier in PLACED_BY) + " ELSE false END"
)
