// Identity of every node kind. Scope ids (user, project, session) are chosen by
// callers, so projects and sessions are unique per user, not globally.

CREATE CONSTRAINT user_id IF NOT EXISTS
FOR (user:User) REQUIRE user.id IS UNIQUE;

CREATE CONSTRAINT project_scope IF NOT EXISTS
FOR (project:Project) REQUIRE (project.userId, project.id) IS UNIQUE;

CREATE CONSTRAINT session_scope IF NOT EXISTS
FOR (session:Session) REQUIRE (session.userId, session.id) IS UNIQUE;

CREATE CONSTRAINT turn_id IF NOT EXISTS
FOR (turn:Turn) REQUIRE turn.id IS UNIQUE;

CREATE CONSTRAINT memory_id IF NOT EXISTS
FOR (memory:Memory) REQUIRE memory.id IS UNIQUE;

CREATE CONSTRAINT entity_id IF NOT EXISTS
FOR (entity:Entity) REQUIRE entity.id IS UNIQUE;

// Deterministic entity deduplication: one node per type and normalised name in a scope.
CREATE CONSTRAINT entity_identity IF NOT EXISTS
FOR (entity:Entity) REQUIRE (entity.userId, entity.scopeKey, entity.type, entity.normName) IS UNIQUE;

CREATE CONSTRAINT audit_event_id IF NOT EXISTS
FOR (event:AuditEvent) REQUIRE event.id IS UNIQUE;

CREATE CONSTRAINT api_key_id IF NOT EXISTS
FOR (key:ApiKey) REQUIRE key.id IS UNIQUE;

CREATE CONSTRAINT api_key_hash IF NOT EXISTS
FOR (key:ApiKey) REQUIRE key.hash IS UNIQUE;
