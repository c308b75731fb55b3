// Full-text search that reads only the caller's nodes.
//
// memory_text and entity_name held only text, so recall asked Lucene for the best hits of
// every user and kept the caller's: on a store of many users it read hundreds of other
// users' hits for each of its own (10,000 db hits for a query at 100,000 memories).
// Both now hold userId too, and recall puts the caller's id into the Lucene query as a
// clause of boost 0 (hippograph/memory/lucene.py, owned_query): it filters and moves no
// score. Keywords name their fields (content, summary; name), so they never match an id.

DROP INDEX memory_text IF EXISTS;

CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (memory:Memory) ON EACH [memory.content, memory.summary, memory.userId]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};

DROP INDEX entity_name IF EXISTS;

CREATE FULLTEXT INDEX entity_name IF NOT EXISTS
FOR (entity:Entity) ON EACH [entity.name, entity.userId]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
