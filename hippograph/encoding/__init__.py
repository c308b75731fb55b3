"""The models that turn text into vectors: loading, verifying, encoding, reranking."""
