"""User text reaches Lucene as plain keywords, never as query syntax."""

from __future__ import annotations

import pytest

from hippograph.memory.recall import lucene

SPECIALS = '+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /'


def test_every_special_character_is_escaped() -> None:
    escaped = lucene.escape('+-&|!(){}[]^"~*?:\\/')
    assert escaped == "".join("\\" + ch for ch in '+-&|!(){}[]^"~*?:\\/')


def test_plain_text_is_unchanged_by_escaping() -> None:
    assert lucene.escape("postgres 16") == "postgres 16"


def test_keywords_drop_stop_words_question_words_and_single_letters() -> None:
    assert lucene.keywords("What did Caroline's sister say about the JWT cookies?") == ["caroline", "sister", "say", "jwt", "cookies"]


def test_keywords_are_unique_and_in_order() -> None:
    assert lucene.keywords("redis Redis REDIS cache redis") == ["redis", "cache"]


def test_keywords_keep_digits_and_unicode_words() -> None:
    assert lucene.keywords("PostgreSQL 16 on Zürich servers, v2") == ["postgresql", "16", "zürich", "servers", "v2"]


@pytest.mark.parametrize("hostile", [
    SPECIALS,
    "' OR 1=1 //",
    "MATCH (n) DETACH DELETE n",
    "content:secret AND userId:*",
    "title:(a OR b) NOT c~2 d^10 \"e f\"~3 [a TO z] {x TO y}",
    "*:*",
    "\\",
    "",
])
def test_hostile_text_becomes_only_plain_lower_case_terms(hostile: str) -> None:
    query = lucene.keyword_query(lucene.keywords(hostile))
    for term in query.split():
        assert term.isalnum() and term == term.lower(), term
    for operator in ("AND", "OR", "NOT", "TO"):
        assert operator not in query.split()


def test_cypher_looking_text_keeps_its_words_as_terms() -> None:
    assert lucene.keyword_query(lucene.keywords("MATCH (n) DETACH DELETE n")) == "match detach delete"


def test_nothing_to_search_gives_an_empty_query() -> None:
    assert lucene.keyword_query(lucene.keywords("?! && || ()")) == ""
    assert lucene.keyword_query([]) == ""


def test_keywords_are_bounded_in_number_and_length() -> None:
    words = lucene.keywords(" ".join(f"word{i}" for i in range(500)) + " " + "x" * 1000)
    assert len(words) == lucene.MAX_KEYWORDS
    assert all(len(w) <= lucene.MAX_KEYWORD_LENGTH for w in lucene.keywords("y" * 1000))


def test_escaping_a_term_that_still_held_syntax() -> None:
    # keyword_query escapes whatever it is given, so even a hand-made term stays a term.
    assert lucene.keyword_query(["a:b", "c*"]) == "a\\:b c\\*"


def test_owned_query_names_its_fields_and_filters_by_owner_without_scoring() -> None:
    query = lucene.owned_query("locomo-conv-26", ["caroline", "research"], ("content", "summary"))
    assert query == 'userId:"locomo\\-conv\\-26"^0 AND (content:(caroline research) OR summary:(caroline research))'


def test_owned_query_escapes_the_owner_inside_its_phrase() -> None:
    assert lucene.owned_query('a"b) OR *', ["x"], ("name",)) == 'userId:"a\\"b\\) OR \\*"^0 AND (name:(x))'


def test_an_owner_id_the_analyser_reduces_to_nothing_gets_no_filter() -> None:
    # "the" and "-" leave no token in the english analyser: a clause on them would match nothing.
    assert lucene.owned_query("the", ["x"], ("name",)) == "name:(x)"
    assert lucene.owned_query("--", ["x"], ("name",)) == "name:(x)"


def test_owned_query_is_empty_without_keywords() -> None:
    assert lucene.owned_query("u1", [], ("content",)) == ""


def test_words_keep_stop_words_and_are_bounded() -> None:
    assert lucene.words("Did Caroline and Mel-Anne go? did") == ["did", "caroline", "and", "mel", "anne", "go"]
    assert len(lucene.words(" ".join(f"w{i}" for i in range(1000)))) == lucene.MAX_WORDS
