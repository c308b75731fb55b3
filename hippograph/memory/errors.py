"""Errors the memory rules raise; each carries the code the API reports (``extensions.code``)."""

from __future__ import annotations


class MemoryRuleError(Exception):
    """Base: a request broke a rule; the message is safe to show the caller. ``field`` names the
    input at fault (``content``, ``summary``) when one is."""

    code = "BAD_USER_INPUT"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class InvalidInput(MemoryRuleError):
    code = "BAD_USER_INPUT"


class RawTurnRefused(InvalidInput):
    """Raw conversation turns belong to the session transcript, never to PROJECT or LONG_TERM."""


class NotFound(MemoryRuleError):
    """Not there — or not the caller's, which the caller must not be able to tell apart."""

    code = "NOT_FOUND"


class CapacityExceeded(MemoryRuleError):
    code = "LIMIT_EXCEEDED"


class DeadlinePassed(MemoryRuleError):
    """The request was answered at its deadline before its write began: the write never begins."""

    code = "LIMIT_EXCEEDED"


class OutcomeUnknown(MemoryRuleError):
    """The store was lost while the write committed: it may or may not be stored. A retry is safe."""

    code = "OUTCOME_UNKNOWN"
