"""`hippograph neo4j start|stop|status` against the server `make test` started."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import pytest

from hippograph.local import neo4j_server
from hippograph.cli import main
from hippograph_bench.server import free_port
from hippograph.config import Settings

pytestmark = pytest.mark.neo4j


def test_status_reports_the_running_server(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    current = neo4j_server.status(settings)
    assert current.running and current.pid
    assert main(["neo4j", "status"]) == 0
    out = capsys.readouterr().out
    assert f"Bolt bolt://127.0.0.1:{settings.neo4j_bolt_port}" in out
    assert "/browser/" in out


def test_starting_twice_is_a_no_op_with_a_message(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    before = neo4j_server.status(settings).pid
    assert main(["neo4j", "start"]) == 0
    assert "already started, nothing to do" in capsys.readouterr().out
    assert neo4j_server.status(settings).pid == before


def test_auth_is_enabled(settings: Settings) -> None:
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError

    with GraphDatabase.driver(settings.neo4j_uri, auth=(settings.neo4j_user, "not-the-password")) as driver:
        with pytest.raises(AuthError):
            driver.verify_connectivity()


def test_data_lives_on_disk_under_the_state_dir(settings: Settings) -> None:
    data = neo4j_server.layout(settings).data
    assert (data / "databases" / "neo4j").is_dir()
    assert (data / "transactions" / "neo4j").is_dir()


def test_a_taken_port_gives_a_clear_error(settings: Settings, tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        other = dataclasses.replace(settings, state_dir=tmp_path, neo4j_bolt_port=port, neo4j_http_port=port + 1)
        with pytest.raises(neo4j_server.LocalNeo4jError, match=f"port {port} on 127.0.0.1 is already in use.*HIPPOGRAPH_NEO4J_BOLT_PORT"):
            neo4j_server.start(other, log=lambda _: None)


def test_stopping_a_stopped_server_says_so(settings: Settings, tmp_path: Path) -> None:
    other = dataclasses.replace(settings, state_dir=tmp_path)
    messages: list[str] = []
    assert neo4j_server.stop(other, log=messages.append) is False
    assert messages == ["Neo4j is not running — nothing to stop"]


def test_a_store_written_by_a_newer_neo4j_is_refused_in_one_line(settings: Settings, tmp_path: Path) -> None:
    newer = dataclasses.replace(settings, state_dir=tmp_path, neo4j_bolt_port=free_port(), neo4j_http_port=free_port())
    lay = neo4j_server.layout(newer)
    (lay.data / "databases").mkdir(parents=True)
    lay.store_version.write_text("2099.01.0")
    with pytest.raises(neo4j_server.LocalNeo4jError, match="written by Neo4j 2099.01.0, newer than the 2026"):
        neo4j_server.start(newer, log=lambda _: None)
    assert not lay.lib.exists() and not lay.pid_file.exists()
