// A client may send a request id with a write; a retry with the same id answers with the memory the
// first attempt stored instead of storing it again. The id lives on the memory it wrote (so forgetting
// the memory forgets it) and is unique per user: another tenant's ids never collide with one's own,
// and this constraint's index is what a retry is looked up by.
CREATE CONSTRAINT memory_request IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.userId, m.requestId) IS UNIQUE;
