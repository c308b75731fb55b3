"""``hippograph import`` as a user runs it (its ``main``, in this process): it says what it is doing from its
first line, and a document larger than its tier is refused naming the one setting to raise."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

from hippograph.memory.services import Services
from api_client import hippograph_here

pytestmark = pytest.mark.neo4j

PROJECT = Path(__file__).parents[1] / "fixtures" / "izanagi" / "project-memory.json"


def run_import(user: str, **env: str) -> subprocess.CompletedProcess[str]:
    return hippograph_here("import", "project", str(PROJECT), "--user", user, env=env)


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
        return hippograph_here("capacity", *args, env={"HIPPOGRAPH_PROJECT_CAPACITY": "100"})

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
