"""Editing a memory in place: new content, summary or relevance, under the same rules as a write.

New content is scrubbed of secrets, refused as a raw turn outside the session
tier, re-embedded, re-counted and re-linked to the entities it mentions; it must
still fit its tier without compression (an edit never rewrites other memories),
and must not repeat another stored memory. The edit and its audit event commit
together.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import entities as entity_cypher
from hippograph.graph import memories as memory_cypher
from hippograph.graph import updates as update_cypher
from hippograph.memory.writing import compression
from hippograph.memory.writing import secrets
from hippograph.memory.writing.entities import extract_mentions
from hippograph.memory.errors import CapacityExceeded, InvalidInput, NotFound, RawTurnRefused
from hippograph.memory.writing.store import MAX_CONTENT_CHARS, content_hash, entity_row, looks_like_transcript
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope, capacity, persistent, trigger
from hippograph.memory.services import Services

_KEEP = object()


@dataclass
class Updated:
    memory: dict[str, Any]
    redacted: list[str] = field(default_factory=list)


def update_memory(
    services: Services,
    user_id: str,
    memory_id: str,
    content: str | None = None,
    summary: str | None | object = _KEEP,
    relevance: float | None = None,
    now: datetime | None = None,
) -> Updated:
    """Change what is given (``summary=None`` clears the summary; leaving it out keeps it)."""
    secrets.check_id("memory id", memory_id)
    if content is None and summary is _KEEP and relevance is None:
        raise InvalidInput("nothing to update: give content, summary or relevance")
    if content is not None and (not isinstance(content, str) or not content.strip()):
        raise InvalidInput("a memory needs non-empty content")
    if content is not None and len(content) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"a memory's content has at most {MAX_CONTENT_CHARS} characters, got {len(content)}")
    if summary is not _KEEP and summary is not None and len(summary) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"a summary has at most {MAX_CONTENT_CHARS} characters")
    if relevance is not None and not 0.0 <= relevance <= 1.0:
        raise InvalidInput(f"relevance must be between 0 and 1, got {relevance}")
    policy = services.settings.secret_policy
    scrubbed = secrets.enforce(content, policy) if content is not None else None
    new_summary = secrets.enforce(summary, policy) if isinstance(summary, str) and summary.strip() else None
    redacted = sorted(set(scrubbed.kinds if scrubbed else []) | set(new_summary.kinds if new_summary else []))
    vectors = services.embedder.embed_documents([scrubbed.text]) if scrubbed is not None else None
    embedding = vectors[0].tolist() if vectors is not None else None
    sketch = services.embedder.sketches(vectors)[0] if vectors is not None else None
    at = (now or datetime.now(timezone.utc)).isoformat()

    def write(tx: ManagedTransaction) -> Updated:
        memory_cypher.lock_user(tx, user_id)
        current = update_cypher.memory_for_update(tx, user_id, memory_id)
        if current is None:
            raise NotFound(f"memory {memory_id} not found")
        tier = Tier(current["tier"])
        scope = Scope(user_id, current["projectId"], current["sessionId"])
        changes: dict[str, Any] = {"relevance": relevance}
        if scrubbed is not None:
            if persistent(tier) and (current["kind"] == "turn" or looks_like_transcript(scrubbed.text)):
                raise RawTurnRefused(f"raw conversation turns are not stored in the {tier.value} tier")
            tokens = services.tokens.count(scrubbed.text)
            _check_fits(tx, scope, tier, current, tokens, capacity(services.settings, tier))
            digest = content_hash(tier, scope, scrubbed.text)
            duplicate = memory_cypher.find_by_hash(tx, user_id, digest)
            if duplicate is not None and duplicate != memory_id:
                raise InvalidInput(f"memory {duplicate} already holds this content")
            changes.update(content=scrubbed.text, content_hash=digest, tokens=tokens, embedding=embedding, sketch=sketch)
        if summary is not _KEEP:
            text = new_summary.text if new_summary is not None else None
            changes.update(set_summary=True, summary=text, summary_tokens=services.tokens.count(text) if text else None)
        memory = update_cypher.update_memory(tx, user_id, memory_id, at=at, **changes)
        if scrubbed is not None:
            _relink(tx, user_id, memory_id, scope, tier, scrubbed.text)
        fields = [name for name, given in (("content", content is not None), ("summary", summary is not _KEEP),
                                           ("relevance", relevance is not None)) if given]
        detail = f"fields={','.join(fields)}" + (f" redacted={','.join(redacted)}" if redacted else "")
        services.audit.record_in(tx, user_id, "update", [memory_id], detail)
        return Updated(memory, redacted)

    with services.driver.session(database=services.database) as session:
        return session.execute_write(write)


def _check_fits(
    tx: ManagedTransaction, scope: Scope, tier: Tier, current: dict[str, Any], tokens: int, cap: int
) -> None:
    if current["archived"]:
        return  # an archived memory no longer counts in its tier
    keyed = scope.for_tier(tier)
    used, _ = memory_cypher.tier_usage(tx, scope.user_id, tier.value, keyed.project_id, keyed.session_id)
    counted = current["summaryTokens"] if current["summaryTokens"] is not None else (current["tokens"] or 0)
    if current["summaryTokens"] is None and compression.needs_compression(tier, used - counted, tokens, cap):
        raise CapacityExceeded(
            f"the edit would take the {tier.value} tier past its {trigger(tier):.0%} trigger "
            f"({used - counted + tokens} of {cap} tokens); shorten it, or forget something first"
        )


def _relink(tx: ManagedTransaction, user_id: str, memory_id: str, scope: Scope, tier: Tier, text: str) -> None:
    update_cypher.drop_mentions(tx, user_id, memory_id)
    rows = {}
    for kind, name in extract_mentions(text):
        row = entity_row(scope, tier, kind, name)
        rows.setdefault(row["key"], row)
    ids = entity_cypher.upsert_entities(tx, user_id, list(rows.values()))
    entity_cypher.mention(tx, user_id, memory_id, list(ids.values()))
