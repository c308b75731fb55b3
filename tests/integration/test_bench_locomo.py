"""``hippograph bench locomo`` scores what reaches the agent: the set each priority's budget delivers,
and the low word overlap slice — on a small LoCoMo-format conversation, through real recall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippograph.bench import lifecycle, locomo
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

TURNS = [
    ("Caroline", "I adopted a grey cat from the shelter last Friday."),
    ("Melanie", "That is lovely, what did you name her?"),
    ("Caroline", "Her name is Pepper, she sleeps on my keyboard."),
    ("Melanie", "I signed up for a pottery class downtown."),
    ("Caroline", "After learning to say no, I have felt a lot less anxious."),
    ("Melanie", "My brother is moving to Lisbon in the spring."),
]
QUESTIONS = [
    ("What did Caroline name her cat?", "D1:3"),         # shares "name" with its evidence
    ("Which pet did Caroline bring home?", "D1:1"),      # shares no content word with it
    ("Where is Melanie's brother moving?", "D1:6"),      # shares "brother", "moving"
]


@pytest.fixture
def sample_file(tmp_path: Path) -> Path:
    sample = {
        "sample_id": "tiny",
        "conversation": {
            "speaker_a": "Caroline", "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": who, "dia_id": f"D1:{i}", "text": text} for i, (who, text) in enumerate(TURNS, 1)],
        },
        "qa": [{"question": q, "answer": "-", "evidence": [e], "category": 4} for q, e in QUESTIONS],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([sample]))
    return path


@pytest.fixture
def conversation(sample_file: Path) -> locomo.Conversation:
    return locomo.load([sample_file])[0]


def test_low_overlap_is_the_questions_that_share_no_content_word(conversation: locomo.Conversation) -> None:
    shared = locomo.shared_words(conversation)
    assert shared[1] == 0 and shared[0] >= 1 and shared[2] >= 2  # speakers' names do not count as shared


def test_delivered_sets_are_scored_per_priority(clean_db: Services, conversation: locomo.Conversation) -> None:
    methods = {name: locomo.methods()[name] for name in ("vector", "hybrid")}
    result = locomo.evaluate(clean_db, [conversation], methods)

    assert result["low_overlap"]["questions"] == 1
    assert set(result["low_overlap"]["results"]) == set(methods)
    assert list(result["delivered"]) == ["critical", "high", "medium"]
    for priority, most in (("critical", 3), ("high", 2), ("medium", 1)):
        for name, delivered in result["delivered"][priority].items():
            assert 0 < delivered["items"] <= most, (priority, name, delivered)
            assert 0.0 <= delivered["precision"] <= 1.0 and 0.0 <= delivered["recall"] <= 1.0
            assert delivered["hit"] <= delivered["coverage"] <= 1.0
    # vector has no floor: every question is given the whole budget, and with one relevant turn per
    # question precision at critical is at most a third.
    vector = result["delivered"]["critical"]["vector"]
    assert vector["items"] == 3 and vector["coverage"] == 1.0 and vector["precision"] <= 1 / 3 + 1e-9
    assert vector["precision"] == pytest.approx(vector["hit"] / 3, abs=1e-3)
    assert result["delivered_by_count"]["vector"] == {"3": {"questions": 3, "precision": vector["precision"]}}
    # A narrower budget delivers a prefix of the same ranking: its hits cannot exceed the wider one's.
    assert result["delivered"]["medium"]["vector"]["hit"] <= result["delivered"]["critical"]["vector"]["hit"]


def memories_of(services: Services, user_id: str) -> int:
    records, _, _ = services.driver.execute_query("MATCH (m:Memory {userId: $userId}) RETURN count(m) AS n",
                                                  userId=user_id, database_=services.database)
    return records[0]["n"]


def test_a_run_has_users_of_its_own_and_leaves_no_memories(
    clean_db: Services, conversation: locomo.Conversation, sample_file: Path,
) -> None:
    """Two runs on one store (bench fit beside bench locomo) never ingest into, or forget, each other's users."""
    other_run = locomo.load([sample_file])[0]
    assert other_run.sample_id == conversation.sample_id and other_run.user_id != conversation.user_id
    with locomo.forgotten_after(clean_db, conversation):
        locomo.ingest(clean_db, conversation)
        locomo.evaluate(clean_db, [other_run], {"bm25": locomo.methods()["bm25"]})
        assert memories_of(clean_db, conversation.user_id) == len(TURNS)
        assert memories_of(clean_db, other_run.user_id) == 0
    assert memories_of(clean_db, conversation.user_id) == 0


def test_the_lifecycle_run_scores_its_facts_for_the_turns_they_came_from(
    clean_db: Services, conversation: locomo.Conversation,
) -> None:
    """``bench locomo --lifecycle``: the conversation played through append_turn, session end and
    consolidation, then asked as the raw-turn run is; its user is forgotten afterwards."""
    methods = {"hybrid": locomo.methods()["hybrid"]}
    result = lifecycle.evaluate(clean_db, [conversation], methods)
    assert result["questions"] == len(QUESTIONS) and result["lifecycle"]["memories"] > 0
    assert 0 < result["lifecycle"]["stored_tokens"] and result["lifecycle"]["raw_turn_tokens"] > 0
    # A fact counts for the turns it was derived from: the pet and the brother are found.
    assert result["results"]["hybrid"]["recall@20"] > 0
    assert list(result["delivered"]) == ["critical", "high", "medium"]
    assert result["low_overlap"]["questions"] == 1
    assert memories_of(clean_db, conversation.user_id) == 0
