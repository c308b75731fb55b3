"""``project-memory.json`` ⇄ the graph.

The document becomes ``(:User)-[:HAS_PROJECT]->(:Project {userId, id, type,
lastUpdated})`` and PROJECT-tier memories hanging from it by ``HAS_ENTRY``:

- each ``tech_stack`` entry: a ``technology`` memory ("Tech stack, database:
  PostgreSQL 16") recording a ``Technology`` entity (and mentioning the known
  technologies in it); the project ``USES`` each of those entities;
- ``architecture.pattern``: a ``concept`` memory recording a ``Concept``;
- each ``architecture.decisions`` entry: ``record_decision`` (a ``Decision``
  entity), ``id``/``reason``/``date`` in the memory's attributes, the date as
  its creation time;
- each ``conventions`` entry: a ``rule`` memory ("Convention, testing: …");
- each ``error_history`` entry: ``record_error`` — an ``Error`` entity
  ``SOLVED_BY`` the fix — with ``count``/``last_seen`` in its attributes.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import documents as document_cypher
from hippograph.memory.documents.engine import (
    DOCUMENT,
    Entry,
    Plan,
    Scrubber,
    Written,
    as_list,
    as_object,
    memory_entry,
    recorded,
    sections,
)
from hippograph.memory.documents.schema import DocumentKind, child, parse_timestamp
from hippograph.graph.vocabulary import EntityType
from hippograph.memory.writing.entities import FIXED_BY
from hippograph.memory.writing.knowledge import record_decision, record_error
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope


def plan(document: dict[str, Any], scope: Scope, policy: str, now: datetime) -> Plan:
    """The memories and the project node a validated project document becomes."""
    scrub = Scrubber(policy)
    entries: list[Entry] = []

    for position, (key, value) in enumerate(document["tech_stack"].items()):
        path = child("$.tech_stack", key)
        value = scrub.key(path, key, value)
        entries.append(_technology(scope, now, path, position, key, value))

    architecture = document["architecture"]
    pattern = scrub.value("$.architecture.pattern", "pattern", architecture["pattern"])
    entries.append(
        memory_entry(
            scope,
            Tier.PROJECT,
            "$.architecture.pattern",
            "architecture.pattern",
            f"Architecture pattern: {pattern}",
            "concept",
            {"value": pattern},
            records=(EntityType.CONCEPT, pattern),
            now=now,
        )
    )

    for position, decision in enumerate(architecture["decisions"]):
        path = child("$.architecture.decisions", position)
        fields = scrub.fields(
            "{decision} — because {reason}",
            decision=(child(path, "decision"), decision["decision"]),
            reason=(child(path, "reason"), decision["reason"]),
        )
        attributes = {
            "id": scrub.id(child(path, "id"), decision["id"]),
            "decision": fields["decision"],
            "reason": fields["reason"],
            "date": decision["date"],
        }
        entries.append(
            Entry(
                path=path,
                section="architecture.decisions",
                position=position,
                keys=list(decision),
                content=f"{fields['decision']} — because {fields['reason']}",
                attributes=attributes,
                names=(fields["decision"],),
                kind="decision",
                write=partial(_decide, scope, attributes),
            )
        )

    for position, (key, value) in enumerate(document["conventions"].items()):
        path = child("$.conventions", key)
        value = scrub.key(path, key, value)
        entries.append(
            memory_entry(
                scope,
                Tier.PROJECT,
                path,
                "conventions",
                f"Convention, {key}: {value}",
                "rule",
                {"key": key, "value": value},
                position=position,
                key=key,
                now=now,
            )
        )

    for position, error in enumerate(document["error_history"]):
        path = child("$.error_history", position)
        fields = scrub.fields(
            "{error} — fixed by: {fix}",
            error=(child(path, "error"), error["error"]),
            fix=(child(path, "fix"), error["fix"]),
        )
        attributes = {
            "error": fields["error"],
            "fix": fields["fix"],
            "count": error["count"],
            "last_seen": error["last_seen"],
        }
        entries.append(
            Entry(
                path=path,
                section="error_history",
                position=position,
                keys=list(error),
                content=f"{fields['error']}{FIXED_BY}{fields['fix']}",
                attributes=attributes,
                names=(fields["error"], fields["fix"]),
                kind="error",
                write=partial(_fix, scope, attributes),
            )
        )

    properties = {
        "type": scrub.value("$.type", "type", document["type"]),
        "lastUpdated": document["last_updated"],
        "documentKeys": list(document),
        "architectureKeys": list(architecture),
    }
    project_id = scope.project_id
    assert project_id is not None

    def save_owners(tx: ManagedTransaction) -> tuple[dict[str, str], list[str]]:
        owner = document_cypher.save_project(tx, scope.user_id, project_id, properties)
        return {DOCUMENT: owner}, document_cypher.detach_entries(tx, owner)

    def finish(tx: ManagedTransaction, owners: dict[str, str]) -> None:
        document_cypher.project_uses(tx, scope.user_id, owners[DOCUMENT])

    return Plan(
        DocumentKind.PROJECT,
        scope,
        Tier.PROJECT,
        project_id,
        entries,
        save_owners,
        finish=finish,
        redacted=scrub.kinds,
    )


def export(tx: ManagedTransaction, user_id: str, project_id: str) -> tuple[dict[str, Any], list[str]] | None:
    """The project document read back from the graph, and the memory ids it came from; None without one."""
    found = document_cypher.project_document(tx, user_id, project_id)
    if found is None:
        return None
    owner, rows = found
    by_section = sections(rows)
    architecture: dict[str, Any] = {}
    for key in owner["architectureKeys"] or []:
        if key == "pattern":
            patterns = as_list(by_section.get("architecture.pattern"))
            if patterns:
                architecture[key] = patterns[0]
        elif key == "decisions":
            architecture[key] = as_list(by_section.get("architecture.decisions"))
    values = {
        "project_id": owner["id"],
        "type": owner["type"],
        "tech_stack": as_object(by_section.get("tech_stack")),
        "architecture": architecture,
        "conventions": as_object(by_section.get("conventions")),
        "error_history": as_list(by_section.get("error_history")),
        "last_updated": owner["lastUpdated"],
    }
    return {key: values[key] for key in owner["documentKeys"]}, [row["id"] for row in rows]


def _technology(scope: Scope, now: datetime, path: str, position: int, key: str, value: str) -> Entry:
    return memory_entry(
        scope,
        Tier.PROJECT,
        path,
        "tech_stack",
        f"Tech stack, {key}: {value}",
        "technology",
        {"key": key, "value": value},
        position=position,
        key=key,
        records=(EntityType.TECHNOLOGY, value),
        now=now,
    )


def _decide(scope: Scope, a: dict[str, Any], services: Services) -> Written:
    return recorded(
        record_decision(
            services,
            scope,
            a["decision"],
            reason=a["reason"],
            tier=Tier.PROJECT,
            attributes=a,
            now=parse_timestamp(a["date"]),
        )
    )


def _fix(scope: Scope, a: dict[str, Any], services: Services) -> Written:
    return recorded(
        record_error(
            services,
            scope,
            a["error"],
            fix=a["fix"],
            tier=Tier.PROJECT,
            attributes=a,
            now=parse_timestamp(a["last_seen"]),
        )
    )
