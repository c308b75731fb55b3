"""CORS: pages of an allowed origin may call /graphql and /mcp, others are refused, and an app without the
setting answers no page at all.

The headers are Starlette's ``CORSMiddleware``'s, so the app is what is tested, not the process: it runs
in this process (Starlette's ``TestClient``) on the session's real services and Neo4j."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import httpx
import pytest
from starlette.testclient import TestClient

from hippograph.api.app import create_app
from hippograph.config import Settings
from hippograph.memory import keys
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

ALLOWED = "http://127.0.0.1:5173"
OTHER = "http://evil.example"


def app_client(settings: Settings, services: Services) -> TestClient:
    return TestClient(create_app(settings, services=services), base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def cors_app(settings: Settings, services: Services) -> Iterator[TestClient]:
    allowing = dataclasses.replace(settings, cors_origins=f"{ALLOWED},https://app.example.com")
    with app_client(allowing, services) as client:
        yield client


@pytest.fixture(scope="module")
def plain_app(settings: Settings, services: Services) -> Iterator[TestClient]:
    with app_client(dataclasses.replace(settings, cors_origins=""), services) as client:
        yield client


def preflight(client: TestClient, path: str, origin: str) -> httpx.Response:
    return client.options(path, headers={
        "origin": origin, "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type"})


@pytest.mark.parametrize("path", ["/graphql", "/mcp"])
def test_a_preflight_from_an_allowed_origin_is_answered(cors_app: TestClient, path: str) -> None:
    response = preflight(cors_app, path, ALLOWED)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED
    assert "authorization" in response.headers["access-control-allow-headers"].lower()
    assert "POST" in response.headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in response.headers


@pytest.mark.parametrize("path", ["/graphql", "/mcp"])
def test_a_preflight_from_another_origin_is_refused(cors_app: TestClient, path: str) -> None:
    response = preflight(cors_app, path, OTHER)
    assert response.status_code == 400
    assert "access-control-allow-origin" not in response.headers


def test_answers_to_an_allowed_page_can_be_read_refusals_included(cors_app: TestClient, services: Services) -> None:
    secret = keys.create_key(services.driver, services.database, "cors-reader").secret
    query = {"query": '{ recall(query: "anything", priority: HIGH) { items { id } } }'}
    ok = cors_app.post("/graphql", json=query, headers={"origin": ALLOWED, "authorization": f"Bearer {secret}"})
    assert ok.status_code == 200 and ok.json()["data"]["recall"]["items"] == []
    assert ok.headers["access-control-allow-origin"] == ALLOWED
    refused = cors_app.post("/graphql", json=query, headers={"origin": ALLOWED})
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == ALLOWED
    assert "www-authenticate" in refused.headers["access-control-expose-headers"].lower()
    elsewhere = cors_app.post("/graphql", json=query, headers={"origin": OTHER, "authorization": f"Bearer {secret}"})
    assert "access-control-allow-origin" not in elsewhere.headers


def test_without_the_setting_no_page_is_answered(plain_app: TestClient) -> None:
    response = preflight(plain_app, "/graphql", ALLOWED)
    assert "access-control-allow-origin" not in response.headers
