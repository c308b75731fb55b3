"""The write path: ``remember`` one memory, ``bulk_import`` many.

In order: check the input and scope, scrub secrets (redact or reject, as
configured), refuse raw conversation turns outside the session tier, embed and
count tokens, then in ONE write transaction: serialise on the user, recognise
an echo of a stored memory, compress the tier if the write would pass its
trigger, refuse if it still would not fit, store the memory with its entity
mentions, and log the write. A failure anywhere leaves nothing behind.

Writes that arrive while others are being written wait and then go as one group
(``hippograph.memory.grouping``): their texts embedded in one pass, their rows in one
transaction, each writer still answered with its own result or its own refusal.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
from neo4j import ManagedTransaction, Session
from neo4j.exceptions import DatabaseError, DriverError, TransientError

from hippograph.graph import compression as compression_cypher
from hippograph.graph import entities as entity_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.memory.writing import compression
from hippograph.memory.recall import lucene
from hippograph.memory.writing import secrets
from hippograph.graph.vocabulary import EntityType
from hippograph.memory.writing.entities import USER_SCOPE, clean_name, extract_mentions, normalise_name
from hippograph.memory.errors import CapacityExceeded, InvalidInput, RawTurnRefused
from hippograph.memory.writing.shortening import compress_text
from hippograph.memory.writing.turns import turn_parts
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope, capacity, persistent, trigger
from hippograph.memory.services import Services, WriteCounts

MAX_CONTENT_CHARS = 20_000
# What fails a whole group at once: the store itself failing (unreachable, or still failing after the
# driver's retries), not one write's statement (a ClientError stays that write's own).
STORE_FAILURES = (DriverError, TransientError, DatabaseError)
BULK_BATCH = 500

# What a memory records, and the entity label its node carries for Browser.
KIND_LABELS: dict[str, str | None] = {
    "note": None,
    "fact": None,
    "summary": None,
    "rule": None,
    "turn": None,
    "decision": "Decision",
    "error": "Error",
    "pattern": "Pattern",
    "technology": "Technology",
    "concept": "Concept",
    "preference": "UserPreference",
}

# Two or more lines that open with a speaker ("User: …", "assistant: …") read as a raw transcript.
_SPEAKER_LINE = re.compile(r"^\s*(user|assistant|human|ai|system|bot|model|me|you)\s*[:>]", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class MemoryInput:
    content: str
    tier: Tier
    kind: str = "note"
    relevance: float = 1.0
    summary: str | None = None
    created_at: datetime | None = None
    attributes: dict[str, Any] | None = None
    mentions: Sequence[tuple[EntityType, str]] = ()
    extract_entities: bool = True
    derived_from: Sequence[str] = ()
    records_entity: tuple[EntityType, str] | None = None


@dataclass
class Remembered:
    id: str
    tier: Tier
    tokens: int
    created: bool = True
    duplicate_of: str | None = None
    redacted: list[str] = field(default_factory=list)
    compression: compression.CompressionPlan | None = None
    entity_ids: list[str] = field(default_factory=list)
    records_entity_id: str | None = None
    # The memory as its group's transaction left it, in the fields a read returns (None if that group
    # compressed it away): what the API answers with, without reading it again after the commit.
    memory: dict[str, Any] | None = None


@dataclass
class _Prepared:
    row: dict[str, Any]
    redacted: list[str]
    entities: list[dict[str, Any]]
    records_key: str | None
    derived_from: list[str]


@dataclass(frozen=True)
class _Write:
    """One ``remember`` in its group: who writes what, ready to store, and what runs after it."""

    services: Services
    scope: Scope
    item: MemoryInput
    prepared: _Prepared
    then: Callable[[ManagedTransaction, Remembered], None] | None

    @property
    def plain(self) -> bool:
        """Stored beside the others of its group in shared statements: nothing of its own runs after it."""
        return self.then is None and self.item.records_entity is None

    @property
    def tier_scope(self) -> Scope:
        return self.scope.for_tier(self.item.tier)


def remember(
    services: Services,
    scope: Scope,
    item: MemoryInput,
    now: datetime | None = None,
    then: Callable[[ManagedTransaction, Remembered], None] | None = None,
) -> Remembered:
    """Store one memory under the tier's rules; see the module docstring for the order of checks.

    ``then(tx, remembered)`` runs in the same transaction after the memory is stored (links,
    closing superseded facts), so the whole change commits or fails as one. Writes that arrive
    together are embedded together and committed together (``hippograph.memory.grouping``).
    """
    prepared = _prepare(services, scope, [item], now, embed=lambda texts: _embed_together(services, texts))[0]
    cap = capacity(services.settings, item.tier)
    tokens = prepared.row["tokens"]
    ceiling = compression.target_tokens(item.tier, cap)
    if tokens > ceiling:
        raise CapacityExceeded(
            f"a memory of {tokens} tokens cannot fit the {item.tier.value} tier: it holds at most {ceiling} "
            f"of its {cap} tokens after compression"
        )
    return services.writes.submit(_Write(services, scope, item, prepared, then), _commit)


def _embed_together(services: Services, texts: list[str]) -> np.ndarray:
    def run(groups: Sequence[list[str]]) -> list[np.ndarray]:
        vectors = services.embedder.embed_documents([text for group in groups for text in group])
        bounds = np.cumsum([0, *(len(group) for group in groups)])
        return [vectors[start:end] for start, end in zip(bounds[:-1], bounds[1:])]

    return services.embeddings.submit(texts, run)


def _commit(writes: Sequence[_Write]) -> list[Remembered | BaseException]:
    """One transaction for the group; if one of its writes fails it (a rule refuses it, or its own
    work after it raises), each is tried alone, so that write alone hears why and the others are
    stored. A failing store fails them all at once: trying each alone would only wait longer."""
    services = writes[0].services
    with services.driver.session(database=services.database) as session:
        try:
            return _transaction(session, services.write_counts, writes)
        except STORE_FAILURES:
            raise
        except Exception as refused:
            if len(writes) == 1:
                return [refused]
        outcomes: list[Remembered | BaseException] = []
        for write in writes:
            try:
                outcomes.extend(_transaction(session, services.write_counts, [write]))
            except STORE_FAILURES:
                raise
            except Exception as exc:  # this write's own failure, reported to its writer
                outcomes.append(exc)
        return outcomes


def _transaction(session: Session, counts: WriteCounts, writes: Sequence[_Write]) -> list[Remembered]:
    """The group's transaction; the driver runs it again after a transient error (a deadlock among
    them), and each such retry is counted."""
    tries = 0

    def work(tx: ManagedTransaction) -> list[Remembered]:
        nonlocal tries
        tries += 1
        return _write_group(tx, writes)

    try:
        stored = session.execute_write(work)
    finally:
        counts.retries += max(0, tries - 1)
    counts.groups += 1
    counts.writes += len(writes)
    return stored


def _write_group(tx: ManagedTransaction, writes: Sequence[_Write]) -> list[Remembered]:
    """Plain writes to a tier scope with room for all of them share their statements; the rest
    (compressing, or with work of their own after them) follow one by one, in arrival order."""
    users = sorted({w.scope.user_id for w in writes})
    for user_id in users:
        memory_cypher.lock_user(tx, user_id)
    results: dict[int, Remembered] = {}
    alone = [i for i, w in enumerate(writes) if not w.plain]
    fresh: dict[tuple[str, Tier, Scope], list[int]] = {}
    events: list[tuple[str | None, str, Sequence[str], str | None]] = []
    for user_id in sorted({w.scope.user_id for w in writes if w.plain}):
        mine = [i for i, w in enumerate(writes) if w.plain and w.scope.user_id == user_id]
        known = memory_cypher.find_by_hashes(tx, user_id, [writes[i].prepared.row["contentHash"] for i in mine])
        for i in mine:
            w = writes[i]
            existing = known.get(w.prepared.row["contentHash"])
            if existing is None:
                known[w.prepared.row["contentHash"]] = w.prepared.row["id"]
                fresh.setdefault((user_id, w.item.tier, w.tier_scope), []).append(i)
            else:
                results[i] = Remembered(existing, w.item.tier, w.prepared.row["tokens"], created=False,
                                        duplicate_of=existing, redacted=w.prepared.redacted)
                events.append((user_id, "remember", [existing], "duplicate: already stored"))
    together: list[list[int]] = []
    for (user_id, tier, tier_scope), indexes in fresh.items():
        used, _ = memory_cypher.tier_usage(tx, user_id, tier.value, tier_scope.project_id, tier_scope.session_id)
        incoming = sum(writes[i].prepared.row["tokens"] for i in indexes)
        if compression.needs_compression(tier, used, incoming, capacity(writes[indexes[0]].services.settings, tier)):
            alone.extend(indexes)
        else:
            together.append(indexes)
    memory_cypher.create_memories(tx, [writes[i].prepared.row for indexes in together for i in indexes])
    for indexes in together:
        entity_ids = _attach(tx, writes[indexes[0]].scope.user_id, [writes[i].prepared for i in indexes])
        for i in indexes:
            w = writes[i]
            results[i] = Remembered(w.prepared.row["id"], w.item.tier, w.prepared.row["tokens"],
                                    redacted=w.prepared.redacted, entity_ids=[
                                        entity_ids[row["key"]] for row in w.prepared.entities])
            events.append((w.scope.user_id, "remember", [w.prepared.row["id"]], _detail(w.item.tier, w.prepared.redacted, None)))
    if events:
        writes[0].services.audit.record_all_in(tx, events)
    for i in sorted(alone):
        results[i] = _write_alone(tx, writes[i])
    for user_id in users:
        mine = [i for i, w in enumerate(writes) if w.scope.user_id == user_id]
        rows = {row["id"]: row for row in memory_cypher.get_memories(tx, user_id, [results[i].id for i in mine])}
        for i in mine:
            results[i].memory = rows.get(results[i].id)
    return [results[i] for i in range(len(writes))]


def _write_alone(tx: ManagedTransaction, write: _Write) -> Remembered:
    services, scope, item, prepared = write.services, write.scope, write.item, write.prepared
    existing = memory_cypher.find_by_hash(tx, scope.user_id, prepared.row["contentHash"])
    tokens = prepared.row["tokens"]
    if existing is not None:
        services.audit.record_in(tx, scope.user_id, "remember", [existing], "duplicate: already stored")
        duplicate = Remembered(
            existing, item.tier, tokens, created=False, duplicate_of=existing, redacted=prepared.redacted,
            records_entity_id=entity_cypher.recorded_entity(tx, scope.user_id, existing),
        )
        if write.then is not None:
            write.then(tx, duplicate)
        return duplicate
    plan = _compress_if_needed(services, tx, write.tier_scope, item.tier, tokens)
    memory_cypher.create_memories(tx, [prepared.row])
    entity_ids = _attach(tx, scope.user_id, [prepared])
    records_id = entity_ids.get(prepared.records_key) if prepared.records_key else None
    services.audit.record_in(
        tx, scope.user_id, "remember", [prepared.row["id"], *(plan.delete + plan.archive if plan else [])],
        _detail(item.tier, prepared.redacted, plan),
    )
    result = Remembered(
        prepared.row["id"], item.tier, tokens, redacted=prepared.redacted, compression=plan,
        entity_ids=list(entity_ids.values()), records_entity_id=records_id,
    )
    if write.then is not None:
        write.then(tx, result)
    return result


def bulk_import(
    services: Services, scope: Scope, items: Sequence[MemoryInput], now: datetime | None = None,
    vectors: Callable[[list[str]], np.ndarray] | None = None,
) -> list[tuple[str, ...]]:
    """Store many memories fast: batched embedding and UNWIND writes, no compression.

    The same rules hold (secrets, raw turns, scope, capacity): a batch that would pass a
    tier's trigger is refused whole rather than compressed, so an import never silently
    rewrites what it imports. A conversation turn longer than a memory holds is stored as
    its parts (``hippograph.memory.writing.turns``). The next batch is embedded while the
    current one is written. Returns, in input order, the ids of the memories each item is
    stored as (one, or a long turn's parts). ``vectors`` turns the scrubbed texts into their
    vectors (the service's embedder unless given: the benchmark store's copies are moved a little).
    """
    at = now or datetime.now(timezone.utc)
    origins, stored_items = [], []
    for index, item in enumerate(items):
        for part in turn_parts(item, at):
            origins.append(index)
            stored_items.append(part)
    batches = [stored_items[start:start + BULK_BATCH] for start in range(0, len(stored_items), BULK_BATCH)]
    ids: list[str] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hippograph-embed") as ahead:
        upcoming = ahead.submit(_prepare, services, scope, batches[0], now, vectors) if batches else None
        for index, batch in enumerate(batches):
            assert upcoming is not None
            prepared = upcoming.result()
            if index + 1 < len(batches):
                upcoming = ahead.submit(_prepare, services, scope, batches[index + 1], now, vectors)
            with services.driver.session(database=services.database) as session:
                ids.extend(session.execute_write(_write_batch, services, scope, batch, prepared))
    stored: list[list[str]] = [[] for _ in items]
    for origin, memory_id in zip(origins, ids):
        stored[origin].append(memory_id)
    return [tuple(dict.fromkeys(each)) for each in stored]


def _write_batch(
    tx: ManagedTransaction, services: Services, scope: Scope, batch: list[MemoryInput], prepared: list[_Prepared]
) -> list[str]:
    memory_cypher.lock_user(tx, scope.user_id)
    # Re-importing stores nothing twice: a text already stored (or earlier in the batch) keeps its memory.
    known = memory_cypher.find_by_hashes(tx, scope.user_id, [p.row["contentHash"] for p in prepared])
    fresh: list[tuple[MemoryInput, _Prepared]] = []
    batch_ids: list[str] = []
    for item, p in zip(batch, prepared):
        existing = known.get(p.row["contentHash"])
        if existing is None:
            known[p.row["contentHash"]] = p.row["id"]
            fresh.append((item, p))
        batch_ids.append(existing or p.row["id"])
    incoming: dict[Tier, int] = {}
    for item, p in fresh:
        incoming[item.tier] = incoming.get(item.tier, 0) + p.row["tokens"]
    for tier, tokens in incoming.items():
        tier_scope = scope.for_tier(tier)
        used, _ = memory_cypher.tier_usage(tx, scope.user_id, tier.value, tier_scope.project_id, tier_scope.session_id)
        cap = capacity(services.settings, tier)
        if compression.needs_compression(tier, used, tokens, cap):
            raise CapacityExceeded(
                f"importing {tokens} tokens into the {tier.value} tier ({used} of {cap} used) would pass its "
                f"{trigger(tier):.0%} trigger; raise the tier's capacity or import less"
            )
    memory_cypher.create_memories(tx, [p.row for _, p in fresh])
    _attach(tx, scope.user_id, [p for _, p in fresh])
    services.audit.record_in(
        tx, scope.user_id, "import", [p.row["id"] for _, p in fresh],
        f"{len(fresh)} memories, {len(batch) - len(fresh)} already stored",
    )
    return batch_ids


def content_hash(tier: Tier, scope: Scope, content: str) -> str:
    """Identity of a memory's text within its tier and scope: an echo hashes the same."""
    tier_scope = scope.for_tier(tier)
    normal = re.sub(r"\s+", " ", content).strip().casefold()
    key = "\x1f".join([tier.value, tier_scope.project_id or "", tier_scope.session_id or "", normal])
    return hashlib.sha256(key.encode()).hexdigest()


def looks_like_transcript(text: str) -> bool:
    return len(_SPEAKER_LINE.findall(text)) >= 2


def _prepare(
    services: Services, scope: Scope, items: Sequence[MemoryInput], now: datetime | None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
) -> list[_Prepared]:
    stamp = (now or datetime.now(timezone.utc)).isoformat()
    prepared: list[_Prepared] = []
    for item in items:
        _validate(scope, item)
        policy = services.settings.secret_policy
        scrubbed = secrets.enforce(item.content, policy)
        summary = secrets.enforce(item.summary, policy) if item.summary else None
        attributes = secrets.enforce_data(item.attributes, policy)
        mentions = [(kind, secrets.enforce(name, policy)) for kind, name in item.mentions]
        redacted = sorted(
            set(scrubbed.kinds) | set(summary.kinds if summary else []) | set(attributes.kinds)
            | {kind for _, name in mentions for kind in name.kinds}
        )
        tier_scope = scope.for_tier(item.tier)
        label = KIND_LABELS[item.kind]
        memory_id = str(uuid.uuid4())
        created = item.created_at.isoformat() if item.created_at else stamp
        entities, records_key = _entity_rows(scope, item, [(kind, name.text) for kind, name in mentions], scrubbed.text)
        prepared.append(_Prepared(
            row={
                "id": memory_id,
                "content": scrubbed.text,
                "summary": summary.text if summary else None,
                "tier": item.tier.value,
                "kind": item.kind,
                "labels": ["Memory", label] if label else ["Memory"],
                "userId": scope.user_id,
                "projectId": tier_scope.project_id,
                "sessionId": tier_scope.session_id,
                "createdAt": created,
                "relevance": float(item.relevance),
                "tokens": services.tokens.count(scrubbed.text),
                "summaryTokens": None,
                "attributes": json.dumps(attributes.value, sort_keys=True) if item.attributes is not None else None,
                "contentHash": content_hash(item.tier, scope, scrubbed.text),
                "speaker": speaker_of(attributes.value),
                "embedding": None,
                "sketch": None,
            },
            redacted=redacted,
            entities=entities,
            records_key=records_key,
            derived_from=list(item.derived_from),
        ))
    vectors = (embed or services.embedder.embed_documents)([p.row["content"] for p in prepared])
    for p, vector, sketch in zip(prepared, vectors, services.embedder.sketches(vectors)):
        p.row["embedding"] = vector.tolist()
        p.row["sketch"] = sketch
    return prepared


def speaker_of(attributes: Mapping[str, Any] | None) -> str | None:
    """Who said the memory (``attributes.speaker``, already scrubbed) as lower-case words; recall matches
    them against the query's words."""
    speaker = (attributes or {}).get("speaker")
    if not isinstance(speaker, str):
        return None
    return " ".join(lucene.words(speaker)) or None


def _validate(scope: Scope, item: MemoryInput) -> None:
    if not isinstance(item.content, str) or not item.content.strip():
        raise InvalidInput("a memory needs non-empty content")
    if len(item.content) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"a memory's content has at most {MAX_CONTENT_CHARS} characters, got {len(item.content)}")
    if item.kind not in KIND_LABELS:
        raise InvalidInput(f"unknown memory kind {item.kind!r}; one of {', '.join(KIND_LABELS)}")
    if not 0.0 <= item.relevance <= 1.0:
        raise InvalidInput(f"relevance must be between 0 and 1, got {item.relevance}")
    if persistent(item.tier) and (item.kind == "turn" or looks_like_transcript(item.content)):
        raise RawTurnRefused(
            f"raw conversation turns are not stored in the {item.tier.value} tier; append them to the session "
            "transcript, or remember the fact they contain"
        )
    scope.for_tier(item.tier)  # raises ScopeError when the tier's scope id is missing


