"""Extractive compression of a single memory's text: no model, no network."""

from __future__ import annotations

import re

from hippograph.memory.tokens import TokenCounter

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def compress_text(text: str, counter: TokenCounter, max_tokens: int) -> str:
    """The first sentence (or the head of it) within ``max_tokens``; marked as shortened when cut."""
    first = _SENTENCE_END.split(text.strip(), maxsplit=1)[0]
    if counter.count(first) <= max_tokens and first != text.strip():
        return first
    if counter.count(text) <= max_tokens:
        return text.strip()
    head = counter.truncate(first, max_tokens - 1).rstrip()
    # The mark may merge with the head into other tokens; when the two do not fit, the head alone is kept.
    if head and counter.count(head + "…") <= max_tokens:
        return head + "…"
    return counter.truncate(first, max_tokens)
