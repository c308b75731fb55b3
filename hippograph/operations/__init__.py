"""The operations: one function for each thing a caller can do, whichever interface it asks through.

GraphQL's resolvers (``hippograph.schema``) and MCP's tools (``hippograph.mcp``) translate their
arguments, call the operation, and translate its answer and its errors back; the operation checks
the input against the limits (``limits``), runs the rule of ``hippograph.memory`` in a worker thread,
publishes the event its subscribers see (``event_bus``), records what it measures (``metrics``), and
raises what goes wrong with one vocabulary of codes (``errors``). One module per area, named as the
resolvers' are. Layers: api → schema / mcp → operations → memory → graph.
"""
