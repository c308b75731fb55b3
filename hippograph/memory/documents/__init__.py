"""The three JSON documents of the Izanagi spec, in and out of the graph.

``import_document`` turns a session, ``project-memory.json`` or
``long-term-memory.json`` document into nodes, memories and entities anyone can
explore; ``export_document`` reads them back into a document equal to the one
imported (key order included). The mapping rules are in ``project``,
``long_term`` and ``session``; validation in ``schema``; the order of checks,
writes and the undo of a failed import in ``engine``.

What does not round-trip, on purpose: a secret (redacted on the way in, so the
export shows ``[REDACTED:<kind>]``; refused under the ``reject`` policy), and
whatever the graph lost since the import — a memory forgotten or archived by
compression drops out of the export. Importing a document again replaces the
previous import of the same document (same project, session, or the user's
long-term document): texts still there are reused, the rest is removed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

from hippograph.memory.documents import long_term, project, session
from hippograph.memory.documents.engine import Imported, run_import
from hippograph.memory.documents.schema import DocumentError, DocumentKind, load, validate
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.tiers import Scope, ScopeError
from hippograph.memory.services import Services

__all__ = ["DocumentError", "DocumentKind", "Imported", "export_document", "import_document", "load", "validate"]


def import_document(
    services: Services,
    kind: DocumentKind | str,
    document: Any,
    user_id: str,
    project_id: str | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Imported:
    """Import a document for ``user_id``; a malformed document raises :class:`DocumentError` and writes nothing;
    ``progress(done, total)`` as its memories are written.

    The document names its own project, session or user; ``project_id``/``session_id`` may repeat it
    (a different one is refused). A session document may name its project with ``project_id``.
    """
    kind = _kind(kind)
    validate(kind, document)
    scope = _import_scope(kind, document, user_id, project_id, session_id)
    at = now or datetime.now(UTC)
    policy = services.settings.secret_policy
    if kind is DocumentKind.PROJECT:
        plan = project.plan(document, scope, policy, at)
    elif kind is DocumentKind.LONG_TERM:
        plan = long_term.plan(document, scope, policy, at)
    else:
        plan = session.plan(document, scope, policy, at)
    return run_import(services, plan, at, progress)


def export_document(
    services: Services,
    kind: DocumentKind | str,
    user_id: str,
    project_id: str | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    """The document as the graph holds it now; :class:`NotFound` when the user has none (or it is not theirs)."""
    kind = _kind(kind)
    _scope(user_id, project_id, session_id)
    if kind is DocumentKind.PROJECT and project_id is None:
        raise InvalidInput("exporting a project document needs a project id")
    if kind is DocumentKind.SESSION and session_id is None:
        raise InvalidInput("exporting a session document needs a session id")
    with services.driver.session(database=services.database) as db:
        if kind is DocumentKind.PROJECT:
            found, owner = (
                db.execute_read(project.export, user_id, cast(str, project_id)),
                f"project {project_id}",
            )  # checked above
        elif kind is DocumentKind.SESSION:
            found, owner = (
                db.execute_read(session.export, user_id, cast(str, session_id), project_id),
                f"session {session_id}",
            )
        else:
            found, owner = db.execute_read(long_term.export, user_id), f"user {user_id}"
    if found is None:
        raise NotFound(f"no {kind.value} document for {owner}")
    document, memory_ids = found
    # Reading a document is a read of every memory in it: logged like any other.
    services.audit.record(user_id, "export", memory_ids)
    return document


def _kind(kind: DocumentKind | str) -> DocumentKind:
    try:
        return DocumentKind(kind)
    except ValueError:
        raise InvalidInput(
            f"unknown document kind {kind!r}; one of {', '.join(k.value for k in DocumentKind)}"
        ) from None


def _scope(user_id: str, project_id: str | None, session_id: str | None) -> Scope:
    try:
        return Scope(user_id, project_id, session_id)
    except ScopeError as exc:
        raise InvalidInput(str(exc)) from None


def _import_scope(
    kind: DocumentKind, document: dict[str, Any], user_id: str, project_id: str | None, session_id: str | None
) -> Scope:
    if kind is DocumentKind.LONG_TERM:
        if project_id is not None or session_id is not None:
            raise InvalidInput("a long-term document belongs to a user, not to a project or session")
        if document["user_id"] != user_id:
            raise DocumentError("$.user_id", f"is {document['user_id']!r} but the import is for user {user_id!r}")
        return _scope(user_id, None, None)
    if kind is DocumentKind.PROJECT:
        if session_id is not None:
            raise InvalidInput("a project document belongs to a project, not to a session")
        if project_id is not None and project_id != document["project_id"]:
            raise DocumentError(
                "$.project_id", f"is {document['project_id']!r} but the import is for project {project_id!r}"
            )
        return _scope(user_id, document["project_id"], None)
    if session_id is not None and session_id != document["session_id"]:
        raise DocumentError(
            "$.session_id", f"is {document['session_id']!r} but the import is for session {session_id!r}"
        )
    return _scope(user_id, project_id, document["session_id"])
