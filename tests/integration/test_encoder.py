"""The packed encoder gives the vectors sentence-transformers gives, passage by passage."""

from __future__ import annotations

import numpy as np

from hippograph.embedding import passages
from hippograph.encoder import ROW_TOKENS, ROWS_PER_CALL, PackedEncoder, _pack
from hippograph.memory.services import Services


def _reference(services: Services, texts: list[str]) -> np.ndarray:
    # sentence-transformers' own padded batch, the path the packed encoder replaces.
    model = services.embedder._model
    return model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)


def test_the_shipped_model_takes_the_packed_path(services: Services) -> None:
    assert PackedEncoder.supports(services.embedder._model)
    assert services.embedder._packed is not None


def test_packed_vectors_match_a_padded_batch(services: Services) -> None:
    text = ("Caroline: I went to the LGBTQ support group yesterday. It was so powerful! "
            "[shares a photo of a rainbow flag] Everyone was kind. See you soon?")
    texts = passages(text) + ["ok", "Use PostgreSQL 16 for the orders service", "ünïcødé — 東京 🙂"]
    assert np.allclose(services.embedder.embed(texts), _reference(services, texts), atol=1e-5)


def test_many_rows_and_calls_keep_every_text_in_its_place(services: Services) -> None:
    # Enough text for several packed rows and more than one forward call.
    texts = [f"Note {i}: the deploy of service {i} failed because the {i % 7}th replica ran out of memory." for i in range(400)]
    rows = _pack([20] * len(texts), ROW_TOKENS)
    assert len(rows) > ROWS_PER_CALL
    assert np.allclose(services.embedder.embed(texts), _reference(services, texts), atol=1e-5)


def test_a_passage_past_the_model_limit_is_cut_as_sentence_transformers_cuts_it(services: Services) -> None:
    long = " ".join(f"word{i}" for i in range(600))
    texts = ["short one", long, "another short one"]
    assert np.allclose(services.embedder.embed(texts), _reference(services, texts), atol=1e-5)


def test_packing_fills_rows_in_order_without_splitting_a_passage() -> None:
    assert _pack([100, 100, 100, 30, 256, 1], 256) == [[0, 1], [2, 3], [4], [5]]
    assert _pack([], 256) == []
