"""GraphiQL at ``/graphql`` without the internet: strawberry's page, its scripts and styles served from here.

Strawberry's GraphiQL page loads React, GraphiQL and its explorer plugin from a CDN;
with no network it stays at "Loading…". The same page is served with each CDN
address turned into ``/graphiql/<package>/<file>``, and ``hippograph graphiql-assets``
(run by ``make setup``) fetches exactly those packages, at exactly the versions the
page names, from the npm registry (``npm pack``) into ``ASSETS``, with their licences.
The page keeps its subresource-integrity hashes, so the browser itself checks that
each file is the one the page was written for. It opens on this service's own example
operations (``graphiql_examples.graphql``: remember, recall with its components, record an
error, chains) instead of the library's welcome comment, and its Headers tab says where the
API key goes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from strawberry.http.ides import get_graphql_ide_html

ASSETS = Path(__file__).resolve().parent / "graphiql_assets"
PREFIX = "/graphiql"
# A CDN address in the page: package (scoped or not), version, file inside the package.
_CDN = re.compile(r"https://unpkg\.com/((?:@[\w.-]+/)?[\w.-]+)@([\w.-]+)/([\w./-]+)")
_LICENCES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE")
EXAMPLES = Path(__file__).resolve().parent / "graphiql_examples.graphql"
# The Headers tab holds JSON only: the note is the value it asks to replace.
HEADERS = {"Authorization": "Bearer <your key: hippograph keys create --user you>"}
_WELCOME = re.compile(r"const EXAMPLE_QUERY = `.*?`;", re.S)
_HEADERS = "React.useState(parameters.headers)"


class AssetsMissing(RuntimeError):
    """GraphiQL's files were never fetched (or npm could not fetch them); the message says how to."""


def _template() -> str:
    return get_graphql_ide_html(graphql_ide="graphiql")


def wanted() -> list[tuple[str, str, str]]:
    """(package, version, file) for every script and style the page loads."""
    return sorted(set(_CDN.findall(_template())))


def missing() -> list[str]:
    return [f"{package}/{file}" for package, _, file in wanted() if not (ASSETS / package / file).is_file()]


def page() -> str:
    """The GraphiQL page, loading everything from this server, opening on this service's examples."""
    html = _CDN.sub(lambda m: f"{PREFIX}/{m.group(1)}/{m.group(3)}", _template())
    if not _WELCOME.search(html) or _HEADERS not in html:
        raise RuntimeError(
            "strawberry's GraphiQL page changed: hippograph/api/graphiql.py no longer finds where "
            "its examples and the Headers note go"
        )
    examples = json.dumps(EXAMPLES.read_text(encoding="utf-8"))
    html = _WELCOME.sub(lambda _: f"const EXAMPLE_QUERY = {examples};", html, count=1)
    return html.replace(_HEADERS, f"React.useState(parameters.headers || {json.dumps(json.dumps(HEADERS, indent=2))})")


def fetch(npm: str = "npm") -> list[str]:
    """Fetch every package the page names from the npm registry into ``ASSETS``; the files written."""
    if shutil.which(npm) is None:
        raise AssetsMissing(f"`{npm}` is not installed: GraphiQL's files come from the npm registry")
    by_package: dict[tuple[str, str], list[str]] = {}
    for package, version, file in wanted():
        by_package.setdefault((package, version), []).append(file)
    written = []
    with tempfile.TemporaryDirectory(prefix="hippograph-graphiql-") as scratch:
        for (package, version), files in by_package.items():
            done = subprocess.run(
                [npm, "pack", f"{package}@{version}", "--pack-destination", scratch, "--silent"],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0:
                raise AssetsMissing(f"npm pack {package}@{version} failed: {done.stderr.strip()[-300:]}")
            tarball = Path(scratch) / done.stdout.strip().splitlines()[-1]
            target = ASSETS / package
            with tarfile.open(tarball) as archive:
                names = set(archive.getnames())
                for name in [*files, *_LICENCES]:
                    member = f"package/{name}"
                    if member not in names:
                        if name in files:
                            raise AssetsMissing(f"{package}@{version} has no {name}")
                        continue
                    extracted = archive.extractfile(member)
                    assert extracted is not None
                    out = target / name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(extracted.read())
                    written.append(f"{package}/{name}")
    return written
