"""A test double: a tiny deterministic encoder that stands for the embedding model in tests of rules that are
not about the model (grouping writes, request ids, scopes…). It is no model: each word of a text is hashed
to one of ``dimension`` places with a sign, and the counts are scaled to a unit vector, so a text has the
same vector in every process and texts that share words point alike. A test of the model's quality, or of
what recall finds, keeps the real model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+")


class HashingEncoder:
    """Bag of words, hashed (``hippograph.encoding.protocols.TextEncoder``). Its dimension defaults to the
    test model's (MiniLM: 384), so its vectors fit the test store's vector index."""

    documents = queries = "float32"

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension
        self.name = f"test-double-hashing-bag-of-words-{dimension}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "big")
                vectors[row, digest % self.dimension] += 1.0 if digest >> 63 else -1.0
        vectors[~vectors.any(axis=1), 0] = 1.0  # a text of no words still gets a unit vector
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    embed_documents = embed_queries = embed

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([text])[0]
        return vector

    def running(self) -> dict[str, str]:
        return {"model": self.name, "memory_encoding": self.documents, "query_encoding": self.queries,
                "cpu_capability": "none (a test double)"}

    def check_store(self, model: str | None, dimension: int | None) -> None:
        if (model, dimension) not in {(None, None), (None, self.dimension), (self.name, self.dimension)}:
            raise ValueError(f"a store of {model!r} ({dimension} dimensions), not of {self.name}")
