"""The checked-in schema.graphql is the schema the code builds."""

from __future__ import annotations

from pathlib import Path

from hippograph.schema import schema

SDL = Path(__file__).resolve().parents[2] / "schema.graphql"


def test_schema_graphql_matches_the_code() -> None:
    assert SDL.read_text(encoding="utf-8") == schema.as_str() + "\n", (
        "schema.graphql is stale: regenerate it with `python -m hippograph.schema > schema.graphql`"
    )


def test_every_mutation_takes_a_typed_input_and_returns_a_union() -> None:
    mutation = schema._schema.mutation_type
    for name, field in mutation.fields.items():
        assert list(field.args) == ["input"], name
        returned = field.type.of_type
        assert type(returned).__name__ == "GraphQLUnionType", name
        members = {t.name for t in returned.types}
        assert {"BadUserInputError", "NotFoundError", "LimitExceededError"} <= members, name


def test_no_field_takes_a_user_id_except_the_admin_key_fields() -> None:
    for root in (schema._schema.query_type, schema._schema.mutation_type, schema._schema.subscription_type):
        for name, field in root.fields.items():
            if name in ("apiKeys", "createApiKey"):
                continue
            assert not any("user" in arg.lower() for arg in field.args), name
