// Two times on what changes (hippograph/graph/history.py): valid time (validFrom, validUntil) and
// record time (recordedAt, when the store first held it; closedAt, when it recorded validUntil).
// A store written before this knows no better record time than the valid one, so it is filled from
// that: a memory recorded when it was created, a closure recorded when it took effect.

MATCH (m:Memory) WHERE m.recordedAt IS NULL
CALL (m) {
  SET m.recordedAt = m.createdAt, m.validFrom = coalesce(m.validFrom, m.createdAt),
      m.closedAt = CASE WHEN m.validUntil IS NULL THEN null ELSE coalesce(m.closedAt, m.validUntil) END
} IN TRANSACTIONS OF 10000 ROWS;

MATCH (e:Entity) WHERE e.recordedAt IS NULL
CALL (e) {
  SET e.recordedAt = e.createdAt,
      e.closedAt = CASE WHEN e.validUntil IS NULL THEN null ELSE coalesce(e.closedAt, e.validUntil) END
} IN TRANSACTIONS OF 10000 ROWS;

// The versions an edit keeps are found from their memory (HAD_VERSION); this index finds a user's
// versions without it, for an erasure's receipt and its check.
CREATE INDEX memory_version_user IF NOT EXISTS FOR (v:MemoryVersion) ON (v.userId, v.id);
