"""The write path and what shapes a memory before and while it is stored: secrets, entities, the knowledge graph, compression, edits and forgetting."""
