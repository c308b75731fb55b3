"""The benchmark store's copies: the real model's vector of the text, moved a little, never two alike."""

from __future__ import annotations

import numpy as np
import pytest

from hippograph.bench.store import Perturbed
from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j


def test_a_perturbed_copy_stays_near_its_text_and_no_two_copies_tie(services: Services) -> None:
    text = "We moved the staging database to eu-west-1 last spring."
    moved = Perturbed(services)([text] * 50)
    original = services.embedder.embed_documents([text])[0]
    cosines = moved @ original
    assert np.allclose(np.linalg.norm(moved, axis=1), 1.0, atol=1e-5)
    assert 0.95 < cosines.min() and cosines.max() < 0.995
    assert len({round(float(c), 6) for c in cosines}) == 50
    other = services.embedder.embed_documents(["The user's cat is called Miso."])[0]
    assert float((moved @ other).max()) < float(cosines.min())
