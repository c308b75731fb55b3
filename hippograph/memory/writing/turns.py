"""A long conversation turn, stored as several memories in its order.

A turn of any length is storable — a pasted document, a file of code, a long answer — while an
explicit ``remember`` keeps its limit. A turn longer than ``PART_CHARS`` is cut at paragraph, then
sentence, then word boundaries into parts of at most that, each behind the turn's speaker label ("User: …"),
each carrying the turn's attributes with its ``part`` (from 0) and ``parts``, and written a
microsecond after the one before, so that the session's timeline keeps their order and a question
about the middle of the turn finds the part that says it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, ClassVar, Protocol, TypeVar

from hippograph.encoding.embedding import speaker_label

# A memory's vector is the mean of its sentences (at most 32 passages, ``hippograph.encoding.embedding``): one
# sentence about the lighthouse in a pasted document of 45,000 characters is lost in the mean of a
# 20,000-character part, and found in a part of 2,000.
PART_CHARS = 2_000
# Where a long text may be cut, best first: after a paragraph, after a sentence, after a word.
_BOUNDARIES = (re.compile(r"(?<=\n\n)"), re.compile(r"(?<=[.!?])(?=\s)"), re.compile(r"(?<=\s)"))


class Written(Protocol):
    """What a part is made from: a ``MemoryInput`` (``hippograph.memory.writing.admission``; the writer cuts
    with this)."""

    # A frozen dataclass (``replace`` makes the parts): its fields read-only, its dataclass marker present.
    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def kind(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def attributes(self) -> dict[str, Any] | None: ...


Item = TypeVar("Item", bound=Written)


def turn_parts(item: Item, at: datetime, limit: int = PART_CHARS) -> list[Item]:
    """``item`` as the memories that hold it: itself, unless it is a turn longer than ``limit``
    characters; ``at`` stands in for a turn without its own time."""
    if item.kind != "turn" or len(item.content) <= limit:
        return [item]
    label, body = speaker_label(item.content.strip())
    pieces = [piece.strip() for piece in _cut(body, limit - len(label))]
    pieces = [piece for piece in pieces if piece]
    start = item.created_at or at
    return [
        replace(
            item,
            content=label + piece,
            created_at=start + timedelta(microseconds=part),
            attributes={**(item.attributes or {}), "part": part, "parts": len(pieces)},
        )
        for part, piece in enumerate(pieces)
    ]


def _cut(text: str, size: int, boundary: int = 0) -> list[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, cut at the best boundary that allows it."""
    if len(text) <= size:
        return [text]
    if boundary == len(_BOUNDARIES):
        return [text[start : start + size] for start in range(0, len(text), size)]
    pieces: list[str] = []
    current = ""
    for span in _BOUNDARIES[boundary].split(text):
        for piece in _cut(span, size, boundary + 1) if len(span) > size else [span]:
            if current and len(current) + len(piece) > size:
                pieces.append(current)
                current = ""
            current += piece
    return pieces + ([current] if current else [])
