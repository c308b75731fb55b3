"""GraphiQL with the network cut: in headless Chromium, every request to anything but 127.0.0.1 is
refused, and the page still loads, runs a ``recall`` with the key header, and shows the result."""

from __future__ import annotations

import json
import re
from urllib.parse import quote, urlsplit

from hippograph_bench.server import Server
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import Client, new_user

QUERY = '{ recall(query: "which editor does the team use?", priority: CRITICAL) { items { content score } } }'


def test_graphiql_runs_a_recall_with_every_outside_request_refused(browser, api_server: Server, services: Services) -> None:
    user_id = new_user("graphiql")
    secret = keys.create_key(services.driver, services.database, user_id).secret
    Client(api_server, secret, user_id).data(
        'mutation { remember(input: {content: "The team edits with Neovim", tier: LONG_TERM}) { __typename } }')
    refused: list[str] = []

    def only_local(route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page = browser.new_page()
    page.route("**/*", only_local)
    headers = json.dumps({"Authorization": f"Bearer {secret}"})
    page.goto(f"{api_server.base}/graphql?q={quote(QUERY)}&headers={quote(headers)}")
    page.wait_for_selector(".graphiql-execute-button", timeout=30_000)
    page.click(".graphiql-execute-button")
    page.wait_for_function(
        "document.querySelector('.graphiql-response') && "
        "document.querySelector('.graphiql-response').innerText.includes('Neovim')", timeout=30_000)
    shown = page.inner_text(".graphiql-response")
    assert '"content": "The team edits with Neovim"' in shown
    assert refused == []  # nothing even tried to leave the machine
    page.close()


def test_the_page_loads_nothing_from_elsewhere(api_server: Server) -> None:
    import httpx

    html = httpx.get(f"{api_server.base}/graphql", headers={"accept": "text/html"}, timeout=30).text
    loaded = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(loaded) >= 6
    assert all(url.startswith(("/graphiql/", "data:")) for url in loaded), loaded
    for path in ("/graphiql/graphiql/graphiql.min.js", "/graphiql/react/umd/react.production.min.js"):
        assert httpx.get(f"{api_server.base}{path}", timeout=30).status_code == 200
