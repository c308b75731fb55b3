"""The one writer: every memory write goes in through it, in two steps.

1. **Admit** (``hippograph.memory.writing.admission``): check the input and scope, scrub secrets,
   hash and count the content — then embed it here (writes that arrive together share one pass).
2. **Store**, in one write transaction: serialise on the user, recognise a retry (its request id)
   or an echo (its content hash) of a stored memory, keep the tier's capacity, create the memory,
   attach its entities, log the write, and read it back. A failure anywhere leaves nothing behind.

``remember`` (and every ``record_*`` on top of it), ``bulk_import``, document imports and
``update_memory`` all come here, so each rule is written once: a duplicate is looked up in one
place (``_Known``), capacity decided in one (:func:`past_trigger`). A remembered memory compresses
its tier to make room; an import or an edit is refused instead, since compressing would rewrite
what it imports, or other memories.

Writes that arrive while others are being written wait and then go as one group
(``hippograph.memory.grouping``): their texts embedded in one pass, their rows in one transaction,
each writer still answered with its own result or its own refusal. Every answer is true
(``hippograph.memory.writing.outcomes``): a write the request's deadline passed before it began is
never stored, and a commit whose outcome the lost connection hid says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any, cast

import numpy as np
from neo4j import Driver, ManagedTransaction, Session, Transaction
from neo4j.exceptions import DatabaseError, DriverError, TransientError

from hippograph.config import Settings
from hippograph.encoding.protocols import TextEncoder
from hippograph.graph import compression as compression_cypher
from hippograph.graph import entities as entity_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.graph import updates as update_cypher
from hippograph.graph.vocabulary import Tier
from hippograph.memory.ids import check_id
from hippograph.memory.audit import AuditLog
from hippograph.memory.errors import CapacityExceeded, DeadlinePassed, InvalidInput, NotFound, OutcomeUnknown
from hippograph.memory.grouping import Grouped
from hippograph.memory.tiers import Scope, capacity, capacity_setting, kept_capacities, trigger
from hippograph.memory.tokens import TokenCounter
from hippograph.memory.writing import admission, compression, outcomes
from hippograph.memory.writing.admission import KEEP, Admitted, Keep, MemoryInput
from hippograph.memory.writing.entities import extract_mentions
from hippograph.memory.writing.late_vectors import LateVectors, Waiting
from hippograph.memory.writing.outcomes import Deadline
from hippograph.memory.writing.shortening import compress_text
from hippograph.memory.writing.turns import turn_parts

# The most writes one group carries: enough for every client of a busy server, small enough that
# one group's transaction stays short.
GROUP_LIMIT = 64
BULK_BATCH = 500
# What fails a whole group at once: the store itself failing (unreachable, or still failing after the
# driver's retries, or lost while committing), not one write's statement (a ClientError stays that write's own).
STORE_FAILURES = (DriverError, TransientError, DatabaseError, OutcomeUnknown)

# Writes that refuse rather than compress, and what they tell the caller to do instead.
IMPORTS_NEVER_COMPRESS = (
    "an import never compresses what it imports: raise the tier's capacity (`hippograph capacity "
    "{tier} TOKENS`: the store keeps it for the server and every command; {setting} is only the "
    "default), forget memories, or import less"
)
EDITS_NEVER_COMPRESS = "an edit never rewrites other memories: shorten it, or forget something first"


@dataclass
class WriteCounts:
    """What grouped writes did since the service opened (``/metrics`` reads it): the transactions
    committed, the writes they carried, and the times Neo4j made one run again (a deadlock or
    another transient error; the driver retries it). Only the group running changes them."""

    groups: int = 0
    writes: int = 0
    retries: int = 0


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
class Updated:
    memory: dict[str, Any]
    redacted: list[str] = field(default_factory=list)


# Work of a write's own, run in its transaction after the memory is stored (links, closing superseded facts).
Then = Callable[[ManagedTransaction, Remembered], None]


@dataclass(frozen=True)
class _Write:
    """One ``remember`` in its group: who writes what, admitted, what runs after it, and its request's deadline."""

    scope: Scope
    tier: Tier
    admitted: Admitted
    then: Then | None
    deadline: Deadline | None

    @property
    def plain(self) -> bool:
        """Stored beside the others of its group in shared statements: nothing of its own runs after it."""
        return self.then is None and self.admitted.records_key is None

    @property
    def tier_scope(self) -> Scope:
        return self.scope.for_tier(self.tier)


