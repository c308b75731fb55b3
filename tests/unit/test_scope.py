"""The scope rules, declared once (``hippograph.graph.scope``), as the Python side reads them."""

from __future__ import annotations

import pytest

from hippograph.graph import scope
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope, ScopeError

P, S = "projectId", "sessionId"


@pytest.mark.parametrize(("named", "expected"), [
    # what the caller names → how it sees LONG_TERM, PROJECT, SESSION
    ((), (True, True, True)),
    ((P,), (True, P, P)),
    ((S,), (True, False, S)),
    ((P, S), (True, P, S)),
])
def test_what_a_caller_sees_of_each_tier(named: tuple[str, ...], expected: tuple[object, ...]) -> None:
    assert tuple(scope.seen_by(tier, named) for tier in (Tier.LONG_TERM, Tier.PROJECT, Tier.SESSION)) == expected


def test_the_vector_index_filters_say_the_same() -> None:
    assert scope.index_filter(Tier.LONG_TERM, [P, S]) == ""
    assert scope.index_filter(Tier.PROJECT, [S]) is None
    assert scope.index_filter(Tier.PROJECT, [P, S]) == " AND m.projectId = $projectId"
    assert scope.index_filter(Tier.SESSION, [P]) == " AND m.projectId = $projectId"
    assert scope.index_filter(Tier.SESSION, []) == ""


def test_a_memory_keeps_the_ids_its_tier_is_placed_by() -> None:
    full = Scope("u", "p", "s")
    assert full.for_tier(Tier.LONG_TERM) == Scope("u")
    assert full.for_tier(Tier.PROJECT) == Scope("u", "p")
    assert full.for_tier(Tier.SESSION) == full
    assert Scope("u", None, "s").for_tier(Tier.SESSION) == Scope("u", None, "s")
    with pytest.raises(ScopeError, match="a PROJECT memory needs a project id"):
        Scope("u", None, "s").for_tier(Tier.PROJECT)
    with pytest.raises(ScopeError, match="a SESSION memory needs a session id"):
        Scope("u", "p").for_tier(Tier.SESSION)
