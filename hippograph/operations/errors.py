"""The error vocabulary of every interface: the codes, and how every failure becomes one.

GraphQL answers a code as ``extensions.code`` (and as the ``code`` of a mutation's error
member), MCP as the ``code`` of a refused tool call's structured content; both take it from
``code_of`` here, so one failure carries one code whichever way it was asked.
"""

from __future__ import annotations

from enum import Enum

from neo4j.exceptions import ConnectionAcquisitionTimeoutError, ServiceUnavailable, SessionExpired

from hippograph.graph.driver import Neo4jUnavailable
from hippograph.memory.errors import MemoryRuleError
from hippograph.memory.recall.profiles import ProfileError
from hippograph.memory.tiers import ScopeError
from hippograph.memory.writing.scrubbing import SecretRejected


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
    """A request an interface or an operation refuses (bad input, a limit passed); the message is safe to show."""

    code = ErrorCode.BAD_USER_INPUT

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class BadInput(RequestError):
    code = ErrorCode.BAD_USER_INPUT


class LimitExceeded(RequestError):
    code = ErrorCode.LIMIT_EXCEEDED


class Unauthenticated(RequestError):
    code = ErrorCode.UNAUTHENTICATED


class Unavailable(RequestError):
    code = ErrorCode.UNAVAILABLE


# Neo4j down, restarting, or a connection lost mid-transaction: the driver reconnects by itself. A
# request's wait for a connection that ends before its deadline is one of these too (memory.bounded).
UNAVAILABLE_ERRORS = (ServiceUnavailable, SessionExpired, ConnectionAcquisitionTimeoutError, Neo4jUnavailable)
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
