"""A memory over time: sessions and their transcripts, summaries and facts, consolidation, and the context
window assembled from it all."""
