"""Neo4j going away mid-run: requests answer UNAVAILABLE within their deadline — a server whose
deadline is 2 s too, not cut off (LIMIT_EXCEEDED) while the driver retries — and when Neo4j is back
the service answers again by itself: same process, no data lost. Runs after every other test. How
soon UNAVAILABLE comes is measured by ``hippograph bench deadlines``."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from hippograph.local import neo4j_server
from hippograph.config import Settings
from hippograph.memory import keys
from hippograph.memory.services import Services
from hippograph_bench.server import Server, running_server
from api_client import Client, new_user, until

pytestmark = [pytest.mark.neo4j, pytest.mark.neo4j_restart]


@pytest.fixture(scope="module")
def hurried(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """A client of a server whose requests have 2 s: less than the driver's own retries last (5 s)."""
    user = new_user("hurried")
    secret = keys.create_key(services.driver, services.database, user, keys.Role.USER).secret
    with running_server(tmp_path_factory.mktemp("hurried") / "serve.log", {"HIPPOGRAPH_REQUEST_TIMEOUT": "2"}) as server:
        yield Client(server, secret, user)


def test_unavailable_while_neo4j_is_down_then_recovers(
    settings: Settings, api_server: Server, alice: Client, hurried: Client,
) -> None:
    stored = alice.data(
        """mutation { remember(input: {content: "Survives a database restart", tier: LONG_TERM}) {
             ... on RememberSuccess { memory { id } } } }"""
    )["remember"]["memory"]["id"]
    pid = api_server.process.pid
    try:
        neo4j_server.stop(settings, log=lambda _: None)
        for client in (alice, hurried):
            assert client.codes('{ recall(query: "database restart") { profile } }') == ["UNAVAILABLE"]
            assert client.codes(f'{{ memory(id: "{stored}") {{ id }} }}') == ["UNAVAILABLE"]
            assert client.codes('mutation { remember(input: {content: "lost?", tier: LONG_TERM}) { __typename } }') == [
                "UNAVAILABLE"
            ]
        body = alice.run("{ tierUsage { tier } }")
        assert body["errors"][0]["message"] == "the database is unavailable; retry shortly"
        assert httpx.get(f"{api_server.base}/healthz").status_code == 200
        assert httpx.get(f"{api_server.base}/readyz", timeout=60).status_code == 503
    finally:
        neo4j_server.start(settings, log=lambda _: None)
    assert until(lambda: not alice.codes("{ tierUsage { tier } }"), 90), "the service did not recover by itself"
    assert api_server.process.poll() is None and api_server.process.pid == pid
    memory = alice.data(f'{{ memory(id: "{stored}") {{ content }} }}')["memory"]
    assert memory == {"content": "Survives a database restart"}
    assert until(lambda: httpx.get(f"{api_server.base}/readyz", timeout=60).status_code == 200, 60)
    metrics = httpx.get(f"{api_server.base}/metrics").text
    assert 'hippograph_neo4j_errors_total{kind="ServiceUnavailable"}' in metrics
