"""The OpenAI-compatible client against a local STUB HTTP server (no LLM can run here).

The stub is a test double of an outside service, named as such: it answers
canned chat completions and records what it was sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from hippograph.memory.lifecycle.llm_summarizer import LLMError, OpenAICompatibleClient
from hippograph.memory.lifecycle.summarizing import TurnText

TURNS = [TurnText("t1", "Ana", "We ship on PostgreSQL 16 on 12 March."), TurnText("t2", "Ben", "Thanks!")]


class StubChatServer(BaseHTTPRequestHandler):
    """STUB of an OpenAI-compatible endpoint: canned answers, recorded requests."""

    answers: list[object] = []
    received: list[dict] = []
    status = 200

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).received.append({"path": self.path, "auth": self.headers.get("authorization"), "body": body})
        content = type(self).answers.pop(0) if type(self).answers else ""
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(type(self).status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[str]:
    StubChatServer.answers, StubChatServer.received, StubChatServer.status = [], [], 200
    server = HTTPServer(("127.0.0.1", 0), StubChatServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_summary_is_asked_with_the_transcript_and_key(stub: str) -> None:
    StubChatServer.answers = ["Ana: ship on PostgreSQL 16 on 12 March."]
    client = OpenAICompatibleClient(stub, "stub-model", api_key="k-123")
    assert client.summarize(TURNS, 40) == "Ana: ship on PostgreSQL 16 on 12 March."
    sent = StubChatServer.received[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer k-123"
    assert sent["body"]["model"] == "stub-model" and sent["body"]["max_tokens"] == 40
    assert "[t1] Ana: We ship on PostgreSQL 16" in sent["body"]["messages"][1]["content"]


def test_facts_keep_only_turn_ids_that_exist(stub: str) -> None:
    StubChatServer.answers = ['Sure: {"facts": [{"content": "Ships 12 March", "turns": ["t1", "t9"], "kind": "decision"},'
                              ' {"content": "invented", "turns": ["nope"]}]}']
    facts = OpenAICompatibleClient(stub, "m").extract(TURNS)
    assert [(f.content, f.source_turn_ids, f.kind) for f in facts] == [("Ships 12 March", ("t1",), "decision")]


def test_unusable_answers_and_failures_are_clear_errors(stub: str) -> None:
    StubChatServer.answers = ["not json at all"]
    with pytest.raises(LLMError, match="not the JSON asked for"):
        OpenAICompatibleClient(stub, "m").extract(TURNS)
    StubChatServer.status = 500
    with pytest.raises(LLMError, match="HTTP 500"):
        OpenAICompatibleClient(stub, "m").summarize(TURNS, 10)
    with pytest.raises(LLMError, match="not reachable"):
        OpenAICompatibleClient("http://127.0.0.1:9/v1", "m", timeout=2).summarize(TURNS, 10)
