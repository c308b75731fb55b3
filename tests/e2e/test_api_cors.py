"""CORS on a real server: pages of an allowed origin may call /graphql and /mcp, others are refused,
and a server without the setting answers no page at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hippograph_bench.server import Server, running_server
from hippograph.memory import keys
from hippograph.memory.services import Services

ALLOWED = "http://127.0.0.1:5173"
OTHER = "http://evil.example"


@pytest.fixture(scope="module")
def cors_server(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    log: Path = tmp_path_factory.mktemp("cors") / "serve.log"
    with running_server(log, {"HIPPOGRAPH_CORS_ORIGINS": f"{ALLOWED},https://app.example.com"}) as server:
        yield server


def preflight(server: Server, path: str, origin: str) -> httpx.Response:
    return httpx.options(f"{server.base}{path}", timeout=30, headers={
        "origin": origin, "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type"})


@pytest.mark.parametrize("path", ["/graphql", "/mcp"])
def test_a_preflight_from_an_allowed_origin_is_answered(cors_server: Server, path: str) -> None:
    response = preflight(cors_server, path, ALLOWED)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED
    assert "authorization" in response.headers["access-control-allow-headers"].lower()
    assert "POST" in response.headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in response.headers


@pytest.mark.parametrize("path", ["/graphql", "/mcp"])
def test_a_preflight_from_another_origin_is_refused(cors_server: Server, path: str) -> None:
    response = preflight(cors_server, path, OTHER)
    assert response.status_code == 400
    assert "access-control-allow-origin" not in response.headers


def test_answers_to_an_allowed_page_can_be_read_refusals_included(cors_server: Server, services: Services) -> None:
    secret = keys.create_key(services.driver, services.database, "cors-reader").secret
    query = {"query": '{ recall(query: "anything", priority: HIGH) { items { id } } }'}
    ok = httpx.post(f"{cors_server.base}/graphql", json=query, timeout=30,
                    headers={"origin": ALLOWED, "authorization": f"Bearer {secret}"})
    assert ok.status_code == 200 and ok.json()["data"]["recall"]["items"] == []
    assert ok.headers["access-control-allow-origin"] == ALLOWED
    refused = httpx.post(f"{cors_server.base}/graphql", json=query, timeout=30, headers={"origin": ALLOWED})
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == ALLOWED
    assert "www-authenticate" in refused.headers["access-control-expose-headers"].lower()
    elsewhere = httpx.post(f"{cors_server.base}/graphql", json=query, timeout=30,
                           headers={"origin": OTHER, "authorization": f"Bearer {secret}"})
    assert "access-control-allow-origin" not in elsewhere.headers


def test_without_the_setting_no_page_is_answered(api_server: Server) -> None:
    response = preflight(api_server, "/graphql", ALLOWED)
    assert "access-control-allow-origin" not in response.headers
