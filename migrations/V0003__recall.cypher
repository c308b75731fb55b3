// Recall: a session's timeline, so that the memories right before and after a match
// are one index seek away (hippograph/graph/recall.py, neighbouring memories).
CREATE INDEX memory_session_timeline IF NOT EXISTS
FOR (memory:Memory) ON (memory.userId, memory.sessionId, memory.createdAt);
