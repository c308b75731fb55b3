"""The MCP server: hippograph's memory as tools an agent calls (Model Context Protocol, official SDK).

``tools.py`` resolves each tool — the same rules of ``hippograph.memory`` that the
GraphQL resolvers call, with the same input limits and error codes; ``server.py``
builds the server, serves it over stdio (``hippograph mcp``) and gives
``hippograph serve`` the handler it mounts at ``/mcp`` (streamable HTTP).
"""
