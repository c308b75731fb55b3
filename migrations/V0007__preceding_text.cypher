// Keywords of the turn before: a session memory is found by what was said right before it.
//
// An answer rarely repeats its question's words ("What did you do last weekend?" / "Went
// hiking with the kids"), so every memory of a session keeps the text said right before it in
// its session as `preceding` (hippograph/graph/memories.py, REFRESH_PRECEDING, kept current on
// every write, edit and deletion), and memory_text indexes it beside the memory's own text:
// on the LoCoMo development data, leave one conversation out, it lifted the keyword signal from
// the memory's own text (hippograph bench fit; see bench/REPORT.md).

MATCH (n:Memory) WHERE n.sessionId IS NOT NULL
CALL (n) {
  CALL (n) {
    OPTIONAL MATCH (before:Memory {userId: n.userId, sessionId: n.sessionId})
    WHERE before.createdAt < n.createdAt
    WITH before ORDER BY before.createdAt DESC, before.id DESC LIMIT 1
    RETURN before.content AS preceding
  }
  SET n.preceding = preceding
} IN TRANSACTIONS OF 10000 ROWS;

DROP INDEX memory_text IF EXISTS;

CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (memory:Memory) ON EACH [memory.content, memory.summary, memory.preceding, memory.userId]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
