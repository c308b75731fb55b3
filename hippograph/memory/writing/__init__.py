"""The write path: the one writer every memory write goes through (admit, then store), its entry
points, and what shapes a memory before and while it is stored: secrets, entities, the knowledge
graph, compression, edits and forgetting."""
