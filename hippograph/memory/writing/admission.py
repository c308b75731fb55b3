"""Admission, the writer's first step: what a write must be before the store sees it, and what it
carries there.

A memory is admitted when its content is non-empty and at most ``MAX_CONTENT_CHARS`` characters (its
summary at most as long), its kind is known, its relevance lies in [0, 1], it is no raw conversation
turn outside the session tier, its tier has the scope id it needs, its request id (if any) is an id,
and it could fit its tier at all. Its texts are then scrubbed of secrets (redacted, or the write
refused, as the policy says), its content hashed and counted, and — by the writer — embedded.
These are the rules of every write: ``remember``, grouped commits, bulk and document imports, edits.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from hippograph.config import Settings
from hippograph.graph.vocabulary import ITEM_KIND, EntityType, Tier
from hippograph.memory.errors import CapacityExceeded, InvalidInput, RawTurnRefused
from hippograph.memory.recall import lucene
from hippograph.memory.tiers import Scope, capacity, check_caller_id, persistent
from hippograph.memory.tokens import TokenCounter
from hippograph.memory.writing import compression, scrubbing
from hippograph.memory.writing.entities import USER_SCOPE, Mention, clean_name, extract_mentions, normalise_name

MAX_CONTENT_CHARS = 20_000

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
    # A host's stored item (``hippograph.graph.vocabulary.ITEM_KIND``): outside every tier's lifecycle.
    ITEM_KIND: None,
}

# Two or more lines that open with a speaker ("User: …", "assistant: …") read as a raw transcript.
_SPEAKER_LINE = re.compile(
    r"^\s*(user|assistant|human|ai|system|bot|model|me|you)\s*[:>]", re.IGNORECASE | re.MULTILINE
)


class Keep:
    """An edit's "leave this field as it is" (``KEEP``), told apart from None, which clears it."""


KEEP = Keep()


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
    # A store item's indexed fields: each embedded on its own, so a store search scores its best field.
    fields: Sequence[str] = ()


@dataclass
class Admitted:
    """A memory ready for the store step: its row (the writer adds its vector) and what goes with it."""

    row: dict[str, Any]
    redacted: list[str]
    entities: list[dict[str, Any]]
    records_key: str | None
    derived_from: list[str]
    capacity: int  # of its tier, under the settings of the call that admitted it
    fields: list[str] = field(default_factory=list)  # scrubbed, for the writer to embed

    @property
    def id(self) -> str:
        return cast(str, self.row["id"])

    @property
    def tokens(self) -> int:
        return cast(int, self.row["tokens"])

    @property
    def held_tokens(self) -> int:
        """What it adds to its tier's usage: its tokens, or nothing for a stored item, which counts in no capacity."""
        return 0 if self.row["kind"] == ITEM_KIND else self.tokens

    @property
    def content_hash(self) -> str:
        return cast(str, self.row["contentHash"])

    @property
    def request_id(self) -> str | None:
        return cast("str | None", self.row["requestId"])


@dataclass(frozen=True)
class Edit:
    """An admitted edit of a stored memory: the new texts as they will be stored, with their token counts."""

    content: str | None
    tokens: int | None
    summary: str | Keep | None
    summary_tokens: int | None
    relevance: float | None
    redacted: list[str] = field(default_factory=list)
    request_id: str | None = None

    @property
    def fields(self) -> list[str]:
        return [
            name
            for name, given in (
                ("content", self.content is not None),
                ("summary", self.summary is not KEEP),
                ("relevance", self.relevance is not None),
            )
            if given
        ]


def check_text(value: object, field_name: str) -> str:
    """A memory's content (or a summary): a non-blank text of at most ``MAX_CONTENT_CHARS`` characters."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("a memory needs non-empty content", field=field_name)
    return check_length(value, field_name)


def check_length(value: str, field_name: str) -> str:
    if len(value) > MAX_CONTENT_CHARS:
        raise InvalidInput(
            f"{field_name} has at most {MAX_CONTENT_CHARS} characters, got {len(value)}", field=field_name
        )
    return value


def check_relevance(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise InvalidInput(f"relevance must be between 0 and 1, got {value}", field="relevance")
    return float(value)


def check_request_id(value: str | None) -> str | None:
    """A client's request id is an id it chose: the form of a scope id, and never a secret."""
    return check_caller_id("request", value, InvalidInput)


