"""Context assembly: fill a model's context window section by section, within budget.

Budgets come from ``hippograph.memory.lifecycle.window_budget`` (the paper's table). Sections are
filled in its order: system prompt, global memory (the user's standing
preferences and rules, then long-term memories that fit the query), project
memory (active decisions, then project memories that fit the query),
retrieved context (the recall ranking over every tier, minus what is already
in), conversation history (the transcript, newest turns kept when it must be
cut), tool definitions, the current query, and generation headroom, which stays
empty for the model's answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from hippograph.graph import context_window as context_cypher
from hippograph.graph import sessions as session_cypher
from hippograph.memory.lifecycle.window_budget import ORDER, Section, allocate
from hippograph.memory.errors import InvalidInput, NotFound
from hippograph.memory.recall.query import recall
from hippograph.graph.vocabulary import Tier
from hippograph.memory.tiers import Scope
from hippograph.memory.lifecycle.transcript import read_transcript
from hippograph.memory.services import Services


@dataclass
class Piece:
    text: str
    tokens: int
    id: str | None = None


@dataclass
class ContextSection:
    section: Section
    budget: int
    pieces: list[Piece] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.pieces)

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.pieces)


@dataclass
class AssembledContext:
    window: int
    sections: list[ContextSection]

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sections)

    def section(self, which: Section) -> ContextSection:
        return next(s for s in self.sections if s.section is which)


def assemble_context(
    services: Services,
    scope: Scope,
    query: str,
    context_window: int,
    system_prompt: str = "",
    tool_definitions: str = "",
    profile: str | None = None,
    now: datetime | None = None,
) -> AssembledContext:
    """The eight sections for ``query`` in ``scope``'s session, each within its budget, the total within the window."""
    if scope.session_id is None:
        raise InvalidInput("context assembly needs a session")
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("context assembly needs a query")
    count = services.tokens.count
    with services.driver.session(database=services.database) as session:
        if session.execute_read(session_cypher.get_session, scope.user_id, scope.session_id) is None:
            raise NotFound(f"session {scope.session_id} not found")
        standing = session.execute_read(context_cypher.standing_memories, scope.user_id, scope.project_id)
    ranking = recall(services, query, scope, "critical", profile, now=now, record_access=False).ranking

    def memories(rows: Sequence[tuple[str, str]]) -> list[Piece]:
        return [Piece(text, count(text), memory_id) for memory_id, text in rows]

    global_rows = [(r["id"], r["content"]) for r in standing if r["tier"] == Tier.LONG_TERM.value]
    project_rows = [(r["id"], r["content"]) for r in standing if r["tier"] == Tier.PROJECT.value]
    global_rows += [(c.id, c.content) for c in ranking if c.tier is Tier.LONG_TERM]
    project_rows += [(c.id, c.content) for c in ranking if c.tier is Tier.PROJECT]
    history = [
        Piece(f"{'[summary] ' if e.is_summary else ''}{e.role}: {e.content}", 0, e.id)
        for e in read_transcript(services, scope)
    ]
    for piece in history:
        piece.tokens = count(piece.text)

    candidates: dict[Section, list[Piece]] = {
        Section.SYSTEM_PROMPT: [Piece(system_prompt, count(system_prompt))] if system_prompt else [],
        Section.GLOBAL_MEMORY: memories(unique_memories(global_rows)),
        Section.PROJECT_MEMORY: memories(unique_memories(project_rows)),
        Section.RETRIEVED_CONTEXT: memories(unique_memories([(c.id, c.content) for c in ranking])),
        Section.CONVERSATION_HISTORY: history,
        Section.TOOL_DEFINITIONS: [Piece(tool_definitions, count(tool_definitions))] if tool_definitions else [],
        Section.CURRENT_QUERY: [Piece(query, count(query))],
        Section.GENERATION_HEADROOM: [],
    }
    # Retrieved context repeats nothing the memory sections can already hold.
    placed = {p.id for s in (Section.GLOBAL_MEMORY, Section.PROJECT_MEMORY) for p in candidates[s]}
    candidates[Section.RETRIEVED_CONTEXT] = [p for p in candidates[Section.RETRIEVED_CONTEXT] if p.id not in placed]
    demand = {section: sum(p.tokens for p in pieces) for section, pieces in candidates.items()}
    budgets = allocate(context_window, demand)

    sections: list[ContextSection] = []
    for section in ORDER:
        filled = ContextSection(section, budgets[section])
        pieces = candidates[section]
        if section is Section.CONVERSATION_HISTORY:
            filled.pieces = newest_that_fit(pieces, budgets[section])
        elif section in (Section.SYSTEM_PROMPT, Section.TOOL_DEFINITIONS, Section.CURRENT_QUERY):
            filled.pieces = [_cut(services, p, budgets[section]) for p in pieces if budgets[section] > 0]
        else:
            filled.pieces = first_that_fit(pieces, budgets[section])
        sections.append(filled)
    return AssembledContext(context_window, sections)


def unique_memories(rows: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each memory once, where it first came (a standing rule is also a long-term memory the query fits)."""
    seen: set[str] = set()
    kept = []
    for memory_id, text in rows:
        if memory_id not in seen:
            seen.add(memory_id)
            kept.append((memory_id, text))
    return kept


def first_that_fit(pieces: Sequence[Piece], budget: int) -> list[Piece]:
    """Memory sections, in rank order: a piece too large is passed over and a later, smaller one may still fit."""
    kept, used = [], 0
    for piece in pieces:
        if used + piece.tokens <= budget:
            kept.append(piece)
            used += piece.tokens
    return kept


def newest_that_fit(pieces: Sequence[Piece], budget: int) -> list[Piece]:
    """The conversation: the newest turns that fit, in order, and nothing older than the first that did not
    (a history with a hole in it would read as something that was never said)."""
    kept, used = [], 0
    for piece in reversed(pieces):
        if used + piece.tokens > budget:
            break
        kept.append(piece)
        used += piece.tokens
    return list(reversed(kept))


def _cut(services: Services, piece: Piece, budget: int) -> Piece:
    if piece.tokens <= budget:
        return piece
    text = services.tokens.truncate(piece.text, budget)
    return Piece(text, services.tokens.count(text), piece.id)
