"""hippograph.agents against a real server: the OpenAI Agents SDK's Session protocol on a hippograph
session's transcript. No model is called: the protocol is exercised directly (the SDK ships no session
conformance test; its own SQLiteSession is held to the same calls here)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

pytest.importorskip("agents", reason="the agents extra is not installed (pip install -e '.[agents]')")

from agents.memory import Session, SessionSettings, SQLiteSession  # noqa: E402

from hippograph_bench.server import Server  # noqa: E402
from hippograph.agents import HippographSession  # noqa: E402
from hippograph.client import (  # noqa: E402
    Client, ErrorCode, HippographError, MemoryKind, Tier, forget, memories, transcript,
)
from hippograph.memory import keys  # noqa: E402
from hippograph.memory.services import Services  # noqa: E402
from api_client import new_user  # noqa: E402

pytestmark = pytest.mark.neo4j

# Items as a run leaves them: the user's message, a message of parts, a tool call and its output, and
# messages whose text is not plain (JSON of its own, surrounding spaces, no text at all).
ITEMS = [
    {"role": "user", "content": "Where do we deploy the shop?"},
    {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Let me look it up.", "annotations": []}]},
    {"type": "function_call", "call_id": "call_1", "name": "deploy_target", "arguments": "{\"shop\": \"tea\"}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "staging, then production"},
    {"role": "assistant", "content": "On the staging host, then production."},
    {"role": "user", "content": "{\"note\": \"this text is JSON\"}"},
    {"role": "user", "content": "  spaced out  "},
    {"role": "user", "content": [{"type": "input_text", "text": "parts, not a text"}]},
]


@pytest.fixture(scope="module")
def key(services: Services) -> str:
    return keys.create_key(services.driver, services.database, new_user("agents")).secret


def test_it_keeps_the_sdks_items_as_sqlite_session_does(api_server: Server, key: str, tmp_path) -> None:
    chat = f"chat-{uuid.uuid4().hex[:8]}"
    session = HippographSession(chat, api_server.base, key, project="shop")
    reference = SQLiteSession(chat, tmp_path / "reference.db")
    assert isinstance(session, Session)

    async def both(call: str, *args: object) -> object:
        ours = await getattr(session, call)(*args)
        theirs = await getattr(reference, call)(*args)
        assert ours == theirs, call
        return ours

    async def run() -> None:
        assert await both("get_items") == []
        assert await both("pop_item") is None
        await both("add_items", ITEMS[:4])
        await both("add_items", ITEMS[4:])
        assert await both("get_items") == ITEMS
        assert await both("get_items", 3) == ITEMS[-3:]
        assert await both("get_items", 0) == []
        assert await both("get_items", 100) == ITEMS
        assert await both("pop_item") == ITEMS[-1]
        assert await both("pop_item") == ITEMS[-2]
        assert await both("get_items") == ITEMS[:-2]
        await both("add_items", [{"role": "user", "content": "After the pops"}])
        assert await both("get_items", 2) == [ITEMS[-3], {"role": "user", "content": "After the pops"}]
        # A new session object, as a new process would make, reads the same conversation.
        assert await HippographSession(chat, api_server.base, key).get_items() == await reference.get_items()
        await both("clear_session")
        assert await both("get_items") == []
        await both("add_items", ITEMS[:1])
        assert await both("get_items") == ITEMS[:1]
        await both("clear_session")

    asyncio.run(run())
    reference.close()


def stored_turns(services: Services, chat: str) -> list[str]:
    """The text of every turn the store holds for the session, in the transcript or summarised away."""
    return [r["content"] for r in services.driver.execute_query(
        "MATCH (t:Turn {sessionId: $chat}) RETURN t.content AS content ORDER BY t.position",
        chat=chat, database_=services.database).records]


def test_pop_item_erases_the_item(api_server: Server, key: str, services: Services) -> None:
    chat = f"chat-{uuid.uuid4().hex[:8]}"
    session = HippographSession(chat, api_server.base, key)
    said = [{"role": "user", "content": f"Line {n} of {chat}"} for n in range(3)]
    asyncio.run(session.add_items(said))
    assert asyncio.run(session.pop_item()) == said[2]
    # Gone from the store, not hidden: no turn holds it, and nothing was added in its place.
    assert stored_turns(services, chat) == [each["content"] for each in said[:2]]
    assert asyncio.run(session.pop_item()) == said[1]
    assert stored_turns(services, chat) == [said[0]["content"]]
    assert asyncio.run(session.get_items()) == said[:1]
    asyncio.run(session.clear_session())


def test_the_transcript_is_hippographs(api_server: Server, key: str) -> None:
    chat = f"chat-{uuid.uuid4().hex[:8]}"
    session = HippographSession(chat, api_server.base, key, session_settings=SessionSettings(limit=2))
    asyncio.run(session.add_items(ITEMS[:5]))
    assert asyncio.run(session.get_items()) == ITEMS[3:5]  # the settings' limit, when none is given
    with Client(api_server.base, key) as hg:
        turns = hg.send(transcript(chat)).transcript
    # A message of text is a turn of that text, said by its role; any other item is its JSON.
    assert [(t.role, t.content) for t in turns[:1] + turns[4:]] == [
        ("user", "Where do we deploy the shop?"), ("assistant", "On the staging host, then production.")]
    assert [t.role for t in turns[1:4]] == ["assistant", "function_call", "function_call_output"]
    asyncio.run(session.clear_session())
    with Client(api_server.base, key) as hg, pytest.raises(HippographError) as gone:
        hg.send(transcript(chat))
    assert gone.value.code == ErrorCode.NOT_FOUND


def test_a_long_conversation_is_summarised_and_its_facts_kept(api_server: Server, key: str, services: Services) -> None:
    chat, shop = f"chat-{uuid.uuid4().hex[:8]}", f"shop-{uuid.uuid4().hex[:8]}"
    session = HippographSession(chat, api_server.base, key, project=shop)
    said = [{"role": "user" if n % 2 == 0 else "assistant",
             "content": f"Note {n}: the shop's deploy step {n} runs Docker Compose on host-{n}.example.com at {n}:00. "
                        + " ".join(f"Detail {n}.{k} says the tea shop ships order batch {n * 100 + k} to Lisbon."
                                   for k in range(12))}
            for n in range(40)]
    asyncio.run(session.add_items(said))
    items = asyncio.run(session.get_items())
    # Past the transcript's trigger the oldest turns became one summary, given first as a system message;
    # the rest are the latest items exactly as added.
    summary, *recent = items
    assert summary["role"] == "system" and summary["content"]
    assert 0 < len(recent) < len(said) and recent == said[-len(recent):]
    with Client(api_server.base, key) as hg:
        facts = hg.send(memories(tiers=[Tier.PROJECT], project=shop, kinds=[MemoryKind.FACT])).nodes
        assert facts and all(f.session == chat for f in facts)
        [summary_turn, *_] = hg.send(transcript(chat)).transcript
        covered = services.driver.execute_query(
            "MATCH (:Turn {id: $id})-[:SUMMARISES]->(t:Turn) RETURN t.id AS id LIMIT 1", id=summary_turn.id,
            database_=services.database).records[0]["id"]
        # A turn a summary covers lives on in the summary's words: it goes only with the summary.
        with pytest.raises(HippographError) as refused:
            hg.send(forget(turn=covered))
        assert refused.value.code == ErrorCode.BAD_USER_INPUT
        gone = hg.send(forget(turn=summary_turn.id))
        assert gone.turns[0] == summary_turn.id and covered in gone.turns and set(gone.memories) >= {f.id for f in facts}
        assert gone.receipt.scope == "turn" and set(gone.receipt.ids) >= set(gone.turns) | set(gone.memories)
        assert hg.send(memories(tiers=[Tier.PROJECT], project=shop, kinds=[MemoryKind.FACT])).nodes == []
    assert stored_turns(services, chat) == [each["content"] for each in recent]
    assert asyncio.run(session.get_items()) == recent
    asyncio.run(session.clear_session())
