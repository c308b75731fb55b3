"""``long-term-memory.json`` ⇄ the graph.

The document belongs to the ``(:User)`` node (its key order and
``last_updated`` are kept there) and becomes LONG_TERM memories hanging from
it by ``HAS_ENTRY``:

- each preference: ``set_preference`` (a ``UserPreference`` entity "key:
  value"; a new value closes the previous one);
- each recurring pattern: ``record_pattern`` (a ``Pattern`` entity) with
  ``count``, ``last_skill`` and ``resolved`` in its attributes — so long-term
  compression archives the patterns with a count under 3, as the spec says;
- each skill-evolution entry: a ``fact`` memory created at its date;
- learning progress: one ``fact`` memory per lesson ("Completed lesson:
  SOLID", "Current lesson: CQRS", "Struggling with: Event Sourcing"), each
  mentioning the lesson as a ``Concept``.
"""

from __future__ import annotations

from datetime import datetime
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
from hippograph.memory.writing.knowledge import record_pattern, set_preference
from hippograph.graph.vocabulary import Tier
from hippograph.memory.services import Services
from hippograph.memory.tiers import Scope

LESSONS = {
    "completed_lessons": "Completed lesson",
    "current_lesson": "Current lesson",
    "struggling_topics": "Struggling with",
}


def plan(document: dict[str, Any], scope: Scope, policy: str, now: datetime) -> Plan:
    """The memories a validated long-term document becomes."""
    scrub = Scrubber(policy)
    entries: list[Entry] = []

    for position, (key, value) in enumerate(document["preferences"].items()):
        path = child("$.preferences", key)
        # The key is an id to set_preference: refused here, where the path can be named, not half-way through.
        value = scrub.key(path, scrub.id(path, key), value)
        attributes = {"key": key, "value": value}

        def prefer(services: Services, k: str = key, v: Any = value) -> Written:
            return recorded(set_preference(services, scope, k, v, now=now))

        entries.append(
            Entry(
                path=path,
                section="preferences",
                position=position,
                key=key,
                attributes=attributes,
                content=f"User preference — {key}: {value}",
                names=(f"{key}: {value}",),
                kind="preference",
                write=prefer,
            )
        )

    for position, (name, pattern) in enumerate(document["recurring_patterns"].items()):
        path = child("$.recurring_patterns", name)
        scrub.key(path, name)
        attributes = {
            "count": pattern["count"],
            "last_skill": scrub.value(child(path, "last_skill"), "last_skill", pattern["last_skill"]),
            "resolved": pattern["resolved"],
        }

        def recur(services: Services, n: str = name, a: dict[str, Any] = attributes) -> Written:
            return recorded(
                record_pattern(services, scope, n, count=a["count"], tier=Tier.LONG_TERM, attributes=a, now=now)
            )

        entries.append(
            Entry(
                path=path,
                section="recurring_patterns",
                position=position,
                key=name,
                keys=list(pattern),
                content=name,
                attributes=attributes,
                names=(name,),
                kind="pattern",
                write=recur,
            )
        )

    for position, step in enumerate(document["skill_evolution"]):
        path = child("$.skill_evolution", position)
        fields = scrub.fields(
            "Skill {skill} updated to version {version}",
            skill=(child(path, "skill"), step["skill"]),
            version=(child(path, "version"), step["version"]),
        )
        changes = [
            scrub.value(child(child(path, "changes"), index), "change", change)
            for index, change in enumerate(step["changes"])
        ]
        attributes = {"skill": fields["skill"], "version": fields["version"], "changes": changes, "date": step["date"]}
        content = f"Skill {fields['skill']} updated to version {fields['version']}"
        entries.append(
            memory_entry(
                scope,
                Tier.LONG_TERM,
                path,
                "skill_evolution",
                content + (": " + "; ".join(changes) if changes else ""),
                "fact",
                attributes,
                position=position,
                keys=list(step),
                mentions=[],
                now=now,
                created_at=parse_timestamp(step["date"]),
            )
        )

    progress = document["learning_progress"]
    for field, label in LESSONS.items():
        lessons = progress[field] if isinstance(progress[field], list) else [progress[field]]
        for position, lesson in enumerate(lessons):
            path = child("$.learning_progress", field)
            path = path if field == "current_lesson" else child(path, position)
            lesson = scrub.value(path, label, lesson)
            entries.append(
                memory_entry(
                    scope,
                    Tier.LONG_TERM,
                    path,
                    f"learning_progress.{field}",
                    f"{label}: {lesson}",
                    "fact",
                    {"value": lesson},
                    position=position,
                    mentions=[(EntityType.CONCEPT, lesson)],
                    now=now,
                )
            )

    properties = {
        "documentKeys": list(document),
        "learningProgressKeys": list(progress),
        "lastUpdated": document["last_updated"],
    }

    def save_owners(tx: ManagedTransaction) -> tuple[dict[str, str], list[str]]:
        owner = document_cypher.save_long_term(tx, scope.user_id, properties)
        return {DOCUMENT: owner}, document_cypher.detach_entries(tx, owner)

    return Plan(
        DocumentKind.LONG_TERM, scope, Tier.LONG_TERM, scope.user_id, entries, save_owners, redacted=scrub.kinds
    )


def export(tx: ManagedTransaction, user_id: str) -> tuple[dict[str, Any], list[str]] | None:
    """The long-term document read back from the graph, and the memory ids it came from; None without one."""
    found = document_cypher.long_term_document(tx, user_id)
    if found is None:
        return None
    owner, rows = found
    by_section = sections(rows)
    progress: dict[str, Any] = {}
    for key in owner["learningProgressKeys"] or []:
        lessons = as_list(by_section.get(f"learning_progress.{key}"))
        if key != "current_lesson":
            progress[key] = lessons
        elif lessons:
            progress[key] = lessons[0]
    values = {
        "user_id": owner["id"],
        "preferences": as_object(by_section.get("preferences")),
        "recurring_patterns": as_object(by_section.get("recurring_patterns")),
        "skill_evolution": as_list(by_section.get("skill_evolution")),
        "learning_progress": progress,
        "last_updated": owner["lastUpdated"],
    }
    return {key: values[key] for key in owner["documentKeys"]}, [row["id"] for row in rows]
