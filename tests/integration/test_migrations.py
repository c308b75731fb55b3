"""The migration runner against the real Neo4j."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippograph.graph import migrations
from hippograph.memory.services import Services, migration_parameters

pytestmark = pytest.mark.neo4j

# Versions from 0090 up are reserved for these tests and removed after each.
FORGET_TEST_VERSIONS = """
MATCH (m:__Neo4jMigration) WHERE m.version >= '0090' AND m.version <> 'BASELINE'
DETACH DELETE m
"""


@pytest.fixture
def folder(services: Services, tmp_path: Path) -> Iterator[Path]:
    """A copy of the project's migrations that a test may extend."""
    copy = tmp_path / "migrations"
    shutil.copytree(services.settings.migrations_dir, copy)
    yield copy
    services.driver.execute_query(FORGET_TEST_VERSIONS, database_=services.database)
    services.driver.execute_query("DROP INDEX probe_index IF EXISTS", database_=services.database)
    services.driver.execute_query("MATCH (l:__Neo4jMigrationsLock) DELETE l", database_=services.database)


def run(services: Services, folder: Path) -> list[migrations.Migration]:
    return migrations.migrate(
        services.driver, services.database, folder, migration_parameters(services.embedder), log=lambda _: None
    )


def test_project_migrations_are_applied_and_reapplying_changes_nothing(services: Services) -> None:
    folder = services.settings.migrations_dir
    assert migrations.pending(services.driver, services.database, folder) == []
    before = migrations.applied(services.driver, services.database)
    assert [m.version for m in before][:2] == ["0001", "0002"]
    assert run(services, folder) == []
    assert migrations.applied(services.driver, services.database) == before


def test_new_migration_is_applied_once_and_chained(services: Services, folder: Path) -> None:
    (folder / "V0090__probe.cypher").write_text("CREATE INDEX probe_index IF NOT EXISTS FOR (n:Probe) ON (n.x);")
    assert [m.version for m in run(services, folder)] == ["0090"]
    assert run(services, folder) == []
    chain = migrations.applied(services.driver, services.database)
    assert chain[-1].version == "0090"
    names = {r["name"] for r in services.driver.execute_query("SHOW INDEXES YIELD name", database_=services.database).records}
    assert "probe_index" in names


def test_changed_applied_migration_stops_the_run(services: Services, folder: Path) -> None:
    first = folder / "V0001__constraints.cypher"
    first.write_text(first.read_text() + "\n// an innocent-looking edit\n")
    with pytest.raises(migrations.MigrationError, match="V0001__constraints.cypher changed after it was applied"):
        run(services, folder)
    with pytest.raises(migrations.MigrationError, match="changed after it was applied"):
        migrations.pending(services.driver, services.database, folder)


def test_missing_applied_migration_stops_the_run(services: Services, folder: Path) -> None:
    (folder / "V0002__indexes.cypher").unlink()
    with pytest.raises(migrations.MigrationError, match="V0002 .* was applied but its file is missing"):
        run(services, folder)


def test_failing_migration_is_reported_and_not_recorded(services: Services, folder: Path) -> None:
    (folder / "V0091__broken.cypher").write_text("CREATE INDEX FOR THIS IS NOT CYPHER;")
    with pytest.raises(migrations.MigrationError, match="V0091__broken.cypher failed and was not recorded"):
        run(services, folder)
    assert "0091" not in [m.version for m in migrations.applied(services.driver, services.database)]
    # The lock was released: a fixed file applies.
    (folder / "V0091__broken.cypher").write_text("RETURN 1;")
    assert [m.version for m in run(services, folder)] == ["0091"]


def test_a_held_lock_keeps_a_second_runner_out(services: Services, folder: Path) -> None:
    services.driver.execute_query(
        "CREATE (:__Neo4jMigrationsLock {id: 'hippograph', owner: 'other-host:42', lockedAt: datetime()})",
        database_=services.database,
    )
    (folder / "V0092__probe.cypher").write_text("RETURN 1;")
    with pytest.raises(migrations.MigrationError, match="another migration run holds the lock \\(other-host:42"):
        run(services, folder)
    assert "0092" not in [m.version for m in migrations.applied(services.driver, services.database)]


def test_v0011_makes_the_items_a_langgraph_store_wrote_as_notes_items(services: Services) -> None:
    statement = "\n".join(line for line in (services.settings.migrations_dir / "V0011__store_items.cypher").read_text()
                          .splitlines() if not line.startswith("//")).strip().rstrip(";")
    services.driver.execute_query("""
        CREATE (:Memory {id: 'm-item', userId: 'v0011', kind: 'note', requestId: 'langgraph-abc-0',
                         attributes: '{"langgraph": {"key": "k", "namespace": ["user"], "slot": 0, "value": {}}}'}),
               (:Memory {id: 'm-note', userId: 'v0011', kind: 'note', requestId: 'langgraph-abc-1',
                         attributes: '{"speaker": "Ann"}'}),
               (:Memory {id: 'm-other', userId: 'v0011', kind: 'note', requestId: 'r-1',
                         attributes: '{"langgraph": {}}'})
        """, database_=services.database)
    try:
        with services.driver.session(database=services.database) as session:
            session.run(statement).consume()  # CALL … IN TRANSACTIONS: an auto-commit transaction, as the runner's
        kinds = {r["id"]: r["kind"] for r in services.driver.execute_query(
            "MATCH (m:Memory {userId: 'v0011'}) RETURN m.id AS id, m.kind AS kind", database_=services.database).records}
        assert kinds == {"m-item": "item", "m-note": "note", "m-other": "note"}
    finally:
        services.driver.execute_query("MATCH (m:Memory {userId: 'v0011'}) DETACH DELETE m", database_=services.database)