def entity_row(scope: Scope, tier: Tier, kind: EntityType, name: str) -> dict[str, Any]:
    """A row for ``upsert_entities``: the entity's identity within the tier's scope, and a fresh id for a new node."""
    display = clean_name(secrets.enforce(name, "redact").text)
    return {
        "key": f"{EntityType(kind).value}\x1f{normalise_name(display)}",
        "id": str(uuid.uuid4()),
        "name": display,
        "normName": normalise_name(display),
        "type": EntityType(kind).value,
        "scopeKey": scope.project_id if tier is not Tier.LONG_TERM and scope.project_id else USER_SCOPE,
        "attributes": None,
    }


def _entity_rows(
    scope: Scope, item: MemoryInput, mentions: list[tuple[EntityType, str]], text: str
) -> tuple[list[dict[str, Any]], str | None]:
    wanted = list(mentions)
    if item.extract_entities:
        wanted += extract_mentions(text)
    records_key = None
    if item.records_entity is not None:
        wanted.insert(0, item.records_entity)
    rows: dict[str, dict[str, Any]] = {}
    for kind, name in wanted:
        row = entity_row(scope, item.tier, kind, name)
        rows.setdefault(row["key"], row)
        if item.records_entity is not None and records_key is None:
            records_key = row["key"]
    return list(rows.values()), records_key


