"""The bounds of a GraphQL document and its transport: depth, aliases, tokens, the operation's expanded
size, the request body, subscriptions per socket. The bounds of what an operation takes — ids, texts,
lists, pages — are the operations' (``hippograph.operations.limits``), shared with MCP.

Passing any of these answers ``LIMIT_EXCEEDED``.
"""

from __future__ import annotations

MAX_DEPTH = 10
MAX_ALIASES = 20
MAX_TOKENS = 2000
# Counted as the operation expands (``hippograph.schema.operation_cost``), fragments and all.
MAX_FIELDS = 500
MAX_FRAGMENTS = 50
MAX_SPREADS = 200
MAX_REPEATS = 20
MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_SUBSCRIPTIONS_PER_CONNECTION = 10
