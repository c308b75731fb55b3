import pytest

from hippograph.graph.vocabulary import EntityType
from hippograph.memory.writing.entities import clean_name, extract_mentions, normalise_name
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
    assert (EntityType.TECHNOLOGY, "MySQL") in found
    assert (EntityType.TECHNOLOGY, "Postgres") in found
    assert (EntityType.CONCEPT, "Caroline") in found
    assert (EntityType.CONCEPT, "Event Sourcing") in found


def test_mentions_skip_sentence_openers_and_greetings() -> None:
    found = extract_mentions("Hey there! Thanks so much. I think The plan works. Yes.")
    assert found == []


def test_possessive_is_dropped_without_eating_a_final_s() -> None:
    names = [name for _, name in extract_mentions("Melanie's kids met James and Jones.")]
    assert names == ["Melanie", "James", "Jones"]


def test_a_blob_pasted_into_text_is_no_name() -> None:
    # A base64 image in a chat turn is one capitalised run of 219 letters and digits: named, it would
    # pass the name limit and refuse the write it was derived from.
    blob = "PHN2ZyB4bWxucz0i" + "aHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmci" * 6
    found = extract_mentions(f"Here is the logo: {blob} Ask Caroline about it.")
    assert found == [(EntityType.CONCEPT, "Ask Caroline")]
