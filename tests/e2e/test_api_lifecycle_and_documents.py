"""Transcripts, context assembly, consolidation, the Izanagi documents, profiles and the audit log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from api_client import Client

pytestmark = pytest.mark.neo4j

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "izanagi"
ERROR = "... on UserError { code message }"


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


def import_document(client: Client, kind: str, document: dict[str, Any], **scope: str) -> dict[str, Any]:
    return client.data(
        f"""mutation($input: ImportDocumentInput!) {{ importDocument(input: $input) {{
              __typename ... on DocumentImported {{ kind scopeId entries created reused removed redacted }} {ERROR} }} }}""",
        input={"kind": kind, "document": document, **scope},
    )["importDocument"]


def export_document(client: Client, kind: str, **scope: str) -> dict[str, Any]:
    return client.data(
        f"""mutation($input: ExportDocumentInput!) {{ exportDocument(input: $input) {{
              __typename ... on DocumentExported {{ kind document }} {ERROR} }} }}""",
        input={"kind": kind, **scope},
    )["exportDocument"]


def test_append_turn_and_read_the_transcript(alice: Client) -> None:
    alice.data('mutation { startSession(input: {id: "chat-1", project: "lab"}) { __typename } }')
    positions = []
    for role, content in (("user", "How do we cache sessions?"), ("assistant", "Use Redis with a 30 minute TTL.")):
        appended = alice.data(
            f"""mutation($role: String!, $content: String!) {{ appendTurn(input: {{session: "chat-1", project: "lab",
                   role: $role, content: $content}}) {{ __typename ... on TurnAppended {{ turnId position transcriptTokens
                   redacted rounds {{ summaryId }} }} {ERROR} }} }}""", role=role, content=content,
        )["appendTurn"]
        assert appended["__typename"] == "TurnAppended", appended
        positions.append(appended["position"])
    assert positions[1] > positions[0]
    session = alice.data('{ session(id: "chat-1") { transcript { role content isSummary tokens } } }')["session"]
    assert [(t["role"], t["content"]) for t in session["transcript"]] == [
        ("user", "How do we cache sessions?"), ("assistant", "Use Redis with a 30 minute TTL."),
    ]
    ended = alice.data('mutation { appendTurn(input: {session: "nope-1", role: "user", content: "hi"}) { __typename } }')
    assert ended["appendTurn"]["__typename"] == "NotFoundError"


def test_a_turns_item_is_kept_beside_its_text_and_given_back_as_it_was(alice: Client) -> None:
    alice.data('mutation { startSession(input: {id: "chat-item", project: "lab"}) { __typename } }')
    append = f"""mutation($content: String!, $item: String) {{ appendTurn(input: {{session: "chat-item", role: "tool",
                 content: $content, item: $item}}) {{ __typename ... on TurnAppended {{ redacted }} {ERROR} }} }}"""
    # A tool's coloured output (control characters, which no text field takes) and a secret in a key's value.
    item = {"type": "function_call_output", "call_id": "c1", "output": "\x1b[32mok\x1b[0m\x7f", "n": 1.5,
            "token": "ghp_" + "x7Kp2Qm9Lr4Tn8Vb3Hc6Wd1Fj5Gs0YaQ1w2"}
    as_text = json.dumps(item).replace("\x7f", "\\u007f")  # JSON leaves DEL raw, and no text field takes it
    appended = alice.data(append, content="ok", item=as_text)["appendTurn"]
    assert appended == {"__typename": "TurnAppended", "redacted": ["api_key"]}
    [turn] = alice.data('{ session(id: "chat-item") { transcript { content item } } }')["session"]["transcript"]
    assert turn == {"content": "ok", "item": {**item, "token": "[REDACTED:api_key]"}}
    for bad, says in (("not json", "item is not JSON"), ("[1, 2]", "item is a JSON object"),
                      ('{"a": "\\ud800"}', "item is not valid Unicode")):
        refused = alice.data(append, content="ok", item=bad)["appendTurn"]
        assert refused["code"] == "BAD_USER_INPUT" and says in refused["message"], refused
    assert len(alice.data('{ session(id: "chat-item") { transcript { id } } }')["session"]["transcript"]) == 1


def test_context_is_assembled_within_the_window(alice: Client) -> None:
    assembled = alice.data(
        """{ context(session: "chat-1", project: "lab", query: "How are sessions cached?", contextWindow: 4096,
                     systemPrompt: "You are terse.") {
             window tokens sections { section budget tokens text pieces { id tokens } } } }"""
    )["context"]
    assert assembled["window"] == 4096 and assembled["tokens"] <= 4096
    sections = {s["section"]: s for s in assembled["sections"]}
    assert sections["CURRENT_QUERY"]["text"] == "How are sessions cached?"
    assert "Redis" in sections["CONVERSATION_HISTORY"]["text"]
    assert all(s["tokens"] <= s["budget"] for s in assembled["sections"])
    assert alice.codes('{ context(session: "chat-1", query: "q", contextWindow: 10) { window } }') == ["BAD_USER_INPUT"]
    assert alice.codes('{ context(session: "chat-1", query: "q", contextWindow: 999999999) { window } }') == [
        "LIMIT_EXCEEDED"
    ]


def test_consolidate_runs_for_the_caller(alice: Client) -> None:
    for _ in range(2):
        alice.data('mutation { remember(input: {content: "The lab uses Python 3.11", tier: PROJECT, project: "lab"}) { __typename } }')
    result = alice.data(
        f"""mutation {{ consolidate(input: {{}}) {{ __typename ... on Consolidated {{
               merged {{ kept merged }} promoted {{ from to }} generalised decayed skipped }} {ERROR} }} }}"""
    )["consolidate"]
    assert result["__typename"] == "Consolidated", result
    assert isinstance(result["decayed"], int)


def test_project_document_round_trips(alice: Client) -> None:
    document = fixture("project-memory.json")
    imported = import_document(alice, "PROJECT", document)
    assert imported["__typename"] == "DocumentImported", imported
    assert imported["scopeId"] == document["project_id"] and imported["entries"] > 0
    exported = export_document(alice, "PROJECT", project=document["project_id"])
    assert exported["document"] == document
    project = alice.data(
        f"""{{ project(id: "{document['project_id']}") {{ id
               document {{ type techStack {{ key value }} architecture {{ pattern decisions {{ id decision reason date }} }}
                           conventions {{ key value }} errorHistory {{ error fix count lastSeen }} lastUpdated }}
               decisions {{ name }} technologies {{ name }} chains {{ error {{ name }} fix {{ name }} }}
               tierUsage {{ tier items }} }} }}"""
    )["project"]
    doc = project["document"]
    assert doc["type"] == document["type"]
    assert {s["key"]: s["value"] for s in doc["techStack"]} == document["tech_stack"]
    assert doc["architecture"]["decisions"][0]["decision"] == document["architecture"]["decisions"][0]["decision"]
    assert doc["errorHistory"][0]["fix"] == document["error_history"][0]["fix"]
    assert project["tierUsage"]["tier"] == "PROJECT" and project["tierUsage"]["items"] > 0
    assert any(c["fix"] and c["fix"]["name"] == document["error_history"][0]["fix"] for c in project["chains"])


def test_long_term_document_and_profile(alice: Client) -> None:
    document = {**fixture("long-term-memory.json"), "user_id": alice.user_id}
    imported = import_document(alice, "LONG_TERM", document)
    assert imported["__typename"] == "DocumentImported", imported
    assert export_document(alice, "LONG_TERM")["document"] == document
    profile = alice.data(
        """{ profile { document { userId preferences { key value } recurringPatterns { name count resolved }
                                  learningProgress { currentLesson } }
                       preferences { key value } patterns { name } tierUsage { tier } } }"""
    )["profile"]
    assert profile["document"]["userId"] == alice.user_id
    assert {p["key"]: p["value"] for p in profile["preferences"]} == document["preferences"]
    assert profile["document"]["learningProgress"]["currentLesson"] == document["learning_progress"]["current_lesson"]
    # A document naming another user is refused, not imported for them.
    other = import_document(alice, "LONG_TERM", {**document, "user_id": "someone-else"})
    assert other["__typename"] == "BadUserInputError"


def test_session_document_round_trips(alice: Client) -> None:
    document = fixture("session.json")
    imported = import_document(alice, "SESSION", document)
    assert imported["__typename"] == "DocumentImported", imported
    assert export_document(alice, "SESSION", session=document["session_id"])["document"] == document
    session = alice.data(f'{{ session(id: "{document["session_id"]}") {{ document }} }}')["session"]
    assert session["document"] == document


def test_documents_refuse_garbage(alice: Client) -> None:
    broken = {**fixture("project-memory.json"), "tech_stack": "not an object"}
    assert import_document(alice, "PROJECT", broken)["code"] == "BAD_USER_INPUT"
    assert import_document(alice, "PROJECT", [1, 2, 3])["code"] == "BAD_USER_INPUT"  # type: ignore[arg-type]
    assert export_document(alice, "PROJECT")["code"] == "BAD_USER_INPUT"
    assert export_document(alice, "PROJECT", project="never-imported")["code"] == "NOT_FOUND"


def test_audit_log_lists_the_callers_events(alice: Client) -> None:
    page = alice.data('{ auditLog(first: 5) { nodes { id at operation ids detail } pageInfo { hasNextPage endCursor } } }')
    events = page["auditLog"]["nodes"]
    assert len(events) == 5 and page["auditLog"]["pageInfo"]["hasNextPage"] is True
    assert [e["at"] for e in events] == sorted((e["at"] for e in events), reverse=True)
    following = alice.data(
        "query($a: String) { auditLog(first: 5, after: $a) { nodes { id } } }", a=page["auditLog"]["pageInfo"]["endCursor"]
    )["auditLog"]["nodes"]
    assert not {e["id"] for e in following} & {e["id"] for e in events}
    imports = alice.data('{ auditLog(filter: {operations: ["import"]}) { nodes { operation } } }')["auditLog"]["nodes"]
    assert imports and {e["operation"] for e in imports} == {"import"}
    assert alice.codes('{ auditLog(after: "garbage!") { nodes { id } } }') == ["BAD_USER_INPUT"]


def test_another_user_sees_none_of_it(bob: Client, alice: Client) -> None:
    project_id = fixture("project-memory.json")["project_id"]
    assert export_document(bob, "PROJECT", project=project_id)["code"] == "NOT_FOUND"
    assert export_document(bob, "LONG_TERM")["code"] == "NOT_FOUND"
    assert export_document(bob, "SESSION", session=fixture("session.json")["session_id"])["code"] == "NOT_FOUND"
    project = bob.data(f'{{ project(id: "{project_id}") {{ document {{ type }} decisions {{ id }} chains {{ error {{ id }} }} }} }}')
    assert project["project"] == {"document": None, "decisions": [], "chains": []}
    assert bob.data("{ profile { document { userId } preferences { key } } }")["profile"] == {"document": None, "preferences": []}
    assert bob.codes('{ session(id: "chat-1") { transcript { content } } }') == ["NOT_FOUND"]
    assert bob.codes('{ context(session: "chat-1", query: "Redis sessions", contextWindow: 4096) { window } }') == ["NOT_FOUND"]
    bob_events = bob.data("{ auditLog(first: 100) { nodes { ids operation } } }")["auditLog"]["nodes"]
    alice_ids = {i for e in alice.data("{ auditLog(first: 100) { nodes { ids } } }")["auditLog"]["nodes"] for i in e["ids"]}
    assert not {i for e in bob_events for i in e["ids"]} & (alice_ids - {"chat-1", "lab"})
