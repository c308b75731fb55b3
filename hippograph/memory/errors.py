"""Errors the memory rules raise; each carries the code the API reports (``extensions.code``)."""

from __future__ import annotations


class MemoryRuleError(Exception):
    """Base: a request broke a rule; the message is safe to show the caller."""

    code = "BAD_USER_INPUT"


class InvalidInput(MemoryRuleError):
    code = "BAD_USER_INPUT"


class RawTurnRefused(InvalidInput):
    """Raw conversation turns belong to the session transcript, never to PROJECT or LONG_TERM."""


class NotFound(MemoryRuleError):
    """Not there — or not the caller's, which the caller must not be able to tell apart."""

    code = "NOT_FOUND"


class CapacityExceeded(MemoryRuleError):
    code = "LIMIT_EXCEEDED"
