"""The GraphQL schema: types, queries, mutations and subscriptions (strawberry)."""

from __future__ import annotations

import strawberry

from hippograph.schema.queries import Query

schema = strawberry.Schema(query=Query)

__all__ = ["schema"]
