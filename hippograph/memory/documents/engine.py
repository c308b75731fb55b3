"""How a document is imported: plan every memory, check it all, write, then place it in one transaction.

1. **Check before writing.** The document has validated (``schema``); each
   mapping (``project``, ``long_term``, ``session``) has turned it into planned
   entries with their texts already scrubbed — a secret under the ``reject``
   policy refuses the document at its JSON path. Here every memory text and
   entity name passes the writer's admission rules (``writing.admission``), no
   two entries would collapse into one memory with different details, and the
   tier has room for the new memories **without passing its compression
   trigger** (the writer's ``refuse_past_trigger``): like ``bulk_import``, an
   import is refused rather than compressing, since compression would rewrite
   (summarise, archive, drop) what is being imported. Sizes are counted with
   ``services.tokens`` exactly as the writer counts them.
2. **Write.** Each memory goes through the writer (``remember`` or a
   ``record_*``), one transaction each. A text already stored (the same
   document imported again) is reused, not duplicated.
3. **Place.** One transaction links the memories to the document's owner node
   with their place in the document, sets their structured attributes, and
   removes the memories a previous import of the same document linked and this
   one does not: importing a document **replaces** the earlier import of it.
4. **Undo on failure.** If step 2 or 3 fails, one transaction deletes the
   memories step 2 created (with the entities only they held), reopens the
   preferences it closed, and removes the session, project or user nodes the
   import created. The previous import, if any, is untouched. The audit log
   keeps the writes and records their undoing.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import documents as document_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.graph.vocabulary import EntityType, Tier
from hippograph.memory.ids import check_id
from hippograph.memory.documents.schema import DocumentError, DocumentKind
from hippograph.memory.errors import CapacityExceeded, InvalidInput
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope, capacity, kept_capacities
from hippograph.memory.writing import admission, outcomes, scrubbing
from hippograph.memory.writing.admission import MemoryInput, content_hash
from hippograph.memory.writing.entities import clean_name, extract_mentions
from hippograph.memory.writing.knowledge import Recorded
from hippograph.memory.writing.store import remember
from hippograph.memory.writing.writer import IMPORTS_NEVER_COMPRESS, Remembered, refuse_past_trigger

DOCUMENT = ""  # owner name of the document's own node; tasks are owned by "task:<id>"


@dataclass(frozen=True)
class Written:
    id: str
    created: bool
    closed: tuple[str, ...] = ()  # entities the write closed (a preference's previous value)


def remembered(result: Remembered) -> Written:
    return Written(result.id, result.created)


def recorded(result: Recorded) -> Written:
    return Written(result.memory.id, result.memory.created, tuple(result.closed))


@dataclass
class Entry:
    """One memory of the document, and where it sits in it."""

    path: str
    section: str
    content: str  # the text the write path will store, scrubbed
    attributes: dict[str, Any]  # the entry's fields, scrubbed: what an export reads back
    write: Callable[[Services], Written]
    names: tuple[str, ...] = ()  # entity names the write path will create
    kind: str = "note"  # the memory's kind: entries sharing a text must share it too
    owner: str = DOCUMENT
    position: int = 0
    key: str | None = None
    keys: list[str] | None = None  # key order of an object entry


Undo = Callable[[ManagedTransaction], None]


@dataclass
class Plan:
    kind: DocumentKind
    scope: Scope
    tier: Tier
    scope_id: str
    entries: list[Entry]
    # (owner name → elementId, memory ids the owners held before), in the final transaction.
    save_owners: Callable[[ManagedTransaction], tuple[dict[str, str], list[str]]]
    finish: Callable[[ManagedTransaction, dict[str, str]], None] | None = None
    # Writes needed before the entries (a session node); returns how to undo them.
    start: Callable[[Services], Undo] | None = None
    redacted: set[str] = field(default_factory=set)


@dataclass
class Imported:
    kind: DocumentKind
    scope_id: str
    entries: int
    created: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)

    def describe(self) -> str:
        line = (
            f"imported {self.kind.value} document {self.scope_id}: {self.entries} entries, "
            f"{len(self.created)} new memories, {len(self.reused)} already stored, "
            f"{len(self.removed)} from the previous import removed"
        )
        return line + (f"; secrets redacted: {', '.join(self.redacted)}" if self.redacted else "")


class Scrubber:
    """The write path's secret rule, applied to a document's fields before anything is written.

    Fields are scrubbed inside the sentence they will form (``"{key}: {value}"``), so a value
    is seen with the name that makes it a secret, and each field gets back its own redacted text.
    """

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self.kinds: set[str] = set()

    def fields(self, template: str, **fields: tuple[str, str]) -> dict[str, str]:
        """``fields``: name → (JSON path, value); returns name → value with the secrets it holds redacted."""
        parts: list[str] = []
        spans: dict[str, tuple[int, int]] = {}
        at = 0
        for literal, name, _, _ in string.Formatter().parse(template):
            parts.append(literal)
            at += len(literal)
            if name is not None:
                value = fields[name][1]
                spans[name] = (at, at + len(value))
                parts.append(value)
                at += len(value)
        text = "".join(parts)
        findings = scrubbing.scrub(text).findings
        if not findings:
            return {name: value for name, (_, value) in fields.items()}
        kinds = sorted({f.kind for f in findings})
        if self.policy == "reject":
            first = findings[0]
            path = next((fields[n][0] for n, (a, b) in spans.items() if first.start < b and first.end > a), None)
            raise DocumentError(
                path or next(iter(fields.values()))[0],
                f"holds a secret ({', '.join(kinds)}) and the secret policy is 'reject'; remove it",
            )
        self.kinds.update(kinds)
        scrubbed: dict[str, str] = {}
        for name, (a, b) in spans.items():
            pieces, cursor = [], a
            for f in findings:
                if f.end <= a or f.start >= b:
                    continue
                pieces += [text[cursor : max(f.start, a)], f"[REDACTED:{f.kind}]"]
                cursor = min(f.end, b)
            scrubbed[name] = "".join(pieces) + text[cursor:b]
        return scrubbed

    def value(self, path: str, label: str, value: str) -> str:
        """One field, seen as ``label: value``."""
        return self.fields("{label}: {value}", label=(path, label), value=(path, value))["value"]

    def id(self, path: str, value: str) -> str:
        """An id the document gives (a task's, a decision's): checked as every id a caller names, never redacted."""
        try:
            return check_id("the id", value)
        except InvalidInput as exc:
            raise DocumentError(path, str(exc)) from None

    def key(self, path: str, key: str, value: str | None = None) -> str:
        """A key of an object section, with its value when it has one; keys are never redacted, only refused."""
        if value is None:
            if self.fields("{key}", key=(path, key))["key"] != key:
                raise DocumentError(path, "this key holds a secret; keys are not redacted, so rename it")
            return key
        scrubbed = self.fields("{key}: {value}", key=(path, key), value=(path, value))
        if scrubbed["key"] != key:
            raise DocumentError(path, "this key holds a secret; keys are not redacted, so rename it")
        return scrubbed["value"]


def run_import(
    services: Services,
    plan: Plan,
    now: datetime,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Imported:
    """Steps 1-4 of the module docstring; ``progress(done, total)`` counts the entries step 2 has written."""
    hashes, user_existed = _check(services, plan)
    undo_start = plan.start(services) if plan.start is not None else None
    written: dict[str, Written] = {}
    progress(0, len(plan.entries))
    try:
        for done, (entry, digest) in enumerate(zip(plan.entries, hashes), 1):
            if digest not in written:
                written[digest] = entry.write(services)
            progress(done, len(plan.entries))

        def place(tx: ManagedTransaction) -> list[str]:
            return _place(services, tx, plan, [written[h].id for h in hashes])

        with services.driver.session(database=services.database) as db:
            removed = outcomes.write(db, place)
    except BaseException as failure:
        try:
            _undo(services, plan, list(written.values()), undo_start, user_existed, now, failure)
        except Exception as undo_failure:  # the first failure is the one to report
            failure.add_note(f"undoing the partial import failed too: {undo_failure}")
        raise
    results = list(written.values())
    return Imported(
        plan.kind,
        plan.scope_id,
        len(plan.entries),
        created=[w.id for w in results if w.created],
        reused=[w.id for w in results if not w.created],
        removed=removed,
        redacted=sorted(plan.redacted),
    )


def memory_entry(
    scope: Scope,
    tier: Tier,
    path: str,
    section: str,
    content: str,
    kind: str,
    attributes: dict[str, Any],
    *,
    now: datetime,
    position: int = 0,
    key: str | None = None,
    keys: list[str] | None = None,
    records: tuple[EntityType, str] | None = None,
    mentions: list[tuple[EntityType, str]] | None = None,
    created_at: datetime | None = None,
) -> Entry:
    """An entry written by ``remember``. Its entities come from its values, never from the template's words
    ("Tech stack", "Convention"), which name nothing: the known technologies in ``attributes["value"]``
    unless ``mentions`` says otherwise."""
    if mentions is None:
        # A value is a phrase, not a sentence: a name opening it is a name.
        mentions = (
            [(mention.kind, mention.name) for mention in extract_mentions(attributes["value"])]
            if isinstance(attributes.get("value"), str)
            else []
        )
    item = MemoryInput(
        content=content,
        tier=tier,
        kind=kind,
        attributes=attributes,
        mentions=mentions,
        extract_entities=False,
        records_entity=records,
        created_at=created_at,
    )
    names = tuple(name for _, name in mentions) + ((records[1],) if records else ())
    return Entry(
        path=path,
        section=section,
        position=position,
        key=key,
        keys=keys,
        content=content,
        attributes=attributes,
        names=names,
        kind=kind,
        write=lambda services: remembered(remember(services, scope, item, now=now)),
    )


def check_name(path: str, name: str) -> None:
    """An entity name the write path will accept (after it redacts secrets in it)."""
    try:
        clean_name(scrubbing.enforce(name, "redact").text)
    except InvalidInput as exc:
        raise DocumentError(path, str(exc)) from None


def entry_value(row: dict[str, Any]) -> Any:
    """What an entry edge and its memory's attributes give back: an object in its key order, or a value."""
    attributes = json.loads(row["attributes"]) if row["attributes"] else {}
    if row.get("keys") is not None:
        return {key: attributes.get(key) for key in row["keys"]}
    return attributes.get("value")


