"""A real `hippograph serve` for the API tests, API keys for two users, and a small GraphQL client."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from hippograph.memory import keys
from hippograph.memory.services import Services
from hippograph_bench.server import Server, running_server
from api_client import Client, new_user

# Modules that stop and restart Neo4j run after every other test of the session.
LAST = "neo4j_restart"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker(LAST) is not None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{LAST}: stops and restarts Neo4j; runs after every other test")


@pytest.fixture(scope="session")
def api_server(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("serve") / "serve.log") as server:
        yield server


@pytest.fixture(scope="session")
def make_client(api_server: Server, services: Services):
    def make(prefix: str = "user", role: keys.Role = keys.Role.USER) -> Client:
        user_id = new_user(prefix)
        issued = keys.create_key(services.driver, services.database, user_id, role)
        return Client(api_server, issued.secret, user_id)

    return make


@pytest.fixture(scope="module")
def alice(make_client) -> Client:
    return make_client("alice")


@pytest.fixture(scope="module")
def bob(make_client) -> Client:
    return make_client("bob")


@pytest.fixture(scope="module")
def anonymous(api_server: Server) -> Client:
    return Client(api_server, None)


# Without the background-networking flags Chromium keeps dialling out, and this machine's closed network refuses.
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run installs it): browser tests not run")
    return found


# Per module: Playwright's sync API runs an event loop of its own, which the anyio tests must not meet.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def local_page(browser) -> Iterator[object]:
    """A page on which every request to a host other than 127.0.0.1 is refused, and fails the test."""
    refused: list[str] = []

    def only_local(route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page = browser.new_page(viewport={"width": 1440, "height": 960})
    page.route("**/*", only_local)
    yield page
    page.close()
    assert refused == []  # nothing even tried to leave the machine
