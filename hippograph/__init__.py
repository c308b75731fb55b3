"""hippograph: memory for AI assistants and agents, on Neo4j, served over GraphQL."""

__version__ = "0.1.0"
