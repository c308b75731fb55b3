"""Versioned Cypher migrations, in the manner of neo4j-migrations.

Files ``V0001__constraints.cypher`` … are applied in version order. Each applied
version is a ``__Neo4jMigration`` node in a chain from ``BASELINE`` with the
checksum of its file; a lock node keeps two runners apart. An applied file that
changed, or a file that fails, stops the run with an error that names it.

``${name}`` placeholders in a file are filled from the runner's parameters
(only whole numbers and identifiers: they are schema options, never user text);
the checksum is taken over the file as written, before filling.
"""

from __future__ import annotations

import hashlib
import re
import socket
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from neo4j import Driver, ManagedTransaction
from neo4j.exceptions import ConstraintError, Neo4jError

FILE_NAME = re.compile(r"^V(?P<version>\d+)__(?P<description>[A-Za-z0-9_]+)\.cypher$")
PLACEHOLDER = re.compile(r"\$\{([a-z_]+)\}")

LOCK_CONSTRAINT = """
CREATE CONSTRAINT hippograph_migrations_lock IF NOT EXISTS
FOR (lock:__Neo4jMigrationsLock) REQUIRE lock.id IS UNIQUE
"""

TAKE_LOCK = """
CREATE (:__Neo4jMigrationsLock {id: 'hippograph', owner: $owner, lockedAt: datetime()})
"""

READ_LOCK = """
MATCH (lock:__Neo4jMigrationsLock {id: 'hippograph'})
RETURN lock.owner AS owner, toString(lock.lockedAt) AS lockedAt
"""

RELEASE_LOCK = """
MATCH (lock:__Neo4jMigrationsLock {id: 'hippograph', owner: $owner})
DELETE lock
"""

APPLIED = """
MATCH path = (:__Neo4jMigration {version: 'BASELINE'})-[:MIGRATED_TO*]->(applied:__Neo4jMigration)
RETURN applied.version AS version, applied.description AS description, applied.checksum AS checksum
ORDER BY length(path)
"""

RECORD = """
MERGE (baseline:__Neo4jMigration {version: 'BASELINE'})
WITH baseline
OPTIONAL MATCH (baseline)-[:MIGRATED_TO*]->(last:__Neo4jMigration)
WHERE NOT (last)-[:MIGRATED_TO]->()
WITH coalesce(last, baseline) AS previous
CREATE (previous)-[:MIGRATED_TO {at: datetime(), by: $owner, durationMs: $durationMs}]->
       (:__Neo4jMigration {version: $version, description: $description, checksum: $checksum, source: $source})
"""


class MigrationError(RuntimeError):
    """The migrations cannot be applied as they stand; the message says which file and why."""


@dataclass(frozen=True)
class Migration:
    version: str
    description: str
    path: Path
    text: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.text.replace("\r\n", "\n").encode()).hexdigest()

    def statements(self, parameters: dict[str, object]) -> list[str]:
        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in parameters:
                raise MigrationError(f"{self.path.name}: placeholder ${{{name}}} has no value")
            value = parameters[name]
            if not (isinstance(value, int) or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(value))):
                raise MigrationError(
                    f"{self.path.name}: placeholder ${{{name}}} must be a number or identifier, got {value!r}"
                )
            return str(value)

        return split_statements(PLACEHOLDER.sub(fill, self.text))


@dataclass(frozen=True)
class AppliedMigration:
    version: str
    description: str
    checksum: str


def discover(folder: Path) -> list[Migration]:
    if not folder.is_dir():
        raise MigrationError(f"migrations folder {folder} does not exist (set HIPPOGRAPH_MIGRATIONS_DIR)")
    found: dict[str, Migration] = {}
    for path in sorted(folder.glob("*.cypher")):
        match = FILE_NAME.match(path.name)
        if match is None:
            raise MigrationError(f"{path.name}: migration files are named V<number>__<description>.cypher")
        version = str(int(match.group("version"))).zfill(4)
        if version in found:
            raise MigrationError(f"{path.name} and {found[version].path.name} have the same version {version}")
        found[version] = Migration(version, match.group("description").replace("_", " "), path, path.read_text())
    return [found[v] for v in sorted(found, key=int)]


