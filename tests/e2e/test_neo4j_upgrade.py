"""A store written by Neo4j 5.26 — every store hippograph made before 2026.08 — keeps its data.

A real Neo4j 5.26.30 server (jars from Maven, ``tests/fixtures/neo4j-5.26/pom.xml``, on a Java 17
or 21) gets the schema hippograph had then (migrations V0001–V0005) and a few memories written by
the product, and is stopped. Then ``hippograph neo4j start`` dumps that store before Neo4j 2026
upgrades it, and ``hippograph migrate`` re-creates the vector index with its filter properties.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from hippograph_bench.server import free_port
from hippograph.config import RESOURCES, Settings
from hippograph.graph import migrations
from hippograph.graph.database_info import VECTOR_FILTERS
from hippograph.graph.vocabulary import Tier
from hippograph.local import neo4j_server
from hippograph.local.java import Java, javas
from hippograph.memory.recall.profiles import PROFILES
from hippograph.memory.recall.query import recall
from hippograph.memory.services import migration_parameters
from hippograph.operations.services import open_services
from hippograph.memory.tiers import Scope
from hippograph.memory.writing.store import MemoryInput, remember
from api_client import hippograph_here

pytestmark = pytest.mark.neo4j

OLD_POM = Path(__file__).resolve().parents[1] / "fixtures" / "neo4j-5.26" / "pom.xml"
OLD_ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
USER = "upgraded-user"
TEXTS = ["The staging cluster runs in eu-west-1.", "Deploys go out on Tuesdays after the review.",
         "The user prefers answers in British English."]


@dataclass(frozen=True)
class Upgrade:
    settings: Settings
    env: dict[str, str]
    start_log: list[str]
    refused_by_old: subprocess.CompletedProcess[str]
    ids: list[str]


def old_java() -> Java:
    found = next((java for java in javas() if 17 <= java.major <= 21), None)
    if found is None:
        pytest.skip("no Java 17 or 21 on this machine for a Neo4j 5.26 server: the upgrade test not run")
    return found


def hippograph(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The command through its ``main``, in this process with ``env``: a new interpreter's torch is not what is tested."""
    return hippograph_here(*args, env=env)


def start_old_server(settings: Settings, java: Java) -> None:
    lay = neo4j_server.layout(settings)
    neo4j_server.resolve_jars(lay, log=lambda _: None, pom=OLD_POM)
    neo4j_server.write_config(settings, lay)
    env = {**os.environ, "NEO4J_HOME": str(lay.home), "NEO4J_CONF": str(lay.conf)}
    classpath = f"{lay.lib}/*"
    subprocess.run([str(java.executable), "-cp", classpath, neo4j_server.ADMIN_TOOL, "dbms", "set-initial-password",
                    settings.neo4j_password], cwd=lay.home, env=env, check=True, capture_output=True)
    lay.logs.mkdir(parents=True, exist_ok=True)
    with open(lay.console_log, "ab") as out:
        process = subprocess.Popen([str(java.executable), "-Xms512m", "-Xmx512m", "-cp", classpath, OLD_ENTRY_POINT,
                                    f"--home-dir={lay.home}", f"--config-dir={lay.conf}"],
                                   cwd=lay.home, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    lay.pid_file.write_text(str(process.pid))
    deadline = time.monotonic() + 180
    with GraphDatabase.driver(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password)) as driver:
        while True:
            try:
                driver.verify_connectivity()
                return
            except Exception:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"Neo4j 5.26 did not start:\n{lay.console_log.read_text()[-3000:]}")
                time.sleep(0.5)


