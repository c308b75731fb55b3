"""The people a query names, and the query said without them (hippograph.memory.recall.names)."""

from __future__ import annotations

import numpy as np
import pytest

from hippograph.memory.recall import lucene, names


def test_phrases_are_the_runs_of_one_to_three_words_as_a_speaker_is_written() -> None:
    found = names.phrases_among(lucene.words("When did Dr. Lee meet Caroline's sister?"))
    assert "caroline" in found and "dr lee" in found and "when did dr" in found
    assert "dr lee meet caroline" not in found  # four words: no speaker is that long
    assert names.phrases_among([]) == []


@pytest.mark.parametrize("query, named, expected", [
    ("When did Caroline go to the support group?", ["caroline"], "When did go to the support group?"),
    ("What is Caroline's favourite book?", ["caroline"], "What is favourite book?"),
    ("What did Dr. Lee tell Melanie?", ["dr lee", "melanie"], "What did tell ?"),
    # A name inside another word stays: "Ann" is not taken out of "Annual".
    ("Did Ann skip the Annual review?", ["ann"], "Did skip the Annual review?"),
    ("CAROLINE?", ["caroline"], "?"),
])
def test_without_takes_out_whole_names_and_their_possessive(query: str, named: list[str], expected: str) -> None:
    assert names.without(query, named) == expected


def test_blend_is_the_unit_mean_of_the_two_directions() -> None:
    said, unnamed = np.array([3.0, 0.0], dtype=np.float32), np.array([0.0, 0.5], dtype=np.float32)
    blended = names.blend(said, unnamed)
    assert blended.dtype == np.float32
    assert np.allclose(blended, [np.sqrt(0.5), np.sqrt(0.5)])
