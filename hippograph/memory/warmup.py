"""Warming a fresh process before it serves: the first requests after a start should cost what the
ones after them do.

What a cold process pays on its first requests: PyTorch's first passes through the encoder (its
thread pools, its kernels for each batch shape) and Neo4j planning each statement the first time it
sees its text with its parameters' types — a null where a string was is a new plan (measured on a
fresh Neo4j, on a machine at load 9: the first ``remember`` took 3.6 s and the first ``recall``
6.5 s, the next ones 0.1-0.4 s). ``warm_up`` pays that once, at start: it encodes memories and queries the way writes
and recalls do, rehearses groups of writes of every tier, with entities and without — the write
path's own statements, run in a transaction that is rolled back, so nothing is stored and nothing
is logged — and runs the recall statement once for each statement text and parameter types that
the profiles, the scopes and the kinds of query make (one that asks when, one that names a
month, one of plain keywords, a statement, one of stop words only — each style is weighed, and
searched, its own way — each read now and as of a moment), reading as a user no one is and booking no
access. The server runs it in the background: it is ready (``/readyz``) before the warm-up ends, and
the requests that come meanwhile are answered, only slower.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from datetime import UTC, datetime
from typing import Any

from hippograph.graph import recall as recall_cypher
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.analysis import analyse
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.recall.query import build_query, recall
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.admission import MemoryInput

# Nobody's id: writes are rehearsed and rolled back under it, and its recalls find nothing.
USER = "hippograph-warm-up"
PROJECT = "warm-up"
SESSION = "warm-up"
SCOPES = (Scope(USER), Scope(USER, PROJECT), Scope(USER, PROJECT, SESSION))
# Texts of several lengths, as many as a busy server's group of writes embeds in one pass.
SENTENCES = (
    "Alex: We moved the release to Friday because the migration test failed on the staging copy.",
    "Sam: I tried the new espresso place near the station; the oat flat white was good.",
    "Decision: the nightly export runs at 02:00 UTC and keeps fourteen days of files.",
    "Priya: My sister is visiting in March, so I will be out for the second week.",
)
GROUP = 32
# Without a name or a number: no entity to link.
PLAIN = "we should water the plants more often in the summer"
QUERIES = (
    "When did Alex move the release, and why?",
    "What did Priya plan for March 2024?",
    "espresso oat flat white",
    "I finally said no to the extra project, and it felt good.",
    "is it",
)


@dataclass(frozen=True)
class Warmth:
    """What the warm-up did, and how long it took."""

    encoded: int
    rehearsed: int
    statements: int
    seconds: float


def warm_up(services: Services) -> Warmth:
    """Encode, rehearse the writes and run each recall statement once (see the module)."""
    started = time.perf_counter()
    texts = [f"{SENTENCES[i % len(SENTENCES)]} ({i})" for i in range(GROUP)]
    services.embedder.embed_documents(texts)
    # One whole recall (the named-speaker lookup, the query encoder) before anything is rehearsed.
    recall(services, QUERIES[0], Scope(USER), "critical", record_access=False)
    writes = [
        (Scope(USER), Tier.LONG_TERM),
        (Scope(USER, PROJECT), Tier.PROJECT),
        (Scope(USER, PROJECT, SESSION), Tier.SESSION),
    ]
    now = datetime.now(UTC)
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    # One transaction, rolled back: the recalls read the rehearsed writes, so each statement runs on rows.
    with services.driver.session(database=services.database) as session, session.begin_transaction() as tx:
        for scope, tier in writes:
            services.writer.rehearse(tx, services.settings, scope, [MemoryInput(SENTENCES[0], tier)])
            services.writer.rehearse(tx, services.settings, scope, [MemoryInput(PLAIN, tier)])
        services.writer.rehearse(
            tx,
            services.settings,
            Scope(USER, PROJECT),
            [MemoryInput(text, Tier.PROJECT) for text in texts[1 : GROUP // 2]],
        )
        for query in QUERIES:
            vector = services.embedder.embed_query(query)
            analysis = analyse(query, now)
            for profile, scope, as_of in itertools.product(PROFILES.values(), SCOPES, (None, now)):
                request = build_query(profile, scope, analysis, vector.tolist(), now, list(Tier), as_of=as_of)
                key = (request.statement(), _types(request.parameters()))
                if key not in seen:
                    seen.add(key)
                    recall_cypher.recall_candidates(tx, request)  # type: ignore[arg-type]  # a Transaction runs them as a managed one
        tx.rollback()
    return Warmth(len(texts), 2 * len(writes) + 1, len(seen), round(time.perf_counter() - started, 2))


def _types(parameters: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """What Neo4j keys a plan on besides the text: each parameter's type (a list's by its first item)."""

    def kind(value: Any) -> str:
        if isinstance(value, list):
            return "list of " + (kind(value[0]) if value else "nothing")
        return type(value).__name__

    return tuple(sorted((name, kind(value)) for name, value in parameters.items()))
