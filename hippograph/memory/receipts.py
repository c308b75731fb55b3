"""Erasure receipts: what an erasure removed, in a form anyone can check against the live store later.

A receipt holds no content: the user, the scope erased, the time, the audit tombstone's id, the
counts of nodes removed per label and of relationships per type (versions included), the ids of
the nodes removed, sorted, and the SHA-256 digest of those ids (one per line). ``verify`` checks
that the ids are the ones the digest was made of, and that none of them — nor a version of one, nor,
for a whole user, any node, relationship, full-text entry or vector of theirs — is in the store.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from neo4j import READ_ACCESS, ManagedTransaction

from hippograph.graph import receipts as receipt_cypher
from hippograph.memory.errors import InvalidInput
from hippograph.memory.recall import lucene
from hippograph.memory.services import Services

T = TypeVar("T")

SCOPES = ("memory", "entity", "turn", "session", "project", "user")


def digest(ids: Iterable[str]) -> str:
    """The SHA-256 of the ids, sorted, one per line."""
    return hashlib.sha256("\n".join(sorted(ids)).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Receipt:
    user_id: str
    scope: str
    scope_id: str
    at: datetime
    tombstone_id: str
    nodes: dict[str, int]
    relationships: dict[str, int]
    ids: list[str]
    digest: str

    def as_json(self) -> dict[str, Any]:
        """The receipt as ``hippograph forget … --receipt`` writes it and ``forget verify`` reads it."""
        return {
            "userId": self.user_id,
            "scope": self.scope,
            "scopeId": self.scope_id,
            "at": self.at.isoformat(),
            "tombstoneId": self.tombstone_id,
            "nodes": self.nodes,
            "relationships": self.relationships,
            "ids": self.ids,
            "digest": self.digest,
        }

    @classmethod
    def from_json(cls, value: Any) -> Receipt:
        """A receipt as ``as_json`` wrote it; anything else is refused, naming what is wrong."""
        if not isinstance(value, Mapping):
            raise InvalidInput("a receipt is a JSON object")
        try:
            receipt = cls(
                user_id=_text(value["userId"], "userId"),
                scope=_text(value["scope"], "scope"),
                scope_id=_text(value["scopeId"], "scopeId"),
                at=datetime.fromisoformat(_text(value["at"], "at")),
                tombstone_id=_text(value["tombstoneId"], "tombstoneId"),
                nodes=_counts(value["nodes"], "nodes"),
                relationships=_counts(value["relationships"], "relationships"),
                ids=[_text(one, "ids") for one in _list(value["ids"], "ids")],
                digest=_text(value["digest"], "digest"),
            )
        except KeyError as missing:
            raise InvalidInput(f"the receipt has no {missing.args[0]}") from None
        except ValueError as bad:
            raise InvalidInput(f"the receipt's at is not an ISO 8601 time: {bad}") from None
        if receipt.scope not in SCOPES:
            raise InvalidInput(f"the receipt's scope must be one of {', '.join(SCOPES)}")
        if receipt.scope == "user" and receipt.scope_id != receipt.user_id:
            # Checked, it would speak of its userId's store under another user's name.
            raise InvalidInput(
                "a user's erasure receipt names the user erased twice: its scopeId is its userId",
                field="receipt.scopeId",
            )
        return receipt


@dataclass(frozen=True)
class Verification:
    """What a receipt's check found: ``intact`` (the ids are those the digest was made of), the ids
    still in the store, and for a whole user what of them remains, by where (each 0 when erased)."""

    intact: bool
    remaining: list[str] = field(default_factory=list)
    user_remains: dict[str, int] = field(default_factory=dict)

    @property
    def erased(self) -> bool:
        return self.intact and not self.remaining and not any(self.user_remains.values())

    def as_json(self) -> dict[str, Any]:
        return {"erased": self.erased, **asdict(self)}


class Ledger:
    """What an erasure removes, read in its own transaction: the neighbourhood of its seeds before, then
    what of it is gone after (``hippograph.graph.receipts``)."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.relationships: dict[str, str] = {}
        self.gone_nodes: list[dict[str, Any]] = []
        self.gone_relationships: list[str] = []

    def before(self, tx: ManagedTransaction, user_id: str, **seeds: Any) -> None:
        nodes, relationships = receipt_cypher.neighbourhood(tx, user_id, **seeds)
        self.nodes.update({node["element"]: node for node in nodes})
        self.relationships.update({rel["element"]: rel["type"] for rel in relationships})

    def after(self, tx: ManagedTransaction) -> None:
        kept_nodes, kept_relationships = receipt_cypher.still_there(tx, list(self.nodes), list(self.relationships))
        self.gone_nodes = [node for element, node in self.nodes.items() if element not in kept_nodes]
        self.gone_relationships = [
            kind for element, kind in self.relationships.items() if element not in kept_relationships
        ]

    def add(self, nodes: Iterable[Mapping[str, Any]], relationships: Mapping[str, int]) -> None:
        """Removed nodes (id, labels) and relationship counts by type, as a user's erasure reports them."""
        self.gone_nodes.extend(dict(node) for node in nodes)
        self.gone_relationships.extend(kind for kind, count in relationships.items() for _ in range(count))

    def receipt(self, user_id: str, scope: str, scope_id: str, at: datetime, tombstone_id: str) -> Receipt:
        ids = sorted(str(node["id"]) for node in self.gone_nodes if node.get("id") is not None)
        return Receipt(
            user_id=user_id,
            scope=scope,
            scope_id=scope_id,
            at=at,
            tombstone_id=tombstone_id,
            nodes=dict(sorted(Counter(receipt_cypher.kind(node["labels"]) for node in self.gone_nodes).items())),
            relationships=dict(sorted(Counter(self.gone_relationships).items())),
            ids=ids,
            digest=digest(ids),
        )


def verify(services: Services, receipt: Receipt) -> Verification:
    """Check a receipt against the live store (see the module docstring)."""
    intact = digest(receipt.ids) == receipt.digest

    def work(tx: ManagedTransaction) -> Verification:
        remaining = receipt_cypher.remaining_ids(tx, receipt.user_id, receipt.ids)
        remains: dict[str, int] = {}
        if receipt.scope == "user":
            probe = [1.0] + [0.0] * (services.embedder.dimension - 1)
            owner = f'userId:"{lucene.escape(receipt.user_id)}"'
            remains = receipt_cypher.user_remains(tx, receipt.user_id, owner, probe)
        return Verification(intact, remaining, remains)

    return _read(services, work)


def _read(services: Services, work: Callable[[ManagedTransaction], T]) -> T:
    with services.driver.session(database=services.database, default_access_mode=READ_ACCESS) as session:
        return session.execute_read(work)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 4096:
        raise InvalidInput(f"the receipt's {name} must be a non-empty string")
    return value


def _list(value: Any, name: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise InvalidInput(f"the receipt's {name} must be a list")
    return value


def _counts(value: Any, name: str) -> dict[str, int]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in value.items()
    ):
        raise InvalidInput(f"the receipt's {name} must map names to counts")
    return dict(value)
