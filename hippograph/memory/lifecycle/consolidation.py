"""Consolidation, after the Hanzo paper ("inspired by hippocampal replay"):

1. **Deduplication** — memories of one user, tier and scope with cosine > 0.95 merge:
   the older survives and takes over provenance (edges, and the union of the
   lists in ``attributes``, e.g. the turns a fact derives from), edges and access counts.
2. **Promotion** — session memories accessed more than 3 times move to project
   memory (long-term memory when their session has no project).
3. **Generalisation** — a cluster of similar project memories spanning several
   (≥ 3) projects becomes a rule in long-term memory, ``RELATED_TO`` its members.
4. **Decay** — memories not accessed for 90 days have their relevance ρ decayed by
   10 %, once per period however often consolidation runs.

A memory merged away or promoted is not deleted: it stays archived, as the history a read as of
before reads (``hippograph.graph.history.SUPERSEDE``), and goes when what carries it on is forgotten.

Each step runs per user, in short write transactions that re-check what they
change, so consolidation is safe while writes and recalls run.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from neo4j import ManagedTransaction

from hippograph.graph import consolidation as consolidation_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.memory.errors import MemoryRuleError
from hippograph.memory.lifecycle.sessions import promote as promote_memory
from hippograph.memory.writing.admission import MemoryInput
from hippograph.memory.writing.store import remember
from hippograph.memory.writing.writer import Remembered
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.lifecycle.transcript import merge_provenance, parse_attributes
from hippograph.memory.services import Services
from hippograph.memory.writing import outcomes

DUPLICATE_COSINE = 0.95
PROMOTE_AFTER_ACCESSES = 3
GENERALISE_COSINE = 0.80
GENERALISE_MIN_PROJECTS = 3
DECAY_AFTER_DAYS = 90
DECAY_FACTOR = 0.9


@dataclass
class ConsolidationReport:
    merged: list[tuple[str, str]] = field(default_factory=list)  # (kept, merged away)
    promoted: dict[str, str] = field(default_factory=dict)  # session memory -> project memory
    generalised: list[str] = field(default_factory=list)  # new long-term rules
    decayed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # what a rule refused, with why

    def as_dict(self) -> dict[str, Any]:
        return {
            "merged": [list(pair) for pair in self.merged],
            "promoted": self.promoted,
            "generalised": self.generalised,
            "decayed": len(self.decayed),
            "skipped": self.skipped,
        }


def consolidate(
    services: Services,
    user_id: str | None = None,
    now: datetime | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> ConsolidationReport:
    """Run the four steps for one user, or for every user when ``user_id`` is None; ``progress(done, total)``
    counts the users done."""
    moment = now or datetime.now(UTC)
    report = ConsolidationReport()
    with services.driver.session(database=services.database) as session:
        users = [user_id] if user_id else session.execute_read(consolidation_cypher.users)
    progress(0, len(users))
    for done, user in enumerate(users, 1):
        services.writer.settle(user)  # its duplicates are found by their vectors: those still owed first
        deduplicate(services, user, report)
        promote(services, user, report)
        generalise(services, user, report)
        decay(services, user, moment, report)
        progress(done, len(users))
    return report


def duplicate_pairs(rows: list[dict[str, Any]], threshold: float = DUPLICATE_COSINE) -> list[tuple[str, str]]:
    """(keep, drop) pairs above the threshold within each tier and scope; each memory dropped at most once."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        # Only the session tier is scoped by session: a project fact's sessionId says where it was said.
        session = row["sessionId"] if row["tier"] == Tier.SESSION.value else None
        groups[(row["tier"], row["projectId"], session)].append(row)
    pairs: list[tuple[str, str]] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda r: (r["createdAt"], r["id"]))  # the oldest survives
        vectors = np.asarray([r["embedding"] for r in members], dtype=np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        similar = vectors @ vectors.T
        gone: set[int] = set()
        for i in range(len(members)):
            if i in gone:
                continue
            for j in np.nonzero(similar[i, i + 1 :] > threshold)[0] + i + 1:
                if j not in gone:
                    gone.add(int(j))
                    pairs.append((members[i]["id"], members[int(j)]["id"]))
    return pairs


def deduplicate(services: Services, user_id: str, report: ConsolidationReport) -> None:
    with services.driver.session(database=services.database) as session:
        rows = session.execute_read(consolidation_cypher.live_embeddings, user_id)
        for keep, drop in duplicate_pairs(rows):

            def write(tx: ManagedTransaction, keep: str = keep, drop: str = drop) -> bool:
                attributes = memory_cypher.attributes(tx, user_id, [keep, drop])
                if len(attributes) < 2:
                    return False  # one of them went meanwhile
                united = merge_provenance(parse_attributes(attributes[keep]), parse_attributes(attributes[drop]))
                merged = consolidation_cypher.merge_duplicate(
                    tx, user_id, keep, drop, json.dumps(united, sort_keys=True) if united else attributes[keep]
                )
                if merged:
                    services.audit.record_in(tx, user_id, "consolidate", [keep, drop], "merged duplicate")
                return merged

            if outcomes.write(session, write):
                report.merged.append((keep, drop))


def promote(services: Services, user_id: str, report: ConsolidationReport) -> None:
    with services.driver.session(database=services.database) as session:
        rows = session.execute_read(consolidation_cypher.session_memories_to_promote, user_id, PROMOTE_AFTER_ACCESSES)
    for row in rows:
        try:
            stored = promote_memory(services, user_id, row["sessionId"], row["projectId"], row)
        except MemoryRuleError as refused:
            report.skipped.append(f"promote {row['id']}: {refused}")
            continue

        def move(tx: ManagedTransaction, row: dict[str, Any] = row, stored: Remembered = stored) -> None:
            memory_cypher.carry_accesses(tx, user_id, row["id"], stored.id)
            consolidation_cypher.supersede_by(tx, user_id, row["id"], stored.id)
            services.audit.record_in(
                tx, user_id, "consolidate", [row["id"], stored.id], "promoted to " + stored.tier.value
            )

        with services.driver.session(database=services.database) as session:
            outcomes.write(session, move)
        report.promoted[row["id"]] = stored.id


def clusters(rows: list[dict[str, Any]], threshold: float = GENERALISE_COSINE) -> list[list[int]]:
    """Single-link clusters of rows by cosine similarity (indices into ``rows``)."""
    if not rows:
        return []
    vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    linked = (vectors @ vectors.T) > threshold
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(*np.nonzero(np.triu(linked, 1))):
        parent[root(int(i))] = root(int(j))
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(rows)):
        groups[root(i)].append(i)
    return [sorted(g) for g in groups.values()]


