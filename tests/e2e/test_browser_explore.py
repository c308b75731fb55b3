"""/explore in headless Chromium with the network cut: every request to anything but 127.0.0.1 is refused
(and fails the test); before a key the page says what it shows and how to make a key; a user with no
memories is offered the README's example; each view draws its picture when its tab opens, from a store
this test writes through hippograph.client; a refusal shows with its code. Each view's picture is written to HIPPOGRAPH_SCREENSHOT_DIR (docs/ keeps
them: docs/explore-*.png) or the test's own folder."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippograph_bench.server import Server, running_server
from hippograph.client import (
    Client, Tier, append_turn, memories, record_decision, record_error, remember, set_preference, start_session,
)
from hippograph.memory import keys
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.services import Services
from api_client import new_user

pytestmark = pytest.mark.neo4j

SCREENSHOT_DIR = "HIPPOGRAPH_SCREENSHOT_DIR"
PROJECT = "shop"
SESSION = "checkout-bug"
# Small enough that the session's writes compress its tier and its turns are summarised.
SMALL = {"HIPPOGRAPH_SESSION_CAPACITY": "40", "HIPPOGRAPH_TRANSCRIPT_BUDGET": "120"}
TURNS = [
    ("user", "Checkout fails with a 502 since this morning's deploy."),
    ("assistant", "The gateway log shows the payments service timing out after 30 seconds."),
    ("user", "We decided last week to route payments through Stripe's EU endpoint."),
    ("assistant", "The EU endpoint needs the new API version 2024-06-20 or it answers 400."),
    ("user", "The payments service still pins API version 2023-10-16."),
    ("assistant", "Fixed: bumping the pinned version to 2024-06-20 made checkout pass again."),
    ("user", "Good. We also switched the retry budget to 3 attempts with 2 second backoff."),
    ("assistant", "Noted: 3 attempts, 2 second backoff, and an alert when the error rate passes 2 %."),
]


@pytest.fixture(scope="module")
def server(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("explore") / "serve.log", env=SMALL) as running:
        yield running


@pytest.fixture(scope="module")
def key(server: Server, services: Services) -> str:
    """A user whose store holds a little of everything the explorer shows."""
    secret = keys.create_key(services.driver, services.database, new_user("explorer")).secret
    with Client(server.base, secret) as hg:
        for text in ("The shop deploys with Docker Compose on one host, behind Caddy",
                     "The shop's invoices are rendered as PDF with WeasyPrint",
                     "The staging database is reset every night at 02:00",
                     "Deploys of the shop run from the main branch after CI passes"):
            hg.send(remember(text, tier=Tier.PROJECT, project=PROJECT))
        old = hg.send(record_decision("Cache carts in Memcached", project=PROJECT))
        assert old.entity is not None
        cache = hg.send(record_decision("Cache carts in Redis", reason="persistence across restarts", project=PROJECT,
                                        conflicts_with=[old.entity.id]))
        assert cache.entity is not None
        hg.send(record_error("Redis evicted carts under memory pressure", fix="Set maxmemory-policy to noeviction",
                             caused_by=cache.entity.id, project=PROJECT))
        compose = hg.send(record_decision("Deploy with Docker Compose", project=PROJECT))
        assert compose.entity is not None
        hg.send(record_error("Compose restarted Postgres on every deploy", fix="Deploy the app service alone",
                             caused_by=compose.entity.id, project=PROJECT))
        hg.send(set_preference("editor", "Neovim"))
        hg.send(start_session(SESSION, project=PROJECT))
        for number, (role, content) in enumerate(TURNS):
            hg.send(append_turn(SESSION, role, content, project=PROJECT, ref=f"t{number}"))
        for note in ("Investigating the checkout 502", "The payments service pins an old Stripe API version",
                     "Stripe's EU endpoint refuses old API versions with 400", "Checkout passes after the bump",
                     "The retry budget is 3 attempts with a 2 second backoff between them",
                     "An alert fires when the checkout error rate passes 2 % for five minutes"):
            hg.send(remember(note, tier=Tier.SESSION, session=SESSION, project=PROJECT))
    return secret


@pytest.fixture
def page(local_page, server: Server) -> object:
    local_page.goto(f"{server.base}/explore/")
    return local_page


def sign_in(page, key: str) -> None:
    page.fill("#key", key)
    page.click("#key-form button[type=submit]")
    page.wait_for_selector("#views:not([hidden])", timeout=30_000)


def picture(page, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get(SCREENSHOT_DIR) or tmp_path)
    page.screenshot(path=str(folder / f"explore-{name}.png"), full_page=True)


def test_before_a_key_the_page_says_what_it_shows_and_how_to_make_a_key(page) -> None:
    page.wait_for_function("document.querySelector('#intro img').complete", timeout=30_000)
    assert page.is_visible("#intro") and page.is_hidden("#views")
    intro = page.inner_text("#intro")
    for view in ("Recall", "Chains", "Tiers", "Session timeline"):
        assert view in intro
    assert "hippograph keys create --user you" in intro
    width, height = page.evaluate("[document.querySelector('#intro img').naturalWidth, "
                                  "document.querySelector('#intro img').naturalHeight]")
    assert (width, height) == (560, 373)  # the picture is served from the page's own files


def test_a_user_with_no_memories_is_offered_the_readmes_example(page, server: Server, services: Services) -> None:
    secret = keys.create_key(services.driver, services.database, new_user("explorer-new")).secret
    sign_in(page, secret)
    assert page.is_visible("#welcome") and page.is_hidden("nav") and page.is_hidden("#recall")
    assert page.is_hidden("#intro")
    # The example mutation is shown whole: wrapped, not cut at the right edge.
    assert page.evaluate("(e => e.scrollWidth <= e.clientWidth)(document.querySelector('#welcome pre'))")
    page.click("#welcome-store")
    page.wait_for_selector(".ranked .row", timeout=30_000)
    assert page.is_hidden("#welcome") and page.is_visible("nav") and page.input_value("#recall-query") == (
        "how do we deploy?")
    assert page.locator(".ranked").nth(0).locator(".row .content").all_inner_texts() == ["We deploy with Docker"]
    with Client(server.base, secret) as hg:
        [stored] = hg.send(memories()).nodes
    assert (stored.content, stored.tier) == ("We deploy with Docker", Tier.LONG_TERM)
    # No session yet: the timeline says so rather than stay blank.
    page.click("nav button[data-view=timeline]")
    page.wait_for_selector("#timeline-chart .empty", timeout=30_000)
    assert page.inner_text("#timeline-chart").startswith("No session yet")
    # Once there is a memory, the views open at once.
    page.reload()
    page.wait_for_selector("#views:not([hidden])", timeout=30_000)
    assert page.is_visible("nav") and page.is_hidden("#welcome")


def test_a_refused_key_shows_its_code_and_is_not_kept(page, key: str) -> None:
    page.fill("#key", "hg_not-a-key")
    page.click("#key-form button[type=submit]")
    page.wait_for_selector("#status.error", timeout=30_000)
    assert page.get_attribute("#status", "data-code") == "UNAUTHENTICATED"
    assert page.is_hidden("#views")
    assert page.evaluate("sessionStorage.getItem('hippograph.key')") is None

    sign_in(page, key)
    assert page.evaluate("sessionStorage.getItem('hippograph.key')") == key
    assert page.evaluate("localStorage.length") == 0 and "hg_" not in page.evaluate("document.cookie")
    # A request too large is refused by the server, and the page says so with the code.
    page.fill("#recall-query", "x" * (2 * 1024 * 1024 + 16))
    page.click("#recall-form button[type=submit]")
    page.wait_for_selector("#status[data-code=LIMIT_EXCEEDED]", timeout=30_000)
    page.click("#forget-key")
    assert page.evaluate("sessionStorage.getItem('hippograph.key')") is None and page.is_visible("#key-form")


def test_recall_shows_the_items_the_ranking_and_why(page, key: str, tmp_path: Path) -> None:
    sign_in(page, key)
    page.fill("#recall-query", "how does the shop deploy?")
    page.select_option("#recall-priority", "CRITICAL")
    page.fill("#recall-project", PROJECT)
    page.click("#recall-form button[type=submit]")
    page.wait_for_selector(".ranked .row", timeout=30_000)

    delivered, ranking = page.locator(".ranked").nth(0), page.locator(".ranked").nth(1)
    assert 1 <= delivered.locator(".row").count() <= 3
    assert ranking.locator(".row").count() >= delivered.locator(".row").count()
    assert any("Docker Compose" in text for text in delivered.locator(".row .content").all_inner_texts())
    totals = page.inner_text(".totals")
    assert re.match(r"hybrid: \d of 3 items, \d+ of 300 tokens", totals), totals
    # Each bar is the score: its components' shares add up to it, with the two gates drawn across it.
    first = ranking.locator(".row").first
    score = float(first.locator(".score").inner_text())
    shares = first.locator(".share")
    assert shares.count() >= 2 and {shares.nth(i).get_attribute("data-component") for i in range(shares.count())} >= {"vector"}
    widths = sum(float(re.search(r"width: ([\d.]+)%", shares.nth(i).get_attribute("style")).group(1))
                 for i in range(shares.count()))
    left = lambda gate: float(re.search(r"left: ([\d.]+)%", first.locator(gate).get_attribute("style")).group(1))  # noqa: E731
    gates = PROFILES["hybrid"].gates
    assert widths / 100 == pytest.approx(score / (gates.full_above / (left(".gate-full") / 100)), abs=1e-3)
    assert left(".gate-summary") == pytest.approx(left(".gate-full") * gates.summary_above / gates.full_above, abs=1e-3)
    # The third line is where delivery stops: ofTop of the first item's score, and no delivered row under it.
    assert left(".gate-top") == pytest.approx(left(".gate-full") * gates.of_top * score / gates.full_above, rel=2e-3)
    assert all(float(s) >= gates.of_top * score - 1e-3 for s in delivered.locator(".row .score").all_inner_texts())
    assert f"delivered down to {gates.of_top} of the first score" in page.inner_text(".legend")

    first.locator(".content").click()
    page.wait_for_selector("#recall-detail blockquote", timeout=30_000)
    detail = page.inner_text("#recall-detail")
    assert "Provenance" in detail and PROJECT in detail and "PROJECT" in detail
    picture(page, "recall", tmp_path)


def test_chains_are_drawn_in_the_guide_colours_and_a_click_expands_a_node(page, key: str, tmp_path: Path) -> None:
    sign_in(page, key)
    page.click("nav button[data-view=chains]")
    # Drawn as the tab opens (every project: this user has one), and again for the project named.
    page.wait_for_function("document.querySelector('#graph-status').textContent.includes('entities')", timeout=30_000)
    assert page.inner_text("#graph-status") == "6 entities, 4 edges"
    page.fill("#chains-project", PROJECT)
    page.click("#chains-form button[type=submit]")
    page.wait_for_function("document.querySelector('#graph-status').textContent.includes('entities')", timeout=30_000)
    assert page.inner_text("#graph-status") == "6 entities, 4 edges"
    drawn = page.evaluate("""() => document.getElementById('graph')._cyreg.cy.nodes().map(n => [n.data('label'), n.data('color')])""")
    colours = dict(drawn)
    assert colours["Cache carts in Redis"] == "#57C7E3"  # a decision, as in Neo4j Browser
    assert colours["Redis evicted carts under memory pressure"] == "#F16667"  # an error
    assert "Cache carts in Memcached" not in colours

    # A real click on the Redis decision draws what it replaced (closed, so faded).
    x, y = page.evaluate("""() => {
        const cy = document.getElementById('graph')._cyreg.cy;
        const p = cy.nodes().filter(n => n.data('label') === 'Cache carts in Redis')[0].renderedPosition();
        const box = document.getElementById('graph').getBoundingClientRect();
        return [box.left + p.x, box.top + p.y];
    }""")
    page.mouse.click(x, y)
    page.wait_for_function("document.querySelector('#graph-status').textContent.startsWith('7 entities')", timeout=30_000)
    closed = page.evaluate("""() => document.getElementById('graph')._cyreg.cy.nodes('.closed').map(n => n.data('label'))""")
    assert closed == ["Cache carts in Memcached"]
    assert "Cache carts in Redis" in page.inner_text("#chains-detail")
    picture(page, "chains", tmp_path)


def test_tiers_show_fill_against_capacity_and_the_compressions(page, key: str, tmp_path: Path) -> None:
    sign_in(page, key)
    page.click("nav button[data-view=tiers]")
    page.wait_for_selector("#tiers-list .tier", timeout=30_000)
    page.wait_for_selector("#compressions tr.compression", timeout=30_000)
    rows = page.locator("#tiers-list .tier")
    shown = [rows.nth(i).inner_text() for i in range(rows.count())]
    assert [rows.nth(i).get_attribute("data-tier") for i in range(rows.count())] == ["SESSION", "PROJECT", "LONG_TERM"]
    assert f"session {SESSION}" in shown[0] and "/ 40 tokens" in shown[0]
    assert f"project {PROJECT}" in shown[1] and "/ 4,096 tokens" in shown[1]
    what = page.locator("#compressions tr.compression td:nth-child(2)").all_inner_texts()
    assert "tier compressed" in what and "transcript summarised" in what
    picture(page, "tiers", tmp_path)


def test_a_sessions_turns_summaries_and_facts_share_one_time_axis(page, key: str, tmp_path: Path) -> None:
    sign_in(page, key)
    page.click("nav button[data-view=timeline]")
    # The newest session (this user's only one) is drawn as the tab opens.
    page.wait_for_selector("svg.timeline .mark", timeout=30_000)
    assert page.input_value("#timeline-pick") == SESSION
    for lane in ("turns", "summaries", "facts", "memories"):
        assert page.locator(f"svg.timeline .mark-{lane}").count() >= 1, lane
    page.locator("svg.timeline .mark-facts").last.click()  # drawn last: on top of any it overlaps
    assert "provenance" in page.inner_text("#timeline-detail")
    picture(page, "session", tmp_path)


def test_the_page_asks_for_nothing_that_is_not_there(local_page, server: Server) -> None:
    missing: list[str] = []
    local_page.on("response", lambda response: missing.append(response.url) if response.status >= 400 else None)
    local_page.goto(f"{server.base}/explore/")
    local_page.wait_for_load_state("networkidle")
    assert missing == []  # no 404 of any kind (a headless browser asks no favicon: the page's own link says none)


def test_the_page_loads_nothing_from_elsewhere_and_says_so_without_its_scripts(server: Server) -> None:
    import httpx

    html = httpx.get(f"{server.base}/explore/", timeout=30).text
    # Its icon is inline (an empty data: URL), so the browser fetches none.
    assert '<link rel="icon" href="data:,">' in html
    loaded = [url for url in re.findall(r'(?:src|href)="([^"]+)"', html) if url != "data:,"] + re.findall(
        r'"(/explore/assets/[^"]+)"', html)
    assert loaded and all(url.startswith("/explore/") for url in loaded), loaded
    for url in loaded:
        assert httpx.get(f"{server.base}{url}", timeout=30).status_code == 200, url
    licence = httpx.get(f"{server.base}/explore/assets/vendor/cytoscape/LICENSE", timeout=30).text
    assert "MIT" in licence or "Permission is hereby granted" in licence
    assert httpx.get(f"{server.base}/explore/style.json", timeout=30).json()["ERROR"]["color"] == "#F16667"
