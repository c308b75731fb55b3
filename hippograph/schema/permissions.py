"""Who may resolve what: any valid key, or an admin key."""

from __future__ import annotations

from typing import Any

from strawberry.permission import BasePermission

from hippograph.schema.context import Info
from hippograph.operations.errors import UNAUTHENTICATED_MESSAGE, ErrorCode


class IsAuthenticated(BasePermission):
    message = UNAUTHENTICATED_MESSAGE
    error_extensions = {"code": ErrorCode.UNAUTHENTICATED.value}  # noqa: RUF012 strawberry declares it per instance; never mutated

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        if info.context.auth_failure is not None:
            # The key could not be checked (Neo4j down): UNAVAILABLE, not the caller's fault.
            raise info.context.auth_failure
        return info.context.caller is not None


class IsAdmin(BasePermission):
    message = "this needs an admin key"
    error_extensions = {"code": ErrorCode.FORBIDDEN.value}  # noqa: RUF012 strawberry declares it per instance; never mutated

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        return info.context.caller is not None and info.context.caller.is_admin


AUTHENTICATED: list[type[BasePermission]] = [IsAuthenticated]
ADMIN: list[type[BasePermission]] = [IsAuthenticated, IsAdmin]
