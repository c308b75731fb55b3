"""A typed Python client for hippograph's GraphQL API, blocking or asyncio.

```python
from hippograph.client import Client, Priority, Tier, recall, remember

with Client("http://127.0.0.1:8000", key) as hg:
    hg.send(remember("We deploy with Docker", tier=Tier.PROJECT, project="shop"))
    for item in hg.send(recall("how do we deploy?", priority=Priority.HIGH, project="shop")).items:
        print(f"{item.score:.2f}", item.content)
```

``AsyncClient`` is the same with ``await``, plus ``subscribe(memory_events())``, an async iterator.
A refusal raises ``HippographError``, whose ``code`` is the server's (``UNAUTHENTICATED``,
``BAD_USER_INPUT``, ``LIMIT_EXCEEDED`` …). The client imports nothing of the server.
"""

from __future__ import annotations

from hippograph.client.connection import AsyncClient, Client
from hippograph.client.errors import HippographError
from hippograph.client.operations import (
    Operation, append_turn, chains, end_session, forget, forget_project, forget_session, forget_user, memories,
    memory, memory_events, recall, record_decision, record_error, record_pattern, remember, session, set_preference,
    start_session, tier_usage, trace, transcript, verify_erasure,
)
from hippograph.client.types import (
    Chain, CompressionReport, Direction, Edge, EdgeType, Entity, EntityType, ErasedCount, ErasureCheck,
    ErasureReceipt, ErrorCode, Forgotten, Memory, MemoryEvent, MemoryKind, MemoryPage, PageInfo, Path, Priority,
    Promotion, RankedMemory, RecalledMemory, RecallGates, RecallMode,
    RecallProfile, RecallResult, RecallTimings, RecallTotals, RecallWeights, Recorded, Remembered, ScopeForgotten,
    ScoreComponents, Session, SessionEnded, SessionInfo, SessionStarted, SessionTranscript, SummaryRound, Tier,
    TierUsage, TranscriptEntry, TurnAppended,
)

__all__ = [
    "AsyncClient", "Client", "HippographError", "Operation", "append_turn", "chains", "end_session", "forget",
    "forget_project", "forget_session", "forget_user", "verify_erasure", "ErasedCount", "ErasureCheck",
    "ErasureReceipt", "memories", "memory", "memory_events", "recall", "record_decision", "record_error",
    "record_pattern", "remember", "session", "set_preference", "start_session", "tier_usage", "trace", "transcript", "Chain",
    "CompressionReport", "Direction", "Edge", "EdgeType", "Entity", "EntityType", "ErrorCode", "Forgotten",
    "Memory", "MemoryEvent", "MemoryKind", "MemoryPage", "PageInfo", "Path", "Priority", "Promotion", "RankedMemory", "RecalledMemory",
    "RecallGates", "RecallMode", "RecallProfile", "RecallResult", "RecallTimings", "RecallTotals", "RecallWeights",
    "Recorded", "Remembered", "ScopeForgotten", "ScoreComponents", "Session", "SessionEnded", "SessionInfo",
    "SessionStarted", "SessionTranscript", "SummaryRound", "Tier", "TierUsage", "TranscriptEntry", "TurnAppended",
]
