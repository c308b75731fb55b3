"""HIPPOGRAPH_WRITE_VECTORS=after (``hippograph.memory.writing.late_vectors``): a write answers once stored, its
vector follows; a recall of the same user waits for it; a crash leaves no memory without a vector after the
restart; a memory forgotten or edited meanwhile gets none from the late pass.

The small model (MiniLM, the suite's) encodes: what is tested is when a vector is written, not how good it is.
A process that dies is stood for by a closed ``LateVectors``: its thread gone, what it held never written."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from hippograph.config import ConfigError, Settings
from hippograph.graph import store_model
from hippograph.graph.vocabulary import Tier
from hippograph.memory.recall.query import recall
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing import late_vectors
from hippograph.memory.writing.forget import forget_memory
from hippograph.memory.writing.late_vectors import LateVectors, Waiting
from hippograph.memory.writing.store import MemoryInput, remember
from hippograph.memory.writing.updates import update_memory
from hippograph.memory.writing.writer import Writer
from hippograph.operations.services import open_services

pytestmark = pytest.mark.neo4j

USER = "u-late"
SCOPE = Scope(USER, "p-late")
TEXT = "Caroline adopted a grey kitten called Pepper from the shelter on Sunday."


def _with(services: Services, late: LateVectors) -> Services:
    """The services whose writer defers vectors to ``late``."""
    writer = Writer(services.driver, services.database, services.embedder, services.tokens, services.audit, late)
    return dataclasses.replace(services, writer=writer)


@pytest.fixture
def died(clean_db: Services) -> Iterator[Services]:
    """Services writing as a process that dies before any vector is given: its queue is never drained."""
    late = LateVectors(clean_db.driver, clean_db.database, clean_db.embedder)
    late.close()
    yield _with(clean_db, late)


def _vector(services: Services, memory_id: str) -> list[float] | None:
    records = services.driver.execute_query(
        store_model.CURRENT + "MATCH (m:Memory {id: $id}) RETURN m[vectors] AS vector",
        id=memory_id, database_=services.database).records
    return records[0]["vector"] if records else None


def test_the_setting_takes_inline_or_after_only() -> None:
    assert Settings.from_env({}).write_vectors == "after"
    assert Settings.from_env({"HIPPOGRAPH_WRITE_VECTORS": "inline"}).write_vectors == "inline"
    with pytest.raises(ConfigError, match="HIPPOGRAPH_WRITE_VECTORS must be one of inline, after, got 'later'"):
        Settings.from_env({"HIPPOGRAPH_WRITE_VECTORS": "later"})


def test_a_write_answers_stored_without_its_vector_findable_by_its_words(died: Services) -> None:
    stored = remember(died, SCOPE, MemoryInput(TEXT, Tier.PROJECT))
    assert stored.created and _vector(died, stored.id) is None
    found = recall(died, "Pepper kitten shelter", SCOPE, profile="izanagi")  # words alone: no vector asked
    assert [item.id for item in found.items] == [stored.id]


def test_the_vector_follows_and_a_recall_of_the_user_waits_for_it(settings: Settings, clean_db: Services) -> None:
    with open_services(dataclasses.replace(settings, write_vectors="after")) as after:
        assert after.writer.late is not None
        stored = remember(after, SCOPE, MemoryInput(TEXT, Tier.PROJECT))
        # A recall by meaning only, right after the answer: it waits for the vector, then finds the memory.
        found = recall(after, "Which pet did Caroline get?", SCOPE, profile="hanzo")
        assert stored.id in [item.id for item in found.items]
        assert _vector(after, stored.id) is not None
        assert after.writer.late.slowest > 0
    expected = clean_db.embedder.embed_documents([TEXT])[0]
    assert _vector(clean_db, stored.id) == pytest.approx(expected.tolist(), abs=1e-5)


def test_after_a_crash_the_next_start_gives_every_memory_its_vector(died: Services) -> None:
    ids = [remember(died, SCOPE, MemoryInput(f"{TEXT} Note {n}.", Tier.PROJECT)).id for n in range(5)]
    assert [_vector(died, i) for i in ids] == [None] * 5
    command = LateVectors(died.driver, died.database, died.embedder)  # a command's start does not look
    try:
        assert command.settle(USER, 1)
    finally:
        command.close()
    assert [_vector(died, i) for i in ids] == [None] * 5
    restarted = LateVectors(died.driver, died.database, died.embedder, recover=True)  # a server's start looks
    try:
        assert restarted.settle(USER, 60)
    finally:
        restarted.close()
    assert all(_vector(died, i) is not None for i in ids)
    lacking = died.driver.execute_query(
        store_model.LACKING, database_=died.database).records
    assert lacking == []


def test_a_memory_forgotten_or_edited_before_its_vector_gets_none_from_the_late_pass(died: Services) -> None:
    gone = remember(died, SCOPE, MemoryInput(TEXT, Tier.PROJECT)).id
    edited = remember(died, SCOPE, MemoryInput("Melanie signed up for a pottery class.", Tier.PROJECT)).id
    forget_memory(died, USER, gone)
    update_memory(died, USER, edited, content="Melanie signed up for a painting class.")
    edit_vector = _vector(died, edited)
    assert edit_vector is not None  # the edit encoded its own text
    rows = [{"id": gone, "userId": USER, "content": TEXT, "embedding": [0.1] * died.embedder.dimension},
            {"id": edited, "userId": USER, "content": "Melanie signed up for a pottery class.",
             "embedding": [0.1] * died.embedder.dimension}]
    with died.driver.session(database=died.database) as session:
        assert session.execute_write(store_model.fill, died.embedder.name, rows) == 0
    assert _vector(died, edited) == edit_vector
    assert died.driver.execute_query("MATCH (m:Memory {id: $id}) RETURN m", id=gone,
                                     database_=died.database).records == []


def test_a_store_of_another_model_takes_no_late_vector(died: Services) -> None:
    # The store records its model (the wipe removed the record; a store that records none takes any).
    store_model.record(died.driver, died.database, died.embedder.name, died.embedder.dimension)
    memory = remember(died, SCOPE, MemoryInput(TEXT, Tier.PROJECT)).id
    row = {"id": memory, "userId": USER, "content": TEXT, "embedding": [0.1] * died.embedder.dimension}
    with died.driver.session(database=died.database) as session:
        assert session.execute_write(store_model.fill, "another-model", [row]) == 0
        assert session.execute_write(store_model.fill, died.embedder.name, [row]) == 1
    assert _vector(died, memory) is not None


def test_past_the_limit_a_write_gets_its_vector_before_it_answers(died: Services) -> None:
    late = died.writer.late
    assert late is not None
    for n in range(late_vectors.LIMIT):
        late.add(Waiting(f"m-{n}", USER, f"waiting {n}"))  # a queue its (closed) thread never drains
    assert late.full()
    stored = remember(died, SCOPE, MemoryInput(TEXT, Tier.PROJECT))
    assert _vector(died, stored.id) is not None
