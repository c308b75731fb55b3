"""``hippograph import`` as a user runs it: it says what it is doing from its first line, and a document
larger than its tier is refused naming the one setting to raise."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from hippograph.memory.services import Services

pytestmark = pytest.mark.neo4j

HIPPOGRAPH = Path(sys.executable).with_name("hippograph")
PROJECT = Path(__file__).parents[1] / "fixtures" / "izanagi" / "project-memory.json"


def run_import(user: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(HIPPOGRAPH), "import", "project", str(PROJECT), "--user", user], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **env})


def test_an_import_says_first_that_it_loads_the_model(services: Services) -> None:
    done = run_import(f"cli-import-{uuid.uuid4().hex[:8]}")
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert first == f"import project: connecting to Neo4j and loading the embedding model {services.settings.embedding_model}"


def test_a_project_larger_than_its_tier_names_the_capacity_setting(services: Services) -> None:
    done = run_import(f"cli-import-{uuid.uuid4().hex[:8]}", HIPPOGRAPH_PROJECT_CAPACITY="100")
    assert done.returncode != 0
    assert "raise the tier's capacity (`hippograph capacity project TOKENS`: the store keeps it" in done.stderr
    assert "HIPPOGRAPH_PROJECT_CAPACITY is only the default" in done.stderr


def test_a_capacity_kept_with_the_cli_is_the_imports(services: Services) -> None:
    def capacity(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(HIPPOGRAPH), "capacity", *args], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "HIPPOGRAPH_PROJECT_CAPACITY": "100"})

    try:
        kept = capacity("project", "1000000")
        assert kept.returncode == 0, kept.stderr
        assert "project\t1000000" in kept.stdout.splitlines()
        done = run_import(f"cli-import-{uuid.uuid4().hex[:8]}", HIPPOGRAPH_PROJECT_CAPACITY="100")
        assert done.returncode == 0, done.stderr
    finally:
        unset = capacity("project", "--unset")
    assert unset.returncode == 0 and "project\t100" in unset.stdout.splitlines()
    refused = capacity("project", "0")
    assert refused.returncode != 0 and "at least 1" in refused.stderr