def applied(driver: Driver, database: str) -> list[AppliedMigration]:
    records, _, _ = driver.execute_query(APPLIED, database_=database, routing_="r")
    return [AppliedMigration(r["version"], r["description"], r["checksum"]) for r in records]


def pending(driver: Driver, database: str, folder: Path) -> list[Migration]:
    """The migrations not applied yet; raises if an applied one changed or vanished."""
    return _check_chain(discover(folder), applied(driver, database))


def migrate(
    driver: Driver, database: str, folder: Path, parameters: dict[str, object], log: Callable[[str], object] = print
) -> list[Migration]:
    """Apply every pending migration in order; return what was applied (empty if none)."""
    owner = f"{socket.gethostname()}:{os.getpid()}"
    with driver.session(database=database) as session:
        session.run(LOCK_CONSTRAINT).consume()
        try:
            session.execute_write(lambda tx: tx.run(TAKE_LOCK, owner=owner).consume())
        except ConstraintError:
            holder = session.execute_read(lambda tx: tx.run(READ_LOCK).single())
            raise MigrationError(
                f"another migration run holds the lock ({holder['owner'] if holder else '?'} since "
                f"{holder['lockedAt'] if holder else '?'}); if none is running, delete it with "
                "MATCH (l:__Neo4jMigrationsLock) DELETE l"
            ) from None
        try:
            todo = _check_chain(discover(folder), applied(driver, database))
            for migration in todo:
                started = time.monotonic()
                for statement in migration.statements(parameters):
                    try:
                        session.run(statement).consume()
                    except Neo4jError as exc:
                        raise MigrationError(
                            f"{migration.path.name} failed and was not recorded: {exc.message}\nstatement: {statement}"
                        ) from None
                session.execute_write(
                    _record, migration=migration, owner=owner, duration_ms=int((time.monotonic() - started) * 1000)
                )
                log(f"applied V{migration.version} {migration.description}")
            # Indexes populate in the background; callers expect them usable on return.
            session.run("CALL db.awaitIndexes(300)").consume()
            return todo
        finally:
            session.execute_write(lambda tx: tx.run(RELEASE_LOCK, owner=owner).consume())


def _record(tx: ManagedTransaction, migration: Migration, owner: str, duration_ms: int) -> None:
    tx.run(
        RECORD,
        version=migration.version,
        description=migration.description,
        checksum=migration.checksum,
        source=migration.path.name,
        owner=owner,
        durationMs=duration_ms,
    ).consume()


def _check_chain(files: list[Migration], done: list[AppliedMigration]) -> list[Migration]:
    by_version = {m.version: m for m in files}
    for record in done:
        migration = by_version.get(record.version)
        if migration is None:
            raise MigrationError(
                f"migration V{record.version} ({record.description}) was applied but its file is missing"
            )
        if migration.checksum != record.checksum:
            raise MigrationError(
                f"{migration.path.name} changed after it was applied (checksum {record.checksum[:12]}… in the graph, "
                f"{migration.checksum[:12]}… on disk); never edit an applied migration, add a new one"
            )
    applied_versions = {r.version for r in done}
    return [m for m in files if m.version not in applied_versions]


def split_statements(text: str) -> list[str]:
    """Split Cypher on top-level semicolons, respecting strings, backticks and comments."""
    statements: list[str] = []
    current: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in ("'", '"', "`"):
            end = i + 1
            while end < n and text[end] != ch:
                end += 2 if text[end] == "\\" and ch != "`" else 1
            current.append(text[i : end + 1])
            i = end + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end == -1 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end == -1:
                raise MigrationError("unterminated /* comment in migration")
            i = end + 2
        elif ch == ";":
            statements.append("".join(current))
            current = []
            i += 1
        else:
            current.append(ch)
            i += 1
    statements.append("".join(current))
    return [s.strip() for s in statements if s.strip()]
