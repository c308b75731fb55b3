"""Where the service reports what it measures (``hippograph.api.metrics`` implements it for ``/metrics``).

The operations report what they measure themselves (a recall's time, a tier's fill), so a call over
MCP counts as one over GraphQL; GraphQL's own extensions add each operation's time and the Neo4j
errors they meet.
"""

from __future__ import annotations

from typing import Protocol


class MetricsSink(Protocol):
    def operation(self, name: str, seconds: float, failed: bool) -> None: ...

    def recall(self, profile: str, seconds: float) -> None: ...

    def tier_usage(self, tier: str, fill: float) -> None: ...

    def neo4j_error(self, kind: str) -> None: ...


class NoMetrics:
    """For a server nobody scrapes (``hippograph mcp`` over stdio) and for tests."""

    def operation(self, name: str, seconds: float, failed: bool) -> None:
        pass

    def recall(self, profile: str, seconds: float) -> None:
        pass

    def tier_usage(self, tier: str, fill: float) -> None:
        pass

    def neo4j_error(self, kind: str) -> None:
        pass
