"""Recall: the profiles that say how to find and budget memories, the query that does, and the bookkeeping
of what it returned."""