class _Known:
    """What one user's store holds of the writes of one transaction: memories by request id (a retry)
    and by content hash (an echo), kept current as the transaction plans, creates and compresses."""

    def __init__(self, tx: ManagedTransaction, user_id: str, request_ids: Sequence[str], hashes: Sequence[str]) -> None:
        self._requests = memory_cypher.find_by_request_ids(tx, user_id, request_ids) if request_ids else {}
        self._hashes = memory_cypher.find_by_hashes(tx, user_id, hashes)
        self._planned: set[str] = set()  # memories the transaction will create, not created yet

    @classmethod
    def of(cls, tx: ManagedTransaction, user_id: str, admitted: Sequence[Admitted]) -> _Known:
        return cls(tx, user_id, [a.request_id for a in admitted if a.request_id], [a.content_hash for a in admitted])

    def request(self, request_id: str | None) -> str | None:
        """The memory the request ``request_id`` wrote, if the store still holds it."""
        return self._requests[request_id][0] if request_id in self._requests else None

    def echo(self, content_hash: str) -> str | None:
        """The live memory whose text hashes to ``content_hash``."""
        return self._hashes.get(content_hash)

    def match(self, admitted: Admitted, planned: bool = False) -> tuple[str, bool] | None:
        """The memory ``admitted`` repeats, and whether it answered the same request (a retry) rather
        than the same text; with ``planned``, a memory the transaction has yet to create counts too."""

        def counts(memory_id: str) -> bool:
            return memory_id != admitted.id and (planned or memory_id not in self._planned)

        if admitted.request_id in self._requests:
            memory_id, content_hash = self._requests[admitted.request_id]
            if counts(memory_id):
                if content_hash != admitted.content_hash:
                    raise InvalidInput(
                        f"request id {admitted.request_id} already answered a write of other content (memory "
                        f"{memory_id}); a retry repeats its request exactly, and a new write takes a new id",
                        field="requestId",
                    )
                return memory_id, True
        echoed = self.echo(admitted.content_hash)
        return (echoed, False) if echoed is not None and counts(echoed) else None

    def plan(self, admitted: Admitted) -> None:
        """``admitted`` will be created by this transaction: the writes after it in its group repeat it."""
        self.add(admitted)
        self._planned.add(admitted.id)

    def add(self, admitted: Admitted) -> None:
        """``admitted`` is created."""
        self._hashes[admitted.content_hash] = admitted.id
        if admitted.request_id:
            self._requests[admitted.request_id] = (admitted.id, admitted.content_hash)
        self._planned.discard(admitted.id)

    def drop(self, plan: compression.CompressionPlan) -> None:
        """What compression took away: a deleted memory answers nothing, an archived one no echo."""
        gone = set(plan.delete) | set(plan.archive)
        self._hashes = {digest: memory_id for digest, memory_id in self._hashes.items() if memory_id not in gone}
        self._requests = {rid: seen for rid, seen in self._requests.items() if seen[0] not in plan.delete}


