"""The OpenAI Agents SDK's session on hippograph: a conversation kept as a hippograph session's transcript.

Install the extra (``pip install 'hippograph[agents]'``: ``openai-agents``)::

    from agents import Agent, Runner
    from hippograph.agents import HippographSession

    session = HippographSession("chat-1", "http://127.0.0.1:8000", key, project="shop")
    result = await Runner.run(agent, "Where do we deploy?", session=session)

Each item the SDK adds is one turn (``appendTurn``): a message whose content is a text as that text,
said by its role; any other item (a message of parts, a tool call, its output …) as its JSON, said by
its role or type. So ``get_items`` gives the items back as they were added, in order, and the
transcript goes through hippograph's lifecycle like any other: past its trigger share of the budget
the oldest third becomes a summary, given back first as a system message, and the facts said in it
go to project memory. ``pop_item`` erases the latest item's turn (``forget(turn:)``; the standing
summary, when it is all that is left, with the turns it covers and the facts said in them).
``clear_session`` erases the session (``forgetSession``): its turns, its memories and what was derived
from them.
"""

from __future__ import annotations

import json
from typing import Any

from agents.items import TResponseInputItem
from agents.memory import SessionSettings
from agents.memory.session_settings import resolve_session_limit

from hippograph.client import (
    AsyncClient, ErrorCode, HippographError, TranscriptEntry, append_turn, forget, forget_session, start_session,
    transcript,
)

MAX_ROLE = 64


class HippographSession:
    """The SDK's ``Session`` protocol on a hippograph session (see the module docstring)."""

    def __init__(self, session_id: str, url: str, key: str, *, project: str | None = None, timeout: float = 60.0,
                 session_settings: SessionSettings | None = None) -> None:
        self.session_id = session_id
        self.session_settings = session_settings
        self.url = url
        self.key = key
        self.project = project
        self.timeout = timeout
        self._started = False

    def _client(self) -> AsyncClient:
        return AsyncClient(self.url, self.key, timeout=self.timeout)

    async def _transcript(self, hg: AsyncClient) -> list[TranscriptEntry]:
        try:
            return (await hg.send(transcript(self.session_id))).transcript
        except HippographError as error:
            if error.code == ErrorCode.NOT_FOUND:
                return []
            raise

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        wanted = resolve_session_limit(limit, self.session_settings)
        async with self._client() as hg:
            items = [item(entry) for entry in await self._transcript(hg)]
        if wanted is None or wanted < 0:
            return items
        return items[len(items) - wanted:] if wanted else []

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        async with self._client() as hg:
            if not self._started:
                await hg.send(start_session(self.session_id, project=self.project))
                self._started = True
            for each in items:
                said_by, content = turn(each)
                await hg.send(append_turn(self.session_id, said_by, content, project=self.project))

    async def pop_item(self) -> TResponseInputItem | None:
        async with self._client() as hg:
            entries = await self._transcript(hg)
            if not entries:
                return None
            await hg.send(forget(turn=entries[-1].id))
            return item(entries[-1])

    async def clear_session(self) -> None:
        async with self._client() as hg:
            try:
                await hg.send(forget_session(self.session_id))
            except HippographError as error:
                if error.code != ErrorCode.NOT_FOUND:
                    raise
        self._started = False


def turn(each: TResponseInputItem) -> tuple[str, str]:
    """Who said an item and the turn's text: a message of text as its text, any other item as its JSON."""
    value: dict[str, Any] = dict(each)  # type: ignore[arg-type]
    role, content = value.get("role"), value.get("content")
    plain_role = isinstance(role, str) and role == role.strip() and 0 < len(role) <= MAX_ROLE
    if (value.keys() == {"role", "content"} and plain_role and isinstance(content, str) and content.strip()
            and _json_object(content) is None):
        return role, content  # type: ignore[return-value]
    said_by = next((v for v in (role, value.get("type")) if isinstance(v, str) and 0 < len(v.strip()) <= MAX_ROLE),
                   "item")
    return said_by, json.dumps(value, ensure_ascii=False)


def item(entry: TranscriptEntry) -> TResponseInputItem:
    """A turn as the item it was added as; the standing summary of older turns as a system message."""
    if entry.is_summary:
        return {"role": "system", "content": entry.content}
    stored = _json_object(entry.content)
    return stored if stored is not None else {"role": entry.role, "content": entry.content}  # type: ignore[return-value]


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
