// Search indexes. The vector dimension follows the configured embedding model.

CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (memory:Memory) ON (memory.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: ${embedding_dimension}, `vector.similarity_function`: 'cosine'}};

// The english analyzer stems ("deploying" finds "deployed") and drops stop words.
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (memory:Memory) ON EACH [memory.content, memory.summary]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};

CREATE FULLTEXT INDEX entity_name IF NOT EXISTS
FOR (entity:Entity) ON EACH [entity.name]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};

// Scope filters: recall reads a caller's memories through these, never the whole store.
CREATE INDEX memory_user IF NOT EXISTS FOR (memory:Memory) ON (memory.userId);
CREATE INDEX memory_project IF NOT EXISTS FOR (memory:Memory) ON (memory.projectId);
CREATE INDEX memory_session IF NOT EXISTS FOR (memory:Memory) ON (memory.sessionId);
CREATE INDEX memory_tier IF NOT EXISTS FOR (memory:Memory) ON (memory.tier);
CREATE INDEX memory_created IF NOT EXISTS FOR (memory:Memory) ON (memory.createdAt);
CREATE INDEX entity_user IF NOT EXISTS FOR (entity:Entity) ON (entity.userId);
CREATE INDEX turn_session IF NOT EXISTS FOR (turn:Turn) ON (turn.userId, turn.sessionId);
CREATE INDEX audit_user_time IF NOT EXISTS FOR (event:AuditEvent) ON (event.userId, event.at);
CREATE INDEX audit_operation IF NOT EXISTS FOR (event:AuditEvent) ON (event.operation);
CREATE INDEX audit_time IF NOT EXISTS FOR (event:AuditEvent) ON (event.at);
