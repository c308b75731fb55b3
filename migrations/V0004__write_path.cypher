// The write path recognises an echo of a stored memory by its content hash, on every write.
CREATE INDEX memory_content_hash IF NOT EXISTS FOR (memory:Memory) ON (memory.contentHash);
