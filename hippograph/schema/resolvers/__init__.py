"""Resolvers, one module per area; ``hippograph.schema.root`` lists the fields they back."""
