"""The root types: every field of the API, where it is resolved, and who may call it.

Each field names its resolver in ``hippograph.schema.resolvers.<area>``; reads and
writes go from there to ``hippograph.memory`` (the rules) and ``hippograph.graph``
(the Cypher).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import strawberry
from starlette.concurrency import run_in_threadpool

from hippograph import __version__
from hippograph.config import TRANSCRIPT_TRIGGER
from hippograph.schema.context import Info
from hippograph.schema.permissions import ADMIN, AUTHENTICATED
from hippograph.schema.resolvers import (
    audit,
    browse,
    documents,
    events,
    keys,
    knowledge,
    lifecycle,
    memories,
    recall,
    sessions,
)
from hippograph.schema.resolvers import forget as forgetting  # `forget` is also a field of Mutation


@strawberry.type(description="The running service and the database behind it.")
class ServerInfo:
    version: str
    neo4j_version: str
    neo4j_edition: str
    embedding_model: str
    embedding_dimension: int
    memory_encoding: str = strawberry.field(
        description="How memories are encoded as they really run: float32, bfloat16, int8 or onnx-int8 "
        "(HIPPOGRAPH_DOCUMENT_VECTORS, "
        "auto resolved)."
    )
    query_encoding: str = strawberry.field(
        description="How queries are encoded as they really run (HIPPOGRAPH_QUERY_ENCODER, auto resolved): onnx-int8 "
        "(all-mpnet-base-v2 exported to ONNX Runtime in int8), int8 (a BERT such as MiniLM, in PyTorch) or "
        "float32 (an MPNet in PyTorch)."
    )


def _query(resolver: Callable[..., Any], description: str) -> Any:
    return strawberry.field(resolver=resolver, description=description, permission_classes=AUTHENTICATED)


def _mutation(resolver: Callable[..., Any], description: str) -> Any:
    return strawberry.mutation(resolver=resolver, description=description, permission_classes=AUTHENTICATED)


@strawberry.type
class Query:
    @strawberry.field(description="Versions of hippograph, Neo4j and the embedding model in use (no key needed).")
    async def server_info(self, info: Info) -> ServerInfo:
        services = info.context.services
        version, edition = await run_in_threadpool(services.neo4j_version)
        return ServerInfo(
            version=__version__,
            neo4j_version=version,
            neo4j_edition=edition,
            embedding_model=services.embedder.name,
            embedding_dimension=services.embedder.dimension,
            memory_encoding=services.embedder.documents,
            query_encoding=services.embedder.queries,
        )

    item_scores = _query(
        recall.item_scores,
        "A store search's scores: each of the caller's `memories` (at most 50) by its "
        "best indexed field's cosine to `query` (its own vector's, when it has no fields); another's id "
        "is left out.",
    )
    recall = _query(
        recall.recall, "The caller's memories that best answer `query`, ranked, within the priority's budget."
    )
    memory = _query(browse.memory, "One of the caller's memories.")
    memories = _query(browse.memories, "The caller's memories, newest first, a page at a time.")
    entity = _query(browse.entity, "One entity of the caller's knowledge graph.")
    entities = _query(
        browse.entities, "The caller's entities by name, a page at a time; `search` matches inside names."
    )
    trace = _query(browse.trace, "Paths through the knowledge graph from an entity, shortest first.")
    chains = _query(browse.chains, "decision → CAUSED → error → SOLVED_BY → fix chains, per error.")
    tier_usage = _query(browse.tier_usage, "How full each tier of a scope is.")
    session = _query(sessions.session, "One of the caller's sessions: its memories, transcript and document.")
    context = _query(
        lifecycle.context, "The context window for a query in a session, assembled section by section within budget."
    )
    project = _query(documents.project, "A project's profile (project-memory.json) and live knowledge.")
    profile = _query(documents.profile, "The caller's long-term profile (long-term-memory.json) and preferences.")
    audit_log = _query(audit.audit_log, "The caller's own reads and writes, newest first.")
    verify_erasure = _query(
        forgetting.verify_erasure,
        "Check an erasure's receipt against the live store: that none of its ids, versions, index entries or vectors "
        "remains. Your own erasures, or with an admin key anyone's: a receipt is checked in the store of its "
        "`userId` only, and another user's answers NOT_FOUND. A user's erasure names the user twice (`scopeId` is "
        "`userId`); a receipt naming two users is BAD_USER_INPUT.",
    )
    api_keys = strawberry.field(
        resolver=keys.api_keys,
        description="API keys (of one user, when given). Admin keys only.",
        permission_classes=ADMIN,
    )


@strawberry.type
class Mutation:
    start_session = _mutation(sessions.start_session, "Start (or resume) a session, optionally in a project.")
    end_session = _mutation(
        sessions.end_session, "End a session: promote what qualifies, evict the rest of its memory and its transcript."
    )
    append_turn = _mutation(
        lifecycle.append_turn,
        f"Append a turn to a session's transcript; past {TRANSCRIPT_TRIGGER * 100:.0f} % of its budget the oldest "
        "third is summarised.",
    )
    remember = _mutation(memories.remember, "Store a memory under its tier's rules (secrets scrubbed, capacity kept).")
    update_memory = _mutation(memories.update_memory, "Change a memory's content, summary or relevance.")
    forget = _mutation(memories.forget, "Delete a memory, an entity or a turn, with what only it supported.")
    forget_session = _mutation(
        forgetting.forget_session,
        "Erase a session: its memories and turns, the facts and memories derived from it, and what only they "
        "supported.",
    )
    forget_project = _mutation(
        forgetting.forget_project,
        "Erase a project: its memories, its sessions (as forgetSession does), entities and node.",
    )
    forget_user = _mutation(
        forgetting.forget_user,
        "Erase a user — yourself, or with an admin key anyone — with everything they own; the audit log keeps a "
        "tombstone.",
    )
    link = _mutation(knowledge.link, "Add a knowledge-graph edge between two of the caller's entities.")
    unlink = _mutation(knowledge.unlink, "Remove a knowledge-graph edge.")
    record_decision = _mutation(knowledge.record_decision, "Record a decision now; close the decisions it replaces.")
    record_error = _mutation(knowledge.record_error, "Record an error, with its fix and the decision that caused it.")
    record_pattern = _mutation(knowledge.record_pattern, "Record a recurring pattern.")
    set_preference = _mutation(knowledge.set_preference, "Set a long-term preference (replacing the key's old value).")
    consolidate = _mutation(
        lifecycle.consolidate, "Consolidate the caller's memory: deduplicate, promote, generalise, decay."
    )
    import_document = _mutation(
        documents.import_document, "Import an Izanagi document (session, project or long-term)."
    )
    export_document = _mutation(documents.export_document, "Export an Izanagi document as the graph holds it now.")
    create_api_key = strawberry.mutation(
        resolver=keys.create_api_key,
        description="Issue an API key for a user. Admin keys only.",
        permission_classes=ADMIN,
    )
    revoke_api_key = strawberry.mutation(
        resolver=keys.revoke_api_key, description="Revoke an API key. Admin keys only.", permission_classes=ADMIN
    )


@strawberry.type
class Subscription:
    memory_events = strawberry.subscription(
        resolver=events.memory_events,
        description="The caller's memory changes as mutations make them (of one project, when given).",
        permission_classes=AUTHENTICATED,
    )
