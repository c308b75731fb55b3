"""Questions that ask when, and memories that say when (hippograph.memory.recall.when)."""

from __future__ import annotations

import re

import pytest

from hippograph.memory.recall import when


@pytest.mark.parametrize("query, asks", [
    ("When did Caroline go to the support group?", True),
    ("  when is the release?", True),
    ("How long has Melanie been painting?", True),
    ("What year did they move?", True),
    ("How many weeks did the trip last?", True),
    ("Since when do we deploy on Fridays?", True),
    ("What did Caroline research?", False),
    ("Where did we move the office?", False),
    ("How many cats does she have?", False),
    ("Whenever the build fails, who is paged?", False),
])
def test_asks_when(query: str, asks: bool) -> None:
    assert when.asks_when(query) is asks


@pytest.mark.parametrize("text, says", [
    ("I went to a support group yesterday", True),
    ("Back in 2019 we lived in Oslo", True),
    ("See you on friday", True),
    ("we met LAST SUMMER", True),
    ("three weeks ago", True),
    ("multi-line\nthen next week it ships", True),
    ("I love the mayor", False),  # "may" as a word only
    ("the Sundaymarket", False),
    ("deployed on port 2019x", False),
    ("", False),
])
def test_says_when_is_a_whole_word_time_expression(text: str, says: bool) -> None:
    assert (re.fullmatch(when.SAYS_WHEN, text) is not None) is says
