"""``hippograph bench locomo`` scores what reaches the agent: the set each priority's budget delivers,
and the low word overlap slice — on a small LoCoMo-format conversation, through real recall; a
LongMemEval-format set is asked at each question's date and scored by session too (a small invented
file in tests/fixtures/bench); and the LongMemEval development file, where it exists, stores its
haystacks with the longest turns and the blobs."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from hippograph.memory.services import Services
from hippograph_bench import data, lifecycle, locomo
from shared_data import DATA

FIXTURE = Path(__file__).parents[1] / "fixtures" / "bench" / "longmemeval-tiny.json"
DEV_LONGMEMEVAL = DATA / "longmemeval-s-dev.json.xz"

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
def conversation(sample_file: Path) -> data.Conversation:
    return data.load([sample_file])[0]


def test_low_overlap_is_the_questions_that_share_no_content_word(conversation: data.Conversation) -> None:
    shared = locomo.shared_words(conversation)
    assert shared[1] == 0 and shared[0] >= 1 and shared[2] >= 2  # speakers' names do not count as shared


def test_delivered_sets_are_scored_per_priority(clean_db: Services, conversation: data.Conversation) -> None:
    methods = {name: locomo.methods()[name] for name in ("vector", "hybrid")}
    result = locomo.evaluate(clean_db, [data.DataSet("tiny", [conversation])], methods)

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
    # The gate as it moves: at the profile's own share what critical delivered; a higher share delivers a
    # prefix of what a lower one does.
    for name, profile in methods.items():
        assert profile.gates.of_top in locomo.GATE_SHARES
        assert result["gated"][name][str(profile.gates.of_top)] == result["delivered"]["critical"][name]
        gated = [result["gated"][name][str(share)] for share in locomo.GATE_SHARES]
        assert all(higher["items"] <= lower["items"] and higher["hit"] <= lower["hit"]
                   for lower, higher in zip(gated, gated[1:]))
        assert gated[-1]["coverage"] == 1.0
    # A narrower budget delivers a prefix of the same ranking: its hits cannot exceed the wider one's.
    assert result["delivered"]["medium"]["vector"]["hit"] <= result["delivered"]["critical"]["vector"]["hit"]


def memories_of(services: Services, user_id: str) -> int:
    records, _, _ = services.driver.execute_query("MATCH (m:Memory {userId: $userId}) RETURN count(m) AS n",
                                                  userId=user_id, database_=services.database)
    return records[0]["n"]


def test_a_run_has_users_of_its_own_and_leaves_no_memories(
    clean_db: Services, conversation: data.Conversation, sample_file: Path,
) -> None:
    """Two runs on one store (bench fit beside bench locomo) never ingest into, or forget, each other's users."""
    other_run = data.load([sample_file])[0]
    assert other_run.sample_id == conversation.sample_id and other_run.user_id != conversation.user_id
    with locomo.forgotten_after(clean_db, conversation):
        locomo.ingest(clean_db, conversation)
        locomo.evaluate(clean_db, [data.DataSet("other", [other_run])], {"bm25": locomo.methods()["bm25"]})
        assert memories_of(clean_db, conversation.user_id) == len(TURNS)
        assert memories_of(clean_db, other_run.user_id) == 0
    assert memories_of(clean_db, conversation.user_id) == 0


def test_the_lifecycle_run_scores_its_facts_for_the_turns_they_came_from(
    clean_db: Services, conversation: data.Conversation,
) -> None:
    """``bench locomo --lifecycle``: the conversation played through append_turn, session end and
    consolidation, then asked as the raw-turn run is; its user is forgotten afterwards."""
    methods = {"hybrid": locomo.methods()["hybrid"]}
    result = lifecycle.evaluate(clean_db, [data.DataSet("tiny", [conversation])], methods)
    assert result["questions"] == len(QUESTIONS) and result["lifecycle"]["memories"] > 0
    assert 0 < result["lifecycle"]["stored_tokens"] and result["lifecycle"]["raw_turn_tokens"] > 0
    # A fact counts for the turns it was derived from: the pet and the brother are found.
    assert result["results"]["hybrid"]["recall@20"] > 0
    assert list(result["delivered"]) == ["critical", "high", "medium"]
    assert result["low_overlap"]["questions"] == 1
    assert memories_of(clean_db, conversation.user_id) == 0


def test_the_lifecycle_run_plays_a_conversation_with_a_turn_where_nothing_was_said(
    clean_db: Services, sample_file: Path, tmp_path: Path,
) -> None:
    sample = json.loads(sample_file.read_text())
    sample[0]["conversation"]["session_1"].insert(2, {"speaker": "Melanie", "dia_id": "D1:9", "text": " "})
    blank = tmp_path / "blank.json"
    blank.write_text(json.dumps(sample))
    result = lifecycle.evaluate(clean_db, data.load_sets([blank]), {"vector": locomo.methods()["vector"]})
    assert result["questions"] == len(QUESTIONS) and result["lifecycle"]["memories"] > 0


