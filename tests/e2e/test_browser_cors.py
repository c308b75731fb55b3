"""A page on one origin calls the API on another, in real headless Chromium (Debian's, driven by Playwright):
``examples/recall.html`` served by a real static HTTP server, the API by a real ``hippograph serve``."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hippograph_bench.server import Server, free_port, running_server
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import Client, new_user

pytestmark = pytest.mark.neo4j

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def page_origin() -> Iterator[int]:
    """The examples folder over HTTP on a port of its own: the page's origin."""
    port = free_port()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(EXAMPLES))
    httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield port
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def api(page_origin: int, services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # The page served as 127.0.0.1 is allowed; the same page reached as localhost is another origin, and is not.
    allowed = {"HIPPOGRAPH_CORS_ORIGINS": f"http://127.0.0.1:{page_origin}"}
    with running_server(tmp_path_factory.mktemp("browser") / "serve.log", allowed) as server:
        yield server


def recall_in_page(browser, url: str, secret: str, query: str):
    page = browser.new_page()
    page.goto(url)
    page.fill("#key", secret)
    page.fill("#query", query)
    page.select_option("#priority", "CRITICAL")
    page.click("button[type=submit]")
    page.wait_for_function("document.getElementById('status').textContent !== 'Recalling…'", timeout=30_000)
    return page


def test_a_page_of_an_allowed_origin_recalls_and_shows_the_score_components(
    browser, api: Server, page_origin: int, services: Services,
) -> None:
    user_id = new_user("browser")
    secret = keys.create_key(services.driver, services.database, user_id).secret
    Client(api, secret, user_id).data(
        'mutation { remember(input: {content: "The billing service runs on PostgreSQL 16", tier: PROJECT, '
        'project: "billing"}) { __typename } }')
    page = recall_in_page(browser, f"http://127.0.0.1:{page_origin}/recall.html?api={api.base}", secret,
                          "which database does billing use?")
    assert page.get_attribute("#status", "class") != "error", page.text_content("#status")
    rows = page.locator("tr.item")
    assert rows.count() >= 1
    cells = rows.first.locator("td").all_text_contents()
    assert cells[0] == "The billing service runs on PostgreSQL 16" and cells[1] == "PROJECT"
    score, vector, keyword, recency, relation = (float(c) if c != "—" else None for c in cells[2:])
    assert 0 < score <= 1 and vector is not None and 0 <= keyword <= 1 and 0 <= relation <= 1
    page.close()


def test_a_page_of_an_origin_not_allowed_is_refused_by_the_browser(
    browser, api: Server, page_origin: int, services: Services,
) -> None:
    user_id = new_user("browser")
    secret = keys.create_key(services.driver, services.database, user_id).secret
    page = recall_in_page(browser, f"http://localhost:{page_origin}/recall.html?api={api.base}", secret, "anything")
    assert page.get_attribute("#status", "class") == "error"
    assert "could not be reached" in page.text_content("#status")
    assert page.locator("tr.item").count() == 0
    page.close()


def test_a_refused_key_is_shown_with_its_code(browser, api: Server, page_origin: int) -> None:
    page = recall_in_page(browser, f"http://127.0.0.1:{page_origin}/recall.html?api={api.base}", "hg_wrong", "x")
    assert page.text_content("#status").startswith("UNAUTHENTICATED")
    page.close()
