"""GraphQL object, input and enum types; each module holds one area of the schema."""
