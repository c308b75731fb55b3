"""The people a query names, and the query said without them.

"When did Caroline go to the support group?" is answered by Caroline's own turns, which never
say her name; the turns that do are those addressed to her. Embedded as it is, the question
leans towards those. Recall therefore also embeds it without the names of the people who speak
in the caller's memories (``speaker``, lower-case words: ``admission.speaker_of``) and searches with
the mean of the two vectors; relation's ``speaker_match`` is what still counts who said a memory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np


# A speaker is one to three words (the speaker label of ``hippograph.encoding.embedding``).
MAX_NAME_WORDS = 3


def phrases_among(words: Sequence[str]) -> list[str]:
    """Every run of one to ``MAX_NAME_WORDS`` of a query's ``words``, as a ``speaker`` is written."""
    return [" ".join(words[i : i + n]) for n in range(1, MAX_NAME_WORDS + 1) for i in range(len(words) - n + 1)]


def without(query: str, names: Sequence[str]) -> str:
    """``query`` with each of ``names`` (and its possessive "'s") taken out, as whole words."""
    for name in sorted(names, key=len, reverse=True):
        pattern = r"[\W_]+".join(re.escape(word) for word in name.split())
        query = re.sub(rf"(?<![^\W_]){pattern}(?:['’]s)?(?![^\W_])", " ", query, flags=re.IGNORECASE)
    return " ".join(query.split())


def blend(vector: np.ndarray, unnamed: np.ndarray) -> np.ndarray:
    """The unit mean of two query vectors: what the query says, and what it asks about anyone."""
    mean = vector / np.linalg.norm(vector) + unnamed / np.linalg.norm(unnamed)
    unit: np.ndarray = (mean / np.linalg.norm(mean)).astype(np.float32)
    return unit
