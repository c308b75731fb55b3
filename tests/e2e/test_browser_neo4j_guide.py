"""The analysts' guide in the real Neo4j Browser, in headless Chromium: Browser plays the guide that
``hippograph serve`` answers, loads its style, and draws a decision → error → fix chain from one click."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hippograph_bench.server import Server
from hippograph.graph.analyst_queries import GUIDE
from hippograph.memory import keys
from hippograph.memory.services import Services
from api_client import Client, new_user

pytestmark = pytest.mark.neo4j

# Where to keep the picture (docs/browser-chain.png is one); by default the test's own folder.
SCREENSHOT_DIR = "HIPPOGRAPH_SCREENSHOT_DIR"


def editor_text(page) -> str:
    return page.locator(".monaco-editor .view-lines").first.inner_text().replace("\xa0", " ").strip()


def run_command(page, text: str) -> None:
    # Typed until the editor holds exactly the command: on a loaded machine a keystroke can land
    # before the editor has focus. Escape, then the Run button, not Enter: once Browser has loaded
    # the server's procedures for completion, an open suggestion list would take the Enter.
    for _ in range(3):
        page.locator(".monaco-editor").first.click()
        page.keyboard.press("ControlOrMeta+A")
        page.keyboard.press("Backspace")
        page.keyboard.type(text)
        page.keyboard.press("Escape")
        if editor_text(page) == text:
            break
    assert editor_text(page) == text
    page.click("[data-testid=editor-Run]")


def frames_text(page) -> str:
    return "\n---\n".join(page.locator("[data-testid=frame]").all_inner_texts())


def play_guide(page, url: str):
    """`:play`, asked again while Browser answers "No guide by that name": until the server's settings
    reach Browser, a moment after connecting, it applies its built-in host allowlist (guides.neo4j.com,
    localhost), which leaves out 127.0.0.1; the allowlist from our config takes over once they arrive."""
    for _ in range(10):
        run_command(page, f":play {url}")
        guide = page.locator("[data-testid=frame]", has_text=f":play {url}").first
        title = guide.locator("h3", has_text="hippograph for analysts")
        unfound = guide.get_by_text("No guide by that name.")
        try:
            title.or_(unfound).first.wait_for(timeout=60_000)
        except Exception as error:  # what Browser showed instead says why
            raise AssertionError(f"the guide did not open; Browser's frames:\n{frames_text(page)}") from error
        if title.count():
            return guide
        page.wait_for_timeout(2_000)
    raise AssertionError(f"Browser never took the server's allowlist; its frames:\n{frames_text(page)}")


def set_parameter(page, name: str, value: str) -> None:
    """`:param`, waited for: Browser evaluates the value on the server, and a query run before it lands misses it."""
    run_command(page, f":param {name} => '{value}'")
    page.locator("[data-testid=frame]", has_text=f'"{name}": "{value}"').first.wait_for(timeout=30_000)


def test_browser_plays_the_guide_and_draws_a_chain_in_colour(
    browser, api_server: Server, services: Services, tmp_path: Path,
) -> None:
    settings = services.settings
    user_id = new_user("analyst")
    client = Client(api_server, keys.create_key(services.driver, services.database, user_id).secret, user_id)
    decision = client.data('mutation { recordDecision(input: {decision: "Cache sessions in Redis", project: "web"}) '
                           '{ ... on RecordSuccess { entity { id } } } }')["recordDecision"]["entity"]["id"]
    client.data('mutation { recordError(input: {error: "Redis evicts sessions under load", fix: "Set maxmemory-policy '
                f'noeviction", causedBy: "{decision}", project: "web"}}) {{ __typename }} }}')

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"http://127.0.0.1:{settings.neo4j_http_port}/browser/")
    page.fill("[data-testid=boltaddress]", f"127.0.0.1:{settings.neo4j_bolt_port}")
    page.fill("[data-testid=username]", settings.neo4j_user)
    page.fill("[data-testid=password]", settings.neo4j_password)
    page.click("[data-testid=connect]")
    page.wait_for_selector("text=Connected to Neo4j", timeout=60_000)

    guide = play_guide(page, f"{api_server.base}/browser/guide")
    assert guide.locator("li[aria-label]").count() == 1 + len(GUIDE)  # the setup slide and one per query
    guide.locator("pre.runnable", has_text=":style").click()  # a click puts the block in the editor
    page.click("[data-testid=editor-Run]")
    page.locator("pre", has_text="diameter: 55px").first.wait_for(timeout=30_000)
    set_parameter(page, "user", user_id)
    set_parameter(page, "project", "web")

    guide.locator("li[aria-label='2']").click()
    guide.locator("pre.runnable", has_text="SOLVED_BY").click()
    page.click("[data-testid=editor-Run]")
    nodes = page.locator("svg g.node")
    nodes.nth(2).wait_for(timeout=30_000)
    assert nodes.count() == 3
    captions = " ".join(page.locator("svg g.node text").all_text_contents())
    for name in ("Cache", "evicts", "maxme"):  # captions are cut to fit the circle
        assert name in captions, captions
    # Each entity type has its own colour, from the style the guide loaded.
    fills = {page.locator("svg g.node circle.b-outline").nth(i).get_attribute("fill") for i in range(3)}
    assert {"#57C7E3", "#F16667"} <= {f.upper() for f in fills if f}, fills
    folder = Path(os.environ.get(SCREENSHOT_DIR) or tmp_path)
    page.locator("[data-testid=frame]", has_text="Displaying 3 nodes").first.screenshot(path=str(folder / "browser-chain.png"))
    page.close()
