"""The one exception the client raises for a refusal, with the code the server gave."""

from __future__ import annotations

from typing import Any


class HippographError(Exception):
    """The server refused or failed a request: ``code`` is its ``extensions.code`` (or a mutation's
    error ``code``), one of ``ErrorCode``'s values; ``field`` names the input at fault when known."""

    def __init__(self, code: str, message: str, field: str | None = None, errors: list[dict[str, Any]] | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field
        self.errors = errors or []
