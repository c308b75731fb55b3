// A LangGraph store's items (hippograph/langgraph.py) are memories of kind 'item', kept until their
// caller deletes them (hippograph/graph/vocabulary.py, ITEM_KIND). The store wrote them as notes before:
// each is known by the request id it was written with and the one attribute it keeps.

MATCH (m:Memory)
WHERE m.kind = 'note' AND m.requestId STARTS WITH 'langgraph-' AND m.attributes STARTS WITH '{"langgraph": '
CALL (m) {
  SET m.kind = 'item'
} IN TRANSACTIONS OF 10000 ROWS;