class Writer:
    """Every memory write of the process goes through one writer, opened with the services: it holds
    the queues that group concurrent writes and the counts of what they did."""

    def __init__(
        self,
        driver: Driver,
        database: str,
        embedder: TextEncoder,
        tokens: TokenCounter,
        audit: AuditLog,
        late: LateVectors | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.embedder = embedder
        self.tokens = tokens
        self.audit = audit
        # Writes that arrive together share one embedding pass and one transaction (``remember``).
        self.embeddings: Grouped[list[str], np.ndarray] = Grouped(GROUP_LIMIT)
        self.writes: Grouped[_Write, Remembered] = Grouped(GROUP_LIMIT)
        self.counts = WriteCounts()
        # HIPPOGRAPH_WRITE_VECTORS=after: a remembered memory's vector comes after its answer.
        self.late = late

    # --- one memory ------------------------------------------------------------------------------

    def remember(
        self,
        settings: Settings,
        scope: Scope,
        item: MemoryInput,
        now: datetime | None = None,
        then: Then | None = None,
        request_id: str | None = None,
    ) -> Remembered:
        """Admit ``item`` and store it with the writes waiting beside it (see the module docstring)."""
        later = self.late is not None and not self.late.full()
        admitted = self._admit(settings, scope, [item], now, request_id, together=True, later=later)[0]
        write = _Write(scope, item.tier, admitted, then, outcomes.current_deadline())
        remembered = self.writes.submit(write, self._commit)
        if self.late is not None and later and remembered.created:
            self.late.add(Waiting(remembered.id, scope.user_id, admitted.row["content"]))
        return remembered

    def settle(self, user_id: str) -> None:
        """Wait for ``user_id``'s memories still without their vectors (HIPPOGRAPH_WRITE_VECTORS=after), at
        most what is left of the request's deadline: a recall after a write finds it by meaning."""
        if self.late is not None:
            deadline = outcomes.current_deadline()
            self.late.settle(user_id, deadline.left() if deadline is not None else None)

    def rehearse(self, tx: Transaction, settings: Settings, scope: Scope, items: Sequence[MemoryInput]) -> None:
        """Admit ``items`` and run their group's statements in ``tx``, a transaction the caller rolls back:
        Neo4j plans and runs them, the encoder runs, nothing is stored (``hippograph.memory.warmup``)."""
        admitted = self._admit(settings, scope, items, None)
        # The same statements as on a managed transaction: both only run statements.
        writes = [_Write(scope, item.tier, each, None, None) for item, each in zip(items, admitted)]
        self._write_group(tx, writes, announce=False)  # type: ignore[arg-type]  # a Transaction, used as a managed one

    def _commit(self, writes: Sequence[_Write]) -> list[Remembered | BaseException]:
        """A group's writes whose requests still wait for them, stored; the others refused unstored."""
        results: list[Remembered | BaseException | None] = [None] * len(writes)
        begun: list[int] = []
        for i, write in enumerate(writes):
            try:
                if write.deadline is not None:
                    write.deadline.begin_write()
                begun.append(i)
            except DeadlinePassed as late:
                results[i] = late
        with outcomes.working_for([writes[i].deadline for i in begun]):
            stored = self._store([writes[i] for i in begun])
        for i, result in zip(begun, stored):
            results[i] = result
        return cast("list[Remembered | BaseException]", results)  # each stored or refused: none is left None

    def _store(self, writes: Sequence[_Write]) -> Sequence[Remembered | BaseException]:
        """One transaction for the group; if one of its writes fails it (a rule refuses it, or its own
        work after it raises), each is tried alone, so that write alone hears why and the others are
        stored. A failing store fails them all at once: trying each alone would only wait longer."""
        if not writes:
            return []
        with self.driver.session(database=self.database) as session:
            try:
                return self._transaction(session, writes)
            except STORE_FAILURES:
                raise
            except Exception as refused:
                if len(writes) == 1:
                    return [refused]
            results: list[Remembered | BaseException] = []
            for n, write in enumerate(writes):
                try:
                    results.extend(self._transaction(session, [write]))
                except STORE_FAILURES as failed:
                    # Those before it are stored and hear so; those after it were not tried, and hear why.
                    untried = failed.__cause__ if isinstance(failed, OutcomeUnknown) else failed
                    results.append(failed)
                    results.extend(untried or failed for _ in writes[n + 1 :])
                    break
                except Exception as exc:  # this write's own failure, reported to its writer
                    results.append(exc)
            return results

    def _transaction(self, session: Session, writes: Sequence[_Write]) -> list[Remembered]:
        """The group's transaction; the driver runs it again after a transient error (a deadlock among
        them), and each such retry is counted."""
        tries = 0

        def work(tx: ManagedTransaction) -> list[Remembered]:
            nonlocal tries
            tries += 1
            return self._write_group(tx, writes)

        try:
            stored = outcomes.committed(session, work)
        finally:
            self.counts.retries += max(0, tries - 1)
        self.counts.groups += 1
        self.counts.writes += len(writes)
        return stored

    def _write_group(self, tx: ManagedTransaction, writes: Sequence[_Write], announce: bool = True) -> list[Remembered]:
        """Plain writes to a tier scope with room for all of them share their statements; the rest
        (compressing, or with work of their own after them) follow one by one, in arrival order.
        Without ``announce`` the audit lines go to the transaction only (``rehearse``)."""
        users = sorted({w.scope.user_id for w in writes})
        for user_id in users:
            memory_cypher.lock_user(tx, user_id)
        known = {
            user_id: _Known.of(tx, user_id, [w.admitted for w in writes if w.scope.user_id == user_id])
            for user_id in users
        }
        results: dict[int, Remembered] = {}
        alone = [i for i, w in enumerate(writes) if not w.plain]
        fresh: dict[tuple[str, Tier, Scope], list[int]] = {}
        events: list[tuple[str | None, str, Sequence[str], str | None]] = []
        for i, w in enumerate(writes):
            if not w.plain:
                continue
            user_id = w.scope.user_id
            seen = known[user_id].match(w.admitted, planned=True)
            if seen is None:
                known[user_id].plan(w.admitted)
                fresh.setdefault((user_id, w.tier, w.tier_scope), []).append(i)
            else:
                results[i] = _repeat(w, seen[0])
                events.append((user_id, "remember", [seen[0]], _repeat_detail(seen[1])))
        together: list[list[int]] = []
        for (_, tier, tier_scope), indexes in fresh.items():
            incoming = sum(writes[i].admitted.held_tokens for i in indexes)
            if past_trigger(tx, tier_scope, tier, incoming, writes[indexes[0]].admitted.capacity) is None:
                together.append(indexes)
            else:
                alone.extend(indexes)
        memory_cypher.create_memories(tx, [writes[i].admitted.row for indexes in together for i in indexes])
        for indexes in together:
            entity_ids = self._attach(tx, writes[indexes[0]].scope.user_id, [writes[i].admitted for i in indexes])
            for i in indexes:
                w = writes[i]
                known[w.scope.user_id].add(w.admitted)
                results[i] = Remembered(
                    w.admitted.id,
                    w.tier,
                    w.admitted.tokens,
                    redacted=w.admitted.redacted,
                    entity_ids=[entity_ids[row["key"]] for row in w.admitted.entities if row["key"] in entity_ids],
                )
                events.append(
                    (w.scope.user_id, "remember", [w.admitted.id], _detail(w.tier, w.admitted.redacted, None))
                )
        if events:
            self.audit.record_all_in(tx, events, announce)
        for i in sorted(alone):
            results[i] = self._write_alone(tx, writes[i], known[writes[i].scope.user_id], announce)
        for user_id in users:
            mine = [i for i, w in enumerate(writes) if w.scope.user_id == user_id]
            rows = {row["id"]: row for row in memory_cypher.get_memories(tx, user_id, [results[i].id for i in mine])}
            for i in mine:
                results[i].memory = rows.get(results[i].id)
        return [results[i] for i in range(len(writes))]

    def _write_alone(self, tx: ManagedTransaction, write: _Write, known: _Known, announce: bool = True) -> Remembered:
        scope, admitted = write.scope, write.admitted
        seen = known.match(admitted)
        if seen is not None:
            memory_id, retry = seen
            self.audit.record_in(tx, scope.user_id, "remember", [memory_id], _repeat_detail(retry), announce)
            repeated = _repeat(write, memory_id)
            repeated.records_entity_id = entity_cypher.recorded_entity(tx, scope.user_id, memory_id)
            if write.then is not None and not retry:  # a retry's work was done by the write it repeats
                write.then(tx, repeated)
            return repeated
        plan = self._make_room(tx, write.tier_scope, write.tier, admitted.held_tokens, admitted.capacity)
        if plan is not None:
            known.drop(plan)
        memory_cypher.create_memories(tx, [admitted.row])
        known.add(admitted)
        entity_ids = self._attach(tx, scope.user_id, [admitted])
        self.audit.record_in(
            tx,
            scope.user_id,
            "remember",
            [admitted.id, *(plan.delete + plan.archive if plan else [])],
            _detail(write.tier, admitted.redacted, plan),
            announce,
        )
        result = Remembered(
            admitted.id,
            write.tier,
            admitted.tokens,
            redacted=admitted.redacted,
            compression=plan,
            entity_ids=list(entity_ids.values()),
            records_entity_id=entity_ids.get(admitted.records_key) if admitted.records_key else None,
        )
        if write.then is not None:
            write.then(tx, result)
        return result

    def _make_room(
        self,
        tx: ManagedTransaction,
        scope: Scope,
        tier: Tier,
        incoming: int,
        cap: int,
    ) -> compression.CompressionPlan | None:
        """Compress the tier scope when ``incoming`` tokens would pass its trigger, or refuse if even
        compression leaves no room; None when they fit as it is."""
        if past_trigger(tx, scope, tier, incoming, cap) is None:
            return None
        snapshot = compression_cypher.tier_snapshot(tx, scope.user_id, tier.value, scope.project_id, scope.session_id)
        items = [
            compression.TierItem(
                id=r["id"],
                kind=r["kind"] or "note",
                tokens=int(r["tokens"] or 0),
                created_at=r["createdAt"].to_native(),
                active=bool(r["active"]),
                summarised=bool(r["summarised"]),
                count=int(json.loads(r["attributes"]).get("count", 1)) if r["attributes"] else 1,
                relevance=float(r["relevance"] if r["relevance"] is not None else 1.0),
            )
            for r in snapshot
        ]
        texts = {r["id"]: r["content"] or "" for r in snapshot}

        def summarise(text: str, max_tokens: int) -> tuple[str, int]:
            summary = compress_text(text, self.tokens, max_tokens)
            return summary, self.tokens.count(summary)

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

    # --- many memories ---------------------------------------------------------------------------

    def bulk(
        self,
        settings: Settings,
        scope: Scope,
        items: Sequence[MemoryInput],
        now: datetime | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[tuple[str, ...]]:
        """Store many memories fast: batches of ``BULK_BATCH`` embedded in one pass and written in one
        transaction each, the next batch embedded while the current one is written. A long
        conversation turn is stored as its parts (``hippograph.memory.writing.turns``). A batch that
        would pass a tier's trigger is refused whole, never compressed. Returns, in input order, the
        ids of the memories each item is stored as (one, or a long turn's parts); ``progress(done, total)``
        hears of each batch written, in stored parts."""
        at = now or datetime.now(UTC)
        origins, parts = [], []
        for index, item in enumerate(items):
            for part in turn_parts(item, at):
                origins.append(index)
                parts.append(part)
        batches = [parts[start : start + BULK_BATCH] for start in range(0, len(parts), BULK_BATCH)]
        ids: list[str] = []
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hippograph-embed") as ahead:
            upcoming = ahead.submit(self._admit, settings, scope, batches[0], now) if batches else None
            for index in range(len(batches)):
                assert upcoming is not None
                admitted = upcoming.result()
                if index + 1 < len(batches):
                    upcoming = ahead.submit(self._admit, settings, scope, batches[index + 1], now)
                with self.driver.session(database=self.database) as session:
                    ids.extend(outcomes.write(session, self._write_batch, scope, admitted))
                if progress is not None:
                    progress(len(ids), len(parts))
        stored: list[list[str]] = [[] for _ in items]
        for origin, memory_id in zip(origins, ids):
            stored[origin].append(memory_id)
        return [tuple(dict.fromkeys(each)) for each in stored]

    def _write_batch(self, tx: ManagedTransaction, scope: Scope, admitted: list[Admitted]) -> list[str]:
        memory_cypher.lock_user(tx, scope.user_id)
        # Re-importing stores nothing twice: a text already stored (or earlier in the batch) keeps its memory.
        known = _Known.of(tx, scope.user_id, admitted)
        fresh: list[Admitted] = []
        batch_ids: list[str] = []
        for each in admitted:
            seen = known.match(each)
            if seen is None:
                known.add(each)
                fresh.append(each)
            batch_ids.append(seen[0] if seen else each.id)
        incoming: dict[Tier, list[Admitted]] = {}
        for each in fresh:
            incoming.setdefault(Tier(each.row["tier"]), []).append(each)
        for tier, memories in incoming.items():
            refuse_past_trigger(
                tx,
                scope.for_tier(tier),
                tier,
                sum(m.held_tokens for m in memories),
                memories[0].capacity,
                "importing",
                IMPORTS_NEVER_COMPRESS,
            )
        memory_cypher.create_memories(tx, [each.row for each in fresh])
        self._attach(tx, scope.user_id, fresh)
        self.audit.record_in(
            tx,
            scope.user_id,
            "import",
            [each.id for each in fresh],
            f"{len(fresh)} memories, {len(admitted) - len(fresh)} already stored",
        )
        return batch_ids

    # --- an edit ---------------------------------------------------------------------------------

    def update(
        self,
        settings: Settings,
        user_id: str,
        memory_id: str,
        content: str | None = None,
        summary: str | Keep | None = KEEP,
        relevance: float | None = None,
        now: datetime | None = None,
        request_id: str | None = None,
    ) -> Updated:
        """Edit a stored memory in place, under the rules of a write: new content is admitted (scrubbed,
        checked, counted, embedded), refused as a raw turn outside the session tier, must fit its tier
        without compression and must not repeat another memory; its entities are found again. A retry
        of the same request answers with the memory as the first edit left it."""
        check_id("memory id", memory_id)
        edit = admission.admit_edit(settings, self.tokens, content, summary, relevance, request_id)
        vectors = self.embedder.embed_documents([edit.content]) if edit.content is not None else None
        at = (now or datetime.now(UTC)).isoformat()

        def work(tx: ManagedTransaction) -> Updated:
            memory_cypher.lock_user(tx, user_id)
            current = update_cypher.memory_for_update(tx, user_id, memory_id)
            if current is None:
                raise NotFound(f"memory {memory_id} not found")
            if request_id is not None and current["requestId"] == request_id:
                self.audit.record_in(tx, user_id, "update", [memory_id], "retry: already applied")
                return Updated(memory_cypher.get_memories(tx, user_id, [memory_id])[0], edit.redacted)
            tier = Tier(current["tier"])
            scope = Scope(user_id, current["projectId"], current["sessionId"])
            digest = admission.content_hash(tier, scope, edit.content) if edit.content is not None else ""
            known = _Known(tx, user_id, [request_id] if request_id else [], [digest] if digest else [])
            if known.request(request_id) is not None:
                raise InvalidInput(f"request id {request_id} already answered another write", field="requestId")
            changes: dict[str, Any] = {"relevance": edit.relevance, "request_id": request_id}
            if edit.content is not None and vectors is not None:
                admission.refuse_raw_turn(tier, current["kind"], edit.content)
                # An archived memory no longer counts in its tier; a summarised one counts its summary, which stays.
                if not current["archived"] and current["summaryTokens"] is None:
                    refuse_past_trigger(
                        tx,
                        scope.for_tier(tier),
                        tier,
                        edit.tokens or 0,
                        capacity(kept_capacities(settings, tx), tier),
                        "the edit",
                        EDITS_NEVER_COMPRESS,
                        freed=current["tokens"] or 0,
                    )
                if known.echo(digest) not in (None, memory_id):
                    raise InvalidInput(f"memory {known.echo(digest)} already holds this content", field="content")
                changes.update(
                    content=edit.content,
                    content_hash=digest,
                    tokens=edit.tokens,
                    embedding=vectors[0].tolist(),
                    model=self.embedder.name,
                )
            if edit.summary is not KEEP:
                changes.update(set_summary=True, summary=edit.summary, summary_tokens=edit.summary_tokens)
            memory = update_cypher.update_memory(tx, user_id, memory_id, at=at, **changes)
            if edit.content is not None:
                update_cypher.drop_mentions(tx, user_id, memory_id)
                rows = admission.entity_rows(scope, tier, extract_mentions(edit.content))
                entity_cypher.mention(
                    tx, user_id, memory_id, list(entity_cypher.upsert_entities(tx, user_id, rows).values())
                )
            detail = f"fields={','.join(edit.fields)}" + (
                f" redacted={','.join(edit.redacted)}" if edit.redacted else ""
            )
            self.audit.record_in(tx, user_id, "update", [memory_id], detail)
            return Updated(memory, edit.redacted)

        with self.driver.session(database=self.database) as session:
            return outcomes.write(session, work)

    # --- shared steps ----------------------------------------------------------------------------

    def _admit(
        self,
        settings: Settings,
        scope: Scope,
        items: Sequence[MemoryInput],
        now: datetime | None,
        request_id: str | None = None,
        together: bool = False,
        later: bool = False,
    ) -> list[Admitted]:
        """Admission, under the capacities the store keeps, and the vectors: embedded with the writes waiting
        beside them (``together``) or at once, or none (``later``: ``hippograph.memory.writing.late_vectors``)."""
        with self.driver.session(database=self.database, default_access_mode="READ") as session:
            settings = session.execute_read(lambda tx: kept_capacities(settings, tx))
        admitted = admission.admit(settings, self.tokens, scope, items, now, request_id)
        texts = [each.row["content"] for each in admitted]
        vectors: Sequence[np.ndarray | None] = (
            [None] * len(texts)
            if later
            else list(self.embeddings.submit(texts, self._embed_groups))
            if together
            else list(self.embedder.embed_documents(texts))
        )
        for each, vector in zip(admitted, vectors):
            each.row["embedding"] = vector.tolist() if vector is not None else None
            each.row["model"] = self.embedder.name
        for each in admitted:
            if each.fields:  # a store item's fields, each a vector of its own (``hippograph.graph.items``)
                each.row["fieldVectors"] = self.embedder.embed_documents(each.fields).ravel().tolist()
                each.row["fieldModel"] = self.embedder.name
        return admitted

    def _embed_groups(self, groups: Sequence[list[str]]) -> list[np.ndarray]:
        vectors = self.embedder.embed_documents([text for group in groups for text in group])
        bounds = np.cumsum([0, *(len(group) for group in groups)])
        return [vectors[start:end] for start, end in pairwise(bounds)]

    def _attach(self, tx: ManagedTransaction, user_id: str, admitted: Sequence[Admitted]) -> dict[str, str]:
        """Link just-created memories to their entities (one upsert, one MENTIONS statement for all),
        the entity each records, and the memories each derives from; returns entity ids by key."""
        ids = entity_cypher.upsert_entities(tx, user_id, [row for each in admitted for row in each.entities])
        entity_cypher.mention_many(
            tx,
            user_id,
            sorted(
                {
                    (each.id, ids[row["key"]])
                    for each in admitted
                    for row in each.entities
                    if row["key"] != each.records_key and row["key"] in ids
                }
            ),
        )
        for each in admitted:
            if each.records_key is not None:
                entity_cypher.records(tx, user_id, each.id, ids[each.records_key])
            if each.derived_from:
                memory_cypher.derive(tx, user_id, each.id, each.derived_from)
        return ids


def past_trigger(
    tx: ManagedTransaction,
    scope: Scope,
    tier: Tier,
    incoming: int,
    cap: int,
    freed: int = 0,
) -> int | None:
    """The one capacity decision: the tier scope's usage (less ``freed``, what the write replaces) when
    ``incoming`` more tokens would take it past its trigger; None while they fit."""
    used, _ = memory_cypher.tier_usage(tx, scope.user_id, tier.value, scope.project_id, scope.session_id)
    used -= freed
    return used if compression.needs_compression(tier, used, incoming, cap) else None


def refuse_past_trigger(
    tx: ManagedTransaction,
    scope: Scope,
    tier: Tier,
    incoming: int,
    cap: int,
    what: str,
    instead: str,
    freed: int = 0,
) -> None:
    """Refuse, saying ``what`` would have been written and what to do ``instead``, when ``incoming``
    tokens would take the tier scope past its trigger: for writes that never compress."""
    used = past_trigger(tx, scope, tier, incoming, cap, freed)
    if used is not None:
        raise CapacityExceeded(
            f"{what} adds {incoming} tokens to the {tier.value} tier, which holds {used} of {cap}: that passes its "
            f"{trigger(tier):.0%} compression trigger ({compression.target_tokens(tier, cap)} tokens), and "
            + instead.format(setting=capacity_setting(tier), tier=tier.value.lower().replace("_", "-"))
        )


def _repeat(write: _Write, memory_id: str) -> Remembered:
    """The answer to a write the store already holds: its memory, not created again."""
    admitted = write.admitted
    return Remembered(
        memory_id, write.tier, admitted.tokens, created=False, duplicate_of=memory_id, redacted=admitted.redacted
    )


def _repeat_detail(retry: bool) -> str:
    return "retry: already stored" if retry else "duplicate: already stored"


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
