"""Inputs and results of forgetting a whole scope: ``forgetSession``, ``forgetProject``, ``forgetUser``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from hippograph.memory.receipts import Receipt, Verification
from hippograph.memory.writing.forget import ScopeForgotten
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError


@strawberry.input
class ForgetSessionInput:
    id: strawberry.ID


@strawberry.input
class ForgetProjectInput:
    id: strawberry.ID


@strawberry.input(
    description="Leave `user` out (or give your own id) to erase yourself; only an admin key may name another user."
)
class ForgetUserInput:
    user: strawberry.ID | None = None


@strawberry.type(description="How many of one label or relationship type an erasure removed.")
class ErasedCount:
    name: str
    count: int


@strawberry.input(description="One count of a receipt, as `ErasedCount` gave it.")
class ErasedCountInput:
    name: str
    count: int


@strawberry.type(
    description=(
        "What an erasure removed, and nothing of what it said: keep it, and check it later against the store with "
        "`verifyErasure` (or `hippograph forget verify RECEIPT.json`). The digest is the SHA-256 of the ids, sorted, "
        "one per line."
    )
)
class ErasureReceipt:
    user_id: strawberry.ID
    scope: str = strawberry.field(description="memory, entity, turn, session, project or user.")
    scope_id: strawberry.ID
    at: datetime
    tombstone_id: strawberry.ID = strawberry.field(description="The audit event that records the erasure.")
    nodes: list[ErasedCount] = strawberry.field(description="Nodes removed per label (MemoryVersion: earlier texts).")
    relationships: list[ErasedCount] = strawberry.field(description="Relationships removed per type.")
    ids: list[strawberry.ID] = strawberry.field(description="The ids of the nodes removed, sorted.")
    digest: str

    @classmethod
    def from_receipt(cls, receipt: Receipt) -> ErasureReceipt:
        return cls(
            user_id=strawberry.ID(receipt.user_id),
            scope=receipt.scope,
            scope_id=strawberry.ID(receipt.scope_id),
            at=receipt.at,
            tombstone_id=strawberry.ID(receipt.tombstone_id),
            nodes=[ErasedCount(name=k, count=v) for k, v in receipt.nodes.items()],
            relationships=[ErasedCount(name=k, count=v) for k, v in receipt.relationships.items()],
            ids=[strawberry.ID(i) for i in receipt.ids],
            digest=receipt.digest,
        )


@strawberry.input(description="A receipt as an erasure answered it (`ErasureReceipt`, every field).")
class ErasureReceiptInput:
    user_id: strawberry.ID
    scope: str
    scope_id: strawberry.ID
    at: datetime
    tombstone_id: strawberry.ID
    nodes: list[ErasedCountInput]
    relationships: list[ErasedCountInput]
    ids: list[strawberry.ID]
    digest: str

    def as_json(self) -> dict[str, object]:
        """The receipt as ``hippograph.memory.receipts.Receipt.from_json`` reads it."""
        return {
            "userId": self.user_id,
            "scope": self.scope,
            "scopeId": self.scope_id,
            "at": self.at.isoformat(),
            "tombstoneId": self.tombstone_id,
            "nodes": {c.name: c.count for c in self.nodes},
            "relationships": {c.name: c.count for c in self.relationships},
            "ids": list(self.ids),
            "digest": self.digest,
        }


@strawberry.type(description="A receipt checked against the live store.")
class ErasureCheck:
    erased: bool = strawberry.field(description="True when the receipt is intact and nothing it names remains.")
    intact: bool = strawberry.field(description="The ids are the ones the digest was made of.")
    remaining: list[strawberry.ID] = strawberry.field(description="Ids of the receipt still held by a node or version.")
    user_remains: list[ErasedCount] = strawberry.field(
        description=(
            "For a user's erasure, what of them is anywhere, by where it was found: nodes, users, relationships, "
            "memoryText and entityName (full-text entries), vectors (the vector index); each 0 when erased."
        )
    )

    @classmethod
    def from_verification(cls, checked: Verification) -> ErasureCheck:
        return cls(
            erased=checked.erased,
            intact=checked.intact,
            remaining=[strawberry.ID(i) for i in checked.remaining],
            user_remains=[ErasedCount(name=k, count=v) for k, v in checked.user_remains.items()],
        )


@strawberry.type(
    name="ScopeForgotten",
    description="How much went: nothing of it stays in any property, index or search. "
    "The audit log keeps a tombstone with these counts and the scope, never the content.",
)
class ScopeErased:
    memories: int = strawberry.field(
        description="Memories, with the facts and promoted memories derived from the scope "
        "and the summaries only they supported."
    )
    entities: int = strawberry.field(description="Entities nothing else mentions any more.")
    turns: int
    sessions: int
    projects: int
    api_keys: int = strawberry.field(description="Keys erased with their user (forgetUser only).")
    receipt: ErasureReceipt

    @classmethod
    def from_result(cls, forgotten: ScopeForgotten) -> ScopeErased:
        assert forgotten.receipt is not None
        return cls(
            memories=forgotten.memories,
            entities=forgotten.entities,
            turns=forgotten.turns,
            sessions=forgotten.sessions,
            projects=forgotten.projects,
            api_keys=forgotten.api_keys,
            receipt=ErasureReceipt.from_receipt(forgotten.receipt),
        )


ForgetSessionPayload = Annotated[
    ScopeErased | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("ForgetSessionPayload")
]
ForgetProjectPayload = Annotated[
    ScopeErased | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("ForgetProjectPayload")
]
ForgetUserPayload = Annotated[
    ScopeErased | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("ForgetUserPayload")
]
