import pytest

from hippograph.graph.vocabulary import EntityType
from hippograph.memory.writing.entities import Mention, clean_name, extract_mentions, normalise_name
from hippograph.memory.errors import InvalidInput


def test_normalisation_makes_spellings_of_one_name_equal() -> None:
    assert normalise_name("  PostgreSQL ") == normalise_name("postgresql") == normalise_name("POSTGRESQL.")
    assert normalise_name("Event   Sourcing") == "event sourcing"
    assert normalise_name("ｆｕｌｌｗｉｄｔｈ") == "fullwidth"
    assert normalise_name("Redis") != normalise_name("Redux")


def test_clean_name_refuses_empty_and_huge_names() -> None:
    assert clean_name("  JWT   tokens ") == "JWT tokens"
    with pytest.raises(InvalidInput):
        clean_name("  ... ")
    with pytest.raises(InvalidInput):
        clean_name("x" * 201)


def test_mentions_find_technologies_and_proper_names() -> None:
    found = extract_mentions("We moved from MySQL to postgres; Caroline reviewed it with Event Sourcing in mind.")
    assert found == [Mention(EntityType.TECHNOLOGY, "MySQL"), Mention(EntityType.TECHNOLOGY, "Postgres"),
                     Mention(EntityType.CONCEPT, "Caroline"), Mention(EntityType.CONCEPT, "Event Sourcing")]


def test_mentions_skip_sentence_openers_and_greetings() -> None:
    found = extract_mentions("Hey there! Thanks so much. I think The plan works. Yes.")
    assert found == []


def test_possessive_is_dropped_without_eating_a_final_s() -> None:
    names = [mention.name for mention in extract_mentions("Melanie's kids met James and Jones.")]
    assert names == ["Melanie", "James", "Jones"]


def test_a_blob_pasted_into_text_is_no_name() -> None:
    # A base64 image in a chat turn is one capitalised run of 219 letters and digits: named, it would
    # pass the name limit and refuse the write it was derived from.
    blob = "PHN2ZyB4bWxucz0i" + "aHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmci" * 6
    found = extract_mentions(f"Here is the logo: {blob} Ask Caroline about it.")
    assert found == [Mention(EntityType.CONCEPT, "Ask Caroline")]


def test_a_capital_where_a_sentence_opens_only_links_to_a_known_name() -> None:
    # "Glad" and "Oliver" open their sentences, where every word has a capital; "Caroline" after a
    # greeting opens hers too. Said elsewhere in the text, a name is a name.
    found = extract_mentions("Glad you came! Oliver got sick.\nHey Caroline, \"Paris\" was lovely; we saw Paris.")
    assert found == [Mention(EntityType.CONCEPT, "Glad", opens=True), Mention(EntityType.CONCEPT, "Oliver", opens=True),
                     Mention(EntityType.CONCEPT, "Caroline", opens=True), Mention(EntityType.CONCEPT, "Paris")]
    # A transcript line's speaker label opens its sentence; a colon inside a sentence does not.
    assert extract_mentions("Melanie: Sounds great! We need two: Rome and Bath") == [
        Mention(EntityType.CONCEPT, "Melanie", opens=True), Mention(EntityType.CONCEPT, "Sounds", opens=True),
        Mention(EntityType.CONCEPT, "Rome"), Mention(EntityType.CONCEPT, "Bath")]


def test_the_speaker_s_own_label_is_a_name() -> None:
    # Who said a line names someone, opening it or not; the other capitals there still only open it.
    assert extract_mentions("Melanie: Glad you came, Caroline", speaker="Melanie") == [
        Mention(EntityType.CONCEPT, "Melanie"), Mention(EntityType.CONCEPT, "Glad", opens=True),
        Mention(EntityType.CONCEPT, "Caroline")]
    assert extract_mentions("Melanie: Glad you came")[0] == Mention(EntityType.CONCEPT, "Melanie", opens=True)


def test_a_technology_that_is_an_everyday_word_is_named_as_spelled() -> None:
    # "go", "rest" and "spring" are words first: only the spelling of the technology names it, and
    # opening a sentence it is a capital like any other.
    found = extract_mentions("Go for it! I need to rest this spring, then we go with Go, REST and Spring.")
    assert found == [Mention(EntityType.TECHNOLOGY, "Go"), Mention(EntityType.TECHNOLOGY, "REST"),
                     Mention(EntityType.TECHNOLOGY, "Spring")]
    assert extract_mentions("Go for it, Rust fans.") == [Mention(EntityType.TECHNOLOGY, "Go", opens=True),
                                                          Mention(EntityType.TECHNOLOGY, "Rust")]


def test_a_fix_opens_a_sentence_of_its_own() -> None:
    # An error's memory says its fix after "— fixed by: ": the fix's first word is no name ("Set"), but a
    # name said inside it is one.
    assert extract_mentions("Redis evicted carts — fixed by: Set maxmemory-policy to noeviction, as Oliver said") == [
        Mention(EntityType.TECHNOLOGY, "Redis"), Mention(EntityType.CONCEPT, "Set", opens=True),
        Mention(EntityType.CONCEPT, "Oliver")]
