"""Questions that ask when, memories that say when, and the periods a question names (hippograph.memory.recall.when)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

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


def day(year: int, month: int, d: int) -> datetime:
    return datetime(year, month, d, tzinfo=timezone.utc)


ASKED = datetime(2024, 6, 15, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("query, periods", [
    # A named day reaches from the day before to the day after (time zones).
    ("What painting did Melanie show on October 13, 2023?", [(day(2023, 10, 12), day(2023, 10, 15))]),
    ("What did Gina find on 1 February, 2023?", [(day(2023, 1, 31), day(2023, 2, 3))]),
    ("the 5th of May 2021 and Sept. 3rd, 2022", [(day(2022, 9, 2), day(2022, 9, 5)), (day(2021, 5, 4), day(2021, 5, 7))]),
    ("What did Maria donate in December 2023?", [(day(2023, 12, 1), day(2024, 1, 1))]),
    ("a trip in jan, 2024", [(day(2024, 1, 1), day(2024, 2, 1))]),
    ("How often did she go to the beach in 2023?", [(day(2023, 1, 1), day(2024, 1, 1))]),
    # What a finer pattern read is not read again by a coarser one, and a period is named once.
    ("on 13 October 2023, in October 2023, in 2023", [
        (day(2023, 10, 12), day(2023, 10, 15)), (day(2023, 10, 1), day(2023, 11, 1)), (day(2023, 1, 1), day(2024, 1, 1))]),
    ("in 2023 and again in 2023", [(day(2023, 1, 1), day(2024, 1, 1))]),
    # A day that does not exist names nothing; neither do numbers that are not years, nor "may" as a verb.
    ("February 30, 2023", []),
    ("port 20230 and 12345", []),
    ("What may happen next?", []),
    ("When did we move the office?", []),
    ("What did we do in May?", [(day(2024, 5, 1), day(2024, 6, 1))]),  # asked in June 2024: the May just gone
])
def test_named_periods(query: str, periods: list[tuple[datetime, datetime]]) -> None:
    assert [(p.start, p.end) for p in when.named_periods(query, ASKED)] == periods


@pytest.mark.parametrize("query, asked, period", [
    # A month without its year is the last one up to the moment of asking, this month included.
    ("When did Melanie go camping in June?", day(2024, 6, 20), (day(2024, 6, 1), day(2024, 7, 1))),
    ("When did Melanie go camping in June?", day(2024, 5, 31), (day(2023, 6, 1), day(2023, 7, 1))),
    ("what shipped during the month of December", day(2024, 1, 2), (day(2023, 12, 1), day(2024, 1, 1))),
    ("a deal in Dec.", day(2024, 12, 31), (day(2024, 12, 1), day(2025, 1, 1))),
])
def test_a_month_without_its_year_is_the_last_one(query: str, asked: datetime, period: tuple[datetime, datetime]) -> None:
    assert [(p.start, p.end) for p in when.named_periods(query, asked)] == [period]


@pytest.mark.parametrize("query", ["Things may change", "the March of time", "in Mayfair", "in June-like weather"])
def test_a_month_word_that_names_no_month(query: str) -> None:
    assert when.named_periods(query, ASKED) == []
