"""Memory sketches: a short projection of each memory vector, for recall's exact scan to rank by first.

Recall scans every in-scope memory of a caller who owns up to ``exact_scan_limit``
of them (``hippograph.graph.recall``). Neo4j reads a 384-float vector and takes its
cosine at about 10 µs a memory, which at 1,000 memories was most of the query. So
each memory also stores ``sketch``: its vector projected onto the first
``SKETCH_DIMENSIONS`` principal directions of the model's embedding space. The scan
ranks by the sketch's cosine, then takes the exact cosine of the best
``rescore_k`` only; the exact cosine is what scores and ranks.

The directions come from the model alone — the principal components of the
embeddings of a fixed sample of its vocabulary's words — not from anybody's
memories, so the basis is the same for every store and every process. For the
shipped model it is a file in this package (``hippograph sketch-basis`` writes it);
for another model, ``HIPPOGRAPH_SKETCH_BASIS`` names one made the same way, and
without one memories have no sketch and the scan is exact throughout.

Measured on the latency benchmark's store (500 LoCoMo questions, query vectors from
the query encoder, against each of two users' 1,000 LoCoMo turns): of the exact top
10, 99.96 % and 99.98 % lay within the sketch's top 100 (all ten for 99.6 % and
99.8 % of questions); of the exact top 60, 97.9 % and 98.0 %. A user's scan (1,000
memories, 140 questions, 100 random users) took 7.1 ms ranking by sketch and rescoring
100, where the exact scan took 12.7 ms (p50).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

SKETCH_DIMENSIONS = 96
VOCABULARY_SAMPLE = 8000
SAMPLE_SEED = 0
SHIPPED_DIRECTORY = Path(__file__).resolve().parent / "sketches"


class SketchError(RuntimeError):
    """A sketch basis that cannot be read or does not fit the model; the message says why."""


class Encoder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class Sketcher:
    """Projects unit vectors onto a fixed basis: an (n, d) vector array becomes (n, k)."""

    def __init__(self, basis: np.ndarray) -> None:
        self.basis = np.asarray(basis, dtype=np.float32)

    @property
    def dimensions(self) -> int:
        return int(self.basis.shape[1])

    def project(self, vectors: np.ndarray) -> np.ndarray:
        return np.asarray(vectors, dtype=np.float32) @ self.basis


def shipped_basis(model: str) -> Path:
    return SHIPPED_DIRECTORY / f"{model}.npy"


def load_sketcher(model: str, dimension: int, configured: str = "") -> Sketcher | None:
    """The sketcher for ``model``: the configured basis file, else the shipped one, else none."""
    path = Path(configured).expanduser() if configured else shipped_basis(model)
    if not path.is_file():
        if configured:
            raise SketchError(f"HIPPOGRAPH_SKETCH_BASIS names {path}, which is not a file")
        return None
    try:
        basis = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise SketchError(f"cannot read the sketch basis {path}: {exc}") from None
    if basis.ndim != 2 or basis.shape[0] != dimension or not 0 < basis.shape[1] < dimension:
        raise SketchError(
            f"the sketch basis {path} has shape {basis.shape}; the model makes {dimension}-dimensional vectors, "
            f"so it must be ({dimension}, k) with k < {dimension} (hippograph sketch-basis makes one)"
        )
    return Sketcher(basis)


def vocabulary_sample(vocabulary: Sequence[str], size: int = VOCABULARY_SAMPLE) -> list[str]:
    """Whole words of three letters or more, a fixed random sample of them."""
    words = sorted(word for word in set(vocabulary) if word.isalpha() and len(word) > 2)
    return random.Random(SAMPLE_SEED).sample(words, min(size, len(words)))


def fit_basis(encoder: Encoder, vocabulary: Sequence[str], dimensions: int = SKETCH_DIMENSIONS) -> np.ndarray:
    """The first ``dimensions`` principal directions of the embeddings of a sample of ``vocabulary``.

    Each direction's sign is fixed (its largest entry positive), so that fitting twice
    gives the same basis, not one with some axes flipped.
    """
    vectors = encoder.embed(vocabulary_sample(vocabulary))
    centred = vectors - vectors.mean(axis=0)
    _, _, directions = np.linalg.svd(centred, full_matrices=False)
    basis = directions[:dimensions].T.copy()
    largest = np.abs(basis).argmax(axis=0)
    basis *= np.sign(basis[largest, np.arange(basis.shape[1])])
    return basis.astype(np.float32)
