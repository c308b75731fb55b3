"""The development sets as the benchmarks read them: LoCoMo's format, LongMemEval's shape of it
(question dates, question types, evidence sessions), a file compressed with xz, a part of a file."""

from __future__ import annotations

import json
import lzma
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hippograph_bench import data

FIXTURE = Path(__file__).parents[1] / "fixtures" / "bench" / "longmemeval-tiny.json"


def test_a_longmemeval_question_has_its_date_its_type_and_its_evidence_sessions() -> None:
    (lme,) = data.load_sets([FIXTURE])
    assert lme.name == "longmemeval-tiny" and lme.sessions_scored
    first, second = lme.conversations
    # The abstention question (category 5) is left out.
    assert [q.kind for q in first.questions] == ["temporal-reasoning"]
    question = first.questions[0]
    assert question.asked_at == datetime(2023, 4, 2, 10, 0, tzinfo=timezone.utc)
    assert first.asked_at(question) == question.asked_at != first.now
    assert second.questions[0].sessions == frozenset({"D1", "D3"})
    assert first.turns[0].content.startswith("User: I cooked")
    assert first.turns[0].at == datetime(2023, 3, 4, 9, 10, tzinfo=timezone.utc)


def test_a_locomo_question_is_asked_a_day_after_the_last_turn_and_named_by_its_category(tmp_path: Path) -> None:
    sample = {
        "sample_id": "c1",
        "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023",
                         "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "Hello there."},
                                       {"speaker": "Bo", "dia_id": "D1:2", "text": "Hi!", "blip_caption": "a cat"}]},
        "qa": [{"question": "Who said hello?", "evidence": ["D1:1; D1:2"], "category": 1},
               {"question": "Unanswerable?", "evidence": ["D1:1"], "category": 5},
               {"question": "No evidence?", "evidence": [], "category": 4}],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([sample]))
    (locomo,) = data.load_sets([path])
    (conversation,) = locomo.conversations
    (question,) = conversation.questions
    assert not locomo.sessions_scored and question.asked_at is None
    assert question.kind == "multi-hop" and question.evidence == {"D1:1", "D1:2"}
    assert conversation.asked_at(question) == datetime(2023, 5, 9, 13, 56, 1, tzinfo=timezone.utc)
    assert conversation.turns[1].text == "Hi! [shares a cat]"


def test_an_xz_file_reads_as_its_json_and_each_file_is_a_set(tmp_path: Path) -> None:
    packed = tmp_path / "longmemeval-tiny.json.xz"
    with lzma.open(packed, "wt", encoding="utf-8") as f:
        f.write(FIXTURE.read_text())
    sets = data.load_sets([FIXTURE, packed])
    # Two files of one name are two sets.
    assert [s.name for s in sets] == ["longmemeval-tiny", "longmemeval-tiny-2"]
    assert [c.sample_id for c in sets[1].conversations] == [c.sample_id for c in sets[0].conversations]
    # A conversation is a user of its load and its set alone.
    assert sets[0].conversations[0].user_id != sets[1].conversations[0].user_id
    assert data.load([FIXTURE])[0].user_id not in {s.conversations[0].user_id for s in sets}


def test_a_part_of_a_file_is_spread_over_it() -> None:
    items = list(range(10))
    assert data.spread(items, None) == items and data.spread(items, 20) == items
    assert data.spread(items, 4) == [0, 3, 6, 9]
    assert data.spread(items, 1) == [0]
    with pytest.raises(ValueError):
        data.spread(items, 0)
