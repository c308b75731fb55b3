"""The session document ⇄ the graph.

The document becomes the ``(:Session)`` (``start_session``; ``started_at``,
``active_context`` and the key order kept on it) with one
``(:Task {id, classification, position})`` per task,
``(session)-[:HAS_TASK]->(task)``. A task's decisions, errors and patterns are
SESSION memories (``record_decision``, ``record_error``, ``record_pattern``)
hanging from it by ``HAS_ENTRY``; a text two tasks share is one memory with two
edges. Ending the session evicts all of it, as it does for any session: the
tasks are deleted and the memories promoted or dropped.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from hippograph.graph import documents as document_cypher
from hippograph.memory.documents.engine import (
    DOCUMENT,
    Entry,
    Plan,
    Scrubber,
    Undo,
    Written,
    as_list,
    recorded,
    sections,
)
from hippograph.memory.documents.schema import DocumentKind, child, parse_timestamp
from hippograph.memory.errors import NotFound
from hippograph.memory.writing.knowledge import record_decision, record_error, record_pattern
from hippograph.memory.lifecycle.sessions import start_session
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.services import Services

TASK_LISTS = ("decisions", "errors", "patterns")


def plan(document: dict[str, Any], scope: Scope, policy: str, now: datetime) -> Plan:
    """The session, its tasks and their memories a validated session document becomes."""
    scrub = Scrubber(policy)
    entries: list[Entry] = []
    tasks: list[dict[str, Any]] = []
    session_id = scope.session_id
    assert session_id is not None

    for position, task in enumerate(document["tasks"]):
        path = child("$.tasks", position)
        tasks.append(
            {
                "position": position,
                "id": scrub.id(child(path, "task_id"), task["task_id"]),
                "classification": scrub.value(child(path, "classification"), "classification", task["classification"]),
                "keys": list(task),
            }
        )
        for section in TASK_LISTS:
            for index, text in enumerate(task[section]):
                at = child(child(path, section), index)
                text = scrub.value(at, section, text)
                entries.append(_entry(scope, now, at, section, index, f"task:{position}", text))

    active: dict[str, Any] = {}
    for key, value in document["active_context"].items():
        path = child("$.active_context", key)
        if isinstance(value, str):
            active[key] = scrub.key(path, key, value)
        else:
            scrub.key(path, key)
            active[key] = value
    started = parse_timestamp(document["started_at"])
    assert started is not None
    properties = {
        "documentKeys": list(document),
        "startedAtText": document["started_at"],
        "startedAt": started.isoformat(),
        "activeContext": json.dumps(active, ensure_ascii=False),
    }

    def start(services: Services) -> Undo:
        with services.driver.session(database=services.database) as db:
            session_existed, project_existed = db.execute_read(
                document_cypher.session_state, scope.user_id, session_id, scope.project_id
            )
        start_session(services, scope, now=started)

        def undo(tx: ManagedTransaction) -> None:
            if not session_existed:
                document_cypher.delete_session(tx, scope.user_id, session_id)
            if scope.project_id is not None and not project_existed:
                document_cypher.delete_bare_project(tx, scope.user_id, scope.project_id)

        return undo

    def save_owners(tx: ManagedTransaction) -> tuple[dict[str, str], list[str]]:
        saved = document_cypher.save_session(tx, scope.user_id, session_id, properties, tasks)
        if saved is None:
            raise NotFound(f"session {session_id} not found")
        owner, task_refs, before = saved
        return {DOCUMENT: owner, **{f"task:{position}": ref for position, ref in task_refs.items()}}, before

    return Plan(
        DocumentKind.SESSION,
        scope,
        Tier.SESSION,
        session_id,
        entries,
        save_owners,
        start=start,
        redacted=scrub.kinds,
    )


def export(
    tx: ManagedTransaction, user_id: str, session_id: str, project_id: str | None = None
) -> tuple[dict[str, Any], list[str]] | None:
    """The session document read back from the graph, and the memory ids it came from; None without one."""
    found = document_cypher.session_document(tx, user_id, session_id)
    if found is None:
        return None
    owner, tasks = found
    if project_id is not None and owner["projectId"] != project_id:
        return None
    exported_tasks = []
    for task in sorted(tasks, key=lambda t: t["position"]):
        by_section = sections(task["entries"])
        values = {"task_id": task["id"], "classification": task["classification"]}
        values.update({section: as_list(by_section.get(section)) for section in TASK_LISTS})
        exported_tasks.append({key: values[key] for key in task["keys"]})
    values = {
        "session_id": owner["id"],
        "started_at": owner["documentStartedAt"],
        "tasks": exported_tasks,
        "active_context": json.loads(owner["activeContext"]) if owner["activeContext"] else {},
    }
    ids = [entry["id"] for task in tasks for entry in task["entries"]]
    return {key: values[key] for key in owner["documentKeys"]}, list(dict.fromkeys(ids))


def _entry(scope: Scope, now: datetime, path: str, section: str, position: int, owner: str, text: str) -> Entry:
    attributes: dict[str, Any]
    if section == "decisions":
        kind, attributes = "decision", {"value": text}

        def write(services: Services) -> Written:
            return recorded(record_decision(services, scope, text, tier=Tier.SESSION, attributes=attributes, now=now))
    elif section == "errors":
        kind, attributes = "error", {"value": text}

        def write(services: Services) -> Written:
            return recorded(record_error(services, scope, text, tier=Tier.SESSION, attributes=attributes, now=now))
    else:
        kind, attributes = "pattern", {"value": text, "count": 1}

        def write(services: Services) -> Written:
            return recorded(
                record_pattern(services, scope, text, count=1, tier=Tier.SESSION, attributes=attributes, now=now)
            )

    return Entry(
        path=path,
        section=section,
        position=position,
        owner=owner,
        content=text,
        attributes=attributes,
        names=(text,),
        kind=kind,
        write=write,
    )
