"""Every query and mutation over HTTP, on the happy path, against the real server and Neo4j."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from api_client import HIPPOGRAPH, Client, new_user
from hippograph.local.neo4j_server import neo4j_version

pytestmark = pytest.mark.neo4j


MEMORY = "id content summary tier kind project session relevance tokens archived createdAt labels attributes"
ENTITY = "id name type project active"
ERROR = "... on UserError { code message }"


def remember(client: Client, content: str, tier: str, **scope: Any) -> dict[str, Any]:
    result = client.data(
        f"""mutation($input: RememberInput!) {{ remember(input: $input) {{
              __typename ... on RememberSuccess {{ created redacted memory {{ {MEMORY} entities {{ name type }} }} }} {ERROR}
            }} }}""",
        input={"content": content, "tier": tier, **scope},
    )["remember"]
    assert result["__typename"] == "RememberSuccess", result
    return result


@pytest.fixture(scope="module")
def world(alice: Client) -> dict[str, Any]:
    """A session in a project, with memories, a decision → error → fix chain, a pattern and a preference."""
    ids: dict[str, Any] = {"project": "shop", "session": "s-1"}
    started = alice.data(
        """mutation { startSession(input: {id: "s-1", project: "shop"}) {
             __typename ... on SessionStarted { session { id project status startedAt } } } }"""
    )["startSession"]
    assert started["session"] == {**started["session"], "id": "s-1", "project": "shop", "status": "active"}

    ids["note"] = remember(alice, "The checkout page calls the payments API twice", "SESSION", project="shop", session="s-1")
    ids["fact"] = remember(alice, "We deploy the shop with Docker on Kubernetes", "PROJECT", project="shop")

    decision = alice.data(
        f"""mutation {{ recordDecision(input: {{decision: "Use PostgreSQL for orders", reason: "transactions",
                 project: "shop"}}) {{ __typename ... on RecordSuccess {{ created memory {{ id kind }} entity {{ {ENTITY} }} }} {ERROR} }} }}"""
    )["recordDecision"]
    assert decision["__typename"] == "RecordSuccess" and decision["entity"]["type"] == "DECISION", decision
    ids["decision"] = decision["entity"]["id"]

    error = alice.data(
        f"""mutation($cause: ID!) {{ recordError(input: {{error: "Connection pool exhausted under load",
                 fix: "Put PgBouncer in front of PostgreSQL", causedBy: $cause, project: "shop"}}) {{
               __typename ... on RecordSuccess {{ entity {{ {ENTITY} }} fix {{ {ENTITY} }} causedBy {{ id }} }} {ERROR} }} }}""",
        cause=ids["decision"],
    )["recordError"]
    assert error["__typename"] == "RecordSuccess", error
    assert error["causedBy"]["id"] == ids["decision"] and error["fix"]["type"] == "DECISION"
    ids["error"], ids["fix"] = error["entity"]["id"], error["fix"]["id"]

    pattern = alice.data(
        f"""mutation {{ recordPattern(input: {{pattern: "Forgets to write migrations", count: 4}}) {{
               __typename ... on RecordSuccess {{ entity {{ {ENTITY} }} memory {{ tier }} }} {ERROR} }} }}"""
    )["recordPattern"]
    assert pattern["entity"]["type"] == "PATTERN" and pattern["memory"]["tier"] == "LONG_TERM", pattern
    ids["pattern"] = pattern["entity"]["id"]

    preference = alice.data(
        f"""mutation {{ setPreference(input: {{key: "communication_style", value: "concise"}}) {{
               __typename ... on RecordSuccess {{ entity {{ {ENTITY} }} }} {ERROR} }} }}"""
    )["setPreference"]
    assert preference["entity"]["type"] == "USER_PREFERENCE", preference
    ids["preference"] = preference["entity"]["id"]
    return ids


def test_server_info_needs_no_key(anonymous: Client) -> None:
    info = anonymous.data("{ serverInfo { version neo4jVersion embeddingDimension } }")["serverInfo"]
    assert info["neo4jVersion"] == neo4j_version() and info["embeddingDimension"] == 384


def test_remember_returns_the_stored_memory_with_its_entities(world: dict[str, Any]) -> None:
    fact = world["fact"]
    assert fact["created"] is True and fact["redacted"] == []
    memory = fact["memory"]
    assert memory["tier"] == "PROJECT" and memory["project"] == "shop" and memory["session"] is None
    assert {"name": "Docker", "type": "TECHNOLOGY"} in memory["entities"]


def test_remember_redacts_secrets_and_says_so(alice: Client) -> None:
    result = remember(alice, "The staging database password is hunter2-Secret99!", "LONG_TERM")
    assert result["redacted"] == ["password"]
    assert "hunter2" not in result["memory"]["content"] and "[REDACTED:password]" in result["memory"]["content"]


def test_recall_returns_scored_memories_within_budget(alice: Client, world: dict[str, Any]) -> None:
    result = alice.data(
        """query($q: String!) { recall(query: $q, priority: CRITICAL, project: "shop", session: "s-1") {
             profile totals { items tokens budgetItems budgetTokens }
             items { id content mode tier score tokens components { vector keyword recency relation }
                     memory { id project } } } }""",
        q="Why was the PostgreSQL connection pool exhausted?",
    )["recall"]
    assert result["profile"] == "hybrid"
    totals = result["totals"]
    assert (totals["budgetItems"], totals["budgetTokens"]) == (3, 300)
    assert 1 <= totals["items"] <= 3 and totals["tokens"] <= 300
    top = result["items"][0]
    assert "pool" in top["content"].lower() or "postgresql" in top["content"].lower()
    assert top["memory"]["id"] == top["id"] and 0 <= top["components"]["keyword"] <= 1


def test_recall_with_the_izanagi_profile_and_tiers(alice: Client, world: dict[str, Any]) -> None:
    result = alice.data(
        """{ recall(query: "PostgreSQL orders decision", priority: HIGH, profile: IZANAGI, tiers: [PROJECT],
                    project: "shop") { profile items { tier components { vector } } } }"""
    )["recall"]
    assert result["profile"] == "izanagi"
    assert all(item["tier"] == "PROJECT" and item["components"]["vector"] is None for item in result["items"])


def test_memory_by_id(alice: Client, world: dict[str, Any]) -> None:
    memory_id = world["fact"]["memory"]["id"]
    memory = alice.data(f'{{ memory(id: "{memory_id}") {{ {MEMORY} records {{ id }} }} }}')["memory"]
    assert memory["content"] == "We deploy the shop with Docker on Kubernetes" and memory["records"] is None


def test_memories_paginate_with_cursors(alice: Client, world: dict[str, Any]) -> None:
    query = """query($after: String) { memories(filter: {project: "shop"}, first: 2, after: $after) {
                 nodes { id project createdAt } pageInfo { hasNextPage endCursor } } }"""
    seen: list[str] = []
    after = None
    for _ in range(10):
        page = alice.data(query, after=after)["memories"]
        seen += [node["id"] for node in page["nodes"]]
        assert all(node["project"] == "shop" for node in page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert len(seen) == len(set(seen)) >= 4  # note, fact, decision, error
    kinds = alice.data('{ memories(filter: {kinds: [DECISION], tiers: [PROJECT]}) { nodes { kind tier } } }')
    assert kinds["memories"]["nodes"] and all(n["kind"] == "DECISION" for n in kinds["memories"]["nodes"])


def test_entity_with_edges_and_memories(alice: Client, world: dict[str, Any]) -> None:
    entity = alice.data(
        f"""{{ entity(id: "{world['error']}") {{ {ENTITY}
               edges {{ type from {{ id }} to {{ id name }} }}
               out: edges(direction: OUT, types: [SOLVED_BY]) {{ to {{ id }} }}
               memories {{ kind content }} }} }}"""
    )["entity"]
    assert entity["type"] == "ERROR" and entity["project"] == "shop"
    assert {(e["type"], e["from"]["id"], e["to"]["id"]) for e in entity["edges"]} == {
        ("CAUSED", world["decision"], world["error"]), ("SOLVED_BY", world["error"], world["fix"]),
    }
    assert [e["to"]["id"] for e in entity["out"]] == [world["fix"]]
    assert entity["memories"][0]["kind"] == "ERROR"


def test_entities_by_type_and_search(alice: Client, world: dict[str, Any]) -> None:
    found = alice.data('{ entities(type: DECISION, search: "postgres") { nodes { id name } pageInfo { hasNextPage } } }')
    names = {n["name"] for n in found["entities"]["nodes"]}
    assert names == {"Use PostgreSQL for orders", "Put PgBouncer in front of PostgreSQL"}
    paged = alice.data("{ entities(first: 1) { nodes { id } pageInfo { hasNextPage endCursor } } }")["entities"]
    assert paged["pageInfo"]["hasNextPage"] is True
    second = alice.data(
        "query($a: String) { entities(first: 1, after: $a) { nodes { id } } }", a=paged["pageInfo"]["endCursor"]
    )["entities"]
    assert second["nodes"][0]["id"] != paged["nodes"][0]["id"]


def test_trace_follows_edges_from_an_entity(alice: Client, world: dict[str, Any]) -> None:
    paths = alice.data(
        f"""{{ trace(from: "{world['decision']}", maxDepth: 2) {{ length nodes {{ id }} edges {{ type from {{ id }} }} }} }}"""
    )["trace"]
    longest = max(paths, key=lambda p: p["length"])
    assert [n["id"] for n in longest["nodes"]] == [world["decision"], world["error"], world["fix"]]
    assert [e["type"] for e in longest["edges"]] == ["CAUSED", "SOLVED_BY"]
    backwards = alice.data(
        f"""{{ trace(from: "{world['fix']}", direction: IN, edgeTypes: [SOLVED_BY]) {{ nodes {{ id }} }} }}"""
    )["trace"]
    assert [[n["id"] for n in p["nodes"]] for p in backwards] == [[world["fix"], world["error"]]]


def test_chains_list_decision_error_fix(alice: Client, world: dict[str, Any]) -> None:
    chains = alice.data('{ chains(project: "shop") { decision { id } error { id name } fix { id name } } }')["chains"]
    assert [(c["decision"]["id"], c["error"]["id"], c["fix"]["id"]) for c in chains] == [
        (world["decision"], world["error"], world["fix"])
    ]


def test_tier_usage_of_a_scope(alice: Client, world: dict[str, Any]) -> None:
    usage = alice.data('{ tierUsage(project: "shop", session: "s-1") { tier usedTokens items capacity trigger fill } }')
    by_tier = {u["tier"]: u for u in usage["tierUsage"]}
    assert set(by_tier) == {"SESSION", "PROJECT", "LONG_TERM"}
    assert by_tier["SESSION"]["items"] == 1 and by_tier["PROJECT"]["items"] >= 3
    assert by_tier["PROJECT"]["capacity"] == 4096 and by_tier["PROJECT"]["trigger"] == 0.7
    assert 0 < by_tier["PROJECT"]["fill"] < 0.7


def test_session_shows_its_memories(alice: Client, world: dict[str, Any]) -> None:
    session = alice.data('{ session(id: "s-1") { id project status memories { id tier } } }')["session"]
    assert session["status"] == "active" and session["project"] == "shop"
    assert [m["id"] for m in session["memories"]] == [world["note"]["memory"]["id"]]


def test_update_memory_changes_content_and_relevance(alice: Client) -> None:
    memory_id = remember(alice, "The shop uses Redis as a cache", "PROJECT", project="shop")["memory"]["id"]
    updated = alice.data(
        f"""mutation($id: ID!) {{ updateMemory(input: {{id: $id, content: "The shop uses Redis for sessions",
               relevance: 0.4, summary: "Redis: sessions"}}) {{
               __typename ... on UpdateMemorySuccess {{ memory {{ content relevance summary entities {{ name }} }} }} {ERROR} }} }}""",
        id=memory_id,
    )["updateMemory"]
    assert updated["__typename"] == "UpdateMemorySuccess", updated
    assert updated["memory"]["content"] == "The shop uses Redis for sessions"
    assert updated["memory"]["relevance"] == 0.4 and updated["memory"]["summary"] == "Redis: sessions"
    assert {"name": "Redis"} in updated["memory"]["entities"]
    cleared = alice.data(
        """mutation($id: ID!) { updateMemory(input: {id: $id, summary: null}) {
               ... on UpdateMemorySuccess { memory { summary content } } } }""", id=memory_id,
    )["updateMemory"]
    assert cleared["memory"] == {"summary": None, "content": "The shop uses Redis for sessions"}


def test_link_and_unlink(alice: Client, world: dict[str, Any]) -> None:
    linked = alice.data(
        f"""mutation {{ link(input: {{from: "{world['pattern']}", to: "{world['decision']}", type: RELATED_TO,
               note: "seen together"}}) {{ __typename ... on LinkSuccess {{ edge {{ type note from {{ id }} to {{ id }} }} }} {ERROR} }} }}"""
    )["link"]
    assert linked["edge"] == {"type": "RELATED_TO", "note": "seen together",
                              "from": {"id": world["pattern"]}, "to": {"id": world["decision"]}}
    unlinked = alice.data(
        f"""mutation {{ unlink(input: {{from: "{world['pattern']}", to: "{world['decision']}", type: RELATED_TO}}) {{
               __typename ... on UnlinkSuccess {{ removed }} {ERROR} }} }}"""
    )["unlink"]
    assert unlinked == {"__typename": "UnlinkSuccess", "removed": 1}


def test_forget_a_memory_and_an_entity(alice: Client) -> None:
    memory_id = remember(alice, "Temporary note about Kafka topics", "LONG_TERM")["memory"]["id"]
    forgotten = alice.data(
        f"""mutation {{ forget(input: {{memory: "{memory_id}"}}) {{
               __typename ... on ForgetSuccess {{ memories entities }} {ERROR} }} }}"""
    )["forget"]
    assert forgotten["__typename"] == "ForgetSuccess" and memory_id in forgotten["memories"]
    assert alice.codes(f'{{ memory(id: "{memory_id}") {{ id }} }}') == ["NOT_FOUND"]

    decision = alice.data(
        """mutation { recordDecision(input: {decision: "Adopt GraphQL subscriptions", project: "shop"}) {
             ... on RecordSuccess { entity { id } memory { id } } } }"""
    )["recordDecision"]
    gone = alice.data(
        f"""mutation {{ forget(input: {{entity: "{decision['entity']['id']}"}}) {{ ... on ForgetSuccess {{ memories entities }} }} }}"""
    )["forget"]
    assert decision["entity"]["id"] in gone["entities"] and decision["memory"]["id"] in gone["memories"]


def test_a_conflicting_decision_closes_the_old_one(alice: Client) -> None:
    old = alice.data(
        """mutation { recordDecision(input: {decision: "Use sessions for auth", project: "shop"}) {
             ... on RecordSuccess { entity { id } } } }"""
    )["recordDecision"]["entity"]["id"]
    new = alice.data(
        f"""mutation {{ recordDecision(input: {{decision: "Use JWT in httpOnly cookies", project: "shop",
               conflictsWith: ["{old}"]}}) {{ ... on RecordSuccess {{ closed entity {{ id }} }} }} }}"""
    )["recordDecision"]
    assert new["closed"] == [old]
    assert alice.data(f'{{ entity(id: "{old}") {{ active }} }}')["entity"]["active"] is False


def test_end_session_promotes_and_evicts(alice: Client, world: dict[str, Any]) -> None:
    remember(alice, "Decided: retries use exponential backoff", "SESSION", project="shop", session="s-1", kind="FACT")
    ended = alice.data(
        """mutation { endSession(input: {id: "s-1"}) { __typename ... on SessionEnded {
             session { status endedAt } promoted { from to } evicted turnsDeleted } ... on UserError { code message } } }"""
    )["endSession"]
    assert ended["__typename"] == "SessionEnded", ended
    assert ended["session"]["status"] == "ended" and ended["session"]["endedAt"]
    assert len(ended["promoted"]) == 1 and world["note"]["memory"]["id"] in ended["evicted"]
    promoted = alice.data(f'{{ memory(id: "{ended["promoted"][0]["to"]}") {{ tier project }} }}')["memory"]
    assert promoted == {"tier": "PROJECT", "project": "shop"}


def test_admin_keys_manage_keys_and_others_are_forbidden(make_client, alice: Client) -> None:
    from hippograph.memory.keys import Role

    admin = make_client("admin", Role.ADMIN)
    carol_id = new_user("carol")
    created = admin.data(
        """mutation($user: ID!) { createApiKey(input: {user: $user, role: USER}) {
             __typename ... on ApiKeyCreated { secret key { id user role revoked } } } }""", user=carol_id,
    )["createApiKey"]
    assert created["secret"].startswith("hg_") and created["key"]["user"] == carol_id
    carol = Client(admin.server, created["secret"])
    assert carol.data('{ tierUsage { tier } }')["tierUsage"] == [{"tier": "LONG_TERM"}]
    listed = admin.data("query($u: ID) { apiKeys(user: $u) { id revoked } }", u=carol_id)["apiKeys"]
    assert {"id": created["key"]["id"], "revoked": False} in listed
    revoked = admin.data(
        f"""mutation {{ revokeApiKey(input: {{id: "{created['key']['id']}"}}) {{
               ... on ApiKeyRevoked {{ key {{ revoked revokedAt }} }} }} }}"""
    )["revokeApiKey"]
    assert revoked["key"]["revoked"] is True
    assert carol.codes("{ tierUsage { tier } }") == ["UNAUTHENTICATED"]
    assert alice.codes("{ apiKeys { id } }") == ["FORBIDDEN"]
    assert alice.codes('mutation { createApiKey(input: {user: "x"}) { __typename } }') == ["FORBIDDEN"]


def test_cli_creates_lists_and_revokes_keys(api_server) -> None:
    dave_id = new_user("dave")
    created = subprocess.run([HIPPOGRAPH, "keys", "create", "--user", dave_id], capture_output=True, text=True, timeout=120)
    assert created.returncode == 0, created.stderr
    secret = created.stdout.strip()
    assert secret.startswith("hg_") and "shown this once" in created.stderr
    dave = Client(api_server, secret)
    assert dave.data("{ tierUsage { tier } }")
    listed = subprocess.run([HIPPOGRAPH, "keys", "list", "--user", dave_id], capture_output=True, text=True, timeout=120)
    key_id = listed.stdout.split()[0]
    assert secret not in listed.stdout
    revoked = subprocess.run([HIPPOGRAPH, "keys", "revoke", key_id], capture_output=True, text=True, timeout=120)
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    assert dave.codes("{ tierUsage { tier } }") == ["UNAUTHENTICATED"]
