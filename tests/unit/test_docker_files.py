"""No Docker engine runs here: check the files parse and name what the README says."""

from pathlib import Path

import yaml

from hippograph.local.neo4j_server import neo4j_version

ROOT = Path(__file__).resolve().parents[2]


def test_compose_runs_the_local_servers_neo4j_community_and_the_service() -> None:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == f"neo4j:{neo4j_version()}-community"
    assert neo4j["environment"]["NEO4J_AUTH"].startswith("neo4j/")
    assert "healthcheck" in neo4j and any(v.endswith(":/data") for v in neo4j["volumes"])
    service = compose["services"]["hippograph"]
    assert service["build"]["dockerfile"] == "docker/Dockerfile"
    assert (ROOT / "docker" / "Dockerfile").is_file()
    assert service["environment"]["NEO4J_URI"] == "bolt://neo4j:7687"
    assert service["depends_on"]["neo4j"]["condition"] == "service_healthy"


def test_readme_names_the_compose_command_and_image() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "docker compose -f docker/compose.yml up" in readme
    assert f"neo4j:{neo4j_version()}-community" in readme


def test_pom_depends_on_neo4j_server_and_browser() -> None:
    pom = (ROOT / "docker" / "pom.xml").read_text()
    for artifact in ("<artifactId>neo4j-server</artifactId>", "<artifactId>neo4j-browser</artifactId>", "<neo4j.version>2026."):
        assert artifact in pom


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "exec make test" in ci
    assert "make test" in (ROOT / "README.md").read_text()
