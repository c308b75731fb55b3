"""What the rules call on the models: the encoder that turns texts into vectors and the cross-encoder that
scores (query, passage) pairs. ``Embedder`` and ``CrossEncoder`` are the models; the rules and ``Services``
are typed against these, so a unit test of a rule that is not about the model can hand it a small
deterministic encoder instead (one named as such, ``tests/encoders.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class TextEncoder(Protocol):
    """Texts to unit vectors (float32 rows of ``dimension``), so cosine similarity is a dot product."""

    @property
    def name(self) -> str:
        """The model's name, as the store records it beside the vectors it made."""

    @property
    def dimension(self) -> int: ...

    @property
    def documents(self) -> str:
        """How memories are encoded as it runs (float32, bfloat16, int8: ``serverInfo``)."""

    @property
    def queries(self) -> str:
        """How queries are encoded as it runs."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Each text encoded whole: an (n, dimension) array."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Memory vectors: an (n, dimension) array."""

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries' vectors, each as ``embed_query`` gives it."""

    def check_store(self, model: str | None, dimension: int | None) -> None:
        """Refuse a store whose vectors another model made (``model`` and ``dimension`` as it records them)."""

    def running(self) -> dict[str, str]:
        """What encodes, as it really runs (the model, memories', queries', the CPU capability): what a
        benchmark's page names."""


class Reranker(Protocol):
    """Scores (query, passage) pairs; a higher score is a better answer."""

    def rank(self, query: str, passages: Sequence[str]) -> list[float]: ...