def test_each_set_is_reported_apart_and_together(
    clean_db: Services, sample_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    methods = {"vector": locomo.methods()["vector"]}
    result = locomo.evaluate(clean_db, data.load_sets([sample_file, FIXTURE]), methods)
    # Off a terminal the progress is plain lines: a summary per conversation, the count of questions at the end.
    shown = capsys.readouterr().err.splitlines()
    assert any(line.startswith("tiny 1/1 tiny: ") and line.endswith(" turns, 3 questions") for line in shown), shown
    assert re.fullmatch(r"bench locomo: 5/5 questions \([\d.]+/s, 00:00 left\)", shown[-1])
    assert list(result["sets"]) == ["tiny", "longmemeval-tiny"]
    tiny, lme = result["sets"]["tiny"], result["sets"]["longmemeval-tiny"]
    assert (tiny["questions"], lme["questions"], result["questions"]) == (3, 2, 5)
    # LoCoMo's sets by category name, LongMemEval's by its question type, with its session-level figures.
    assert list(tiny["per_type"]) == ["single-hop"] and "recall_any@5" not in tiny["results"]["vector"]
    assert set(lme["per_type"]) == {"temporal-reasoning", "multi-session"}
    assert {"recall_any@5", "recall_any@10"} <= set(lme["results"]["vector"])
    assert "recall_any@5" not in result["results"]["vector"]
    together = result["results"]["vector"]["recall@20"]
    assert together == pytest.approx((3 * tiny["results"]["vector"]["recall@20"]
                                      + 2 * lme["results"]["vector"]["recall@20"]) / 5, abs=1e-3)
    assert tiny["per_conversation"] and "per_conversation" not in result


def test_a_longmemeval_question_is_asked_at_its_own_date_and_scored_by_session(clean_db: Services, tmp_path: Path) -> None:
    """"What did I cook in March?" asked on 2 April 2023 means March 2023 (the hybrid profile prefers
    what was written in a period the question names); asked a day after the last turn, March 2024."""
    hybrid = {"hybrid": locomo.methods()["hybrid"]}
    dated = locomo.evaluate(clean_db, data.load_sets([FIXTURE]), hybrid)["sets"]["longmemeval-tiny"]
    samples = json.loads(FIXTURE.read_text())
    for sample in samples:
        for qa in sample["qa"]:
            del qa["question_date"]
    undated_file = tmp_path / "undated.json"
    undated_file.write_text(json.dumps(samples))
    undated = locomo.evaluate(clean_db, data.load_sets([undated_file]), hybrid)["sets"]["undated"]

    assert dated["per_type"]["temporal-reasoning"]["results"]["hybrid"]["hit@1"] == 1.0
    assert undated["per_type"]["temporal-reasoning"]["results"]["hybrid"]["hit@1"] == 0.0
    # Both dentist visits are turns of sessions 1 and 3: some turn of theirs is among the first five sessions.
    multi = dated["per_type"]["multi-session"]["results"]["hybrid"]
    assert multi["recall_any@5"] == 1.0 and multi["recall_any@10"] == 1.0
    assert "recall_any@5" not in undated["results"]["hybrid"]


def _blob(text: str) -> bool:
    """A pasted blob: 200 characters or more of base64 with a digit among them, no space."""
    return any(re.search(r"\d", run) for run in re.findall(r"[A-Za-z0-9+/=]{200,}", text))


@pytest.mark.skipif(not DEV_LONGMEMEVAL.exists(), reason=f"the LongMemEval development file is not at {DEV_LONGMEMEVAL}")
def test_the_longmemeval_haystacks_with_the_longest_turn_and_the_blobs_are_stored(clean_db: Services) -> None:
    haystacks = data.load([DEV_LONGMEMEVAL])
    longest = max(haystacks, key=lambda c: max(len(t.text) for t in c.turns))
    chosen = [longest] + [c for c in haystacks if c is not longest and any(_blob(t.text) for t in c.turns)][:2]
    longest_turn = max(longest.turns, key=lambda t: len(t.text))
    assert len(chosen) == 3 and len(longest_turn.text) > 20_000  # past what one memory holds
    # Of each haystack, the sessions that hold the longest turn or a blob: the rest (hundreds of ordinary turns)
    # add nothing to what is tested but the time to embed them.
    chosen = [replace(haystack, sessions={name: turns for name, turns in haystack.sessions.items()
                                          if any(t is longest_turn or _blob(t.text) for t in turns)})
              for haystack in chosen]
    services = locomo.bench_services(clean_db)
    for haystack in chosen:
        with locomo.forgotten_after(services, haystack):
            dia_ids = locomo.ingest(services, haystack)
            # Every turn is stored, each memory standing for its turns: the longest as its parts.
            assert {d for turns in dia_ids.values() for d in turns} == {t.dia_id for t in haystack.turns}
            assert memories_of(clean_db, haystack.user_id) == len(dia_ids)
            if haystack.sample_id == longest.sample_id:
                assert sum(1 for turns in dia_ids.values() if longest_turn.dia_id in turns) >= 2
        assert memories_of(clean_db, haystack.user_id) == 0
