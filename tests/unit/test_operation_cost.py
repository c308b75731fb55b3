"""The cost of an operation as it expands, measured in time linear in its text."""

from __future__ import annotations

import time

import pytest
from graphql import OperationDefinitionNode, get_introspection_query, parse

from hippograph.schema import limits
from hippograph.operations.errors import BadInput, LimitExceeded
from hippograph.schema.operation_cost import Cost, anonymous, check


def measure(text: str) -> Cost:
    document = parse(text)
    operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    return check(document, operation)


def bomb(levels: int) -> str:
    fragments = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels))
    return f"{{ ...F0 }} {fragments} fragment F{levels} on Query {{ a: __typename }}"


def test_fragments_count_as_they_expand() -> None:
    assert measure(bomb(3)) == Cost(depth=0, fields=8, aliases=8)
    assert measure("{ memories { nodes { ...M } } } fragment M on Memory { id content }") == Cost(2, 4, 0)


def test_a_fragment_bomb_is_measured_without_expanding_it() -> None:
    started = time.process_time()
    with pytest.raises(LimitExceeded):
        measure(bomb(60))
    # 2**60 fields, measured in a walk of sixty fragments.
    assert time.process_time() - started < 1.0


def test_depth_counts_nesting_but_not_introspection() -> None:
    # Eleven fields from the root to the deepest leaf: ten levels below the first.
    nested = "{ entity(id: \"x\") { " + "edges { to { " * 4 + "edges { id }" + " } }" * 4 + " } }"
    assert measure(nested).depth == 10
    with pytest.raises(LimitExceeded, match="depth"):
        measure("{ entity(id: \"x\") { " + "edges { to { " * 5 + "id" + " } }" * 5 + " } }")
    assert measure(get_introspection_query(descriptions=True)).depth == 0


@pytest.mark.parametrize("text, bound", [
    ("{ " + " ".join(f"a{i}: __typename" for i in range(limits.MAX_ALIASES + 1)) + " }", "aliases"),
    ("{ " + "serverInfo { version } " * (limits.MAX_REPEATS + 1) + "}", "times"),
    (" ".join(f"fragment G{i} on Query {{ __typename }}" for i in range(limits.MAX_FRAGMENTS + 1)) + " { ...G0 }",
     "fragments"),
    ("{ x: serverInfo { " + " ".join(f"...S{i % 5}" for i in range(limits.MAX_SPREADS + 1)) + " } } "
     + " ".join(f"fragment S{i} on ServerInfo {{ version }}" for i in range(5)), "spreads"),
])
def test_each_bound_is_a_limit(text: str, bound: str) -> None:
    with pytest.raises(LimitExceeded, match=bound):
        measure(text)


def test_unknown_and_cyclic_fragments_are_bad_input() -> None:
    with pytest.raises(BadInput, match="Unknown fragment"):
        measure("{ ...Nowhere }")
    with pytest.raises(BadInput, match="within itself"):
        measure("{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }")


def test_only_plain_key_free_fields_are_anonymous() -> None:
    def operation(text: str) -> OperationDefinitionNode:
        return next(d for d in parse(text).definitions if isinstance(d, OperationDefinitionNode))

    assert anonymous(operation("{ serverInfo { version } __typename }"))
    assert anonymous(operation("{ __schema { queryType { name } } }"))
    assert not anonymous(operation("{ serverInfo { version } memories { nodes { id } } }"))
    assert not anonymous(operation("{ ...F } fragment F on Query { serverInfo { version } }"))
    assert not anonymous(operation("mutation { __typename }"))
