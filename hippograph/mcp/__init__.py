"""The MCP server: hippograph's memory as tools an agent calls (Model Context Protocol, official SDK).

``tools.py`` translates each tool to the operation (``hippograph.operations``) the GraphQL field of
the same name calls — the same limits, events, metrics and error codes — and back; ``server.py``
builds the server, codes the refusals the SDK makes before a tool runs, serves it over stdio
(``hippograph mcp``) and gives ``hippograph serve`` the handler it mounts at ``/mcp`` (streamable HTTP).
"""
