"""What an operation would cost to validate and run, measured in time linear in its text.

A fragment may be spread many times, and each of its spreads may spread others: a
document of a hundred tokens can stand for a tree of a billion fields. Expanding spreads
to measure that tree is itself the attack (each level doubles the work), so each
fragment is measured once and its figures are reused wherever it is spread. The figures
are those of the expanded tree — what validation and execution would really walk — so a
small document that stands for a huge tree is refused before any rule runs on it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import cast

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
)

from hippograph.operations.errors import BadInput, LimitExceeded
from hippograph.schema.limits import MAX_ALIASES, MAX_DEPTH, MAX_FIELDS, MAX_FRAGMENTS, MAX_REPEATS, MAX_SPREADS

# What a caller without a key may ask: the server's versions, and the schema itself.
ANONYMOUS_FIELDS = frozenset({"serverInfo", "__typename", "__schema", "__type"})


@dataclass(frozen=True)
class Cost:
    """Of a selection set as it expands: its deepest nesting of fields (introspection fields
    do not nest: GraphiQL's own schema query is deeper than any of ours), the fields and the
    aliases it holds."""

    depth: int = 0
    fields: int = 0
    aliases: int = 0

    def add(self, other: Cost) -> Cost:
        return Cost(max(self.depth, other.depth), self.fields + other.fields, self.aliases + other.aliases)


def check(document: DocumentNode, operation: OperationDefinitionNode) -> Cost:
    """The operation's cost; ``LimitExceeded`` past a bound, ``BadInput`` for a spread of a fragment
    that does not exist or that spreads itself (which validation would report, but only after
    the walk this check exists to avoid)."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    if len(fragments) > MAX_FRAGMENTS:
        raise LimitExceeded(f"the document defines more than {MAX_FRAGMENTS} fragments")
    spreads = sum(
        _spreads(d.selection_set)
        for d in document.definitions
        if isinstance(d, (OperationDefinitionNode, FragmentDefinitionNode))
    )
    if spreads > MAX_SPREADS:
        raise LimitExceeded(f"the document spreads fragments more than {MAX_SPREADS} times")
    cost = _Measure(fragments).selections(operation.selection_set)
    if cost.depth > MAX_DEPTH:
        raise LimitExceeded(f"the operation exceeds maximum operation depth of {MAX_DEPTH}")
    if cost.aliases > MAX_ALIASES:
        raise LimitExceeded(f"{cost.aliases} aliases found. Allowed: {MAX_ALIASES}")
    if cost.fields > MAX_FIELDS:
        raise LimitExceeded(f"the operation expands to more than {MAX_FIELDS} fields")
    return cost


def anonymous(operation: OperationDefinitionNode) -> bool:
    """Whether a caller without a key may run the operation: a query whose top-level selections
    are plain fields that need no key (read from the text alone, before any validation)."""
    return operation.operation is OperationType.QUERY and all(
        isinstance(s, FieldNode) and s.name.value in ANONYMOUS_FIELDS for s in operation.selection_set.selections
    )


def _spreads(selection_set: SelectionSetNode | None) -> int:
    if selection_set is None:
        return 0
    count = 0
    for selection in selection_set.selections:
        if isinstance(selection, FragmentSpreadNode):
            count += 1
        else:
            count += _spreads(cast("FieldNode | InlineFragmentNode", selection).selection_set)
    return count


class _Measure:
    """One walk of the document: each fragment measured the first time it is spread.

    Besides the cost, each selection set is measured for the response keys it asks at its own
    level: validation compares every pair of fields that answer to one key (and their
    sub-selections), so a key asked hundreds of times costs seconds in a document that passes
    every other bound.
    """

    def __init__(self, fragments: dict[str, FragmentDefinitionNode]) -> None:
        self._fragments = fragments
        self._measured: dict[str, tuple[Cost, Counter[str]]] = {}
        self._open: set[str] = set()

    def selections(self, selection_set: SelectionSetNode | None) -> Cost:
        cost, keys = self._level(selection_set)
        key, times = max(keys.items(), key=lambda item: item[1], default=("", 0))
        if times > MAX_REPEATS:
            raise LimitExceeded(f"the field {key!r} is asked {times} times in one selection (at most {MAX_REPEATS})")
        return cost

    def _level(self, selection_set: SelectionSetNode | None) -> tuple[Cost, Counter[str]]:
        cost, keys = Cost(), Counter[str]()
        for selection in selection_set.selections if selection_set is not None else ():
            if isinstance(selection, FieldNode):
                inner = self.selections(selection.selection_set)
                nests = selection.selection_set is not None and not selection.name.value.startswith("__")
                cost = cost.add(
                    Cost(
                        inner.depth + 1 if nests else 0, inner.fields + 1, inner.aliases + (selection.alias is not None)
                    )
                )
                keys[(selection.alias or selection.name).value] += 1
            else:
                inner, inner_keys = (
                    self._level(selection.selection_set)
                    if isinstance(selection, InlineFragmentNode)
                    else self.fragment(cast(FragmentSpreadNode, selection).name.value)
                )
                cost = cost.add(inner)
                keys.update(inner_keys)
        return cost, keys

    def fragment(self, name: str) -> tuple[Cost, Counter[str]]:
        if name in self._measured:
            return self._measured[name]
        if name not in self._fragments:
            raise BadInput(f'Unknown fragment "{name}".')
        if name in self._open:
            raise BadInput(f'Cannot spread fragment "{name}" within itself.')
        self._open.add(name)
        self._measured[name] = measured = self._level(self._fragments[name].selection_set)
        self._open.discard(name)
        return measured
