"""The context-window budget of the Hanzo paper (Table: context window budget allocation).

| Section              | Budget |
|----------------------|--------|
| System prompt        | 5 %    |
| Global memory        | 5 %    |
| Project memory       | 10 %   |
| Retrieved context    | 15 %   |
| Conversation history | 50 %   |
| Tool definitions     | 5 %    |
| Current query        | 5 %    |
| Generation headroom  | 5 %    |

Sections are filled in this order. What a section leaves unused flows to
retrieved context first, then to conversation history; generation headroom is
never given away. The total never passes the window.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum


class Section(str, Enum):
    SYSTEM_PROMPT = "system_prompt"
    GLOBAL_MEMORY = "global_memory"
    PROJECT_MEMORY = "project_memory"
    RETRIEVED_CONTEXT = "retrieved_context"
    CONVERSATION_HISTORY = "conversation_history"
    TOOL_DEFINITIONS = "tool_definitions"
    CURRENT_QUERY = "current_query"
    GENERATION_HEADROOM = "generation_headroom"


SHARES: dict[Section, float] = {
    Section.SYSTEM_PROMPT: 0.05,
    Section.GLOBAL_MEMORY: 0.05,
    Section.PROJECT_MEMORY: 0.10,
    Section.RETRIEVED_CONTEXT: 0.15,
    Section.CONVERSATION_HISTORY: 0.50,
    Section.TOOL_DEFINITIONS: 0.05,
    Section.CURRENT_QUERY: 0.05,
    Section.GENERATION_HEADROOM: 0.05,
}
ORDER: tuple[Section, ...] = tuple(SHARES)
SURPLUS_TAKERS: tuple[Section, ...] = (Section.RETRIEVED_CONTEXT, Section.CONVERSATION_HISTORY)
MIN_WINDOW = 1024
MAX_WINDOW = 2_000_000


def base_budgets(window: int) -> dict[Section, int]:
    """Each section's share of the window, rounded down (so the sum never passes it)."""
    if not isinstance(window, int) or not MIN_WINDOW <= window <= MAX_WINDOW:
        raise ValueError(
            f"a context window is a whole number of tokens from {MIN_WINDOW} to {MAX_WINDOW}, got {window!r}"
        )
    return {section: math.floor(share * window) for section, share in SHARES.items()}


def allocate(window: int, demand: Mapping[Section, int]) -> dict[Section, int]:
    """Final budgets: base shares, with every unused token handed to retrieved context, then history."""
    budgets = base_budgets(window)
    surplus = 0
    for section in ORDER:
        if section in SURPLUS_TAKERS or section is Section.GENERATION_HEADROOM:
            continue
        wanted = max(0, int(demand.get(section, 0)))
        if wanted < budgets[section]:
            surplus += budgets[section] - wanted
            budgets[section] = wanted
    for section in SURPLUS_TAKERS:
        wanted = max(0, int(demand.get(section, 0)))
        if wanted <= budgets[section]:
            surplus += budgets[section] - wanted
            budgets[section] = wanted
        else:
            extra = min(surplus, wanted - budgets[section])
            budgets[section] += extra
            surplus -= extra
    return budgets
