"""hippograph.agents keeps any item the SDK adds as one turn and reads it back as it was: a message of
text as that text, anything else as its JSON, never one mistaken for the other."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("agents", reason="the agents extra is not installed (pip install -e '.[agents]')")

from hippograph.agents import item, turn  # noqa: E402
from hippograph.client import TranscriptEntry  # noqa: E402

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                           max_leaves=8)
messages = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "developer", " user"]),
                                  "content": st.text()})
items = messages | st.dictionaries(st.text(), json_values, max_size=5)


def stored(said_by: str, content: str) -> TranscriptEntry:
    """The turn as the transcript gives it back (the server keeps a role without its surrounding spaces)."""
    return TranscriptEntry(id="t", role=said_by.strip(), content=content, tokens=1, at=None, is_summary=False,
                           position=0, ref=None)


@given(items)
def test_every_item_comes_back_as_it_was_added(added: dict) -> None:
    said_by, content = turn(added)
    assert 0 < len(said_by.strip()) <= 64 and content.strip()
    assert item(stored(said_by, content)) == added


def test_a_message_of_text_is_its_text_and_a_summary_a_system_message() -> None:
    assert turn({"role": "user", "content": "We ship on Fridays"}) == ("user", "We ship on Fridays")
    assert turn({"role": "user", "content": '{"a": 1}'}) == ("user", '{"role": "user", "content": "{\\"a\\": 1}"}')
    assert turn({"type": "function_call_output", "call_id": "c", "output": "ok"})[0] == "function_call_output"
    summary = TranscriptEntry(id="s", role="summary", content="They ship on Fridays.", tokens=5, at=None,
                              is_summary=True, position=0, ref=None)
    assert item(summary) == {"role": "system", "content": "They ship on Fridays."}
