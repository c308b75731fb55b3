"""Print the schema in SDL: ``python -m hippograph.schema > schema.graphql``."""

from __future__ import annotations

from hippograph.schema import schema

print(schema.as_str())
