"""API keys as an admin sees them: never a secret after creation, never a hash."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry

from hippograph.memory.keys import Role as StoredRole
from hippograph.schema.errors import BadUserInputError, LimitExceededError, NotFoundError
from hippograph.schema.types.common import native_time

# Registered on the class itself, then named, so mypy sees a type (why: hippograph/schema/types/common.py).
strawberry.enum(StoredRole, description="`admin` keys may also manage keys.")
Role = StoredRole


@strawberry.type
class ApiKey:
    id: strawberry.ID
    user: strawberry.ID
    role: Role
    revoked: bool
    created_at: datetime | None
    revoked_at: datetime | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ApiKey:
        return cls(
            id=strawberry.ID(row["id"]),
            user=strawberry.ID(row["userId"]),
            role=StoredRole(row.get("role") or "user"),
            revoked=bool(row.get("revoked")),
            created_at=native_time(row.get("createdAt")),
            revoked_at=native_time(row.get("revokedAt")),
        )


@strawberry.input
class CreateApiKeyInput:
    user: strawberry.ID
    role: Role = StoredRole.USER


@strawberry.input
class RevokeApiKeyInput:
    id: strawberry.ID


@strawberry.type
class ApiKeyCreated:
    key: ApiKey
    secret: str = strawberry.field(description="The key itself: shown this once, stored only as its SHA-256.")


@strawberry.type
class ApiKeyRevoked:
    key: ApiKey


CreateApiKeyPayload = Annotated[
    ApiKeyCreated | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("CreateApiKeyPayload")
]
RevokeApiKeyPayload = Annotated[
    ApiKeyRevoked | BadUserInputError | NotFoundError | LimitExceededError, strawberry.union("RevokeApiKeyPayload")
]