def sections(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Entry rows grouped by section, each in document order."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: (r["section"], r["position"])):
        grouped.setdefault(row["section"], []).append(row)
    return grouped


def as_list(rows: list[dict[str, Any]] | None) -> list[Any]:
    return [entry_value(row) for row in rows or []]


def as_object(rows: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {row["key"]: entry_value(row) for row in rows or []}


def _check(services: Services, plan: Plan) -> tuple[list[str], bool]:
    policy = services.settings.secret_policy
    hashes: list[str] = []
    first: dict[str, Entry] = {}
    tokens: dict[str, int] = {}
    for entry in plan.entries:
        try:
            content = scrubbing.enforce(entry.content, policy).text
            attributes = scrubbing.enforce_data(entry.attributes, policy).value
        except scrubbing.SecretRejected as exc:
            raise DocumentError(entry.path, f"{exc}") from None
        if content != entry.content or attributes != entry.attributes:
            # The fields were scrubbed where they stand; a secret seen only in the whole text, or only
            # as the write path sees the attributes, would be redacted in the memory but not in the
            # attributes the placing step stores and an export reads.
            raise DocumentError(entry.path, "holds a secret that cannot be redacted field by field; remove it")
        try:
            admission.check(plan.scope, MemoryInput(content, plan.tier, entry.kind))
        except InvalidInput as exc:
            raise DocumentError(entry.path, str(exc)) from None
        for name in entry.names:
            check_name(entry.path, name)
        digest = content_hash(plan.tier, plan.scope, content)
        earlier = first.setdefault(digest, entry)
        if earlier is not entry and (earlier.kind, earlier.attributes) != (entry.kind, entry.attributes):
            raise DocumentError(
                entry.path,
                f"has the same text as {earlier.path} with different details; "
                "one text is one memory, so make them differ",
            )
        hashes.append(digest)
        tokens[digest] = services.tokens.count(content)

    tier_scope = plan.scope.for_tier(plan.tier)

    def read(tx: ManagedTransaction) -> bool:
        exists, existing = document_cypher.existing_hashes(tx, plan.scope.user_id, list(tokens))
        incoming = sum(t for digest, t in tokens.items() if digest not in existing)
        refuse_past_trigger(
            tx,
            tier_scope,
            plan.tier,
            incoming,
            capacity(kept_capacities(services.settings, tx), plan.tier),
            f"importing this {plan.kind.value} document",
            IMPORTS_NEVER_COMPRESS,
        )
        return exists

    with services.driver.session(database=services.database) as db:
        user_existed = db.execute_read(read)
    return hashes, user_existed


def _place(services: Services, tx: ManagedTransaction, plan: Plan, ids: list[str]) -> list[str]:
    user_id = plan.scope.user_id
    memory_cypher.lock_user(tx, user_id)
    owners, before = plan.save_owners(tx)
    rows = [
        {
            "owner": owners[entry.owner],
            "memoryId": memory_id,
            "section": entry.section,
            "position": entry.position,
            "key": entry.key,
            "keys": entry.keys,
            "attributes": json.dumps(entry.attributes, sort_keys=True),
        }
        for entry, memory_id in zip(plan.entries, ids)
    ]
    if document_cypher.link_entries(tx, user_id, rows) != len(rows):
        raise CapacityExceeded(
            f"memories of this {plan.kind.value} document were compressed or forgotten while it was imported; "
            "import it again"
        )
    if plan.finish is not None:
        plan.finish(tx, owners)
    kept = set(ids)
    removed = remove_memories(tx, user_id, document_cypher.unlinked(tx, user_id, [i for i in before if i not in kept]))
    services.audit.record_in(
        tx,
        user_id,
        "import",
        [*dict.fromkeys(ids), *removed],
        f"{plan.kind.value} document {plan.scope_id}: {len(rows)} entries, {len(removed)} previous removed",
    )
    return removed


def remove_memories(tx: ManagedTransaction, user_id: str, ids: list[str]) -> list[str]:
    """Delete memories with what only they held, including the fixes their errors were solved by."""
    if not ids:
        return []
    fixes = document_cypher.fix_entities(tx, user_id, ids)
    removed, _ = memory_cypher.delete_memories(tx, user_id, ids)
    document_cypher.delete_bare_entities(tx, user_id, fixes)
    return removed


def _undo(
    services: Services,
    plan: Plan,
    written: list[Written],
    undo_start: Undo | None,
    user_existed: bool,
    now: datetime,
    failure: BaseException,
) -> None:
    user_id = plan.scope.user_id
    created = [w.id for w in written if w.created]
    closed = [entity for w in written for entity in w.closed]

    def undo(tx: ManagedTransaction) -> None:
        memory_cypher.lock_user(tx, user_id)
        remove_memories(tx, user_id, created)
        document_cypher.reopen_entities(tx, user_id, closed, now.isoformat())
        if undo_start is not None:
            undo_start(tx)
        services.audit.record_in(
            tx,
            user_id,
            "import_undone",
            created,
            f"{plan.kind.value} document {plan.scope_id}: {type(failure).__name__}",
        )
        if not user_existed:
            document_cypher.delete_bare_user(tx, user_id)

    # Not held to the request's deadline: what the import wrote must go, whenever it failed.
    with services.driver.session(database=services.database) as db:
        outcomes.committed(db, undo)
