from hippograph.memory.summarizer import (
    ExtractiveFactExtractor,
    ExtractiveSummarizer,
    TurnText,
    is_filler,
    salience,
)
from hippograph.memory.tokens import token_counter

TURNS = [
    TurnText("t1", "Ana", "Hi! How are you?"),
    TurnText("t2", "Ben", "Good, thanks!"),
    TurnText("t3", "Ana", "We decided to move the API to PostgreSQL 16 on 12 March."),
    TurnText("t4", "Ben", "Great. The migration failed twice because of a missing index; adding it fixed the error."),
    TurnText("t5", "Ana", "Cool, see you."),
]


def test_filler_is_recognised_and_concrete_content_is_not() -> None:
    for text in ["Hi! How are you?", "Thanks so much!", "Cool, see you.", "lol", "Sounds good"]:
        assert is_filler(text), text
    for text in ["We moved to PostgreSQL 16.", "Caroline adopted a dog in May 2023.", "The build broke on Friday."]:
        assert not is_filler(text), text


def test_salience_prefers_numbers_names_decisions_and_errors() -> None:
    assert salience("We decided to use Redis 7 in June.") > salience("That sounds like a good plan to me.")


def test_summary_keeps_the_concrete_and_drops_the_filler() -> None:
    summary = ExtractiveSummarizer(token_counter()).summarize(TURNS, 80)
    assert "PostgreSQL 16" in summary and "12 March" in summary and "missing index" in summary
    assert "How are you" not in summary and "see you" not in summary
    assert token_counter().count(summary) <= 80


def test_summary_respects_a_tight_budget() -> None:
    summary = ExtractiveSummarizer(token_counter()).summarize(TURNS, 30)
    assert token_counter().count(summary) <= 30
    assert "PostgreSQL" in summary or "index" in summary


def test_facts_are_attributed_to_their_turns() -> None:
    facts = ExtractiveFactExtractor().extract(TURNS)
    assert [f.source_turn_ids for f in facts] == [("t3",), ("t4",)]
    assert facts[0].kind == "decision" and facts[0].content.startswith("Ana: ")
    assert "missing index" in facts[1].content
