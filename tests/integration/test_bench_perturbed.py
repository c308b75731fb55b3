"""The benchmark store's copies: the real model's vector of the text, moved a little, never two alike."""

from __future__ import annotations

import numpy as np
import pytest

from hippograph.bench.store import Perturbed, _fill
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


def test_filling_the_store_counts_only_what_it_added(clean_db: Services) -> None:
    # Two texts for many memories in few scopes: later copies of a text are already in their scope.
    texts = ["The build cache lives on the shared volume.", "Releases are cut on Thursdays."]

    def held() -> int:
        return clean_db.driver.execute_query("MATCH (m:Memory {userId: 'fill-user'}) RETURN count(m) AS n",
                                             database_=clean_db.database).records[0]["n"]

    first = _fill(clean_db, [("fill-user", 0, 8)], texts, lambda _: None, session_length=100)
    before = held()
    assert first["sent"] == 8 and first["created"] == before < 8
    again = _fill(clean_db, [("fill-user", before, 12)], texts, lambda _: None, session_length=100)
    assert again["sent"] == 12 - before and again["created"] == held() - before < again["sent"]