def generalise(services: Services, user_id: str, report: ConsolidationReport) -> None:
    with services.driver.session(database=services.database) as session:
        rows = session.execute_read(consolidation_cypher.project_memories, user_id)
    for group in clusters(rows):
        members = [rows[i] for i in group]
        projects = sorted({m["projectId"] for m in members})
        if len(projects) < GENERALISE_MIN_PROJECTS or all(m["generalised"] for m in members):
            continue
        vectors = np.asarray([m["embedding"] for m in members], dtype=np.float32)
        centre = vectors.mean(axis=0)
        medoid = members[int(np.argmax(vectors @ centre))]
        text = f"Across projects {', '.join(projects)}: {medoid['content']}"
        try:
            rule = remember(
                services,
                Scope(user_id),
                MemoryInput(
                    content=text,
                    tier=Tier.LONG_TERM,
                    kind="rule",
                    attributes={"generalisedFrom": [m["id"] for m in members], "projects": projects},
                ),
            )
        except MemoryRuleError as refused:
            report.skipped.append(f"generalise {len(members)} memories: {refused}")
            continue
        with services.driver.session(database=services.database) as session:
            outcomes.write(session, consolidation_cypher.relate_rule, user_id, rule.id, [m["id"] for m in members])
        if rule.created:
            report.generalised.append(rule.id)


def decay(services: Services, user_id: str, now: datetime, report: ConsolidationReport) -> None:
    def write(tx: ManagedTransaction) -> list[str]:
        ids = consolidation_cypher.decay(tx, user_id, now.isoformat(), DECAY_AFTER_DAYS, DECAY_FACTOR)
        if ids:
            services.audit.record_in(tx, user_id, "consolidate", ids, f"decayed {len(ids)} by {1 - DECAY_FACTOR:.0%}")
        return ids

    with services.driver.session(database=services.database) as session:
        report.decayed.extend(outcomes.write(session, write))
