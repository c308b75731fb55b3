"""A query read once: words, keywords, name phrases, periods, asks-when and style (hippograph.memory.recall.analysis)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hippograph.memory.recall.analysis import Style, analyse

ASKED = datetime(2024, 3, 1, tzinfo=timezone.utc)


def test_one_reading_holds_what_every_branch_needs() -> None:
    read = analyse("When did Caroline's sister move to Oslo in December 2023?", ASKED)
    assert read.words[:4] == ("when", "did", "caroline", "s")
    assert read.keywords == ("caroline", "sister", "move", "oslo", "december", "2023")
    assert "caroline" in read.phrases and "caroline s sister" in read.phrases
    assert read.asks_when
    assert [(p.start.month, p.end.month) for p in read.periods] == [(12, 1)]
    assert read.style is Style.QUESTION
    assert read.without(["caroline"]) == "When did sister move to Oslo in December 2023?"


@pytest.mark.parametrize("query, style", [
    ("What did Caroline research?", Style.QUESTION),
    ("did we pick postgres or mysql?", Style.QUESTION),
    ("how the release went", Style.QUESTION),  # opens with a question word
    ("Was it a good month? Answer yes or no.", Style.QUESTION),
    ("I ended up volunteering for that project, and now I'm totally overwhelmed.", Style.STATEMENT),
    ("We decided to move the release to Friday", Style.STATEMENT),
    # Asking for suggestions or advice, with or without a question mark, is a request, not a question.
    ("Can you recommend a hotel for my trip to Lisbon?", Style.REQUEST),
    ("What should I bake for the party this weekend?", Style.REQUEST),
    ("Any tips for keeping my basil alive", Style.REQUEST),
    ("Please suggest a few podcasts about history.", Style.REQUEST),
    ("Can you tell me when the meeting was?", Style.QUESTION),
    ("support group caroline", Style.KEYWORDS),
    ("postgres 16 upgrade", Style.KEYWORDS),
    ("JWT", Style.KEYWORDS),
    # Nine content words are a sentence's worth, not a search.
    ("caroline support group adoption agency interview counseling career painting", Style.STATEMENT),
    ("", Style.STATEMENT),
])
def test_style(query: str, style: Style) -> None:
    assert analyse(query, ASKED).style is style


def test_a_statement_asks_no_time_and_names_no_period() -> None:
    read = analyse("After learning to say no, I have felt a lot less stressed", ASKED)
    assert not read.asks_when and read.periods == ()
