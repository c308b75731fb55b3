from datetime import datetime, timezone

from hippograph.graph.vocabulary import Tier
from hippograph.memory.writing.store import MemoryInput
from hippograph.memory.writing.turns import turn_parts

AT = datetime(2026, 5, 1, tzinfo=timezone.utc)


def test_a_turn_that_fits_is_itself_and_so_is_any_other_memory() -> None:
    short = MemoryInput("User: hello", Tier.SESSION, kind="turn")
    assert turn_parts(short, AT, 100) == [short]
    note = MemoryInput("x " * 200, Tier.SESSION)
    assert turn_parts(note, AT, 100) == [note]


def test_a_long_turn_is_cut_at_paragraphs_then_sentences_each_part_behind_its_speaker_in_order() -> None:
    paragraphs = [" ".join(f"Sentence {p}.{s} says something." for s in range(8)) for p in range(6)]
    turn = MemoryInput("User: " + "\n\n".join(paragraphs), Tier.SESSION, kind="turn",
                       attributes={"dia_id": "D1:1"}, created_at=AT)
    parts = turn_parts(turn, AT, 300)
    assert len(parts) > 1
    assert all(len(p.content) <= 300 and p.content.startswith("User: ") for p in parts)
    # Nothing lost and nothing added but the labels and the cut's white space.
    said = " ".join(p.content.removeprefix("User: ") for p in parts)
    assert said.split() == "\n\n".join(paragraphs).split()
    # No sentence is cut in two: every part ends where a sentence does.
    assert all(p.content.endswith(".") for p in parts)
    assert [p.attributes for p in parts] == [{"dia_id": "D1:1", "part": i, "parts": len(parts)} for i in range(len(parts))]
    assert [p.created_at for p in parts] == sorted(p.created_at for p in parts) and parts[0].created_at == AT


def test_text_without_any_boundary_is_cut_at_the_limit() -> None:
    blob = "A" * 1000
    parts = turn_parts(MemoryInput(blob, Tier.SESSION, kind="turn"), AT, 300)
    assert [len(p.content) for p in parts] == [300, 300, 300, 100]
    assert "".join(p.content for p in parts) == blob
