"""The transcript's rules about a memory's attributes: how they are read, and how provenance is merged."""

from __future__ import annotations

import pytest

from hippograph.memory.lifecycle.transcript import merge_provenance, parse_attributes


def test_provenance_lists_are_united_in_order_and_other_values_are_the_survivors() -> None:
    kept = {"session": "s1", "sourceRefs": ["D1:3"], "sourceTurns": ["a"]}
    merged = {"session": "s2", "sourceRefs": ["D2:7", "D1:3"], "sourceTurns": ["b"], "speaker": "Ana"}
    assert merge_provenance(kept, merged) == {
        "session": "s1", "sourceRefs": ["D1:3", "D2:7"], "sourceTurns": ["a", "b"], "speaker": "Ana",
    }
    assert merge_provenance({}, merged) == merged


def test_merging_leaves_both_inputs_as_they_were() -> None:
    kept, merged = {"sourceRefs": ["D1:1"]}, {"sourceRefs": ["D1:2"]}
    merge_provenance(kept, merged)
    assert kept == {"sourceRefs": ["D1:1"]} and merged == {"sourceRefs": ["D1:2"]}


@pytest.mark.parametrize(("stored", "read"), [
    (None, {}),
    ("", {}),
    ('{"speaker": "Ana", "sourceRefs": ["D1:1"]}', {"speaker": "Ana", "sourceRefs": ["D1:1"]}),
    ('["not", "an", "object"]', {}),
    ("42", {}),
])
def test_stored_attributes_read_as_an_object_or_as_nothing(stored: str | None, read: dict) -> None:
    assert parse_attributes(stored) == read
