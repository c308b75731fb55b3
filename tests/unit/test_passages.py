"""A memory's vector is the mean of its passages: its sentences, each behind its speaker label."""

from __future__ import annotations

from hippograph.encoding.embedding import MAX_PASSAGES, passages


def test_sentences_keep_the_speaker_label() -> None:
    assert passages("Caroline: Hey Mel! I went to a support group yesterday. [shares a photo of a flag]") == [
        "Caroline: Hey Mel!", "Caroline: I went to a support group yesterday.", "Caroline: [shares a photo of a flag]",
    ]


def test_text_without_a_label_is_split_into_sentences() -> None:
    assert passages("We chose PostgreSQL. Redis is the cache?") == ["We chose PostgreSQL.", "Redis is the cache?"]


def test_a_single_sentence_is_its_own_passage() -> None:
    assert passages("  Use PostgreSQL 16 for the ledger  ") == ["Use PostgreSQL 16 for the ledger"]
    assert passages("Caroline: fine") == ["Caroline: fine"]


def test_a_colon_later_in_the_text_is_not_a_label() -> None:
    text = "The fix was simple and quick to apply: restart the worker. It held."
    assert passages(text) == ["The fix was simple and quick to apply: restart the worker.", "It held."]


def test_a_long_text_is_joined_into_at_most_max_passages() -> None:
    text = " ".join(f"Sentence {i}." for i in range(100))
    parts = passages(text)
    assert len(parts) <= MAX_PASSAGES
    assert " ".join(parts) == text
