"""The OpenAI Agents SDK's own session tests, ported to HippographSession against a real server.

Source: openai/openai-agents-python, ``tests/memory/test_session.py`` at commit
05d6850da5da7ae5efe0e89e85660e5878547ba4 (2026-08-13). Copyright (c) 2025 OpenAI, MIT License:
"Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction […]. The
above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software."

Ported: every test that uses only the public Session API (``get_items``, ``add_items``, ``pop_item``,
``clear_session``, ``session_settings``) and ``Runner`` — with ``SQLiteSession(id, db_path)`` replaced by
``HippographSession`` on the test server, a session id of its own per test instead of a temporary
database, ``get_text_message`` (a helper of upstream's test suite) by the SDK's public
``agents.testing.assistant_message``, and ``pytest.mark.asyncio`` by ``asyncio.run``. The model is the
SDK's ``ScriptedModel``, a test double for the LLM, as upstream's. Left out: the tests of SQLiteSession's
own internals (its connections, file locks, rows written behind its back, rollbacks) and of
``SessionSettings`` alone, with no session.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import uuid
from collections.abc import Callable

import pytest

pytest.importorskip("agents", reason="the agents extra is not installed (pip install -e '.[agents]')")

from agents import Agent, RunConfig, Runner, TResponseInputItem, set_tracing_disabled  # noqa: E402
from agents.memory import SessionSettings  # noqa: E402
from agents.testing import ScriptedModel, assistant_message  # noqa: E402

from hippograph_bench.server import Server  # noqa: E402
from hippograph.integrations.agents import HippographSession  # noqa: E402
from hippograph.memory import keys  # noqa: E402
from hippograph.memory.services import Services  # noqa: E402
from api_client import new_user  # noqa: E402

pytestmark = pytest.mark.neo4j
set_tracing_disabled(True)  # traces go to OpenAI's endpoint, which no test reaches

RUNNERS = ["run", "run_sync", "run_streamed"]


@pytest.fixture(scope="module")
def make(api_server: Server, services: Services) -> Callable[..., HippographSession]:
    key = keys.create_key(services.driver, services.database, new_user("agents-upstream")).secret

    def session(name: str, **settings: object) -> HippographSession:
        return HippographSession(f"{name}-{uuid.uuid4().hex[:8]}", api_server.base, key, **settings)  # type: ignore[arg-type]

    return session


def get_text_message(content: str):  # upstream's helper, on the SDK's public builder
    return assistant_message(content, item_id="1")


def _run_sync_wrapper(agent, input_data, **kwargs):
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return Runner.run_sync(agent, input_data, **kwargs)
    finally:
        loop.close()


async def run_agent_async(runner_method: str, agent, input_data, **kwargs):
    if runner_method == "run":
        return await Runner.run(agent, input_data, **kwargs)
    if runner_method == "run_sync":
        return await asyncio.to_thread(_run_sync_wrapper, agent, input_data, **kwargs)
    result = Runner.run_streamed(agent, input_data, **kwargs)
    async for _event in result.stream_events():
        pass
    return result


@pytest.mark.parametrize("runner_method", RUNNERS)
def test_session_memory_basic_functionality_parametrized(make, runner_method) -> None:
    async def body() -> None:
        session = make("test_session_123")
        model = ScriptedModel()
        agent = Agent(name="test", model=model)
        model.enqueue([get_text_message("San Francisco")])
        result1 = await run_agent_async(runner_method, agent, "What city is the Golden Gate Bridge in?", session=session)
        assert result1.final_output == "San Francisco"
        model.enqueue([get_text_message("California")])
        result2 = await run_agent_async(runner_method, agent, "What state is it in?", session=session)
        assert result2.final_output == "California"
        # The second turn's input holds the conversation so far.
        assert len(model.calls[-1].input) > 1
        await session.clear_session()

    asyncio.run(body())


@pytest.mark.parametrize("runner_method", RUNNERS)
def test_session_memory_with_explicit_instance_parametrized(make, runner_method) -> None:
    async def body() -> None:
        session = make("test_session_456")
        model = ScriptedModel()
        agent = Agent(name="test", model=model)
        model.enqueue([get_text_message("Hello")])
        result1 = await run_agent_async(runner_method, agent, "Hi there", session=session)
        assert result1.final_output == "Hello"
        model.enqueue([get_text_message("I remember you said hi")])
        result2 = await run_agent_async(runner_method, agent, "Do you remember what I said?", session=session)
        assert result2.final_output == "I remember you said hi"
        await session.clear_session()

    asyncio.run(body())


@pytest.mark.parametrize("runner_method", RUNNERS)
def test_session_memory_different_sessions_parametrized(make, runner_method) -> None:
    async def body() -> None:
        model = ScriptedModel()
        agent = Agent(name="test", model=model)
        session_1 = make("session_1")
        model.enqueue([get_text_message("I like cats")])
        result1 = await run_agent_async(runner_method, agent, "I like cats", session=session_1)
        assert result1.final_output == "I like cats"
        session_2 = make("session_2")
        model.enqueue([get_text_message("I like dogs")])
        result2 = await run_agent_async(runner_method, agent, "I like dogs", session=session_2)
        assert result2.final_output == "I like dogs"
        model.enqueue([get_text_message("Yes, you mentioned cats")])
        result3 = await run_agent_async(runner_method, agent, "What did I say I like?", session=session_1)
        assert result3.final_output == "Yes, you mentioned cats"
        # Session 1's history, not session 2's, went to the model (upstream's comment says so; checked here).
        said = [item.get("content") for item in model.calls[-1].input if item.get("role") == "user"]
        assert said == ["I like cats", "What did I say I like?"]
        await session_1.clear_session()
        await session_2.clear_session()

    asyncio.run(body())


def test_sqlite_session_memory_direct(make) -> None:
    async def body() -> None:
        session = make("direct_test")
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi there!"},
        ]
        await session.add_items(items)
        retrieved = await session.get_items()
        assert len(retrieved) == 2
        assert retrieved[0].get("role") == "user"
        assert retrieved[0].get("content") == "Hello"
        assert retrieved[1].get("role") == "assistant"
        assert retrieved[1].get("content") == "Hi there!"
        await session.clear_session()
        assert len(await session.get_items()) == 0

    asyncio.run(body())


def test_sqlite_session_memory_pop_item(make) -> None:
    async def body() -> None:
        session = make("pop_test")
        assert await session.pop_item() is None
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi there!"},
            {"role": "user", "content": "How are you?"},
        ]
        await session.add_items(items)
        assert len(await session.get_items()) == 3
        popped = await session.pop_item()
        assert popped is not None
        assert popped.get("role") == "user"
        assert popped.get("content") == "How are you?"
        retrieved_after_pop = await session.get_items()
        assert len(retrieved_after_pop) == 2
        assert retrieved_after_pop[-1].get("content") == "Hi there!"
        popped2 = await session.pop_item()
        assert popped2 is not None
        assert popped2.get("role") == "assistant"
        assert popped2.get("content") == "Hi there!"
        popped3 = await session.pop_item()
        assert popped3 is not None
        assert popped3.get("role") == "user"
        assert popped3.get("content") == "Hello"
        assert await session.pop_item() is None
        assert len(await session.get_items()) == 0

    asyncio.run(body())


def test_session_memory_pop_different_sessions(make) -> None:
    async def body() -> None:
        session_1 = make("session_1")
        session_2 = make("session_2")
        await session_1.add_items([{"role": "user", "content": "Session 1 message"}])
        await session_2.add_items([
            {"role": "user", "content": "Session 2 message 1"},
            {"role": "user", "content": "Session 2 message 2"},
        ])
        popped = await session_2.pop_item()
        assert popped is not None
        assert popped.get("content") == "Session 2 message 2"
        session_1_items = await session_1.get_items()
        assert len(session_1_items) == 1
        assert session_1_items[0].get("content") == "Session 1 message"
        session_2_items = await session_2.get_items()
        assert len(session_2_items) == 1
        assert session_2_items[0].get("content") == "Session 2 message 1"
        await session_1.clear_session()
        await session_2.clear_session()

    asyncio.run(body())


def test_sqlite_session_get_items_with_limit(make) -> None:
    async def body() -> None:
        session = make("count_test")
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "Message 1"},
            {"role": "assistant", "content": "Response 1"},
            {"role": "user", "content": "Message 2"},
            {"role": "assistant", "content": "Response 2"},
            {"role": "user", "content": "Message 3"},
            {"role": "assistant", "content": "Response 3"},
        ]
        await session.add_items(items)
        all_items = await session.get_items()
        assert len(all_items) == 6
        assert all_items[0].get("content") == "Message 1"
        assert all_items[-1].get("content") == "Response 3"
        latest_2 = await session.get_items(limit=2)
        assert [item.get("content") for item in latest_2] == ["Message 3", "Response 3"]
        latest_4 = await session.get_items(limit=4)
        assert [item.get("content") for item in latest_4] == ["Message 2", "Response 2", "Message 3", "Response 3"]
        latest_10 = await session.get_items(limit=10)
        assert len(latest_10) == 6
        assert latest_10[0].get("content") == "Message 1"
        assert latest_10[-1].get("content") == "Response 3"
        assert len(await session.get_items(limit=0)) == 0
        await session.clear_session()

    asyncio.run(body())


@pytest.mark.parametrize("runner_method", RUNNERS)
def test_session_memory_appends_list_input_by_default(make, runner_method) -> None:
    async def body() -> None:
        session = make("test_validation_parametrized")
        model = ScriptedModel()
        agent = Agent(name="test", model=model)
        initial_history: list[TResponseInputItem] = [
            {"role": "user", "content": "Earlier message"},
            {"role": "assistant", "content": "Saved reply"},
        ]
        await session.add_items(initial_history)
        list_input = [{"role": "user", "content": "Test message"}]
        model.enqueue([get_text_message("This should run")])
        await run_agent_async(runner_method, agent, list_input, session=session)
        assert model.calls[-1].input == initial_history + list_input
        await session.clear_session()

    asyncio.run(body())


@pytest.mark.parametrize("runner_method", RUNNERS)
def test_session_callback_prepared_input(make, runner_method) -> None:
    async def body() -> None:
        model = ScriptedModel()
        agent = Agent(name="test", model=model)
        session = make("session_1")
        initial_history: list[TResponseInputItem] = [
            {"role": "user", "content": "Hello there."},
            {"role": "assistant", "content": "Hi, I'm here to assist you."},
        ]
        await session.add_items(initial_history)

        def filter_assistant_messages(history, new_input):
            return [item for item in history if item["role"] == "user"] + new_input

        new_turn_input = [{"role": "user", "content": "What your name?"}]
        model.enqueue([get_text_message("I'm gpt-4o")])
        await run_agent_async(runner_method, agent, new_turn_input, session=session,
                              run_config=RunConfig(session_input_callback=filter_assistant_messages))
        assert model.calls[-1].input == [initial_history[0], new_turn_input[0]]
        await session.clear_session()

    asyncio.run(body())


@pytest.mark.parametrize("runner_method", RUNNERS)
def test_session_callback_repeating_history_does_not_grow_session(make, runner_method) -> None:
    async def body() -> None:
        model = ScriptedModel()
        agent = Agent(name="test", model=model)
        session = make("session_repeat")

        def repeat_first(history, new_input):
            if not history:
                return new_input
            return history + [history[0]] + new_input

        for turn in range(3):
            model.enqueue([get_text_message(f"assistant {turn}")])
            await run_agent_async(runner_method, agent, f"user {turn}", session=session,
                                  run_config=RunConfig(session_input_callback=repeat_first))
        stored = await session.get_items()
        user_messages = [item for item in stored if item.get("role") == "user"]
        assert [item.get("content") for item in user_messages] == ["user 0", "user 1", "user 2"]
        assert len(stored) == 6
        await session.clear_session()

    asyncio.run(body())


def test_sqlite_session_unicode_content(make) -> None:
    async def body() -> None:
        session = make("unicode_test")
        await session.add_items([
            {"role": "user", "content": "こんにちは"},
            {"role": "assistant", "content": "😊👍"},
            {"role": "user", "content": "Привет"},
        ])
        retrieved = await session.get_items()
        assert [item.get("content") for item in retrieved] == ["こんにちは", "😊👍", "Привет"]
        await session.clear_session()

    asyncio.run(body())


def test_sqlite_session_special_characters_and_sql_injection(make) -> None:
    async def body() -> None:
        session = make("special_chars_test")
        items: list[TResponseInputItem] = [
            {"role": "user", "content": "O'Reilly"},
            {"role": "assistant", "content": "DROP TABLE sessions;"},
            {"role": "user", "content": '"SELECT * FROM users WHERE name = "admin";"'},
            {"role": "assistant", "content": "Robert'); DROP TABLE students;--"},
            {"role": "user", "content": "Normal message"},
            # The same, for Cypher.
            {"role": "user", "content": "'}) MATCH (n) DETACH DELETE n //"},
        ]
        await session.add_items(items)
        retrieved = await session.get_items()
        assert len(retrieved) == len(items)
        assert [item.get("content") for item in retrieved] == [item["content"] for item in items]
        await session.clear_session()

    asyncio.run(body())


def test_sqlite_session_concurrent_access(make) -> None:
    session = make("concurrent_test")
    items: list[TResponseInputItem] = [{"role": "user", "content": f"Message {i}"} for i in range(10)]

    def add_item(item):
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.run_until_complete(session.add_items([item]))
        loop.close()

    with concurrent.futures.ThreadPoolExecutor(max_workers=5) as executor:
        list(executor.map(add_item, items))  # upstream drops the results; here a failed write fails the test
    retrieved = asyncio.run(session.get_items())
    assert {item.get("content") for item in retrieved} == {f"Message {i}" for i in range(10)}
    asyncio.run(session.clear_session())


def test_session_add_items_exception_propagates_in_streamed(make) -> None:
    session = make("test_exception_session")

    async def _failing_add_items(_items):
        raise RuntimeError("Simulated session.add_items failure")

    session.add_items = _failing_add_items  # type: ignore[method-assign]
    model = ScriptedModel()
    agent = Agent(name="test", model=model)
    model.enqueue([get_text_message("This should not be reached")])

    async def consume_stream():
        result = Runner.run_streamed(agent, "Hello", session=session)
        async for _event in result.stream_events():
            pass

    with pytest.raises(RuntimeError, match="Simulated session.add_items failure"):
        asyncio.run(asyncio.wait_for(consume_stream(), timeout=60.0))


def test_session_settings_default(make) -> None:
    session = make("default_settings_test")
    assert isinstance(session.session_settings, SessionSettings)
    assert session.session_settings.limit is None


def test_session_settings_constructor(make) -> None:
    session = make("constructor_settings_test", session_settings=SessionSettings(limit=5))
    assert session.session_settings is not None
    assert session.session_settings.limit == 5


def test_session_settings_constructor_normalizes_dictionary(make) -> None:
    session = make("dictionary_settings_test", session_settings={"limit": 0})
    assert isinstance(session.session_settings, SessionSettings)
    assert session.session_settings.limit == 0
    assert session.session_settings.resolve({"limit": 4}).limit == 4


def test_session_settings_rejects_unknown_dictionary_fields(make) -> None:
    with pytest.raises(TypeError, match="Unknown session settings: limitt"):
        make("invalid_settings_test", session_settings={"limitt": 1})


def test_get_items_uses_session_settings_limit(make) -> None:
    async def body() -> None:
        session = make("uses_settings_limit_test", session_settings=SessionSettings(limit=3))
        await session.add_items([{"role": "user", "content": f"Message {i}"} for i in range(5)])
        retrieved = await session.get_items()
        assert [item.get("content") for item in retrieved] == ["Message 2", "Message 3", "Message 4"]
        await session.clear_session()

    asyncio.run(body())


def test_get_items_explicit_limit_overrides_session_settings(make) -> None:
    async def body() -> None:
        session = make("explicit_override_test", session_settings=SessionSettings(limit=5))
        await session.add_items([{"role": "user", "content": f"Message {i}"} for i in range(10)])
        retrieved = await session.get_items(limit=2)
        assert [item.get("content") for item in retrieved] == ["Message 8", "Message 9"]
        await session.clear_session()

    asyncio.run(body())


def test_runner_with_session_settings_override(make) -> None:
    async def body() -> None:
        session = make("runner_override_test", session_settings=SessionSettings(limit=100))
        await session.add_items([{"role": "user", "content": f"Turn {i}"} for i in range(10)])
        model = ScriptedModel()
        agent = Agent(name="test", model=model)
        model.enqueue([get_text_message("Got it")])
        await Runner.run(agent, "New question", session=session,
                         run_config=RunConfig(session_settings=SessionSettings(limit=2)))
        history_items = [item for item in model.calls[-1].input if item.get("content") != "New question"]
        assert len(history_items) == 2
        await session.clear_session()

    asyncio.run(body())
