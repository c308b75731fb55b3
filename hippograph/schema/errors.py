"""Error codes in the GraphQL schema: the ``ErrorCode`` enum and the error members of mutation unions.

Each GraphQL error carries ``extensions.code``; each mutation's error union member carries the
same code as a field. The codes and the mapping from exceptions to codes are the operations'
(``hippograph.operations.errors``), shared with MCP; ``hippograph.schema.extensions.ErrorCodes``
applies them to every response and masks whatever they do not recognise.
"""

from __future__ import annotations

import strawberry

from hippograph.operations.errors import ErrorCode as _ErrorCode
from hippograph.operations.errors import code_of

# Registered on the class itself, then named, so mypy sees a type (why: hippograph/schema/types/common.py).
strawberry.enum(
    _ErrorCode, description="What went wrong, as `extensions.code` and as the `code` of a mutation's error."
)
ErrorCode = _ErrorCode


@strawberry.interface(description="A mutation that did not happen, and why; nothing was changed.")
class UserError:
    message: str
    code: ErrorCode


@strawberry.type(description="The input is not acceptable (wrong form, too long, breaks a rule).")
class BadUserInputError(UserError):
    field: str | None = None


@strawberry.type(description="No such thing among the caller's own.")
class NotFoundError(UserError):
    pass


@strawberry.type(description="The request passes a limit: a tier's capacity, a list's length.")
class LimitExceededError(UserError):
    pass


def user_error(exc: BaseException) -> UserError | None:
    """The union member for an exception the caller caused, or None for any other."""
    code = code_of(exc)
    message = str(exc)
    if code is ErrorCode.BAD_USER_INPUT:
        return BadUserInputError(message=message, code=code, field=getattr(exc, "field", None))
    if code is ErrorCode.NOT_FOUND:
        return NotFoundError(message=message, code=code)
    if code is ErrorCode.LIMIT_EXCEEDED:
        return LimitExceededError(message=message, code=code)
    return None
