"""GraphQL and MCP say one thing one way: the score's parts as declared once, enumerations by one spelling."""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

import anyio
from graphql import GraphQLEnumType, GraphQLNonNull, GraphQLObjectType, build_schema

from hippograph.graph.recall import COMPONENTS, Components, recall_statement
from hippograph.graph.vocabulary import Tier
from hippograph.mcp.server import build
from hippograph.mcp.tools import recalled
from hippograph.memory.recall.query import Mode, RecalledItem
from hippograph.operations.event_bus import EventBus
from hippograph.operations.metrics import NoMetrics
from hippograph.schema import schema

GRAPHQL = build_schema(schema.as_str())


def mcp_tools() -> dict[str, Any]:
    async def nobody(_: object) -> None:
        return None

    async def listed() -> list[Any]:
        return await build(None, nobody, EventBus(), NoMetrics()).list_tools()  # type: ignore[arg-type]

    return {tool.name: tool for tool in anyio.run(listed)}


def test_the_score_components_are_declared_once_and_the_four_agree() -> None:
    declared = [part.name for part in fields(Components)]
    assert declared == list(COMPONENTS) == ["vector", "keyword", "recency", "relation", "time", "period", "carried"]

    # The Cypher: the statement's last RETURN has a column for each, in the declared order.
    returned = [re.split(r"\s+AS\s+", column.strip())[-1]
                for column in recall_statement(2).rsplit("RETURN", 1)[1].split(",")]
    assert [column for column in returned if column in declared] == declared

    # The domain object: what a candidate and a recalled item carry, read from a row of the statement.
    row = {name: 0.25 for name in declared} | {"vector": None}
    parts = Components.from_row(row)
    assert [part.name for part in fields(parts)] == declared and parts.vector is None and parts.period == 0.25

    # The GraphQL type: one field each, in order, null only where the declaration allows it, described as declared.
    graphql = GRAPHQL.get_type("ScoreComponents")
    assert isinstance(graphql, GraphQLObjectType)
    assert list(graphql.fields) == declared
    for part in fields(Components):
        field = graphql.fields[part.name]
        assert isinstance(field.type, GraphQLNonNull) == (part.name != "vector")
        assert field.description == part.metadata.get("description")

    # The MCP answer: every part by its declared name, and the tool says which they are.
    item = RecalledItem("m1", "text", Tier.PROJECT, Mode.FULL, 0.5, parts, 3)
    assert list(recalled(item)["components"]) == declared
    assert ", ".join(declared) in mcp_tools()["recall"].description


# The MCP argument enumerations and the GraphQL enum each stands for.
ENUMS = {"Tier": "Tier", "Priority": "Priority", "MemoryKind": "MemoryKind", "ProfileName": "RecallProfile",
         "EdgeType": "EdgeType", "Direction": "Direction"}


def test_every_enumeration_is_spelled_as_graphql_spells_it() -> None:
    seen = set()
    for tool in mcp_tools().values():
        for name, definition in tool.input_schema.get("$defs", {}).items():
            graphql = GRAPHQL.get_type(ENUMS[name])
            assert isinstance(graphql, GraphQLEnumType), name
            assert definition["enum"] == list(graphql.values), (tool.name, name)
            seen.add(name)
    assert seen == set(ENUMS)
