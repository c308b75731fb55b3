"""How the context window fills a section: memories by rank, conversation newest first, each memory once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hippograph.memory.lifecycle.context_window import Piece, first_that_fit, newest_that_fit, unique_memories


def pieces(*sizes: int) -> list[Piece]:
    return [Piece(f"p{i}", tokens, f"m{i}") for i, tokens in enumerate(sizes)]


def test_a_memory_too_large_is_passed_over_and_a_later_one_still_fits() -> None:
    kept = first_that_fit(pieces(4, 9, 3, 2), budget=8)
    assert [p.id for p in kept] == ["m0", "m2"]


def test_the_conversation_keeps_its_newest_turns_in_order_without_a_hole() -> None:
    # m1 (1 token) would fit after m2 is refused, but history stops at the first turn that does not fit.
    kept = newest_that_fit(pieces(2, 1, 9, 3, 4), budget=8)
    assert [p.id for p in kept] == ["m3", "m4"]


def test_nothing_fits_a_zero_budget() -> None:
    assert first_that_fit(pieces(1, 2), 0) == []
    assert newest_that_fit(pieces(1, 2), 0) == []


def test_each_memory_comes_once_where_it_first_came() -> None:
    rows = [("a", "rule"), ("b", "fact"), ("a", "rule again"), ("c", "other")]
    assert unique_memories(rows) == [("a", "rule"), ("b", "fact"), ("c", "other")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=50), max_size=30), st.integers(min_value=0, max_value=200))
def test_neither_rule_passes_its_budget_and_both_keep_the_order(sizes: list[int], budget: int) -> None:
    given_pieces = pieces(*sizes)
    for kept in (first_that_fit(given_pieces, budget), newest_that_fit(given_pieces, budget)):
        assert sum(p.tokens for p in kept) <= budget
        positions = [given_pieces.index(p) for p in kept]
        assert positions == sorted(positions)
    newest = newest_that_fit(given_pieces, budget)
    if newest:
        # A suffix: everything after the oldest kept turn is kept.
        assert newest == given_pieces[given_pieces.index(newest[0]):]