def _attach(tx: ManagedTransaction, user_id: str, prepared: Sequence[_Prepared]) -> dict[str, str]:
    """Link just-created memories to their entities (one upsert, one MENTIONS statement for all),
    the entity each records, and the memories each derives from; returns entity ids by key."""
    ids = entity_cypher.upsert_entities(tx, user_id, [row for p in prepared for row in p.entities])
    entity_cypher.mention_many(tx, user_id, sorted({
        (p.row["id"], ids[row["key"]]) for p in prepared for row in p.entities if row["key"] != p.records_key
    }))
    for p in prepared:
        if p.records_key is not None:
            entity_cypher.records(tx, user_id, p.row["id"], ids[p.records_key])
        if p.derived_from:
            memory_cypher.derive(tx, user_id, p.row["id"], p.derived_from)
    return ids


def _compress_if_needed(
    services: Services, tx: ManagedTransaction, scope: Scope, tier: Tier, incoming: int
) -> compression.CompressionPlan | None:
    cap = capacity(services.settings, tier)
    used, _ = memory_cypher.tier_usage(tx, scope.user_id, tier.value, scope.project_id, scope.session_id)
    if not compression.needs_compression(tier, used, incoming, cap):
        return None
    snapshot = compression_cypher.tier_snapshot(tx, scope.user_id, tier.value, scope.project_id, scope.session_id)
    items = [
        compression.TierItem(
            id=r["id"], kind=r["kind"] or "note", tokens=int(r["tokens"] or 0), created_at=r["createdAt"].to_native(),
            active=bool(r["active"]), summarised=bool(r["summarised"]),
            count=int(json.loads(r["attributes"]).get("count", 1)) if r["attributes"] else 1,
            relevance=float(r["relevance"] if r["relevance"] is not None else 1.0),
        )
        for r in snapshot
    ]
    texts = {r["id"]: r["content"] or "" for r in snapshot}

    def summarise(text: str, max_tokens: int) -> tuple[str, int]:
        summary = compress_text(text, services.tokens, max_tokens)
        return summary, services.tokens.count(summary)

    plan = compression.plan(tier, items, cap, incoming, summarise, texts)
    if plan.used_after + incoming > plan.target:
        raise CapacityExceeded(
            f"the {tier.value} tier has no room for {incoming} more tokens: {plan.used_after} of {cap} stay after "
            f"compression ({'; '.join(plan.steps)}) and it holds at most {plan.target}"
        )
    memory_cypher.delete_memories(tx, scope.user_id, plan.delete)
    compression_cypher.summarise_memories(
        tx, scope.user_id, [{"id": i, "summary": s, "tokens": t} for i, (s, t) in plan.summarise.items()]
    )
    compression_cypher.archive_memories(tx, scope.user_id, plan.archive)
    return plan


def _detail(tier: Tier, redacted: list[str], plan: compression.CompressionPlan | None) -> str:
    parts = [f"tier={tier.value}"]
    if redacted:
        parts.append(f"redacted={','.join(redacted)}")
    if plan is not None:
        parts.append(
            f"compressed: {'; '.join(plan.steps)} (deleted {len(plan.delete)}, summarised {len(plan.summarise)}, "
            f"archived {len(plan.archive)})"
        )
    return " ".join(parts)