@pytest.fixture(scope="module")
def upgrade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upgrade]:
    java = old_java()
    place = tmp_path_factory.mktemp("upgrade")
    bolt, http = free_port(), free_port()
    env = {**os.environ, "HIPPOGRAPH_STATE_DIR": str(place / "state"), "NEO4J_URI": f"bolt://127.0.0.1:{bolt}",
           "HIPPOGRAPH_NEO4J_BOLT_PORT": str(bolt), "HIPPOGRAPH_NEO4J_HTTP_PORT": str(http),
           "NEO4J_PASSWORD": "upgrade-test", "HIPPOGRAPH_NEO4J_HEAP": "512m", "HIPPOGRAPH_NEO4J_PAGECACHE": "256m"}
    settings = Settings.from_env(env)
    old_migrations = place / "migrations-5.26"
    old_migrations.mkdir()
    for path in sorted((RESOURCES / "migrations").glob("V000[1-5]__*.cypher")):
        shutil.copy(path, old_migrations / path.name)
    try:
        start_old_server(settings, java)
        with open_services(settings) as services:
            migrations.migrate(services.driver, services.database, old_migrations,
                               migration_parameters(services.embedder), log=lambda _: None)
            written = datetime(2026, 1, 5, tzinfo=timezone.utc)
            ids = [remember(services, Scope(USER), MemoryInput(text, Tier.LONG_TERM), now=written).id for text in TEXTS]
        refused = hippograph(env, "migrate")
        neo4j_server.stop(settings, log=lambda _: None)
        start_log: list[str] = []
        neo4j_server.start(settings, log=start_log.append)
        yield Upgrade(settings, env, start_log, refused, ids)
    finally:
        neo4j_server.stop(settings, log=lambda _: None)


def test_migrate_refuses_a_server_older_than_2026_in_one_line_and_changes_nothing(upgrade: Upgrade) -> None:
    refused = upgrade.refused_by_old
    assert refused.returncode != 0
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "Neo4j 5.26.30" in lines[0] and "too old" in lines[0] and "2026.08" in lines[0], lines


def test_the_old_store_is_dumped_before_the_new_server_upgrades_it(upgrade: Upgrade) -> None:
    said = "\n".join(upgrade.start_log)
    assert "written by Neo4j 5.26" in said and "dumping it first into" in said, said
    dumps = list((neo4j_server.layout(upgrade.settings).dumps).glob("before-2026.08.1-from-5.26-*/*.dump"))
    assert {dump.name for dump in dumps} == {"neo4j.dump", "system.dump"}
    assert all(dump.stat().st_size > 0 for dump in dumps)
    assert neo4j_server.layout(upgrade.settings).store_version.read_text() == neo4j_server.neo4j_version()


def test_after_migrating_every_memory_is_there_and_recalled_through_the_filtered_index(upgrade: Upgrade) -> None:
    migrated = hippograph(upgrade.env, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert "applied V0006 tenant filtered vectors" in migrated.stdout and "V0005" not in migrated.stdout
    with open_services(upgrade.settings) as services:
        records, _, _ = services.driver.execute_query(
            "SHOW VECTOR INDEXES YIELD name, properties, state WHERE name = 'memory_embedding' RETURN properties, state")
        assert records[0]["state"] == "ONLINE" and set(VECTOR_FILTERS) <= set(records[0]["properties"])
        stored, _, _ = services.driver.execute_query("MATCH (m:Memory {userId: $u}) RETURN m.id AS id", u=USER)
        assert sorted(r["id"] for r in stored) == sorted(upgrade.ids)
        through_index = PROFILES["hybrid"].with_(exact_scan_limit=0, summary_above=-1.0, full_above=-1.0)
        ranked = recall(services, "which region does the staging cluster run in?", Scope(USER), "critical",
                        through_index, record_access=False).ranking
        assert ranked and ranked[0].id == upgrade.ids[0]


def test_a_dump_of_the_stopped_server_restores_the_store_as_it_was(upgrade: Upgrade) -> None:
    settings, quiet = upgrade.settings, (lambda _: None)
    with pytest.raises(neo4j_server.LocalNeo4jError, match="stop"):
        neo4j_server.dump(settings, log=quiet)
    neo4j_server.stop(settings, log=quiet)
    said: list[str] = []
    folder = neo4j_server.dump(settings, log=said.append)
    assert {dump.name for dump in folder.glob("*.dump")} == {"neo4j.dump", "system.dump"} and str(folder) in said[0]

    def stored() -> list[str]:
        with GraphDatabase.driver(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password)) as driver:
            records, _, _ = driver.execute_query("MATCH (m:Memory {userId: $u}) RETURN m.id AS id ORDER BY id", u=USER)
            return [r["id"] for r in records]

    neo4j_server.start(settings, log=quiet)
    with GraphDatabase.driver(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password)) as driver:
        driver.execute_query("MATCH (m:Memory {id: $id}) DETACH DELETE m", id=upgrade.ids[1])
    assert len(stored()) == len(upgrade.ids) - 1
    neo4j_server.stop(settings, log=quiet)
    neo4j_server.load(settings, folder, log=quiet)
    neo4j_server.start(settings, log=quiet)
    assert stored() == sorted(upgrade.ids)
