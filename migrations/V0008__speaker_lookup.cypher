// Who a query names: before a query is embedded, recall asks which of its phrases are the speaker of
// one of the caller's memories (hippograph/graph/recall.py, NAMED_SPEAKERS), and embeds the query
// also without those names. One entry of this index settles each phrase, however large the caller.
CREATE INDEX memory_speaker IF NOT EXISTS
FOR (m:Memory) ON (m.userId, m.speaker);
