"""The texts a benchmark store is made of: the distinct sentences and short passages of the sets' turns.

A turn is cut into sentences (after ``.``, ``!`` or ``?`` and a space, and at every line break).
Its texts are its sentences and its passages of two and three consecutive sentences (in turn, not
overlapping), each of ``SHORTEST`` to ``LONGEST`` characters (a longer run is a pasted blob, not a
sentence, and would be stored as parts), written behind the turn's speaker (``User: …``) and
stamped with its turn's time. Every text is kept once, where it first comes, in the order of the
files, conversations, sessions and turns: LongMemEval's haystacks share sessions, and LoCoMo's
audited copy shares every turn.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import NamedTuple

from hippograph_bench.data import load

SHORTEST = 30
LONGEST = 1000
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
# Passages take two, then three sentences, in turn.
PASSAGES = (2, 3)


class Text(NamedTuple):
    content: str
    speaker: str
    at: datetime


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def cut(text: str) -> Iterator[str]:
    """The sentences of ``text`` and its passages of 2 and 3 sentences, in reading order, each of
    ``SHORTEST`` to ``LONGEST`` characters."""
    said = sentences(text)
    start = n = 0
    while start < len(said):
        size = PASSAGES[n % len(PASSAGES)]
        chunk = said[start : start + size]
        yield from chunk
        if len(chunk) > 1:
            yield " ".join(chunk)
        start += size
        n += 1


def pool(paths: Iterable[str | Path]) -> list[Text]:
    """Every distinct text of the files' turns (see the module), in order."""
    seen: set[str] = set()
    texts: list[Text] = []
    for conversation in load(paths):
        for turns in conversation.sessions.values():
            for turn in turns:
                for i, piece in enumerate(cut(turn.text)):
                    content = f"{turn.speaker}: {piece}"
                    if SHORTEST <= len(piece) <= LONGEST and content not in seen:
                        seen.add(content)
                        # A microsecond apart, in the turn's order (turns are a second apart).
                        texts.append(Text(content, turn.speaker, turn.at + timedelta(microseconds=i)))
    return texts


def latest(texts: Sequence[Text]) -> datetime:
    return max(text.at for text in texts)


def fingerprint(texts: Sequence[Text]) -> str:
    """What tells one pool from another: its size and a digest of its texts, in order."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.content.encode("utf-8", "surrogatepass") + b"\0")
    return f"{len(texts)}-{digest.hexdigest()[:12]}"
