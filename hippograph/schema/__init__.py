"""The GraphQL schema: types, queries, mutations and subscriptions (strawberry).

``schema.graphql`` at the repository root is this schema printed; a unit test
fails when the two differ (regenerate with ``python -m hippograph.schema``).
"""

from __future__ import annotations

import logging

import strawberry
from graphql import GraphQLError
from strawberry.types import ExecutionContext

from hippograph.operations.errors import code_of
from hippograph.schema.extensions import (
    ErrorCodes,
    OperationGate,
    OperationTiming,
    ValidDocuments,
    caller_fault,
    token_limit,
)
from hippograph.schema.root import Mutation, Query, Subscription

log = logging.getLogger("hippograph.schema")


class HippographSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        # Expected failures (bad input, not found, Neo4j down) are answers, not incidents;
        # only what will be masked is logged, with its traceback.
        for error in errors:
            original = error.original_error
            if caller_fault(error) is None and code_of(original) is None and not (error.extensions or {}).get("code"):
                log.error(
                    "unexpected error in %s: %s",
                    ".".join(map(str, error.path or [])) or "operation",
                    original,
                    exc_info=original,
                )


schema = HippographSchema(
    query=Query,
    mutation=Mutation,
    subscription=Subscription,
    extensions=[token_limit, ValidDocuments, OperationGate, ErrorCodes, OperationTiming],
)

__all__ = ["schema"]
