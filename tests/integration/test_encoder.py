"""The packed encoder gives the vectors sentence-transformers gives, passage by passage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer.modules import Pooling

from hippograph.encoding.embedding import Embedder, EmbeddingError, passages
from hippograph.encoding.encoder import ROW_TOKENS, ROWS_PER_CALL, PackedEncoder, _pack
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

TEXT = ("Caroline: I went to the LGBTQ support group yesterday. It was so powerful! "
        "[shares a photo of a rainbow flag] Everyone was kind. See you soon?")


@pytest.fixture(scope="module")
def float32(services: Services) -> Iterator[Embedder]:
    # The full-precision packed path, whatever HIPPOGRAPH_DOCUMENT_VECTORS the services run with.
    yield Embedder(services.settings.embedding_model, threads=1, documents="float32")


def _reference(embedder: Embedder, texts: list[str]) -> np.ndarray:
    # sentence-transformers' own padded batch, the path the packed encoder replaces.
    model = embedder._model
    return model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)


def test_the_shipped_model_takes_the_packed_path(services: Services) -> None:
    assert PackedEncoder.supports(services.embedder._model)
    assert services.embedder._packed is not None


def test_packed_vectors_match_a_padded_batch(float32: Embedder) -> None:
    texts = passages(TEXT) + ["ok", "Use PostgreSQL 16 for the orders service", "ünïcødé — 東京 🙂"]
    assert float32.documents == "float32" and not float32._packed.bfloat16
    assert np.allclose(float32.embed(texts), _reference(float32, texts), atol=1e-5)


def test_many_rows_and_calls_keep_every_text_in_its_place(float32: Embedder) -> None:
    # Enough text for several packed rows and more than one forward call.
    texts = [f"Note {i}: the deploy of service {i} failed because the {i % 7}th replica ran out of memory." for i in range(400)]
    rows = _pack([20] * len(texts), ROW_TOKENS)
    assert len(rows) > ROWS_PER_CALL
    assert np.allclose(float32.embed(texts), _reference(float32, texts), atol=1e-5)


def test_a_passage_past_the_model_limit_is_cut_as_sentence_transformers_cuts_it(float32: Embedder) -> None:
    long = " ".join(f"word{i}" for i in range(600))
    texts = ["short one", long, "another short one"]
    assert np.allclose(float32.embed(texts), _reference(float32, texts), atol=1e-5)


def test_a_process_traces_a_model_once_and_every_encoder_of_it_shares_that_module(
    float32: Embedder, services: Services
) -> None:
    # TorchScript never frees a frozen module (bench/encoder.md): a second Embedder of the model, as a
    # command or a re-embed opens, must not trace it again. A bfloat16 encoder runs its own eager module.
    again = Embedder(services.settings.embedding_model, threads=1, documents="float32")
    assert again._packed is not float32._packed and again._packed._model is float32._packed._model
    assert isinstance(again._packed._model, torch.jit.ScriptModule)
    bfloat16 = Embedder(services.settings.embedding_model, threads=1, documents="bfloat16")
    assert bfloat16._packed._model is not float32._packed._model
    assert not isinstance(bfloat16._packed._model, torch.jit.ScriptModule)
    text = ["Use PostgreSQL 16 for the orders service"]
    assert np.array_equal(again.embed(text), float32.embed(text))


def test_bfloat16_vectors_stay_within_rounding_of_float32_and_of_themselves_alone(float32: Embedder) -> None:
    bfloat16 = Embedder(float32.name, threads=1, documents="bfloat16")
    assert bfloat16.documents == "bfloat16" and bfloat16._packed.bfloat16
    texts = passages(TEXT) + [f"Note {i}: the {i % 7}th replica of service {i} ran out of memory." for i in range(60)]
    vectors, exact = bfloat16.embed(texts), float32.embed(texts)
    assert vectors.dtype == np.float32 and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * exact).sum(axis=1)
    assert cosines.min() > 0.9995 and not np.allclose(vectors, exact, atol=1e-5)  # rounded, and only rounded
    for text, row in zip(texts[:8], vectors):
        assert np.abs(bfloat16.embed([text])[0] - row).max() < 5e-3  # packed with others or alone: the same to rounding


def test_packing_fills_rows_in_order_without_splitting_a_passage() -> None:
    assert _pack([100, 100, 100, 30, 256, 1], 256) == [[0, 1], [2, 3], [4], [5]]
    assert _pack([], 256) == []


@pytest.fixture(scope="module")
def mpnet() -> Iterator[Embedder]:
    # all-mpnet-base-v2 (assembled by `make setup`), in full precision: an MPNet, not a BERT; its queries in
    # PyTorch (HIPPOGRAPH_QUERY_ENCODER=torch; ONNX Runtime's are tests/integration/test_onnx_queries.py's).
    yield Embedder("all-mpnet-base-v2", threads=1, documents="float32", queries="torch")


def test_mpnet_takes_the_packed_path_and_matches_a_padded_batch(mpnet: Embedder) -> None:
    assert type(mpnet._model[0].auto_model).__name__ == "MPNetModel" and mpnet._packed is not None
    texts = passages(TEXT) + ["ok", "Use PostgreSQL 16 for the orders service", "ünïcødé — 東京 🙂"]
    assert np.allclose(mpnet.embed(texts), _reference(mpnet, texts), atol=1e-5)


def test_mpnet_queries_are_not_quantized(mpnet: Embedder) -> None:
    # In int8 (but its feed-forward outputs) MPNet lost Hit@1 (PackedEncoder.for_queries): in PyTorch its
    # queries run in full precision, a query's vector the reference one to rounding.
    questions = ["When did Caroline go to the LGBTQ support group?", "What did Melanie paint recently?",
                 "Which database does the orders service use?", "How long has Nate had his turtles?"]
    cosines = (np.stack([mpnet.embed_query(q) for q in questions]) * _reference(mpnet, questions)).sum(axis=1)
    assert not mpnet._query.quantized and cosines.min() > 0.999


def test_queries_asked_together_get_the_vectors_each_gets_alone(mpnet: Embedder, services: Services) -> None:
    # recall embeds a question and its unnamed form at once: for an MPNet in one packed call, for an int8
    # BERT a call each; either way each vector is the one the text gets alone, cached or not.
    pair = ["What did Caroline research?", "What did research?"]
    for embedder in (mpnet, services.embedder):
        embedder._cache.clear()
        together = embedder.embed_queries(pair)
        embedder._cache.clear()
        alone = np.stack([embedder.embed_query(text) for text in pair])
        assert np.allclose(together, alone, atol=1e-6) and not np.allclose(together[0], together[1], atol=1e-2)
        assert np.array_equal(embedder.embed_queries(pair[::-1]), alone[::-1])  # from the cache


def test_int8_documents_of_mpnet_keep_its_feed_forward_outputs_in_full_precision(mpnet: Embedder) -> None:
    # With them in int8 too, the vectors fell to a cosine of about 0.79 of the full-precision ones.
    int8 = PackedEncoder(mpnet._model, quantized=True)
    texts = passages(TEXT) + ["Which database does the orders service use?", "How long has Nate had his turtles?"]
    cosines = (np.stack([int8.encode([t])[0] for t in texts]) * _reference(mpnet, texts)).sum(axis=1)
    assert int8.quantized and cosines.mean() > 0.94


def test_int8_documents_on_mpnet_are_encoded_in_int8_and_say_so(mpnet: Embedder) -> None:
    # HIPPOGRAPH_DOCUMENT_VECTORS=int8 on an MPNet once encoded memories with its full-precision query encoder
    # and reported "int8": now its documents go through an int8 encoder of their own, and the report is that.
    int8 = Embedder("all-mpnet-base-v2", threads=1, documents="int8", queries="torch")
    texts = passages(TEXT) + ["Which database does the orders service use?"]
    vectors = int8.embed(texts)
    cosines = (vectors * _reference(mpnet, texts)).sum(axis=1)
    assert int8.documents == "int8" and int8._int8 is not None and int8._int8.quantized
    assert 0.94 < cosines.mean() and cosines.max() < 0.9999  # int8: close to the full-precision vector, not it
    assert int8.queries == "float32" and mpnet.queries == int8.queries  # its queries are not quantized


def test_a_document_encoding_the_model_cannot_take_is_refused(services: Services, tmp_path: Path) -> None:
    # Only a BERT or MPNet with mean pooling has the packed, bfloat16 and int8 paths; another model must not
    # report one of them while it encodes in full precision. The shipped MiniLM saved with CLS pooling:
    transformer = services.embedder._model[0]
    SentenceTransformer(modules=[transformer, Pooling(transformer.get_embedding_dimension(), "cls")],
                        device="cpu").save(str(tmp_path))
    with pytest.raises(EmbeddingError, match="HIPPOGRAPH_DOCUMENT_VECTORS=int8 needs a BERT or MPNet"):
        Embedder(str(tmp_path), threads=1, documents="int8")
    assert Embedder(str(tmp_path), threads=1, documents="auto").documents == "float32"
