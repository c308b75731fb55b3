"""Prometheus metrics, served at ``/metrics``.

One registry per app (not the process-global one), so two apps in one process —
tests do that — never share or clash.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

from hippograph.memory.writing.writer import WriteCounts

# Seconds: a GraphQL operation is a few ms to a few seconds (embedding on CPU).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
FILL_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


class Metrics:
    """What the service measures; implements the operations' ``MetricsSink``."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.operations = Histogram(
            "hippograph_graphql_operation_seconds",
            "GraphQL operation latency, by operation (type:root field).",
            ["operation", "outcome"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.http = Histogram(
            "hippograph_http_request_seconds",
            "HTTP request latency, by route and status class.",
            ["route", "status"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.recalls = Histogram(
            "hippograph_recall_seconds",
            "Recall latency (embedding, query and selection), by profile.",
            ["profile"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.tier_fill = Histogram(
            "hippograph_tier_fill_ratio",
            "How full a tier was when its usage was read (used tokens / capacity).",
            ["tier"],
            buckets=FILL_BUCKETS,
            registry=self.registry,
        )
        self.neo4j_errors = Counter(
            "hippograph_neo4j_errors_total",
            "Neo4j errors met while serving requests, by exception type.",
            ["kind"],
            registry=self.registry,
        )
        self.subscriptions = Gauge(
            "hippograph_subscriptions",
            "Open memoryEvents subscriptions.",
            registry=self.registry,
        )

    def watch_writes(self, counts: WriteCounts) -> None:
        """The write path's own counts (``Writer.counts``), read at each scrape."""
        self.registry.register(_WriteCollector(counts))

    def operation(self, name: str, seconds: float, failed: bool) -> None:
        self.operations.labels(name, "error" if failed else "ok").observe(seconds)

    def recall(self, profile: str, seconds: float) -> None:
        self.recalls.labels(profile).observe(seconds)

    def tier_usage(self, tier: str, fill: float) -> None:
        self.tier_fill.labels(tier).observe(fill)

    def neo4j_error(self, kind: str) -> None:
        self.neo4j_errors.labels(kind).inc()

    def request(self, route: str, status: int, seconds: float) -> None:
        self.http.labels(route, f"{status // 100}xx").observe(seconds)


class _WriteCollector(Collector):
    def __init__(self, counts: WriteCounts) -> None:
        self._counts = counts

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(
            "hippograph_write_groups",
            "Transactions that committed a group of remembered writes (writes that arrive together commit together).",
            value=self._counts.groups,
        )
        yield CounterMetricFamily(
            "hippograph_grouped_writes", "Remembered writes committed in those groups.", value=self._counts.writes
        )
        yield CounterMetricFamily(
            "hippograph_write_retries",
            "Write transactions Neo4j made run again (a deadlock "
            "or another transient error), retried inside the service.",
            value=self._counts.retries,
        )


async def metrics_endpoint(request: Request) -> Response:
    metrics: Metrics = request.app.state.metrics
    events = getattr(request.app.state, "events", None)
    if events is not None:
        metrics.subscriptions.set(events.subscribers)
    return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)
