from datetime import datetime, timezone

from hippograph.memory.lifecycle.consolidation import duplicate_pairs

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def row(id: str, tier: str, session: str | None, embedding: list[float], minute: int = 0) -> dict:
    return {"id": id, "tier": tier, "projectId": "p", "sessionId": session, "embedding": embedding,
            "createdAt": T0.replace(minute=minute)}


def test_project_facts_from_different_sessions_are_duplicates_but_session_memories_are_not() -> None:
    same = [1.0, 0.0]
    rows = [row("f1", "PROJECT", "s1", same, 0), row("f2", "PROJECT", "s2", same, 1),
            row("m1", "SESSION", "s1", same, 0), row("m2", "SESSION", "s2", same, 1)]
    assert duplicate_pairs(rows) == [("f1", "f2")]
