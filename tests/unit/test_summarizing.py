from hippograph.memory.lifecycle.summarizing import (
    ExtractiveFactExtractor,
    ExtractiveSummarizer,
    TurnText,
    is_filler,
    salience,
    trim,
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
    facts = ExtractiveFactExtractor(token_counter()).extract(TURNS)
    assert [f.source_turn_ids for f in facts] == [("t3",), ("t4",)]
    assert facts[0].kind == "decision" and facts[0].content.startswith("Ana: ")
    assert "missing index" in facts[1].content


def test_a_question_about_a_decision_is_no_decision() -> None:
    turns = [TurnText("q", "Ana", "Which database did we decide on for the billing service in March 2025 after the outage?"),
             TurnText("a", "Ben", "We decided on PostgreSQL 16 for billing in March 2025, after the outage.")]
    facts = {f.source_turn_ids: f.kind for f in ExtractiveFactExtractor(token_counter(), min_salience=0.0).extract(turns)}
    assert facts == {("q",): "fact", ("a",): "decision"}


def test_a_long_turn_keeps_several_concrete_sentences_within_the_passage_share() -> None:
    turns = [
        TurnText("t1", "Melanie", "Hey Caroline! So good to see you. I ran a charity race for mental health last Saturday. "
                                  "It was tough. I'm starting to realize that self-care is really important. "
                                  "We raised 2,000 dollars for the local shelter."),
        TurnText("t2", "Caroline", "Wow, that's awesome, Melanie! Thanks for sharing."),
    ]
    extractor = ExtractiveFactExtractor(token_counter())
    facts = extractor.extract(turns)
    assert [f.source_turn_ids for f in facts] == [("t1",)]
    content = facts[0].content
    assert content.startswith("Melanie: ")
    assert "charity race" in content and "2,000 dollars" in content and "It was tough" not in content
    assert "Hey" not in content and "see you" not in content and "really" not in content
    raw = sum(token_counter().count(f"{t.speaker}: {t.text}") for t in turns)
    assert sum(token_counter().count(f.content) for f in facts) <= extractor.token_share * raw


def test_the_share_bounds_the_facts_of_a_passage_but_every_concrete_turn_keeps_its_best_sentence() -> None:
    turns = [TurnText(f"t{i}", "Ana", f"On day {i} we moved service {i} to PostgreSQL 16 in Frankfurt. "
                                      f"The migration of service {i} took 3 hours and failed once on a missing index.")
             for i in range(6)]
    tight = ExtractiveFactExtractor(token_counter(), token_share=0.3).extract(turns)
    loose = ExtractiveFactExtractor(token_counter(), token_share=1.0).extract(turns)
    assert len(tight) == len(loose) == 6
    assert sum(token_counter().count(f.content) for f in tight) < sum(token_counter().count(f.content) for f in loose)


def test_trim_drops_openers_forms_of_address_and_intensifiers() -> None:
    assert trim("Yeah John, it was really so good.", {"John"}) == "It was good."
    assert trim("I went to the park, Maria!", {"Maria"}) == "I went to the park!"
    assert trim("We adopted a dog in May.") == "We adopted a dog in May."


def test_a_reaction_to_the_listener_is_less_salient_than_news_of_the_speaker() -> None:
    assert salience("Your painting of the lake looks amazing!") < salience("My painting of the lake took two weekends.")
    assert salience("You and I should paint the lake together.") == salience("I and you should paint the lake together.")


def test_only_turns_with_news_keep_a_fact_and_they_keep_more_of_what_they_said() -> None:
    turns = [
        TurnText("t1", "Ana", "I finally finished the painting of Lake Bled last weekend. "
                              "The light on the water was hard to get right."),
        TurnText("t2", "Ben", "Your lake at dawn looks calm and the water glows."),
    ]
    assert [f.source_turn_ids for f in ExtractiveFactExtractor(token_counter()).extract(turns)] == [("t1",)]
    # A slight sentence rides along with the turn's news while the passage's share allows.
    facts = ExtractiveFactExtractor(token_counter(), token_share=1.0).extract(turns)
    assert facts[0].content == ("Ana: I finally finished the painting of Lake Bled last weekend. "
                                "The light on the water was hard to get right.")
    strict = ExtractiveFactExtractor(token_counter(), token_share=1.0, min_added=1.5).extract(turns)
    assert strict[0].content == "Ana: I finally finished the painting of Lake Bled last weekend."
    lenient = ExtractiveFactExtractor(token_counter(), min_salience=0.5).extract(turns)
    assert [f.source_turn_ids for f in lenient] == [("t1",), ("t2",)]
