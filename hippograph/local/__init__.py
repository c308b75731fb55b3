"""Running hippograph's own Neo4j without Docker: the server from Maven's jars, and a Java to run it on."""