def refuse_raw_turn(tier: Tier, kind: str, text: str) -> None:
    """Raw conversation turns live in the session tier only."""
    if persistent(tier) and (kind == "turn" or looks_like_transcript(text)):
        raise RawTurnRefused(
            f"raw conversation turns are not stored in the {tier.value} tier; append them to the session "
            "transcript, or remember the fact they contain",
            field="content",
        )


def looks_like_transcript(text: str) -> bool:
    return len(_SPEAKER_LINE.findall(text)) >= 2


def content_hash(tier: Tier, scope: Scope, content: str) -> str:
    """Identity of a memory's text within its tier and scope: an echo hashes the same."""
    tier_scope = scope.for_tier(tier)
    normal = re.sub(r"\s+", " ", content).strip().casefold()
    key = "\x1f".join([tier.value, tier_scope.project_id or "", tier_scope.session_id or "", normal])
    return hashlib.sha256(key.encode()).hexdigest()


def item_hash(tier: Tier, scope: Scope, content: str, attributes: str | None, request_id: str | None) -> str:
    """Identity of a stored item: exactly its text and its value, under its request. A retry of the request
    hashes the same; no other write does, so an item is never an echo of another (two keys whose texts
    differ only in case, or agree, are two items)."""
    tier_scope = scope.for_tier(tier)
    key = "\x1f".join(
        [
            ITEM_KIND,
            tier.value,
            tier_scope.project_id or "",
            tier_scope.session_id or "",
            request_id or str(uuid.uuid4()),
            content,
            attributes or "",
        ]
    )
    return hashlib.sha256(key.encode()).hexdigest()


def _said_by(attributes: Mapping[str, Any] | None) -> str | None:
    """``attributes.speaker`` as written (already scrubbed), or None."""
    speaker = (attributes or {}).get("speaker")
    return speaker if isinstance(speaker, str) else None


def speaker_of(attributes: Mapping[str, Any] | None) -> str | None:
    """Who said the memory (``attributes.speaker``, already scrubbed) as lower-case words; recall matches
    them against the query's words."""
    speaker = _said_by(attributes)
    if speaker is None:
        return None
    return " ".join(lucene.words(speaker)) or None


def entity_row(scope: Scope, tier: Tier, kind: EntityType, name: str, opens: bool = False) -> dict[str, Any]:
    """A row for ``upsert_entities``: the entity's identity within the tier's scope, a fresh id for a new
    node, and whether it only links to an entity the user has (``Mention.opens``)."""
    display = clean_name(scrubbing.enforce(name, "redact").text)
    return {
        "key": f"{EntityType(kind).value}\x1f{normalise_name(display)}",
        "id": str(uuid.uuid4()),
        "name": display,
        "normName": normalise_name(display),
        "type": EntityType(kind).value,
        "scopeKey": scope.project_id if tier is not Tier.LONG_TERM and scope.project_id else USER_SCOPE,
        "attributes": None,
        "opens": opens,
    }


def entity_rows(scope: Scope, tier: Tier, mentions: Sequence[tuple[EntityType, str] | Mention]) -> list[dict[str, Any]]:
    """Rows for the entities ``mentions`` names, each once (a name, if any of its mentions is one)."""
    rows: dict[str, dict[str, Any]] = {}
    for kind, name, opens in (Mention(*mention) for mention in mentions):
        row = entity_row(scope, tier, kind, name, opens)
        kept = rows.setdefault(row["key"], row)
        kept["opens"] = kept["opens"] and opens
    return list(rows.values())


def check(scope: Scope, item: MemoryInput) -> None:
    """The rules of a memory's fields and scope, before anything is scrubbed or counted."""
    check_text(item.content, "content")
    if item.summary is not None:
        check_length(item.summary, "summary")
    if item.kind not in KIND_LABELS:
        raise InvalidInput(f"unknown memory kind {item.kind!r}; one of {', '.join(KIND_LABELS)}", field="kind")
    check_relevance(item.relevance)
    refuse_raw_turn(item.tier, item.kind, item.content)
    scope.for_tier(item.tier)  # raises ScopeError when the tier's scope id is missing


def check_fits(tier: Tier, tokens: int, cap: int) -> int:
    """``tokens``, when a memory that long fits its tier at all: no more than the tier holds after compression."""
    ceiling = compression.target_tokens(tier, cap)
    if tokens > ceiling:
        raise CapacityExceeded(
            f"a memory of {tokens} tokens cannot fit the {tier.value} tier: it holds at most {ceiling} "
            f"of its {cap} tokens after compression",
            field="content",
        )
    return tokens


