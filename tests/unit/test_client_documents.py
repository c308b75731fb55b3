"""The Python client agrees with schema.graphql: every document it sends validates, every result field
has the schema's type (nullability, list, scalar, enum values), every input it builds is one the
schema accepts, and every enum has the schema's values. A change to the schema that the client
does not follow fails here."""

from __future__ import annotations

import dataclasses
import inspect
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from graphql import (
    GraphQLEnumType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, build_schema, parse, validate,
)
from graphql.execution.values import get_variable_values

from hippograph.client import operations, types
from hippograph.client.documents import graphql_name, hints, unwrap

SCHEMA: GraphQLSchema = build_schema((Path(__file__).resolve().parents[2] / "schema.graphql").read_text())
SCALARS: dict[str, Any] = {"String": str, "ID": str, "Int": int, "Float": float, "Boolean": bool, "DateTime": datetime,
                           "JSON": Any}
ROOTS = {"query": SCHEMA.query_type, "mutation": SCHEMA.mutation_type, "subscription": SCHEMA.subscription_type}
NOW = datetime(2026, 1, 2, tzinfo=timezone.utc)


@pytest.mark.parametrize("spec", operations.SPECS, ids=lambda spec: spec.field)
def test_every_document_validates_against_the_schema(spec: operations.Spec) -> None:
    assert validate(SCHEMA, parse(spec.document)) == []


def _agrees(schema_type: Any, annotation: Any, where: str) -> list[str]:
    """Where ``annotation`` (a dataclass field's) differs from ``schema_type`` (the field's in the schema)."""
    named, nullable, many = unwrap(annotation)
    problems = []
    if nullable == isinstance(schema_type, GraphQLNonNull):
        problems.append(f"{where}: nullable in {'Python' if nullable else 'the schema'} only")
    if isinstance(schema_type, GraphQLNonNull):
        schema_type = schema_type.of_type
    if many != isinstance(schema_type, GraphQLList):
        return [*problems, f"{where}: a list on one side only"]
    if many:
        problems += _agrees(schema_type.of_type, named, f"{where}[]")
        return problems
    if isinstance(schema_type, GraphQLEnumType):
        if not (isinstance(named, type) and issubclass(named, Enum)) or {m.value for m in named} != set(schema_type.values):
            problems.append(f"{where}: enum {schema_type.name} differs from {named}")
    elif isinstance(schema_type, GraphQLObjectType):
        if not dataclasses.is_dataclass(named):
            return [*problems, f"{where}: {schema_type.name} is an object, not {named}"]
        problems += _object_agrees(schema_type, named)
    elif SCALARS[schema_type.name] is not named:
        problems.append(f"{where}: {schema_type.name} is not {named}")
    return problems


def _object_agrees(schema_type: GraphQLObjectType, cls: type) -> list[str]:
    problems = []
    for f in dataclasses.fields(cls):
        found = schema_type.fields.get(graphql_name(f.name))
        if found is None:
            problems.append(f"{cls.__name__}.{f.name}: no field {graphql_name(f.name)} on {schema_type.name}")
        else:
            problems += _agrees(found.type, hints(cls)[f.name], f"{cls.__name__}.{f.name}")
    return problems


@pytest.mark.parametrize("spec", operations.SPECS, ids=lambda spec: spec.field)
def test_every_result_field_has_the_schemas_type(spec: operations.Spec) -> None:
    field_type = ROOTS[spec.kind].fields[spec.field].type
    while isinstance(field_type, (GraphQLNonNull, GraphQLList)):
        field_type = field_type.of_type
    if spec.payload is not None:  # a mutation's union: its success member
        field_type = SCHEMA.get_type(spec.payload)
        assert field_type in SCHEMA.get_possible_types(ROOTS[spec.kind].fields[spec.field].type.of_type)
    assert _object_agrees(field_type, spec.result) == []


