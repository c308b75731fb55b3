"""Error codes, and how every failure becomes one.

Each GraphQL error carries ``extensions.code``; each mutation's error union
member carries the same code as a field. The mapping from exceptions to codes
lives here, in ``code_of``; ``hippograph.schema.extensions.ErrorCodes`` applies
it to every response and masks whatever it does not recognise.
"""

from __future__ import annotations

from enum import Enum

import strawberry
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from hippograph.graph.driver import Neo4jUnavailable
from hippograph.memory.errors import MemoryRuleError
from hippograph.memory.recall.profiles import ProfileError
from hippograph.memory.writing.scrubbing import SecretRejected
from hippograph.memory.tiers import ScopeError


@strawberry.enum(description="What went wrong, as `extensions.code` and as the `code` of a mutation's error.")
class ErrorCode(Enum):
    BAD_USER_INPUT = "BAD_USER_INPUT"
    NOT_FOUND = "NOT_FOUND"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    UNAVAILABLE = "UNAVAILABLE"
    # A write whose outcome the store's failure hid: it may or may not be stored; a retry is safe.
    OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN"
    INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR"


UNAVAILABLE_MESSAGE = "the database is unavailable; retry shortly"
UNAUTHENTICATED_MESSAGE = "a valid API key is required: send `Authorization: Bearer <key>`"
MASKED_MESSAGE = "Unexpected error."


class RequestError(Exception):
    """A request the API itself refuses (bad input, a limit passed); the message is safe to show."""

    code = ErrorCode.BAD_USER_INPUT

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class BadInput(RequestError):
    code = ErrorCode.BAD_USER_INPUT


class LimitExceeded(RequestError):
    code = ErrorCode.LIMIT_EXCEEDED


class NotFound(RequestError):
    code = ErrorCode.NOT_FOUND


class Unauthenticated(RequestError):
    code = ErrorCode.UNAUTHENTICATED


class Unavailable(RequestError):
    code = ErrorCode.UNAVAILABLE


# Neo4j down, restarting, or a connection lost mid-transaction: the driver reconnects by itself.
UNAVAILABLE_ERRORS = (ServiceUnavailable, SessionExpired, Neo4jUnavailable)
# Rules the lower layers enforce, whose messages are written for the caller.
INPUT_ERRORS = (ScopeError, ProfileError, SecretRejected)


def code_of(exc: BaseException | None) -> ErrorCode | None:
    """The code for an exception, or None when it is unexpected (and must be masked)."""
    if isinstance(exc, RequestError):
        return exc.code
    if isinstance(exc, MemoryRuleError):
        return ErrorCode(exc.code)
    if isinstance(exc, INPUT_ERRORS):
        return ErrorCode.BAD_USER_INPUT
    if isinstance(exc, UNAVAILABLE_ERRORS):
        return ErrorCode.UNAVAILABLE
    return None


# --- the error members of mutation unions -------------------------------------


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
