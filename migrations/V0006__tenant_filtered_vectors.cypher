// Tenant filters inside the vector index (Neo4j 2026).
//
// Recall asked memory_embedding for a global top k and kept the caller's hits, so an owner
// with a small share of a large store got fewer than it needed. The index now also holds
// the scope properties, and recall asks it for the caller's own top k within scope
// (hippograph/graph/recall.py: SEARCH ... WHERE m.userId = $userId AND m.tier = ...).
// Vectors are kept at full precision: quantised, the index lost about 1 in 12 of the
// exact top 10 in a filtered search. A search looks at 4 times the candidates it returns: at the
// default 1, a tenant holding a fifth of a 100,000-memory store got 94 % of its exact top 10, at 4
// 99 %, in the same time (hippograph bench latency).

DROP INDEX memory_embedding IF EXISTS;

CYPHER 25 CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (memory:Memory) ON memory.embedding
WITH [memory.userId, memory.tier, memory.projectId, memory.sessionId, memory.archived, memory.validUntil]
OPTIONS {indexConfig: {`vector.dimensions`: ${embedding_dimension}, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false, `vector.default_search_expansion_factor`: 4.0}};