def admit(
    settings: Settings,
    tokens: TokenCounter,
    scope: Scope,
    items: Sequence[MemoryInput],
    now: datetime | None = None,
    request_id: str | None = None,
) -> list[Admitted]:
    """``items`` checked, scrubbed, hashed and counted, each a row ready to embed and store."""
    check_request_id(request_id)
    stamp = (now or datetime.now(UTC)).isoformat()
    policy = settings.secret_policy
    admitted: list[Admitted] = []
    for item in items:
        check(scope, item)
        scrubbed = scrubbing.enforce(item.content, policy)
        summary = scrubbing.enforce(item.summary, policy) if item.summary else None
        attributes = scrubbing.enforce_data(item.attributes, policy)
        mentions = [(kind, scrubbing.enforce(name, policy)) for kind, name in item.mentions]
        fields = [scrubbing.enforce(text, policy) for text in item.fields]
        redacted = sorted(
            set(scrubbed.kinds)
            | set(summary.kinds if summary else [])
            | set(attributes.kinds)
            | {kind for _, name in mentions for kind in name.kinds}
            | {kind for text in fields for kind in text.kinds}
        )
        tier_scope = scope.for_tier(item.tier)
        cap = capacity(settings, item.tier)
        count = tokens.count(scrubbed.text)
        if item.kind != ITEM_KIND:
            check_fits(item.tier, count, cap)
        label = KIND_LABELS[item.kind]
        # The entity a record is about comes first: its row is the one the memory RECORDS.
        wanted: list[tuple[EntityType, str] | Mention] = [
            *([item.records_entity] if item.records_entity else []),
            *((k, n.text) for k, n in mentions),
            *(extract_mentions(scrubbed.text, speaker=_said_by(attributes.value)) if item.extract_entities else []),
        ]
        entities = entity_rows(scope, item.tier, wanted)
        stored_attributes = json.dumps(attributes.value, sort_keys=True) if item.attributes is not None else None
        admitted.append(
            Admitted(
                row={
                    "id": str(uuid.uuid4()),
                    "content": scrubbed.text,
                    "summary": summary.text if summary else None,
                    "tier": item.tier.value,
                    "kind": item.kind,
                    "labels": ["Memory", label] if label else ["Memory"],
                    "userId": scope.user_id,
                    "projectId": tier_scope.project_id,
                    "sessionId": tier_scope.session_id,
                    "createdAt": item.created_at.isoformat() if item.created_at else stamp,
                    "relevance": float(item.relevance),
                    "tokens": count,
                    "summaryTokens": None,
                    "attributes": stored_attributes,
                    "contentHash": item_hash(item.tier, scope, scrubbed.text, stored_attributes, request_id)
                    if item.kind == ITEM_KIND
                    else content_hash(item.tier, scope, scrubbed.text),
                    "speaker": speaker_of(attributes.value),
                    "requestId": request_id,
                    "embedding": None,
                },
                redacted=redacted,
                entities=entities,
                records_key=entities[0]["key"] if item.records_entity is not None else None,
                derived_from=list(item.derived_from),
                capacity=cap,
                fields=[text.text for text in fields],
            )
        )
    return admitted


def admit_edit(
    settings: Settings,
    tokens: TokenCounter,
    content: str | None,
    summary: str | Keep | None,
    relevance: float | None,
    request_id: str | None = None,
) -> Edit:
    """An edit's new values checked and scrubbed (``summary=None`` clears the summary, ``KEEP`` leaves it)."""
    check_request_id(request_id)
    if content is None and summary is KEEP and relevance is None:
        raise InvalidInput("nothing to update: give content, summary or relevance")
    policy = settings.secret_policy
    scrubbed = scrubbing.enforce(check_text(content, "content"), policy) if content is not None else None
    new_summary = None
    if isinstance(summary, str):
        check_length(summary, "summary")
        new_summary = scrubbing.enforce(summary, policy) if summary.strip() else None
    elif summary is not None and summary is not KEEP:
        raise InvalidInput("a summary is a text", field="summary")
    return Edit(
        content=scrubbed.text if scrubbed else None,
        tokens=tokens.count(scrubbed.text) if scrubbed else None,
        summary=KEEP if summary is KEEP else new_summary.text if new_summary else None,
        summary_tokens=tokens.count(new_summary.text) if new_summary else None,
        relevance=check_relevance(relevance) if relevance is not None else None,
        redacted=sorted(set(scrubbed.kinds if scrubbed else []) | set(new_summary.kinds if new_summary else [])),
        request_id=request_id,
    )