def test_the_client_enums_are_the_schemas() -> None:
    enums = [value for value in vars(types).values() if isinstance(value, type) and issubclass(value, Enum)
             and value.__module__ == types.__name__]
    assert len(enums) == 9
    for enum in enums:
        assert {m.value for m in enum} == set(SCHEMA.get_type(enum.__name__).values), enum.__name__


AS_OF = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
# Every parameter of every operation function given, so each input field the client can send is checked.
CALLS = {
    "recall": dict(query="q", priority=types.Priority.HIGH, profile=types.RecallProfile.IZANAGI,
                   tiers=[types.Tier.PROJECT], project="p", session="s", ranking=5, as_of=AS_OF),
    "item_scores": dict(query="q", memories=["m"]),
    "memory": dict(id="m", as_of=AS_OF),
    "memories": dict(tiers=[types.Tier.PROJECT], project="p", session="s", kinds=[types.MemoryKind.NOTE],
                     include_archived=True, request_ids=["r"], first=100, after="c"),
    "session": dict(id="s"),
    "transcript": dict(session="s"),
    "trace": dict(from_="e", edge_types=[types.EdgeType.CAUSED], direction=types.Direction.BOTH, max_depth=2,
                  as_of=AS_OF),
    "chains": dict(project="p", first=10, as_of=AS_OF),
    "tier_usage": dict(project="p", session="s", as_of=AS_OF),
    "verify_erasure": dict(receipt=types.ErasureReceipt(
        user_id="u", scope="memory", scope_id="m", at=AS_OF, tombstone_id="t", nodes=[types.ErasedCount("Memory", 1)],
        relationships=[types.ErasedCount("REMEMBERS", 1)], ids=["m"], digest="0" * 64)),
    "remember": dict(content="c", tier=types.Tier.SESSION, kind=types.MemoryKind.FACT, project="p", session="s",
                     relevance=0.5, summary="s", attributes={"a": 1}, mentions=[(types.EntityType.TECHNOLOGY, "Redis")], fields=["f"],
                     request_id="r"),
    "record_decision": dict(decision="d", reason="r", conflicts_with=["x"], tier=types.Tier.PROJECT, project="p",
                            session="s", request_id="r", informed_by="e"),
    "record_error": dict(error="e", fix="f", caused_by="d", tier=types.Tier.PROJECT, project="p", session="s",
                         request_id="r"),
    "record_pattern": dict(pattern="p", count=2, tier=types.Tier.LONG_TERM, project="p", session="s",
                           request_id="r"),
    "set_preference": dict(key="k", value="v", request_id="r"),
    "start_session": dict(id="s", project="p"),
    "append_turn": dict(session="s", role="user", content="c", project="p", ref="r1", item="{}"),
    "end_session": dict(id="s"),
    "forget": dict(memory="m", entity="e", turn="t"),
    "forget_session": dict(id="s"),
    "forget_project": dict(id="p"),
    "forget_user": dict(user="u"),
    "memory_events": dict(project="p"),
}


def test_every_operation_function_is_checked() -> None:
    functions = {name for name, value in vars(operations).items()
                 if inspect.isfunction(value) and not name.startswith("_") and value.__module__ == operations.__name__}
    assert functions == set(CALLS)
    for name, call in CALLS.items():
        given = set(call)
        assert given == set(inspect.signature(getattr(operations, name)).parameters), name


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_operations_variables_are_accepted_by_the_schema(name: str) -> None:
    operation = getattr(operations, name)(**CALLS[name])
    definition = parse(operation.document).definitions[0]
    coerced = get_variable_values(SCHEMA, definition.variable_definitions, operation.variables)
    assert not isinstance(coerced, list), coerced  # a list of errors when the schema refuses a value
    # Nothing given was dropped on the way (an input field the schema does not know is an error above).
    sent = operation.variables.get("input", operation.variables)
    assert all(value is not None for value in sent.values()), sent
