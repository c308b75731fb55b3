import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippograph.memory.lifecycle.window_budget import ORDER, SHARES, Section, allocate, base_budgets


def test_shares_are_the_papers_table_and_sum_to_the_window() -> None:
    assert [s.value for s in ORDER] == [
        "system_prompt", "global_memory", "project_memory", "retrieved_context",
        "conversation_history", "tool_definitions", "current_query", "generation_headroom",
    ]
    assert abs(sum(SHARES.values()) - 1.0) < 1e-9
    assert base_budgets(128_000) == {
        Section.SYSTEM_PROMPT: 6400, Section.GLOBAL_MEMORY: 6400, Section.PROJECT_MEMORY: 12800,
        Section.RETRIEVED_CONTEXT: 19200, Section.CONVERSATION_HISTORY: 64000, Section.TOOL_DEFINITIONS: 6400,
        Section.CURRENT_QUERY: 6400, Section.GENERATION_HEADROOM: 6400,
    }


def test_unused_budget_flows_to_retrieved_context_then_history() -> None:
    budgets = allocate(100_000, {Section.SYSTEM_PROMPT: 1000, Section.RETRIEVED_CONTEXT: 30_000, Section.CONVERSATION_HISTORY: 90_000})
    # Unused: system 4000, global 5000, project 10000, tools 5000, query 5000 = 29000.
    assert budgets[Section.RETRIEVED_CONTEXT] == 30_000  # 15000 + 15000 of the surplus
    assert budgets[Section.CONVERSATION_HISTORY] == 50_000 + 14_000
    assert budgets[Section.GENERATION_HEADROOM] == 5000


@pytest.mark.parametrize("window", [0, 100, 3_000_000, 8192.5])
def test_impossible_windows_are_refused(window) -> None:
    with pytest.raises(ValueError):
        base_budgets(window)


@settings(max_examples=300, deadline=None)
@given(
    window=st.integers(8_000, 1_000_000),
    demand=st.dictionaries(st.sampled_from(list(Section)), st.integers(0, 2_000_000)),
)
def test_no_section_and_no_total_ever_passes_its_budget(window: int, demand: dict) -> None:
    budgets = allocate(window, demand)
    base = base_budgets(window)
    assert sum(budgets.values()) <= window
    assert budgets[Section.GENERATION_HEADROOM] == base[Section.GENERATION_HEADROOM]
    for section in ORDER:
        if section not in (Section.RETRIEVED_CONTEXT, Section.CONVERSATION_HISTORY, Section.GENERATION_HEADROOM):
            assert budgets[section] == min(base[section], demand.get(section, 0))
