"""clients/typescript is current: its generated types match schema.graphql and the explorer's queries
(`graphql-codegen --check`), and the explorer type-checks against them (`tsc --noEmit`). Both tools
come from the npm registry at `make setup` (clients/typescript/package-lock.json)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

TYPESCRIPT = Path(__file__).resolve().parents[2] / "clients" / "typescript"
BIN = TYPESCRIPT / "node_modules" / ".bin"


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not (BIN / tool).exists():
        pytest.fail(f"{tool} is not installed in {TYPESCRIPT}: run `make setup` (it needs Node.js and npm)")
    return subprocess.run([str(BIN / tool), *args], cwd=TYPESCRIPT, capture_output=True, text=True, timeout=300)


def test_the_generated_types_are_not_stale() -> None:
    checked = run("graphql-codegen", "--config", "codegen.json", "--check", "--silent")
    assert checked.returncode == 0, (
        "clients/typescript/src is stale against schema.graphql or clients/typescript/explorer/*.graphql: "
        f"run `make types`\n{checked.stdout}{checked.stderr}")


def test_the_explorer_type_checks_against_them() -> None:
    checked = run("tsc", "--noEmit", "-p", "tsconfig.json")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_every_query_the_explorer_sends_is_in_the_typed_documents() -> None:
    generated = (TYPESCRIPT / "src" / "operations.ts").read_text()
    sources = "".join(path.read_text() for path in (TYPESCRIPT / "explorer").glob("*.ts"))
    documents = {name for name in generated.split() if name.endswith("Document") and name.startswith("Explorer")}
    assert documents and all(name in sources for name in documents)
    # No GraphQL is written inline: every request goes through a typed document.
    assert "query " not in sources and "mutation " not in sources and "fetch(\"/graphql\"" in sources
