"""The OpenAI Agents SDK's session on hippograph: a conversation kept as a hippograph session's transcript.

Install the extra (``pip install 'hippograph[agents]'``: ``openai-agents``)::

    from agents import Agent, Runner
    from hippograph.integrations.agents import HippographSession

    session = HippographSession("chat-1", "http://127.0.0.1:8000", key, project="shop")
    result = await Runner.run(agent, "Where do we deploy?", session=session)

Each item the SDK adds is one turn (``appendTurn``) with three things kept apart: its text, what a
reader would read (a message's text parts joined, a tool's output, a function call as
``name(argument: value, …)``); its role (a message's role, any other item's type); and the item itself,
as the turn's ``item``, which the server keeps beside the text and gives back as it was. So
``get_items`` gives the items back as they were added, in order, their role and type from what was
stored as such and never from their text; and the transcript goes through hippograph's lifecycle
like any other, on the text: past its trigger share of the budget the oldest third becomes a summary,
given back first as a system message (a tool's output whose call it took goes with it), and the
facts said in it go to project memory. A text longer than a turn holds (``MAX_TURN_CHARS``) is cut
there in the turn's text; the item keeps it whole. ``pop_item`` erases the latest item's turn
(``forget(turn:)``; the standing summary, when it is all that is left, with the turns it covers and
the facts said in them). ``clear_session`` erases the session (``forgetSession``): its turns, its
memories and what was derived from them.
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

from agents.items import TResponseInputItem
from agents.memory import SessionSettings
from agents.memory.session_settings import coerce_session_settings, resolve_session_limit

from hippograph.client import (
    AsyncClient,
    ErrorCode,
    HippographError,
    TranscriptEntry,
    append_turn,
    forget,
    forget_session,
    start_session,
    transcript,
)
from hippograph.config import MAX_TURN_CHARS

MAX_ROLE = 64
# The characters no text field of the API takes (hippograph.operations.limits, which loads the server: not
# imported here): tab, newline and carriage return are text, the other controls (a terminal's colours) are not.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# What no reader reads: the SDK's and the provider's ids and states, and reasoning the provider encrypted.
_NOT_TEXT = frozenset({"id", "call_id", "type", "status", "role", "encrypted_content", "annotations", "logprobs"})


class HippographSession:
    """The SDK's ``Session`` protocol on a hippograph session (see the module docstring)."""

    def __init__(
        self,
        session_id: str,
        url: str,
        key: str,
        *,
        project: str | None = None,
        timeout: float = 60.0,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        self.session_id = session_id
        # As SQLiteSession takes them: settings, or their fields as a dict (an unknown one a TypeError). Typed as
        # the SDK's Session protocol types it, so that this class is one to a type checker too.
        self.session_settings: SessionSettings | None = (
            coerce_session_settings(session_settings) if session_settings is not None else SessionSettings()
        )
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
            entries = await self._transcript(hg)
        items = [item(entry) for entry in entries]
        if entries and entries[0].is_summary:
            items = items[:1] + with_their_calls(items[1:])
        if wanted is None or wanted < 0:
            return items
        return items[max(0, len(items) - wanted) :] if wanted else []

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        async with self._client() as hg:
            if not self._started:
                await hg.send(start_session(self.session_id, project=self.project))
                self._started = True
            for each in items:
                said_by, text = turn(each)
                await hg.send(append_turn(self.session_id, said_by, text, project=self.project, item=as_json(each)))

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
    """Who said an item (a message's role, any other item's type) and its text, as a reader would read it."""
    value: dict[str, Any] = dict(each)
    kind = value.get("type")
    said_by = next(
        (v.strip() for v in (value.get("role"), kind) if isinstance(v, str) and 0 < len(v.strip()) <= MAX_ROLE), "item"
    )
    read = _CONTROL.sub("", _text(value)).strip() or f"[{said_by}]"
    if len(read) > MAX_TURN_CHARS:
        # Cut between words, so that no secret is cut in half and its half let through the server's scrubbing.
        room = MAX_TURN_CHARS - len(f" [… {len(read):,} more characters, kept in the item]")
        cut = max(read.rfind(space, 0, room) for space in " \n\t")
        kept = read[: cut if cut > 0 else room].rstrip()
        read = f"{kept} [… {len(read) - len(kept):,} more characters, kept in the item]"
    return said_by, read


def as_json(each: TResponseInputItem) -> str:
    """An item as the text of its JSON, with no control character left raw (JSON escapes all but DEL), as
    every text the API takes is."""
    return json.dumps(each, ensure_ascii=False).replace("\x7f", "\\u007f")


def item(entry: TranscriptEntry) -> TResponseInputItem:
    """A turn as the item it was added as; the standing summary of older turns as a system message; a turn
    some other client appended (no item) as a message of its role and text."""
    if entry.is_summary:
        return {"role": "system", "content": entry.content}
    if entry.item is not None:
        return cast(TResponseInputItem, entry.item)  # kept as the item it was added as
    # A message of the role stored with the turn (user, assistant, system or developer).
    return cast(TResponseInputItem, {"role": entry.role, "content": entry.content})


def with_their_calls(items: list[TResponseInputItem]) -> list[TResponseInputItem]:
    """The items a summary left, less a tool's output whose call it took: a model refuses an output
    without its call, and the summary tells what the call did."""
    called: set[Any] = set()
    kept: list[TResponseInputItem] = []
    for each in items:
        call_id, kind = each.get("call_id"), each.get("type")
        if isinstance(kind, str) and kind.endswith("_output") and call_id not in called:
            continue
        called.add(call_id)
        kept.append(each)
    return kept


def _text(value: dict[str, Any]) -> str:
    kind = value.get("type")
    if isinstance(value.get("name"), str) and ("arguments" in value or kind == "custom_tool_call"):
        return f"{value.get('name', '')}({_arguments(value.get('arguments', value.get('input')))})"
    for key in ("content", "output", "summary"):
        if key in value and value[key] not in (None, "", []):
            return _parts(value[key])
    return _leaves(value)


def _arguments(arguments: Any) -> str:
    """A call's arguments as ``name: value, …`` (they come as JSON text)."""
    if isinstance(arguments, str):
        text = arguments
        try:
            arguments = json.loads(text)
        except ValueError:
            return text
    return _plain(arguments)


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(
            f"{key}: {_plain(each) if not isinstance(each, dict) else f'({_plain(each)})'}"
            for key, each in value.items()
        )
    if isinstance(value, list):
        return ", ".join(_plain(each) for each in value)
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "none"}[value]
    return str(value)


def _parts(content: Any) -> str:
    """A message's content or a tool's output: a text, or parts whose texts are joined (an image, a file,
    audio named as such)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return _plain(content)
    said: list[str] = []
    for part in content:
        if isinstance(part, str):
            said.append(part)
        elif isinstance(part, dict):
            text = next((part[k] for k in ("text", "refusal", "transcript") if isinstance(part.get(k), str)), None)
            if text is None:
                kind = str(part.get("type", "part")).removeprefix("input_").removeprefix("output_")
                text = f"[{kind}{' ' + part['filename'] if isinstance(part.get('filename'), str) else ''}]"
            said.append(text)
    return "\n".join(said)


def _leaves(value: Any) -> str:
    """An item of a kind without a text of its own (a web search, a computer action …): the strings it holds."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(filter(None, (_leaves(v) for k, v in value.items() if k not in _NOT_TEXT)))
    if isinstance(value, list):
        return " ".join(filter(None, (_leaves(v) for v in value)))
    return ""
