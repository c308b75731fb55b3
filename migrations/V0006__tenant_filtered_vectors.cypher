// Tenant filters inside the vector index (Neo4j 2026).
//
// Recall asked memory_embedding for a global top k and kept the caller's hits, so an owner
// with a small share of a large store got fewer than it needed. The index now also holds
// the scope properties, and recall asks it for the caller's own top k within scope
// (hippograph/graph/recall.py: SEARCH ... WHERE m.userId = $userId AND m.tier = ...).
// Vectors are kept at full precision: quantised, the index lost about 1 in 12 of the
// exact top 10 in a filtered search.

DROP INDEX memory_embedding IF EXISTS;

CYPHER 25 CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (memory:Memory) ON memory.embedding
WITH [memory.userId, memory.tier, memory.projectId, memory.sessionId, memory.archived, memory.validUntil]
OPTIONS {indexConfig: {`vector.dimensions`: ${embedding_dimension}, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}};
