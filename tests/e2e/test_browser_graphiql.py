"""GraphiQL with the network cut: in headless Chromium, every request to anything but 127.0.0.1 is
refused, and the page still loads, runs a ``recall`` with the key header, and shows the result; with no
address parameters it opens on this service's examples, with the key's place in the Headers tab."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

from hippograph_bench.server import Server
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import Client, new_user

pytestmark = pytest.mark.neo4j

QUERY = '{ recall(query: "which editor does the team use?", priority: CRITICAL) { items { content score } } }'


def test_graphiql_runs_a_recall_with_every_outside_request_refused(local_page, api_server: Server,
                                                                   services: Services) -> None:
    user_id = new_user("graphiql")
    secret = keys.create_key(services.driver, services.database, user_id).secret
    Client(api_server, secret, user_id).data(
        'mutation { remember(input: {content: "The team edits with Neovim", tier: LONG_TERM}) { __typename } }')
    page = local_page
    headers = json.dumps({"Authorization": f"Bearer {secret}"})
    page.goto(f"{api_server.base}/graphql?q={quote(QUERY)}&headers={quote(headers)}")
    page.wait_for_selector(".graphiql-execute-button", timeout=30_000)
    page.click(".graphiql-execute-button")
    page.wait_for_function(
        "document.querySelector('.graphiql-response') && "
        "document.querySelector('.graphiql-response').innerText.includes('Neovim')", timeout=30_000)
    shown = page.inner_text(".graphiql-response")
    assert '"content": "The team edits with Neovim"' in shown


def test_the_page_loads_nothing_from_elsewhere(api_server: Server) -> None:
    import httpx

    html = httpx.get(f"{api_server.base}/graphql", headers={"accept": "text/html"}, timeout=30).text
    loaded = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(loaded) >= 6
    assert all(url.startswith(("/graphiql/", "data:")) for url in loaded), loaded
    for path in ("/graphiql/graphiql/graphiql.min.js", "/graphiql/react/umd/react.production.min.js"):
        assert httpx.get(f"{api_server.base}{path}", timeout=30).status_code == 200


def test_graphiql_opens_on_this_services_examples_and_the_key_goes_in_the_headers_tab(
        local_page, api_server: Server, services: Services) -> None:
    secret = keys.create_key(services.driver, services.database, new_user("graphiql-examples")).secret
    page = local_page
    page.goto(f"{api_server.base}/graphql")
    page.wait_for_selector(".graphiql-execute-button", timeout=30_000)
    # CodeMirror draws only the lines in view; its own value is the whole text.
    shown = page.evaluate("document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()")
    assert "mutation Remember" in shown and "query Recall" in shown and "query Chains" in shown
    assert "Welcome to GraphiQL" not in shown

    page.get_by_role("button", name="Headers").click()
    headers = page.locator(".graphiql-editor-tool .CodeMirror-code").last
    note = headers.inner_text()
    assert "Authorization" in note and "hippograph keys create" in note
    # As a user does: the key in place of the note, then Remember and Recall from the run button's menu.
    headers.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(json.dumps({"Authorization": f"Bearer {secret}"}))
    for operation, expected in (("Remember", '"created": true'), ("Recall", '"keyword"')):
        page.click(".graphiql-execute-button")
        page.get_by_role("menuitem", name=operation).click()
        page.wait_for_function(
            f"document.querySelector('.graphiql-response').innerText.includes({json.dumps(expected)})", timeout=30_000)
    assert "Docker Compose" in page.inner_text(".graphiql-response")
