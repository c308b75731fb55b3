// The sketch goes: each memory's 96-number projection, which recall's exact scan ranked by before
// taking the exact cosine of the best 100. The scan runs only for an owner of at most 100 memories,
// so the exact cosine was always taken of every one and the sketch changed no ranking; recall now
// ranks the scan by the exact cosine alone, and the property is dropped.

MATCH (m:Memory) WHERE m.sketch IS NOT NULL
CALL (m) {
  REMOVE m.sketch
} IN TRANSACTIONS OF 10000 ROWS;
