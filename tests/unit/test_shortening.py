"""Shortening one memory's text to a token budget: the first sentence, or its head marked as cut."""

from __future__ import annotations

import pytest

from hippograph.memory.tokens import token_counter
from hippograph.memory.writing.shortening import compress_text

COUNTER = token_counter()
TEXT = "We moved the billing API to PostgreSQL 16. The old MySQL replica is kept read-only until June."


def test_the_first_sentence_is_kept_when_it_fits() -> None:
    assert compress_text(TEXT, COUNTER, 12) == "We moved the billing API to PostgreSQL 16."


def test_a_first_sentence_too_long_is_cut_and_marked() -> None:
    short = compress_text(TEXT, COUNTER, 4)
    assert short.endswith("…")
    assert COUNTER.count(short) <= 4
    assert TEXT.startswith(short[:-1])


def test_a_single_sentence_within_budget_is_left_whole() -> None:
    assert compress_text("  Use vim.  ", COUNTER, 10) == "Use vim."


@pytest.mark.parametrize("budget", [1, 2, 5, 9, 20, 40])
def test_the_result_never_passes_the_budget(budget: int) -> None:
    assert COUNTER.count(compress_text(TEXT, COUNTER, budget)) <= budget
